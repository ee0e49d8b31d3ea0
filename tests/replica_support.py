"""Several servers under test, without Docker: the topology of deploy/compose.yaml on loopback.

nginx from the system runs the SAME deploy/nginx.conf, rendered with the test's replicas and
port (``bench.replicas.render_nginx_conf`` changes only the two lines the file marks
"rendered"), as ``nginx -e stderr -p <tmp>/ -c <tmp>/nginx.conf -g 'daemon off;'``: its pid file,
temp folders and logs are in the tmp folder, so it needs no root. Behind it, two
``streamlit run streamlit_app.py`` replicas (as bench/serve.py starts them, with
CLASSROOM_DB_URL), which reach the machine's PostgreSQL through ``bench.proxy.Proxy``, a TCP
proxy a test can cut ("the database went away") and restore. Each run gets a throwaway schema
(``?options=-csearch_path%3D<name>``), dropped afterwards: no other table is touched.
"""

import contextlib
import json
import os
import re
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from classroom_support import postgres_required

from bench.pg import PG_URL, pg_schema, postgres_answers, with_search_path
from bench.proxy import Proxy, proxied
from bench.replicas import Topology
from classroom import Store

NGINX_MISSING = (
    "NGINX NOT INSTALLED: the several-servers tests need Debian's nginx "
    "(apt-get install nginx; .ci/run installs it)"
)
PG_MISSING = "POSTGRESQL NOT RUNNING: the several-servers tests need PostgreSQL at 127.0.0.1:5432"


def nginx_required() -> bool:
    """CI, or REQUIRE_BROWSER=1 (CI's flag for what .ci/run installs): a missing nginx fails."""
    return bool(os.environ.get("CI")) or os.environ.get("REQUIRE_BROWSER") == "1"


def require_topology() -> None:
    """Skip loudly without nginx or PostgreSQL; fail instead where they must be there."""
    if not (shutil.which("nginx") or Path("/usr/sbin/nginx").exists()):
        if nginx_required():
            pytest.fail(NGINX_MISSING + " — CI must install it (.ci/run does).")
        pytest.skip(NGINX_MISSING)
    why = postgres_answers(PG_URL)
    if why is not None:
        message = f"{PG_MISSING} ({why})"
        if postgres_required():
            pytest.fail(message + " — CI must start it (.ci/run does).")
        pytest.skip(message)


@dataclass
class Cluster:
    """The running topology: nginx and the replicas, the proxy to the database, the database's
    own URL (behind the proxy's back, for the test's reads), and a Store the teacher's actions
    go through when a test drives no teacher window."""

    topology: Topology
    proxy: Proxy
    db_url: str
    store: Store

    @property
    def base(self) -> str:
        return self.topology.base


@contextlib.contextmanager
def cluster(replicas: int = 2) -> Iterator[Cluster]:
    """A throwaway schema, the proxy, nginx in front of ``replicas`` replicas; all stopped and
    dropped afterwards."""
    require_topology()
    with pg_schema(PG_URL, prefix="replicas_test") as schema:
        direct = with_search_path(PG_URL, schema)
        proxy, through = proxied(direct)
        store = Store(direct)
        try:
            with Topology(through, replicas) as topology:
                yield Cluster(topology, proxy, direct, store)
        finally:
            store.dispose()
            proxy.stop()


# --- deploy/compose.yaml, read without PyYAML (not among the requirements) --------------------


def read_compose(path: Path) -> dict[str, Any]:
    """The Compose file as data: PyYAML when installed, else a reader for the block style the
    file is written in (mappings, ``- item`` lists of scalars, quoted or flow-list scalars)."""
    text = path.read_text(encoding="utf-8")
    try:
        import yaml
    except ImportError:
        return _read_block_yaml(text)
    loaded: dict[str, Any] = yaml.safe_load(text)
    return loaded


def _scalar(text: str) -> Any:
    """A plain, quoted or flow-list scalar, without a trailing comment."""
    if text[:1] in ("'", '"'):
        return text[1 : text.index(text[0], 1)]
    text = re.sub(r"\s+#.*$", "", text).strip()
    if text.startswith("["):
        return json.loads(text)
    return int(text) if text.isdigit() else text


