"""PostgreSQL for the benchmarks and the tests: the test database's URL, whether it answers,
throwaway schemas, and plain SQL read or run behind the store's back."""

import contextlib
import os
import uuid
from collections.abc import Iterator

import sqlalchemy as sa

PG_URL = os.environ.get(
    "CLASSROOM_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)


@contextlib.contextmanager
def engine(url: str) -> Iterator[sa.Engine]:
    """An engine without a pool (every connection closed after use), disposed afterwards."""
    made = sa.create_engine(url, poolclass=sa.NullPool)
    try:
        yield made
    finally:
        made.dispose()


def postgres_answers(url: str = PG_URL) -> str | None:
    """None when the server answers, else why not."""
    made = sa.create_engine(url, connect_args={"connect_timeout": 2}, poolclass=sa.NullPool)
    try:
        with made.connect() as conn:
            conn.execute(sa.text("SELECT 1"))
        return None
    except sa.exc.SQLAlchemyError as error:
        return str(error).splitlines()[0]
    finally:
        made.dispose()


def with_search_path(url: str, schema: str) -> str:
    """``url`` whose connections see ``schema`` first (libpq's options=-csearch_path=…)."""
    changed = sa.make_url(url).update_query_dict({"options": f"-csearch_path={schema}"})
    return changed.render_as_string(hide_password=False)


@contextlib.contextmanager
def pg_schema(url: str = PG_URL, prefix: str = "classroom_test") -> Iterator[str]:
    """A new, empty schema, dropped with everything in it afterwards: nothing else is touched."""
    name = f"{prefix}_{uuid.uuid4().hex[:10]}"
    raw_execute(url, f'CREATE SCHEMA "{name}"')
    try:
        yield name
    finally:
        raw_execute(url, f'DROP SCHEMA "{name}" CASCADE')


def raw_rows(url: str, query: str, **params: object) -> list[tuple[object, ...]]:
    """Rows of a plain SQL query, read behind the store's back."""
    with engine(url) as made, made.connect() as conn:
        return [tuple(row) for row in conn.execute(sa.text(query), params)]


def raw_execute(url: str, *statements: str, **params: object) -> None:
    """Run plain SQL statements in one transaction, behind the store's back."""
    with engine(url) as made, made.begin() as conn:
        for statement in statements:
            conn.execute(sa.text(statement), params)


def count_rows(url: str, query: str, **params: object) -> int:
    """One number from the database, read behind the store's back."""
    with engine(url) as made, made.connect() as conn:
        return int(conn.execute(sa.text(query), params).scalar_one())
