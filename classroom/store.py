"""Rooms, students, questions and answers of the class mode: every query, one place.

Callers get plain frozen dataclasses back, never rows or connections. Each user action is one
short transaction (``answer`` reads and checks first, so that a bad answer never takes a write
lock and the pacing sleep happens outside every transaction, then writes in one transaction).
Refusals are ``classroom.refusals`` exceptions, each with its own code (its sentence in zh and
en is in ``classroom/strings.toml``) and a built-in base:

- ``Forbidden`` (PermissionError): the teacher key does not match (compared in constant time;
  only its SHA-256 is stored, as for student tokens);
- ``NotFound`` (LookupError): a room code never seen (``no_room``), ended by its teacher
  (``ended``) or past its lifetime (``expired``); a token never seen or of another room
  (``not_in_class``) or of a student the teacher removed (``removed``); an unknown question or
  student. Ended rooms and removed students leave a tombstone (the code or the token's hash, the
  reason and how long it lasts: nothing else) for as long as the room would have lived, and an
  expired room for one more lifetime;
- ``Invalid`` (ValueError): a value that does not fit the question or a limit, no question
  asked yet (``not_asked``) or the question closed (``closed``);
- ``Unavailable`` (a RuntimeError): the database did not answer in time; nothing was saved,
  and the next call tries again (the pool reconnects by itself).

SQLite runs in WAL mode with ``synchronous=FULL`` and a busy timeout; its writing transactions
begin with ``BEGIN IMMEDIATE`` so concurrent writers queue instead of failing. PostgreSQL gets a
bounded pool per process and statement timeouts. A call's checkout (the pool's ping of a pooled
connection, or a new connection) ends within BUDGET, which is where a database that went away
shows; its queries then wait at most DEADLINE, so that a busy server (or a replica short of CPU)
is slow rather than refused. For RETRY_AFTER after a call could not connect, calls say
Unavailable at once: no page waits on a database that went away past its 1-s budget.
"""

import csv
import hmac
import io
import json
import logging
import math
import secrets
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg
from sqlalchemy import (
    Connection,
    Engine,
    Row,
    create_engine,
    delete,
    event,
    func,
    select,
    text,
    update,
)
from sqlalchemy import exc as sa_exc
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import URL, make_url

from classroom import names, schema
from classroom.questions import QUESTIONS, Question, Truth
from classroom.refusals import Busy, Forbidden, Invalid, NotFound, Unavailable
from classroom.safety import (
    CODE_ALPHABET,
    CODE_LENGTH,
    clean_nickname,
    csv_cell,
    digest,
    normalise_code,
)

log = logging.getLogger(__name__.rsplit(".", 1)[0])  # one logger per package: classroom
ROOMS, STUDENTS, ASKED, ANSWERS, GONE = (
    schema.TABLES[name] for name in ("rooms", "students", "asked", "answers", "gone")
)
PHASES = ("idle", "open", "closed", "shown", "revealed")  # a room only ever moves right
MAX_STUDENTS = 300
LIFETIME = 12 * 3600.0  # seconds from a room's creation to its expiry
PACE = 0.5  # seconds: answers closer than this from one student are delayed
TIMEOUT = 2.0  # seconds: connecting, waiting for a pooled connection, SQLite's busy wait
STATEMENT_TIMEOUT_MS = 1000  # PostgreSQL: no statement runs longer
DEADLINE = 1.5  # s: the client gives up on any wait for PostgreSQL (its own timeout comes first)
BUDGET = 0.75  # s: a call's checkout (the pool's ping, or connecting), +0.1 s as psycopg wakes
RETRY_AFTER = 1.0  # s: after a call could not connect to PostgreSQL, calls say Unavailable at once
KEY_BYTES = 18  # 144 bits for teacher keys and student tokens
CHANNEL = "classroom"  # PostgreSQL's NOTIFY channel: a room's code, for every server listening
LESSON_CHARS = 8192  # a lesson's id, or a teacher's own lesson's link value (about 400 for 8 steps)
CSV_COLUMNS = ("nickname", "question", "answer", "right", "time")


@dataclass(frozen=True)
class Room:
    """A new room: its code for the students, and the teacher's key (shown once, never stored)."""

    code: str
    teacher_key: str


@dataclass(frozen=True)
class Student:
    """A student who joined: the token their phone keeps (in its link), and who they are."""

    id: int
    token: str
    nickname: str
    lang: str


@dataclass(frozen=True)
class RoomView:
    """What any phone may see of a room. Counts appear once shown, the truth once revealed."""

    code: str
    phase: str  # "idle", "open", "closed", "shown" or "revealed"
    version: int  # bumped on every teacher action: poll this one number
    question_id: str | None  # the question asked last; None while idle
    number: int | None  # 1, 2, …: which question of the lesson it is
    kind: str | None  # "choice", "number" or "character"
    page: str | None  # the app page it comes from
    settings: dict[str, Any] | None  # the view every phone and the projector share
    options: tuple[str, ...]  # choices, or a number's bin labels; () for characters
    option_text: dict[str, tuple[str, ...]]  # "zh"/"en": what each option says
    args: dict[str, str]  # the prompt's arguments: QUESTIONS[question_id].text(lang, …)
    counts: dict[str, int] | None  # answer key → students, once shown
    answered: int | None  # students who answered, once shown
    answer: str | None  # the right answer's key, once revealed
    value: float | None  # a number's exact value, once revealed
    chart: dict[str, Any] | None  # the app's figure for the reveal, once revealed
    locked: bool = False  # the teacher closed the door: no new student may join
    lesson: str | None = None  # the lesson the teacher presents (an id, or a link's steps)
    step: int | None = None  # its step on the projector, 1, 2, …


