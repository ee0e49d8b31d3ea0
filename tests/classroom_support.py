"""Helpers for the class mode's tests: a movable clock and a version-1 database built by hand.
PostgreSQL's throwaway schemas are bench/pg.py's; the proxy that takes the database away is
bench/proxy.py's."""

import os

import sqlalchemy as sa

from bench.pg import raw_execute

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
    postgres = sa.make_url(url).get_backend_name() == "postgresql"
    serial = "SERIAL" if postgres else "INTEGER NOT NULL"
    raw_execute(url, *(statement.format(serial=serial) for statement in V1_DDL))
