"""Several servers under test, without Docker: the topology of deploy/compose.yaml on loopback.

nginx from the system runs the SAME deploy/nginx.conf, rendered with the test's replicas and
port (``bench.replicas.render_nginx_conf`` changes only the two lines the file marks
"rendered"), as ``nginx -e stderr -p <tmp>/ -c <tmp>/nginx.conf -g 'daemon off;'``: its pid file,
temp folders and logs are in the tmp folder, so it needs no root. Behind it, two
``streamlit run streamlit_app.py`` replicas (as bench/serve.py starts them, with
CLASSROOM_DB_URL), which reach the machine's PostgreSQL through ``DbProxy``, a TCP proxy a test
can cut ("the database went away") and restore. Each run gets a throwaway schema
(``?options=-csearch_path%3D<name>``), dropped afterwards: no other table is touched.
"""

import contextlib
import json
import os
import re
import select
import shutil
import socket
import struct
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from classroom_support import postgres_answers, postgres_required

from bench.replicas import PG_URL, Topology, pg_schema, with_search_path
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


class DbProxy:
    """A TCP proxy on 127.0.0.1 in front of PostgreSQL, run by threads of the test process.

    ``cut()``: the database is gone, as when its server or its network fails: every open
    connection is reset, and every new one is accepted and reset at once (psycopg fails fast,
    the way a refused connection does). ``restore()``: connections go through again, on the same
    port, so the replicas find the database again without a restart.
    """

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.open = True
        self.refused = 0  # connections reset while cut
        self._pairs: list[tuple[socket.socket, socket.socket]] = []
        self._lock = threading.Lock()
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def url(self, url: str) -> str:
        """``url`` going through this proxy."""
        through = sa.make_url(url).set(host="127.0.0.1", port=self.port)
        return through.render_as_string(hide_password=False)

    def cut(self) -> None:
        with self._lock:
            self.open = False
            pairs, self._pairs = self._pairs, []
        for pair in pairs:
            for sock in pair:
                _reset(sock)

    def restore(self) -> None:
        self.open = True

    def close(self) -> None:
        self._closed = True
        self.cut()
        with contextlib.suppress(OSError):
            self.listener.shutdown(socket.SHUT_RDWR)
        self.listener.close()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if not self.open:
                self.refused += 1
                _reset(client)
                continue
            try:
                server = socket.create_connection(self.target, timeout=2)
            except OSError:
                _reset(client)
                continue
            with self._lock:
                self._pairs.append((client, server))
            threading.Thread(target=self._pump, args=(client, server), daemon=True).start()

    def _pump(self, client: socket.socket, server: socket.socket) -> None:
        other = {client: server, server: client}
        try:
            while True:
                ready, _, _ = select.select(list(other), [], [], 1.0)
                for sock in ready:
                    data = sock.recv(65536)
                    if not data:
                        return
                    other[sock].sendall(data)
        except (OSError, ValueError):
            return
        finally:
            with self._lock:
                if (client, server) in self._pairs:
                    self._pairs.remove((client, server))
            for sock in (client, server):
                _reset(sock)


def _reset(sock: socket.socket) -> None:
    """Close with a TCP reset (SO_LINGER 0): the other side learns at once that it is gone."""
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    with contextlib.suppress(OSError):
        sock.close()


@dataclass
class Cluster:
    """The running topology: nginx and the replicas, the proxy to the database, the database's
    own URL (behind the proxy's back, for the test's reads), and a Store the teacher's actions
    go through when a test drives no teacher window."""

    topology: Topology
    proxy: DbProxy
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
        proxy = DbProxy(sa.make_url(PG_URL).host or "127.0.0.1", sa.make_url(PG_URL).port or 5432)
        store = Store(direct)
        try:
            with Topology(proxy.url(direct), replicas) as topology:
                yield Cluster(topology, proxy, direct, store)
        finally:
            store.dispose()
            proxy.close()


def count_rows(url: str, query: str, **params: object) -> int:
    """One number from the database, read behind the store's back."""
    engine = sa.create_engine(url, poolclass=sa.NullPool)
    try:
        with engine.connect() as conn:
            return int(conn.execute(sa.text(query), params).scalar_one())
    finally:
        engine.dispose()


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


# --- Chromium windows pinned to a replica -------------------------------------------------------


class Window:
    """A Chromium window (its own context, so its own cookies) whose affinity cookie sends it to
    a chosen replica; it counts the websockets it opened and the script runs each finished, so a
    test can wait for a reconnection."""

    def __init__(self, browser: Any, base: str, cookie: str, phone: bool = True) -> None:
        from bench.replicas import COOKIE

        size = {"width": 390, "height": 844} if phone else {"width": 1280, "height": 720}
        self.base = base
        self.context = browser.new_context(viewport=size, locale="en-US")
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
    """Chromium, and ``open(replica, phone=True)`` for windows pinned to a replica; afterwards,
    whatever the test did, every window is closed and replica ``victim`` is alive again."""
    from browser_support import launch, require_browser
    from playwright.sync_api import sync_playwright

    require_browser()
    topology, windows = cluster.topology, []

    def open_window(replica: int, phone: bool = True) -> Window:
        windows.append(Window(browser, cluster.base, topology.cookie_for(replica), phone))
        return windows[-1]

    try:
        with sync_playwright() as playwright:
            browser = launch(playwright)
            yield open_window
            browser.close()
    finally:
        for window in windows:
            window.close()
        if not topology.replicas[victim].alive():
            topology.revive(victim)


def start_class(teacher: Window) -> str:
    """The teacher's window starts a class; its room code."""
    teacher.page.goto(f"{teacher.base}/classroom?lang=en")
    teacher.page.locator(".st-key-classroom_start button").click()
    link = teacher.text("[data-testid=stCode]", "?room=", 30)
    found = re.search(r"\?room=([A-Z0-9]+)", link)
    assert found, link
    return found.group(1)


def join_class(phone: Window, code: str) -> tuple[str, str]:
    """A phone's window joins class ``code``: its nickname and token."""
    phone.page.goto(f"{phone.base}/classroom?room={code}&lang=en")
    phone.page.locator(".st-key-classroom_join button").click()
    phone.page.wait_for_url(re.compile(r"me="), timeout=30_000)
    name = phone.text("p.safe", "You are:").split(":", 1)[1].strip()
    token = re.search(r"me=([^&]+)", phone.page.url)
    assert token, phone.page.url
    return name, token.group(1)