@dataclass(frozen=True)
class StudentView:
    """What one student's phone shows about them."""

    nickname: str
    lang: str
    phase: str
    question_id: str | None
    answer: str | None  # my answer to the current question, as typed; None if none
    answer_key: str | None  # what the histogram counts it as
    right: bool | None  # only once revealed, when I answered


@dataclass(frozen=True)
class Tally:
    """The teacher's live count of the current question."""

    question_id: str | None
    phase: str
    joined: int  # students in the room
    answered: int  # of them, those who answered the current question
    counts: dict[str, int]  # answer key → students: every option or bin (0 too), in order


@dataclass(frozen=True)
class StudentRow:
    """One student as the teacher's list shows them."""

    id: int
    nickname: str
    answered: bool  # has answered the current question


@dataclass(frozen=True)
class Mine:
    """One student as every phone's state needs them: who, and their answer to the current
    question (None for none)."""

    id: int
    nickname: str
    answer: str | None
    answer_key: str | None


@dataclass(frozen=True)
class Roster:
    """A room at one moment, read in one transaction: what any phone may see, the answer
    counter, and each student by their token's hash. A server builds one per room version and
    answers every waiting phone from it."""

    view: RoomView
    answers: int  # the room's answer counter: bumped by every answer, never by anything else
    students: dict[str, Mine]  # token hash → the student


@dataclass(frozen=True)
class _Asked:
    """The question asked last in a room, as stored."""

    id: int
    number: int
    question: Question
    settings: dict[str, Any]
    truth: Truth


