"""Shared test helpers."""

import base64
import json
import sys
from pathlib import Path

import numpy as np
import pytest
from classroom_support import PG_MISSING, postgres_required

from bench.pg import PG_URL, pg_schema, postgres_answers, with_search_path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
APP = str(ROOT / "dashboard.py")  # the Streamlit script (streamlit_app.py is the server)


# Hostile URL values a page must survive with a note (the pages' own fuzz tests use them).
FUZZ = {
    "garbage": "x7#q%",
    "zero": "0",
    "huge": "9" * 400,
    "inf": "inf",
    "empty": "",
    "markdown": "![x](http://e.com/x.png) **b** :red[x] $x$ [link](javascript:alert(1))",
    "control": "a\x00b\x07\u202eRTL\u200f\u2066c\ufeff",
}


def pytest_collection_modifyitems(items):
    """A browser test is slow: the quick tier (-m "not slow") leaves every one out."""
    for item in items:
        if item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.slow)


def decode(value):
    """A Plotly JSON array: plain list, or Plotly ≥ 6's {"dtype", "bdata", "shape"} encoding."""
    if isinstance(value, dict) and "bdata" in value:
        array = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        shape = value.get("shape")
        if shape:
            array = array.reshape([int(part) for part in str(shape).split(",")])
        return array
    return np.asarray(value)


def figure(at, key):
    """The figure JSON of the Plotly chart keyed ``key`` in an AppTest run."""
    charts = [c for c in at.get("plotly_chart") if c.proto.id.endswith(f"-{key}")]
    assert len(charts) == 1, f"expected one chart keyed {key!r}, found {len(charts)}"
    return json.loads(charts[0].proto.spec)


def markdown_texts(at):
    """Every string the page renders as Markdown (text, captions, alerts, headings, LaTeX)."""
    kinds = [
        "markdown",
        "caption",
        "info",
        "warning",
        "error",
        "success",
        "title",
        "header",
        "subheader",
        "latex",
    ]
    return [element.value for kind in kinds for element in at.get(kind)]


def chart_keys(at):
    """The keys of every Plotly chart on the page, in order."""
    return [c.proto.id.rsplit("-", 1)[-1] for c in at.get("plotly_chart")]


@pytest.fixture
def draw_waits(monkeypatch):
    """Every wait a page makes for its chart to be drawn (``notes.let_draw``), counted instead."""
    from ui.kit import notes

    waits = []
    monkeypatch.setattr(notes, "let_draw", lambda: waits.append(1))
    return waits


def open_app(page="lab", **query):
    """Run the app as if opened from a link to ``page`` with ``query``; fail on any exception."""
    from bench.apptest import open_link

    at = open_link(page, query, timeout=60)
    assert not at.exception, [e.value for e in at.exception]
    return at


def navigate(at, page):
    """Click a page in the top bar: Streamlit opens it without the query of the page before."""
    for key in list(at.query_params):
        del at.query_params[key]
    return at.switch_page(f"ui/{page}/page.py").run()


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Cached results leak between AppTest instances in one process: start each test clean."""
    import streamlit as st

    from ui.kit.cache import clear_all

    st.cache_data.clear()
    st.cache_resource.clear()
    clear_all()
    yield


@pytest.fixture(scope="module")
def browser():
    """A `streamlit run` server of the app and headless Chromium, shared by a module's browser
    tests: (base URL, browser)."""
    from browser_support import launch, require_browser, streamlit_server

    require_browser()
    from playwright.sync_api import sync_playwright

    with streamlit_server() as base, sync_playwright() as playwright:
        chromium = launch(playwright)
        yield base, chromium
        chromium.close()


@pytest.fixture
def opened(browser):
    """Open ``path`` on a screen of browser_support.SCREENS and wait for ``selector``; yields a
    function returning the tab."""
    base, chromium = browser
    contexts = []

    def open_(screen, path, selector):
        from browser_support import SCREENS, count_runs, wait_idle

        options, extra = SCREENS[screen]
        context = count_runs(chromium.new_context(**options))
        contexts.append(context)
        tab = context.new_page()
        tab.goto(f"{base}/{path}{extra}")
        wait_idle(tab, settle_ms=800)
        tab.wait_for_selector(selector, state="attached", timeout=30_000)
        return tab

    yield open_
    for context in contexts:
        context.close()


# --- the class store's databases: SQLite and the machine's PostgreSQL -----------------------------


@pytest.fixture(scope="session")
def postgres():
    """The session's throwaway schema's URL; skip loudly (or fail in CI) without a server."""
    problem = postgres_answers()
    if problem is not None:
        if postgres_required():
            pytest.fail(f"{PG_MISSING} (CI or REQUIRE_POSTGRES=1 requires it): {problem}")
        pytest.skip(f"{PG_MISSING}: {problem}")
    with pg_schema() as schema:
        yield with_search_path(PG_URL, schema)


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request, tmp_path):
    """A database URL: a SQLite file of this test, or the session's PostgreSQL schema."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'classroom.db'}"
    return request.getfixturevalue("postgres")
