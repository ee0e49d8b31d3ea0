"""Helpers for the class mode's tests: a movable clock, PostgreSQL schemas, a version-1 database
built by hand, and a TCP proxy that can take the database away and bring it back."""

import contextlib
import os
import select
import socket
import threading
import uuid
from collections.abc import Iterator

import sqlalchemy as sa

PG_URL = os.environ.get(
    "CLASSROOM_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
PG_MISSING = "POSTGRESQL NOT RUNNING: store tests ran on SQLite only"
START = 1_800_000_000.0  # 2027-01-15T08:00:00Z: any fixed instant


class FakeClock:
    """time.time and time.sleep for a Store: sleeping moves the clock, and is recorded."""

    def __init__(self, now: float = START) -> None:
        self.now = now
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds

    def advance(self, seconds: float) -> None:
        self.now += seconds


def postgres_required() -> bool:
    """CI (any non-empty value) or REQUIRE_POSTGRES=1: a missing server fails the tests."""
    return bool(os.environ.get("CI")) or os.environ.get("REQUIRE_POSTGRES") == "1"


def postgres_answers(url: str = PG_URL) -> str | None:
    """None when the server answers, else why not."""
    engine = sa.create_engine(url, connect_args={"connect_timeout": 2}, poolclass=sa.NullPool)
    try:
        with engine.connect() as conn:
            conn.execute(sa.text("SELECT 1"))
        return None
    except sa.exc.SQLAlchemyError as error:
        return str(error).splitlines()[0]
    finally:
        engine.dispose()


def with_search_path(url: str, schema: str) -> str:
    """``url`` whose connections see ``schema`` first (libpq's options=-csearch_path=…)."""
    changed = sa.make_url(url).update_query_dict({"options": f"-csearch_path={schema}"})
    return changed.render_as_string(hide_password=False)


def proxied(url: str) -> tuple["Proxy", str]:
    """A started Proxy to the server of ``url``, and ``url`` going through it."""
    parsed = sa.make_url(url)
    proxy = Proxy(parsed.host or "127.0.0.1", parsed.port or 5432)
    proxy.start()
    through = parsed.set(host="127.0.0.1", port=proxy.port)
    return proxy, through.render_as_string(hide_password=False)


@contextlib.contextmanager
def pg_schema(url: str = PG_URL, prefix: str = "classroom_test") -> Iterator[str]:
    """A new, empty schema in the test database, dropped with everything in it afterwards."""
    name = f"{prefix}_{uuid.uuid4().hex[:10]}"
    engine = sa.create_engine(url, poolclass=sa.NullPool)
    with engine.begin() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{name}"'))
    try:
        yield name
    finally:
        with engine.begin() as conn:
            conn.execute(sa.text(f'DROP SCHEMA "{name}" CASCADE'))
        engine.dispose()


# The tables exactly as version 1 shipped them, written out by hand: the history an upgrade
# must start from, independent of the code under test.
V1_DDL = (
    """CREATE TABLE rooms (
        id {serial} PRIMARY KEY, code VARCHAR(8) NOT NULL UNIQUE, key_hash VARCHAR(64) NOT NULL,
        created_at FLOAT NOT NULL, expires_at FLOAT NOT NULL, phase VARCHAR(16) NOT NULL,
        asked_id INTEGER, version INTEGER NOT NULL)""",
    "CREATE INDEX ix_rooms_expires_at ON rooms (expires_at)",
    """CREATE TABLE students (
        id {serial} PRIMARY KEY, room_id INTEGER NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
        token_hash VARCHAR(64) NOT NULL UNIQUE, nickname VARCHAR(64) NOT NULL,
        lang VARCHAR(8) NOT NULL, joined_at FLOAT NOT NULL,
        CONSTRAINT uq_students_room_nickname UNIQUE (room_id, nickname))""",
    """CREATE TABLE asked (
        id {serial} PRIMARY KEY, room_id INTEGER NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
        number INTEGER NOT NULL, question_id VARCHAR(64) NOT NULL, settings TEXT NOT NULL,
        truth TEXT NOT NULL, opened_at FLOAT NOT NULL, closed_at FLOAT)""",
    "CREATE INDEX ix_asked_room_id ON asked (room_id)",
    """CREATE TABLE answers (
        id {serial} PRIMARY KEY,
        asked_id INTEGER NOT NULL REFERENCES asked (id) ON DELETE CASCADE,
        student_id INTEGER NOT NULL REFERENCES students (id) ON DELETE CASCADE,
        value TEXT NOT NULL, answer_key VARCHAR(64) NOT NULL, answered_at FLOAT NOT NULL,
        CONSTRAINT uq_answers_asked_student UNIQUE (asked_id, student_id))""",
    "CREATE INDEX ix_answers_student_id ON answers (student_id)",
    "CREATE TABLE schema_version (version INTEGER NOT NULL)",
    "INSERT INTO schema_version (version) VALUES (1)",
)


def build_v1(url: str) -> None:
    """Create the version-1 tables at ``url`` by hand."""
    engine = sa.create_engine(url, poolclass=sa.NullPool)
    serial = "SERIAL" if engine.dialect.name == "postgresql" else "INTEGER NOT NULL"
    with engine.begin() as conn:
        for statement in V1_DDL:
            conn.execute(sa.text(statement.format(serial=serial)))
    engine.dispose()


def raw_rows(url: str, query: str, **params: object) -> list[tuple[object, ...]]:
    """Rows of a plain SQL query, read behind the store's back."""
    engine = sa.create_engine(url, poolclass=sa.NullPool)
    with engine.connect() as conn:
        rows = [tuple(row) for row in conn.execute(sa.text(query), params)]
    engine.dispose()
    return rows


def raw_execute(url: str, *statements: str, **params: object) -> None:
    """Run plain SQL statements in one transaction, behind the store's back."""
    engine = sa.create_engine(url, poolclass=sa.NullPool)
    with engine.begin() as conn:
        for statement in statements:
            conn.execute(sa.text(statement), params)
    engine.dispose()


class Proxy:
    """A TCP proxy on 127.0.0.1 to a database server, which a test can stop ("the database is
    gone": connections reset, new ones refused), hang (new connections accepted, never
    answered), mute (open connections read, never answered) and start again on the same
    port."""

    def __init__(self, host: str = "127.0.0.1", port: int = 5432) -> None:
        self.target = (host, port)
        self.port = 0
        self.hanging = False
        self.muted = False  # open connections stop answering: no reset, no refusal
        self._listener: socket.socket | None = None
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()

    def start(self) -> None:
        """Listen (again) and forward every connection."""
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(32)
        self.port = listener.getsockname()[1]
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def stop(self) -> None:
        """Close the listener and every open connection."""
        if self._listener is not None:
            with contextlib.suppress(OSError):  # wakes the thread blocked in accept()
                self._listener.shutdown(socket.SHUT_RDWR)
            self._listener.close()
            self._listener = None
        with self._lock:
            for sock in self._sockets:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()
            self._sockets.clear()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            with self._lock:
                self._sockets.append(client)
            if self.hanging:
                continue  # accepted, never answered
            server = socket.create_connection(self.target)
            with self._lock:
                self._sockets.append(server)
            threading.Thread(target=self._pump, args=(client, server), daemon=True).start()

    def _pump(self, client: socket.socket, server: socket.socket) -> None:
        pair = {client: server, server: client}
        try:
            while True:
                ready, _, _ = select.select(list(pair), [], [], 1.0)
                for sock in ready:
                    data = sock.recv(65536)
                    if not data:
                        return
                    if not self.muted:  # muted: read, never passed on
                        pair[sock].sendall(data)
        except (OSError, ValueError):
            return
        finally:
            for sock in pair:
                sock.close()