def _sqlite_engine(url: URL, timeout: float) -> Engine:
    """SQLite: WAL, synchronous=FULL, a busy timeout; writers begin IMMEDIATE."""
    engine = create_engine(url, connect_args={"timeout": timeout, "check_same_thread": False})

    @event.listens_for(engine, "connect")
    def _pragmas(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # SQLAlchemy's "begin" event says BEGIN
        cursor = dbapi_connection.cursor()
        for pragma in ("journal_mode=WAL", "synchronous=FULL", "foreign_keys=ON"):
            cursor.execute(f"PRAGMA {pragma}")
        cursor.execute(f"PRAGMA busy_timeout={int(timeout * 1000)}")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        writing = conn.get_execution_options().get("classroom_write", False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if writing else "BEGIN")

    return engine


def _postgres_engine(url: URL, timeout: float) -> Engine:
    """PostgreSQL: a small bounded pool, pinged before use; connect and statement timeouts."""
    options = " ".join(
        part
        for part in (
            str(url.query.get("options", "")),
            f"-c statement_timeout={STATEMENT_TIMEOUT_MS}",
            f"-c lock_timeout={STATEMENT_TIMEOUT_MS}",
            "-c idle_in_transaction_session_timeout=10000",
        )
        if part
    )
    return create_engine(
        url,
        pool_size=5,
        max_overflow=5,
        pool_timeout=timeout,
        pool_pre_ping=True,
        pool_recycle=1800,
        connect_args={
            "connect_timeout": max(2, math.ceil(timeout)),
            "options": options,
            # a network that drops packets: a connection in use gives up within seconds
            "keepalives": 1,
            "keepalives_idle": 5,
            "keepalives_interval": 2,
            "keepalives_count": 2,
            "tcp_user_timeout": 3000,  # ms
        },
    )


_call = threading.local()  # this thread's store call: when its waits for PostgreSQL must end


@contextmanager
def _budget(seconds: float) -> Iterator[None]:
    """A deadline for this thread's waits on PostgreSQL while the block runs (an inner block
    keeps the outer one's)."""
    outer = getattr(_call, "deadline", None)
    if outer is None:
        _call.deadline = time.monotonic() + seconds
        _call.unreachable = False  # set when this call could not connect at all
    try:
        yield
    finally:
        _call.deadline = outer


def _left(cap: float) -> float:
    """Seconds this thread's call may still wait for the server, at most ``cap``."""
    deadline = getattr(_call, "deadline", None)
    return cap if deadline is None else max(0.01, min(cap, deadline - time.monotonic()))


class DeadlineConnection(psycopg.Connection[Any]):
    """A psycopg connection whose every wait for the server ends within DEADLINE seconds: the
    server's statement_timeout cannot end a wait on a database that accepts connections but
    never answers (a hung server, a half-open network), and keepalives cannot tell it (its
    peer acknowledges them). Past the deadline the connection is closed, and the pool drops it."""

    def wait(self, gen: Any, interval: float = 0.1, timeout: float | None = None) -> Any:
        try:
            return super().wait(gen, interval, _left(DEADLINE) if timeout is None else timeout)
        except psycopg.errors._WaitTimeout as error:  # psycopg's own wait timeout
            self.close()  # mid-protocol: never reused
            raise psycopg.OperationalError("no answer within the deadline") from error

    @classmethod
    def _connect_gen(cls, conninfo: str = "") -> Any:
        """psycopg's connecting steps, given up when the call's deadline passes: libpq's
        connect_timeout is at least 2 s, past a page's budget. psycopg wakes this every 0.1 s."""
        steps = super()._connect_gen(conninfo)
        ends = time.monotonic() + _left(DEADLINE)
        try:
            waiting = next(steps)
            while True:
                ready = yield waiting
                if time.monotonic() > ends:
                    steps.close()
                    raise psycopg.errors.ConnectionTimeout("no connection within the deadline")
                waiting = steps.send(ready)
        except StopIteration as done:
            return done.value


def _deadline_connections(engine: Engine) -> Engine:
    """Every connection ``engine`` opens is a DeadlineConnection."""

    @event.listens_for(engine, "do_connect")
    def _connect(dialect: Any, record: Any, cargs: Any, cparams: Any) -> Any:
        try:
            return DeadlineConnection.connect(*cargs, **cparams)
        except psycopg.OperationalError:
            _call.unreachable = True  # down, not just slow: the store stops waiting on it
            raise

    return engine


def make_engine(url: str, timeout: float = TIMEOUT) -> Engine:
    """An engine for a SQLite file or a PostgreSQL database, set up as the class needs."""
    parsed = make_url(url)
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        if parsed.database in (None, "", ":memory:"):
            raise ValueError("The class store needs a SQLite file that every session shares.")
        Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        return _sqlite_engine(parsed, timeout)
    if backend == "postgresql":
        return _deadline_connections(_postgres_engine(parsed, timeout))
    raise ValueError(
        "The class store runs on SQLite or PostgreSQL: use a sqlite:// or "
        "postgresql+psycopg:// URL."
    )


def _is_down(error: Exception) -> bool:
    """Whether a database error means "not answering" rather than a bug."""
    if isinstance(error, sa_exc.OperationalError | sa_exc.InterfaceError | sa_exc.TimeoutError):
        return True
    return isinstance(error, sa_exc.DBAPIError) and error.connection_invalidated


def _json(value: Any) -> str:
    """Compact JSON text; NaN or infinity is a bug, never stored."""
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


class Store:
    """The class mode's data: rooms, students, the questions asked and the answers.

    Example:
        >>> store = Store("sqlite:///data/classroom.db")
        >>> room = store.create_room()
        >>> student = store.join(room.code, lang="en")
        >>> _ = store.ask(room.code, room.teacher_key, "softmax_top")
        >>> store.answer(room.code, student.token, "0.66")
        '0.65–0.7'
    """

    def __init__(
        self,
        url: str,
        *,
        max_students: int = MAX_STUDENTS,
        lifetime: float = LIFETIME,
        pace: float = PACE,
        timeout: float = TIMEOUT,
        clock: Callable[[], float] = time.time,
        sleeper: Callable[[float], None] = time.sleep,
    ) -> None:
        """Open (and create or upgrade) the store at ``url``; if the database does not answer,
        the tables are made by the first call that reaches it."""
        self.max_students = max_students
        self.lifetime = lifetime
        self.pace = pace
        self._clock = clock
        self._sleep = sleeper
        self._engine = make_engine(url, timeout)
        self._insert = pg_insert if self._engine.dialect.name == "postgresql" else sqlite_insert
        self._schema_lock = threading.Lock()
        self._ready = False
        self._down_until = -math.inf  # by self._clock: PostgreSQL was found down until then
        self._listeners: list[Callable[[str, str], None]] = []
        with suppress(Unavailable):
            self._ensure_schema()

    def listen(self, callback: Callable[[str, str], None]) -> None:
        """Call ``callback(code, kind)`` after every committed change to a room made through
        this Store (in the caller's thread), ``kind`` "answer" for an answer (only the counter
        and one student's answer moved), else "room": the phone routes wake their requests."""
        self._listeners.append(callback)

    def _changed(self, code: str, kind: str = "room") -> None:
        """Tell the listeners that ``code`` changed (after the commit)."""
        for callback in self._listeners:
            callback(code, kind)

    def _tell(self, conn: Connection, code: str, kind: str = "room") -> None:
        """PostgreSQL: tell every server listening (``hear``) that ``code`` changed, when this
        transaction commits (NOTIFY is transactional: a rolled-back change tells no one)."""
        if self._engine.dialect.name == "postgresql":
            notify = text("SELECT pg_notify(:channel, :code)")
            conn.execute(notify, {"channel": CHANNEL, "code": f"{code} {kind}"})

    @property
    def shared(self) -> bool:
        """Whether other servers may share this store (PostgreSQL) and ``hear`` tells of them."""
        return self._engine.dialect.name == "postgresql"

    def hear(self, callback: Callable[[str, str], None], stop: threading.Event) -> None:
        """PostgreSQL: call ``callback(code, kind)`` for every change any server makes, as
        ``listen`` does, until ``stop`` (blocking: run it in a thread). After the connection
        was lost, ``callback("*", "room")``: a change may have been missed while away, and the
        rooms' versions tell which."""
        url = self._engine.url.set(drivername="postgresql", query={})
        while not stop.is_set():
            try:
                with psycopg.connect(url.render_as_string(hide_password=False),
                                     autocommit=True, connect_timeout=2) as conn:  # fmt: skip
                    conn.execute(f"LISTEN {CHANNEL}")
                    callback("*", "room")  # (re)connected: whatever happened meanwhile, look again
                    while not stop.is_set():
                        for note in conn.notifies(timeout=1.0):
                            code, _, kind = note.payload.partition(" ")
                            callback(code, kind or "room")
            except psycopg.Error as error:
                log.warning("listening for class changes: %s", error)
                stop.wait(1.0)

    def dispose(self) -> None:
        """Close every pooled connection (tests, shutdown)."""
        self._engine.dispose()

    # --- plumbing -------------------------------------------------------------------------------

    @contextmanager
    def _transaction(self, write: bool, ensure: bool = True) -> Iterator[Connection]:
        """One transaction, committed when the block ends; database outages become Unavailable."""
        if self._clock() < self._down_until:
            raise Unavailable()  # could not connect a moment ago: the page does not wait again
        if ensure:
            self._ensure_schema()
        try:
            with _budget(BUDGET):  # the pool's ping, or a new connection: where an outage shows
                checked_out = self._engine.connect()
            with checked_out as conn:
                conn = conn.execution_options(classroom_write=write)
                with conn.begin():
                    yield conn
        except sa_exc.SQLAlchemyError as error:
            if not _is_down(error):
                raise
            log.warning("the class database did not answer: %s", error)
            self._ready = False  # check the tables again when it is back (a new file?)
            if getattr(_call, "unreachable", False):  # not a slow query, or SQLite's lock
                self._down_until = self._clock() + RETRY_AFTER
            raise Unavailable() from error

    def _ensure_schema(self) -> None:
        """Create or upgrade the tables once per Store (a lost race to another replica retried)."""
        if self._ready:
            return
        with self._schema_lock:
            for attempt in range(2):
                try:
                    with self._transaction(write=True, ensure=False) as conn:
                        schema.upgrade(conn)
                    break
                except (sa_exc.IntegrityError, sa_exc.ProgrammingError):
                    if attempt:
                        raise
            self._ready = True

    def _room(self, conn: Connection, code: object, lock: bool = False) -> Row[Any]:
        """The live room with this code; NotFound when none: expired, ended or never there."""
        normal = normalise_code(code)
        query = select(ROOMS).where(ROOMS.c.code == normal)
        row = conn.execute(query.with_for_update() if lock else query).first() if normal else None
        if row is not None and row.expires_at <= self._clock():
            raise NotFound("expired")
        if row is None:
            raise NotFound(self._gone(conn, normal) or "no_room")
        return row

    def _gone(self, conn: Connection, key: str | None) -> str | None:
        """Why a room code or a token hash no longer works (ended, expired, removed), while its
        tombstone lasts; None for one never seen."""
        if not key:
            return None
        query = select(GONE.c.reason).where(GONE.c.key == key, GONE.c.until > self._clock())
        return conn.execute(query).scalar()

    def _bury(self, conn: Connection, key: str, reason: str, until: float) -> None:
        """Keep ``reason`` for ``key`` (a room code or a token hash) until ``until``."""
        conn.execute(delete(GONE).where(GONE.c.key == key))
        conn.execute(GONE.insert().values(key=key, reason=reason, at=self._clock(), until=until))

    def _teacher_room(
        self, conn: Connection, code: object, key: object, lock: bool = False
    ) -> Row[Any]:
        """The room, when ``key`` is its teacher key; PermissionError otherwise."""
        room = self._room(conn, code, lock)
        if not _key_matches(key, room.key_hash):
            raise Forbidden("not_teacher")
        return room

    def _student(self, conn: Connection, room: Row[Any], token: object) -> Row[Any]:
        """The student of ``room`` with this token; LookupError otherwise."""
        row = None
        if isinstance(token, str) and token:
            query = select(STUDENTS).where(STUDENTS.c.token_hash == digest(token))
            row = conn.execute(query).first()
        if row is None or row.room_id != room.id:
            hashed = digest(token) if isinstance(token, str) and token else None
            raise NotFound(self._gone(conn, hashed) or "not_in_class")
        return row

    def _asked(self, conn: Connection, room: Row[Any]) -> _Asked | None:
        """The question asked last in the room, or None while idle."""
        if room.asked_id is None:
            return None
        row = conn.execute(select(ASKED).where(ASKED.c.id == room.asked_id)).one()
        return _Asked(
            id=row.id,
            number=row.number,
            question=QUESTIONS[row.question_id],
            settings=json.loads(row.settings),
            truth=Truth.from_json(json.loads(row.truth)),
        )

    def _counts(self, conn: Connection, asked: _Asked) -> dict[str, int]:
        """Answer key → students for one asked question: every option in order (0s too), then
        any other key by count."""
        query = (
            select(ANSWERS.c.answer_key, func.count())
            .where(ANSWERS.c.asked_id == asked.id)
            .group_by(ANSWERS.c.answer_key)
        )
        found = {str(key): int(n) for key, n in conn.execute(query)}
        counts = {option: found.pop(option, 0) for option in asked.truth.options}
        return counts | dict(sorted(found.items(), key=lambda item: (-item[1], item[0])))

    def _shown_counts(
        self, conn: Connection, asked: _Asked | None, phase: str
    ) -> dict[str, int] | None:
        """The class's counts of ``asked`` once the room is shown or revealed, else None."""
        if asked is None or PHASES.index(phase) < PHASES.index("shown"):
            return None
        return self._counts(conn, asked)

    def _bump(self, conn: Connection, room: Row[Any], **values: Any) -> None:
        """Set ``values`` on the room and bump its version: phones see a teacher action."""
        query = update(ROOMS).where(ROOMS.c.id == room.id)
        conn.execute(query.values(version=ROOMS.c.version + 1, **values))
        self._tell(conn, room.code)

    # --- rooms ----------------------------------------------------------------------------------

    def create_room(self) -> Room:
        """A new room with a fresh code and teacher key; expired rooms are deleted first."""
        for _ in range(5):
            key = secrets.token_urlsafe(KEY_BYTES)
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            try:
                with self._transaction(write=True) as conn:
                    now = self._clock()
                    self._expire(conn, now)
                    conn.execute(
                        ROOMS.insert().values(
                            code=code,
                            key_hash=digest(key),
                            created_at=now,
                            expires_at=now + self.lifetime,
                            phase="idle",
                            version=0,
                        )
                    )
                return Room(code, key)
            except sa_exc.IntegrityError:
                continue  # the code is taken: draw another
        raise Busy("no_free_code")

    def _expire(self, conn: Connection, now: float) -> None:
        """Delete expired rooms, keeping a tombstone of each for another lifetime; forget the
        tombstones past theirs."""
        conn.execute(delete(GONE).where(GONE.c.until <= now))
        expired = conn.execute(
            select(ROOMS.c.code, ROOMS.c.expires_at).where(ROOMS.c.expires_at <= now)
        )
        for code, expires_at in expired.all():
            self._bury(conn, code, "expired", expires_at + self.lifetime)
        self._delete_rooms(conn, select(ROOMS.c.id).where(ROOMS.c.expires_at <= now))

    def _delete_rooms(self, conn: Connection, room_ids: Any) -> None:
        """Delete the rooms ``room_ids`` selects, with their students, questions and answers."""
        asked_ids = select(ASKED.c.id).where(ASKED.c.room_id.in_(room_ids))
        conn.execute(delete(ANSWERS).where(ANSWERS.c.asked_id.in_(asked_ids)))
        conn.execute(delete(ASKED).where(ASKED.c.room_id.in_(room_ids)))
        conn.execute(delete(STUDENTS).where(STUDENTS.c.room_id.in_(room_ids)))
        conn.execute(delete(ROOMS).where(ROOMS.c.id.in_(room_ids)))

    def is_teacher(self, code: str, key: str) -> bool:
        """Whether ``key`` is this room's teacher key (LookupError for an unknown room)."""
        with self._transaction(write=False) as conn:
            return _key_matches(key, self._room(conn, code).key_hash)

    def end(self, code: str, key: str) -> None:
        """Delete the room, its students, questions and answers; its code says "ended" for as
        long as the room would have lived."""
        with self._transaction(write=True) as conn:
            room = self._teacher_room(conn, code, key, lock=True)
            self._delete_rooms(conn, select(ROOMS.c.id).where(ROOMS.c.id == room.id))
            self._bury(conn, room.code, "ended", room.expires_at)
            self._tell(conn, room.code)
        self._changed(room.code)

    def pulse(self, code: str) -> int:
        """The room's version alone, in one small query: poll it, and read more when it moves."""
        return self.beat(code)[0]

    def beat(self, code: str) -> tuple[int, int]:
        """The room's version and answer counter, in one small query: a server watching a room
        for its phones and its projector reads these two numbers and more only when one moved."""
        normal = normalise_code(code)
        with self._transaction(write=False) as conn:
            query = select(ROOMS.c.version, ROOMS.c.answers).where(
                ROOMS.c.code == normal, ROOMS.c.expires_at > self._clock()
            )
            row = conn.execute(query).first() if normal else None
            if row is None:
                self._room(conn, code)  # says why: expired, ended or never there
        assert row is not None  # _room raised otherwise
        return int(row.version), int(row.answers)

    def roster(self, code: str) -> Roster:
        """The room as every phone sees it and each student's own answer, in one transaction:
        two queries more than ``room`` however many students joined."""
        with self._transaction(write=False) as conn:
            room = self._room(conn, code)
            asked = self._asked(conn, room)
            counts = self._shown_counts(conn, asked, room.phase)
            mine = (ANSWERS.c.student_id == STUDENTS.c.id) & (ANSWERS.c.asked_id == room.asked_id)
            query = (
                select(STUDENTS.c.id, STUDENTS.c.token_hash, STUDENTS.c.nickname,
                       ANSWERS.c.value, ANSWERS.c.answer_key)
                .select_from(STUDENTS.outerjoin(ANSWERS, mine))
                .where(STUDENTS.c.room_id == room.id)
            )  # fmt: skip
            rows = conn.execute(query).all()
        view = _room_view(room, room.phase, room.version, asked, counts)
        students = {row.token_hash: Mine(row.id, row.nickname, row.value, row.answer_key)
                    for row in rows}  # fmt: skip
        return Roster(view, int(room.answers), students)

    def room(self, code: str) -> RoomView:
        """What any phone may see: the question and its options; counts once shown, the truth
        once revealed."""
        with self._transaction(write=False) as conn:
            room = self._room(conn, code)
            asked = self._asked(conn, room)
            counts = self._shown_counts(conn, asked, room.phase)
        return _room_view(room, room.phase, room.version, asked, counts)

    # --- the teacher's actions ------------------------------------------------------------------

    def ask(
        self, code: str, key: str, question_id: str, settings: dict[str, Any] | None = None
    ) -> RoomView:
        """Open ``question_id`` at its default settings, or ``settings`` merged over them, and
        close the one before. The truth is computed now and kept with the question."""
        with self._transaction(write=False) as conn:  # no computing for a wrong key
            if not _key_matches(key, self._room(conn, code).key_hash):
                raise Forbidden("not_teacher")
        if not isinstance(question_id, str) or question_id not in QUESTIONS:
            raise NotFound("no_question", question=repr(question_id)[:40])
        question = QUESTIONS[question_id]
        chosen = question.settings(settings)
        truth = question.compute(chosen)
        with self._transaction(write=True) as conn:
            room = self._teacher_room(conn, code, key, lock=True)
            now = self._clock()
            self._close_asked(conn, room, now)
            number = (
                conn.execute(
                    select(func.count()).select_from(ASKED).where(ASKED.c.room_id == room.id)
                ).scalar_one()
                + 1
            )
            asked_id = conn.execute(
                ASKED.insert()
                .returning(ASKED.c.id)
                .values(
                    room_id=room.id,
                    number=number,
                    question_id=question_id,
                    settings=_json(chosen),
                    truth=_json(truth.to_json()),
                    opened_at=now,
                )
            ).scalar_one()
            self._bump(conn, room, phase="open", asked_id=asked_id)
        self._changed(room.code)
        asked = _Asked(int(asked_id), number, question, chosen, truth)
        return _room_view(room, "open", room.version + 1, asked, None)

    def present(self, code: str, key: str, lesson: str | None, step: int | None) -> RoomView:
        """Record the lesson step on the projector (None, None: no lesson), so that every phone
        follows; the room's question is left as it is."""
        if lesson is not None and (not isinstance(lesson, str) or len(lesson) > LESSON_CHARS):
            raise Invalid("no_lesson")
        if (lesson is None) != (step is None) or (step is not None and not 1 <= step <= 99):
            raise Invalid("no_lesson")
        with self._transaction(write=True) as conn:
            room = self._teacher_room(conn, code, key, lock=True)
            self._bump(conn, room, lesson=lesson, step=step)
            asked = self._asked(conn, room)
            counts = self._shown_counts(conn, asked, room.phase)
            room = self._room(conn, code)
        self._changed(room.code)
        return _room_view(room, room.phase, room.version, asked, counts)

    def _close_asked(self, conn: Connection, room: Row[Any], now: float) -> None:
        """Stamp the room's current question closed, if it is still open."""
        if room.asked_id is not None:
            conn.execute(
                update(ASKED)
                .where(ASKED.c.id == room.asked_id, ASKED.c.closed_at.is_(None))
                .values(closed_at=now)
            )

    def _advance(self, code: str, key: str, phase: str) -> RoomView:
        """Close the current question and move the room to ``phase`` (never back)."""
        with self._transaction(write=True) as conn:
            room = self._teacher_room(conn, code, key, lock=True)
            if room.phase == "idle":
                raise Invalid("ask_first")
            self._close_asked(conn, room, self._clock())
            phase = max(room.phase, phase, key=PHASES.index)
            self._bump(conn, room, phase=phase)
            asked = self._asked(conn, room)
            counts = self._shown_counts(conn, asked, phase)
        self._changed(room.code)
        return _room_view(room, phase, room.version + 1, asked, counts)

    def close(self, code: str, key: str) -> RoomView:
        """Stop taking answers to the current question."""
        return self._advance(code, key, "closed")

    def show_answers(self, code: str, key: str) -> RoomView:
        """Show every phone the class's counts (closes the question: no copying once shown)."""
        return self._advance(code, key, "shown")

    def reveal(self, code: str, key: str) -> RoomView:
        """Show every phone the truth and the app's figure (closes the question too)."""
        return self._advance(code, key, "revealed")

    def tally(self, code: str, key: str) -> Tally:
        """The current question's counts, at any phase, for the teacher."""
        with self._transaction(write=False) as conn:
            room = self._teacher_room(conn, code, key)
            joined = conn.execute(
                select(func.count()).select_from(STUDENTS).where(STUDENTS.c.room_id == room.id)
            ).scalar_one()
            asked = self._asked(conn, room)
            counts = self._counts(conn, asked) if asked is not None else {}
        question_id = asked.question.id if asked is not None else None
        return Tally(question_id, room.phase, joined, sum(counts.values()), counts)

    def students(self, code: str, key: str) -> tuple[StudentRow, ...]:
        """Every student of the room in the order they joined, and whether they answered."""
        with self._transaction(write=False) as conn:
            room = self._teacher_room(conn, code, key)
            answered = ANSWERS.c.asked_id == room.asked_id
            query = (
                select(STUDENTS.c.id, STUDENTS.c.nickname, ANSWERS.c.id.is_not(None))
                .select_from(
                    STUDENTS.outerjoin(ANSWERS, (ANSWERS.c.student_id == STUDENTS.c.id) & answered)
                )
                .where(STUDENTS.c.room_id == room.id)
                .order_by(STUDENTS.c.id)
            )
            rows = conn.execute(query).all()
        return tuple(StudentRow(int(i), str(name), bool(done)) for i, name, done in rows)

    def remove(self, code: str, key: str, student_id: int) -> None:
        """Remove a student and their answers: their token stops working."""
        with self._transaction(write=True) as conn:
            room = self._teacher_room(conn, code, key, lock=True)
            mine = (STUDENTS.c.id == student_id) & (STUDENTS.c.room_id == room.id)
            found = conn.execute(select(STUDENTS.c.token_hash).where(mine)).scalar()
            if found is None:
                raise NotFound("no_student")
            self._bury(conn, found, "removed", room.expires_at)
            conn.execute(delete(ANSWERS).where(ANSWERS.c.student_id == student_id))
            conn.execute(delete(STUDENTS).where(mine))
            self._bump(conn, room)
        self._changed(room.code)

    def lock(self, code: str, key: str, locked: bool = True) -> RoomView:
        """Close the room to new students (``locked``), or open it again; those who joined stay.
        The version moves: the projector and the join pages show the lock."""
        with self._transaction(write=True) as conn:
            room = self._teacher_room(conn, code, key, lock=True)
            self._bump(conn, room, locked=int(bool(locked)))
        self._changed(room.code)
        return self.room(room.code)

    def export_csv(self, code: str, key: str, lang: str = "en") -> str:
        """Every answer of the room as CSV: nickname, question (its number, its prompt in
        ``lang`` and its settings), answer, right, time (UTC)."""
        with self._transaction(write=False) as conn:
            room = self._teacher_room(conn, code, key)
            query = (
                select(
                    STUDENTS.c.nickname,
                    ASKED.c.question_id,
                    ASKED.c.number,
                    ASKED.c.truth,
                    ASKED.c.settings,
                    ANSWERS.c.value,
                    ANSWERS.c.answer_key,
                    ANSWERS.c.answered_at,
                )
                .select_from(
                    ANSWERS.join(ASKED, ANSWERS.c.asked_id == ASKED.c.id).join(
                        STUDENTS, ANSWERS.c.student_id == STUDENTS.c.id
                    )
                )
                .where(ASKED.c.room_id == room.id)
                .order_by(ASKED.c.number, ANSWERS.c.answered_at, ANSWERS.c.id)
            )
            rows = conn.execute(query).all()
        return _csv(rows, names.check_lang(lang))

    # --- the students' actions ------------------------------------------------------------------

    def join(self, code: str, nickname: str | None = None, lang: str = "zh") -> Student:
        """Join the room as a new student, with a generated nickname in ``lang`` unless one is
        given (a number is added when it is taken)."""
        lang = names.check_lang(lang)
        chosen = None if nickname is None else clean_nickname(nickname)
        token = secrets.token_urlsafe(KEY_BYTES)
        with self._transaction(write=True) as conn:
            room = self._room(conn, code, lock=True)
            if room.locked:
                raise Forbidden("locked")
            query = select(STUDENTS.c.nickname).where(STUDENTS.c.room_id == room.id)
            taken = set(conn.execute(query).scalars())
            if len(taken) >= self.max_students:
                raise Invalid("class_full", limit=self.max_students)
            name = names.unique_name(chosen, taken) if chosen else names.nickname(lang, taken)
            student_id = conn.execute(
                STUDENTS.insert()
                .returning(STUDENTS.c.id)
                .values(
                    room_id=room.id,
                    token_hash=digest(token),
                    nickname=name,
                    lang=lang,
                    joined_at=self._clock(),
                )
            ).scalar_one()
            self._tell(conn, room.code)
        self._changed(room.code)
        return Student(int(student_id), token, name, lang)

    def rename(self, code: str, token: str, nickname: str) -> str:
        """Change my nickname; return it as stored. ValueError when someone else has it."""
        name = clean_nickname(nickname)
        with self._transaction(write=True) as conn:
            room = self._room(conn, code, lock=True)
            student = self._student(conn, room, token)
            same = (STUDENTS.c.room_id == room.id) & (STUDENTS.c.nickname == name)
            other = conn.execute(select(STUDENTS.c.id).where(same)).scalar()
            if other is not None and other != student.id:
                raise Invalid("nickname_taken")
            conn.execute(update(STUDENTS).where(STUDENTS.c.id == student.id).values(nickname=name))
            self._tell(conn, room.code)
        self._changed(room.code)
        return name

    def me(self, code: str, token: str) -> StudentView:
        """My nickname, my answer to the current question, and whether it was right once the
        teacher revealed the truth."""
        with self._transaction(write=False) as conn:
            room = self._room(conn, code)
            student = self._student(conn, room, token)
            asked = self._asked(conn, room)
            mine = None
            if asked is not None:
                query = select(ANSWERS.c.value, ANSWERS.c.answer_key).where(
                    ANSWERS.c.asked_id == asked.id, ANSWERS.c.student_id == student.id
                )
                mine = conn.execute(query).first()
        right = None
        if mine is not None and asked is not None and room.phase == "revealed":
            right = mine.answer_key == asked.truth.answer
        return StudentView(
            nickname=student.nickname,
            lang=student.lang,
            phase=room.phase,
            question_id=asked.question.id if asked is not None else None,
            answer=mine.value if mine is not None else None,
            answer_key=mine.answer_key if mine is not None else None,
            right=right,
        )

    def answer(self, code: str, token: str, value: object, number: int | None = None) -> str:
        """Answer the open question (the last answer counts); return its key in the tally
        (``save_answer``, which also returns the answer as stored)."""
        return self.save_answer(code, token, value, number)[1]

    def save_answer(
        self, code: str, token: str, value: object, number: int | None = None
    ) -> tuple[str, str]:
        """Answer the open question (the last answer counts); return it as stored and its key.
        ``number``: the question the phone showed (1, 2, …); a tap for one no longer asked is
        refused "moved_on", never saved as an answer to the next.

        The answer is checked first in a read, so a bad one never waits or takes a write lock;
        one closer than ``pace`` seconds to this student's last answer waits the remainder
        (outside any transaction), then is accepted and committed before this returns.
        """
        with self._transaction(write=False) as conn:
            student, asked = self._answerable(conn, code, token, number)
            asked.question.normalise(asked.truth, value)
            last = student.last_answer_at
        wait = 0.0 if last is None else min(self.pace, last + self.pace - self._clock())
        if wait > 0:
            self._sleep(wait)
        with self._transaction(write=True) as conn:
            student, asked = self._answerable(conn, code, token, number)
            text, key = asked.question.normalise(asked.truth, value)
            now = self._clock()
            values = {"value": text, "answer_key": key, "answered_at": now}
            statement = self._insert(ANSWERS).values(
                asked_id=asked.id, student_id=student.id, **values
            )
            conn.execute(
                statement.on_conflict_do_update(
                    index_elements=[ANSWERS.c.asked_id, ANSWERS.c.student_id], set_=values
                )
            )
            query = update(STUDENTS).where(STUDENTS.c.id == student.id)
            conn.execute(query.values(last_answer_at=now))
            counter = update(ROOMS).where(ROOMS.c.id == student.room_id)
            conn.execute(counter.values(answers=ROOMS.c.answers + 1))
            self._tell(conn, normalise_code(code) or "", "answer")
        self._changed(normalise_code(code) or "", "answer")
        return text, key

    def _answerable(
        self, conn: Connection, code: str, token: str, number: int | None = None
    ) -> tuple[Row[Any], _Asked]:
        """The student and the open question they may answer (question ``number``, when given);
        ValueError when none is open."""
        room = self._room(conn, code)
        student = self._student(conn, room, token)
        asked = self._asked(conn, room)
        if asked is None:
            raise Invalid("not_asked")
        if number is not None and number != asked.number:
            raise Invalid("moved_on")
        if room.phase != "open":
            raise Invalid("closed")
        return student, asked


def _key_matches(key: object, key_hash: str) -> bool:
    """Whether ``key`` hashes to ``key_hash``, compared in constant time."""
    if not isinstance(key, str):
        return False
    return hmac.compare_digest(digest(key), key_hash)


def _room_view(
    room: Row[Any], phase: str, version: int, asked: _Asked | None, counts: dict[str, int] | None
) -> RoomView:
    """A RoomView of ``room``: counts only when given (shown), the truth only once revealed."""
    revealed = phase == "revealed"
    truth = asked.truth if asked is not None else None
    return RoomView(
        code=room.code,
        phase=phase,
        version=version,
        question_id=asked.question.id if asked is not None else None,
        number=asked.number if asked is not None else None,
        kind=asked.question.kind if asked is not None else None,
        page=asked.question.page if asked is not None else None,
        settings=asked.settings if asked is not None else None,
        options=truth.options if truth is not None else (),
        option_text=truth.option_text if truth is not None else {},
        args=truth.args if truth is not None else {},
        counts=counts,
        answered=sum(counts.values()) if counts is not None else None,
        answer=truth.answer if truth is not None and revealed else None,
        value=truth.value if truth is not None and revealed else None,
        chart=truth.chart if truth is not None and revealed else None,
        locked=bool(room.locked),
        lesson=room.lesson,
        step=room.step,
    )


def _csv(rows: Sequence[Any], lang: str) -> str:
    """The export's CSV text; each question named as the class saw it: its number in the lesson,
    its prompt, and the settings it was asked at."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    for row in rows:
        truth = json.loads(row.truth)
        prompt = QUESTIONS[row.question_id].say(lang, truth["args"])
        settings = ", ".join(f"{k}={_setting(v)}" for k, v in json.loads(row.settings).items())
        question = f"{row.number}. {prompt} ({settings})"
        right = row.answer_key == truth["answer"]
        time_utc = datetime.fromtimestamp(row.answered_at, UTC).isoformat(timespec="seconds")
        cells = (row.nickname, question, row.value, "true" if right else "false", time_utc)
        writer.writerow([csv_cell(str(cell)) for cell in cells])
    return out.getvalue()


def _setting(value: Any) -> str:
    """A setting as a link writes it: true/false, numbers as typed, text as is."""
    return json.dumps(value, ensure_ascii=False) if isinstance(value, bool) else str(value)
