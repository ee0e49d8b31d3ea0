"""The class mode's tables, their version number, and the ordered steps that build them.

A database records its version in ``schema_version`` (one row). ``upgrade`` runs, in order,
every step after that version, inside the caller's transaction and under a lock, so two
replicas starting at once never both create the tables: PostgreSQL takes a transaction-level
advisory lock, SQLite's writing transactions begin with ``BEGIN IMMEDIATE`` (the store's engine
does that). A new database runs the same steps as an old one, so both paths are the same code.

- version 1: rooms, students, asked questions (settings and truth as JSON text), answers;
- version 2: ``students.last_answer_at`` (answer pacing) and an index on answers by asked
  question and answer key (the tally's GROUP BY);
- version 3: ``gone``, the tombstones of ended and expired rooms and removed students (a room
  code or a token's hash, the reason, and until when), so that each is told apart from a
  wrong code;
- version 4: ``rooms.locked`` (the teacher closed the door: no more joins) and ``rooms.answers``,
  a counter every answer bumps, so a projector or a phone hears of an answer by one number
  without counting the answers table;
- version 5: ``rooms.lesson`` and ``rooms.step``: where the teacher is in a lesson (a shipped
  lesson's id, or a teacher's own lesson's link value), so that every phone follows.

Why not Alembic: two small steps in plain SQLAlchemy DDL need no migration environment, no
``alembic.ini`` and no revision files, and Streamlit Community Cloud installs one dependency
fewer. If the steps grow past a handful, or need data migrations on large tables, Alembic earns
its place (its ``op.add_column`` would replace ``_add_column`` below).

``define(metadata, version)`` builds the tables as they stand at ``version``; ``TABLES`` is the
latest, which every query in ``classroom.store`` uses.
"""

from collections.abc import Callable
from typing import Any

from sqlalchemy import (
    Column,
    Connection,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    inspect,
    text,
)

LATEST = 5
ADVISORY_LOCK = 0x636C617373  # "class": one lock for every replica's upgrade
HASH = 64  # characters of a SHA-256, hex


def _rooms(metadata: MetaData, version: int) -> Table:
    """One row per class: its code, the hash of its teacher key, its phase and version."""
    counters = [
        Column("locked", Integer, nullable=False, server_default="0"),
        Column("answers", Integer, nullable=False, server_default="0"),
    ]
    following: list[Column[Any]] = [Column("lesson", Text), Column("step", Integer)]
    return Table(
        "rooms", metadata,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("code", String(8), nullable=False, unique=True),
        Column("key_hash", String(HASH), nullable=False),
        Column("created_at", Float, nullable=False),
        Column("expires_at", Float, nullable=False, index=True),
        Column("phase", String(16), nullable=False),
        Column("asked_id", Integer),  # the question asked last; no foreign key: asked → rooms
        Column("version", Integer, nullable=False),
        *(counters if version >= 4 else []),
        *(following if version >= 5 else []),
    )  # fmt: skip


def _students(metadata: MetaData, version: int) -> Table:
    """One row per student: the hash of their token, their nickname, unique in the room."""
    return Table(
        "students", metadata,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("room_id", Integer, ForeignKey("rooms.id", ondelete="CASCADE"), nullable=False),
        Column("token_hash", String(HASH), nullable=False, unique=True),
        Column("nickname", String(64), nullable=False),
        Column("lang", String(8), nullable=False),
        Column("joined_at", Float, nullable=False),
        *([Column("last_answer_at", Float)] if version >= 2 else []),
        UniqueConstraint("room_id", "nickname", name="uq_students_room_nickname"),
    )  # fmt: skip


def _asked(metadata: MetaData) -> Table:
    """One row per question asked in a room, with its settings and truth as JSON."""
    return Table(
        "asked", metadata,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("room_id", Integer, ForeignKey("rooms.id", ondelete="CASCADE"), nullable=False,
               index=True),
        Column("number", Integer, nullable=False),  # 1, 2, … within the room
        Column("question_id", String(64), nullable=False),
        Column("settings", Text, nullable=False),  # JSON
        Column("truth", Text, nullable=False),  # JSON: classroom.questions.Truth.to_json
        Column("opened_at", Float, nullable=False),
        Column("closed_at", Float),
    )  # fmt: skip