def _read_block_yaml(text: str) -> dict[str, Any]:
    root: dict[str, Any] = {}
    stack: list[tuple[int, Any]] = [(-1, root)]
    lines = [
        line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")
    ]
    for number, line in enumerate(lines):
        indent = len(line) - len(line.lstrip())
        body = line.strip()
        while indent <= stack[-1][0]:
            stack.pop()
        parent = stack[-1][1]
        if body.startswith("- "):
            parent.append(_scalar(body[2:]))
            continue
        key, _, value = body.partition(":")
        if value.strip():
            parent[key.strip()] = _scalar(value.strip())
            continue
        following = lines[number + 1] if number + 1 < len(lines) else ""
        if len(following) - len(following.lstrip()) <= indent:
            parent[key.strip()] = None  # "pgdata:" alone: an empty entry
            continue
        child: Any = [] if following.strip().startswith("- ") else {}
        parent[key.strip()] = child
        stack.append((indent, child))
    return root


# --- a replica killed, and started again afterwards ----------------------------------------------


@contextlib.contextmanager
def revived_afterwards(cluster: Cluster, victim: int) -> Iterator[None]:
    """Whatever the test did, replica ``victim`` is alive again afterwards, and nginx sends its
    own browsers to it again (the next test meets both replicas)."""
    try:
        yield
    finally:
        if not cluster.topology.replicas[victim].alive():
            cluster.topology.revive(victim)


# --- Chromium windows pinned to a replica (the teacher's projector) ----------------------------


class Window:
    """A laptop's Chromium window (its own context, so its own cookies) whose affinity cookie
    sends it to a chosen replica; it counts the websockets it opened and the script runs each
    finished, so a test can wait for a reconnection."""

    def __init__(self, browser: Any, base: str, cookie: str) -> None:
        from bench.replicas import COOKIE

        self.base = base
        self.context = browser.new_context(viewport={"width": 1280, "height": 720}, locale="en-US")
        self.context.add_cookies([{"name": COOKIE, "value": cookie, "url": base}])
        self.page = self.context.new_page()
        self.sockets: list[list[int]] = []  # one [finished runs] per websocket opened
        self.page.on("websocket", self._opened)

    def _opened(self, socket_: Any) -> None:
        from browser_support import _finished

        runs = [0]
        self.sockets.append(runs)

        def frame(payload: Any) -> None:
            if _finished(payload):
                runs[0] += 1

        socket_.on("framereceived", frame)

    def wait_reconnected(self, before: int, seconds: float = 30) -> None:
        """Wait until a websocket opened after the first ``before`` has finished a script run."""
        deadline = time.monotonic() + seconds
        while not any(runs[0] for runs in self.sockets[before:]):
            if time.monotonic() > deadline:
                raise TimeoutError(f"no new websocket ran the script within {seconds:.0f} s")
            self.page.wait_for_timeout(100)

    def text(self, selector: str, has_text: str, seconds: float = 15) -> str:
        """The text of the first element matching ``selector`` that contains ``has_text``."""
        found = self.page.locator(selector, has_text=has_text).first
        found.wait_for(timeout=seconds * 1000)
        return str(found.inner_text())

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.context.close()


@contextlib.contextmanager
def windows_on(cluster: Cluster, victim: int) -> Iterator[Any]:
    """Chromium, and ``open(replica)`` for windows pinned to a replica; afterwards, whatever the
    test did, every window is closed and replica ``victim`` is alive again."""
    from browser_support import launch, require_browser
    from playwright.sync_api import sync_playwright

    require_browser()
    topology, windows = cluster.topology, []

    def open_window(replica: int) -> Window:
        windows.append(Window(browser, cluster.base, topology.cookie_for(replica)))
        return windows[-1]

    with revived_afterwards(cluster, victim):
        try:
            with sync_playwright() as playwright:
                browser = launch(playwright)
                yield open_window
                browser.close()
        finally:
            for window in windows:
                window.close()


def start_class(teacher: Window) -> str:
    """The teacher's window starts a class; its room code (from the join link it shows)."""
    teacher.page.goto(f"{teacher.base}/classroom?lang=en")
    teacher.page.locator(".st-key-classroom_start button").click()
    link = teacher.text("[data-testid=stCode]", "/join/", 30)
    found = re.search(r"/join/([A-Z0-9]+)", link)
    assert found, link
    return found.group(1)