def _answers(metadata: MetaData, version: int) -> Table:
    """One row per student and asked question: the last answer counts."""
    answers = Table(
        "answers", metadata,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("asked_id", Integer, ForeignKey("asked.id", ondelete="CASCADE"), nullable=False),
        Column("student_id", Integer, ForeignKey("students.id", ondelete="CASCADE"),
               nullable=False, index=True),
        Column("value", Text, nullable=False),  # as typed, cleaned
        Column("answer_key", String(64), nullable=False),  # what the histogram counts it as
        Column("answered_at", Float, nullable=False),
        UniqueConstraint("asked_id", "student_id", name="uq_answers_asked_student"),
    )  # fmt: skip
    if version >= 2:
        Index("ix_answers_asked_key", answers.c.asked_id, answers.c.answer_key)
    return answers


def _gone(metadata: MetaData) -> Table:
    """One row per ended or expired room code and removed student's token hash: why, and until
    when it is said."""
    return Table(
        "gone", metadata,
        Column("key", String(HASH), primary_key=True),
        Column("reason", String(16), nullable=False),  # ended, expired or removed
        Column("at", Float, nullable=False),
        Column("until", Float, nullable=False, index=True),
    )  # fmt: skip


def define(metadata: MetaData, version: int = LATEST) -> dict[str, Table]:
    """The tables as they are at ``version``, in ``metadata``."""
    return ({"gone": _gone(metadata)} if version >= 3 else {}) | {
        "rooms": _rooms(metadata, version),
        "students": _students(metadata, version),
        "asked": _asked(metadata),
        "answers": _answers(metadata, version),
        "schema_version": Table(
            "schema_version", metadata, Column("version", Integer, nullable=False)
        ),
    }


TABLES = define(MetaData())


def _base_tables(conn: Connection) -> None:
    """Version 1: the tables as they were first shipped."""
    metadata = MetaData()
    define(metadata, version=1)
    metadata.create_all(conn)


def _add_column(conn: Connection, table: str, column: Column[Any]) -> None:
    """ALTER TABLE … ADD COLUMN, the column's type as this database spells it."""
    spelled = column.type.compile(dialect=conn.dialect)
    conn.execute(text(f"ALTER TABLE {table} ADD COLUMN {column.name} {spelled}"))


def _pacing(conn: Connection) -> None:
    """Version 2: each student's last answer time, and answers indexed by question and key."""
    _add_column(conn, "students", Column("last_answer_at", Float))
    index = next(i for i in TABLES["answers"].indexes if i.name == "ix_answers_asked_key")
    index.create(conn)


def _tombstones(conn: Connection) -> None:
    """Version 3: the tombstones of ended and expired rooms and removed students."""
    TABLES["gone"].create(conn)


def _counters(conn: Connection) -> None:
    """Version 4: a room's lock and its answer counter, 0 for the rooms already there."""
    for name in ("locked", "answers"):
        conn.execute(text(f"ALTER TABLE rooms ADD COLUMN {name} INTEGER NOT NULL DEFAULT 0"))


def _following(conn: Connection) -> None:
    """Version 5: the lesson and step the teacher presents, none for the rooms already there."""
    _add_column(conn, "rooms", Column("lesson", Text))
    _add_column(conn, "rooms", Column("step", Integer))


MIGRATIONS: tuple[Callable[[Connection], None], ...] = (
    _base_tables,
    _pacing,
    _tombstones,
    _counters,
    _following,
)  # [v − 1]: → v


def lock(conn: Connection) -> None:
    """Hold the upgrade lock until the transaction ends (PostgreSQL; SQLite's BEGIN IMMEDIATE
    has already taken the database's write lock)."""
    if conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": ADVISORY_LOCK})


def current_version(conn: Connection) -> int:
    """The database's schema version: 0 when it has no tables yet."""
    if not inspect(conn).has_table("schema_version"):
        return 0
    found = conn.execute(TABLES["schema_version"].select()).scalar()
    return int(found or 0)


def upgrade(conn: Connection, target: int = LATEST) -> int:
    """Run every step after the database's version up to ``target``; return the version then.

    A database newer than this code is left alone (an older replica still serving during a
    deploy): ValueError would stop the class, and the steps only ever add.
    """
    lock(conn)
    version = current_version(conn)
    for number in range(version + 1, target + 1):
        MIGRATIONS[number - 1](conn)
        conn.execute(TABLES["schema_version"].delete())
        conn.execute(TABLES["schema_version"].insert().values(version=number))
    return max(version, target)
