"""Several servers: nginx (deploy/nginx.conf, rendered) in front of `streamlit run` replicas
that share one PostgreSQL database, and phones that answer through it on the class's JSON API
(``ui.phone``: ``/api/rooms/CODE/…``, a long-poll for the room's state), while each room's
projector is a Streamlit session over its websocket. The tests (tests/test_replicas.py) use
the topology with small sizes; run by hand for the full class (never run by the tests):

    python -m bench.replicas [--rooms 5] [--phones 40] [--questions 3] [--replicas 2]

5 rooms × 40 phones (200) join through nginx onto 2 replicas; each room answers 3 questions,
asked in every room at the same moment. It prints the answers lost (acknowledged on a phone, not
in the database) and the database's count against rooms × phones × questions; p50 and p95 from a
phone's tap to the projector's count and from the teacher's Ask to the phone showing the
question; each process's CPU over the class and within the bursts (from the Ask to the last phone
showing the question), memory, each replica's PostgreSQL connections; then the same class on 1
replica, for comparison.

Pinning (``--pin``, the default): the machine has 2 cores shared by the replicas, nginx,
PostgreSQL and this driver. Replica i runs under ``taskset -c i`` (a core each, so the two never
take turns on one core); the 1-replica class pins its replica to core 0 alone, the CPU one
replica of the 2-replica class has. nginx, PostgreSQL and the driver are left to the scheduler
in both runs.

The phones are this module's ``Phone``: one thread each, long-polling ``…/state`` with
ui/phone/phone.js's back-off, its token as ``Authorization: Bearer`` and the affinity cookie nginx
set on its first request. The projectors are this module's ``Tab`` (a ``bench.stream.Tab``): each
rerun sent and read to its end, the fragments' timers kept as the browser keeps them.
"""

import argparse
import contextlib
import ctypes
import ctypes.util
import html
import http.client
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit

import psutil
import sqlalchemy as sa
from streamlit.proto.Element_pb2 import Element

import ui.classroom  # noqa: F401 (registers the class page's sentences and the store's refusals)
from bench import stream
from bench.measure import percentile, together, wait_until
from bench.pg import PG_URL, pg_schema, raw_rows, with_search_path
from bench.serve import ROOT, free_port, wait_healthy
from ui.kit.text import STRINGS

DEPLOY = ROOT / "deploy"
NGINX_CONF = DEPLOY / "nginx.conf"
COMPOSE = DEPLOY / "compose.yaml"
COOKIE = "lab_affinity"  # the affinity cookie nginx sets (deploy/nginx.conf)
PAGE = "classroom"

# --- nginx: the deploy/ file, rendered -------------------------------------------------------

UPSTREAM_LINE = re.compile(r"^(\s*)server\s+(\S+)(\s[^;#]*)?;(.*#\s*rendered.*)$", re.M)
LISTEN_LINE = re.compile(r"^(\s*)listen\s+(\S+);(.*#\s*rendered.*)$", re.M)


def render_nginx_conf(text: str, servers: Sequence[str], listen: str) -> str:
    """deploy/nginx.conf with the replicas' addresses and the listening address put in.

    Only the two lines marked "rendered" change: the upstream's ``server`` line becomes one
    line per address (keeping its parameters), and ``listen`` takes ``listen``. Rendering the
    file with Compose's own values ("app:8501", "80") gives the file back unchanged.
    """
    upstream = UPSTREAM_LINE.search(text)
    listening = LISTEN_LINE.search(text)
    if upstream is None or listening is None:
        raise ValueError("nginx.conf lacks its rendered upstream server or listen line")
    indent, _, parameters, comment = upstream.groups()
    lines = [f"{indent}server {address}{parameters or ''};{comment}" for address in servers]
    text = text[: upstream.start()] + "\n".join(lines) + text[upstream.end() :]
    listening = LISTEN_LINE.search(text)
    assert listening is not None
    indent, _, comment = listening.groups()
    line = f"{indent}listen {listen};{comment}"
    return text[: listening.start()] + line + text[listening.end() :]


def nginx_command(prefix: Path, conf: Path) -> list[str]:
    """The command that runs nginx in the foreground, every path of the file under ``prefix``
    (the same flags as deploy/compose.yaml's nginx service)."""
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    return [nginx, "-e", "stderr", "-p", f"{prefix}/", "-c", str(conf), "-g", "daemon off;"]


@dataclass(frozen=True)
class Logged:
    """One request in nginx's access log (deploy/nginx.conf's ``lab`` format)."""

    method: str
    uri: str
    status: int
    upstream: str  # "127.0.0.1:8501", or several comma-separated when nginx tried more
    affinity: str


LOG_LINE = re.compile(
    r'"(?P<method>\S+) (?P<uri>\S+)" (?P<status>\d+) \d+ \S+ upstream=(?P<upstream>.*?) '
    r"affinity=(?P<affinity>\S*)$"
)


class Nginx:
    """nginx from the system, run on the rendered deploy/nginx.conf in a folder of its own."""

    def __init__(self, folder: Path, servers: Sequence[str], cpus: str | None = None) -> None:
        self.folder = folder
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.conf = folder / "nginx.conf"
        self.access = folder / "access.log"
        self.errors = folder / "error.log"
        self.conf.write_text(
            render_nginx_conf(NGINX_CONF.read_text(), servers, f"127.0.0.1:{self.port}")
        )
        command = nginx_command(folder, self.conf)
        if cpus:
            command = ["taskset", "-c", cpus, *command]
        with open(self.access, "ab") as out, open(self.errors, "ab") as err:
            self.process = subprocess.Popen(
                command, cwd=folder, stdout=out, stderr=err, start_new_session=True,
                preexec_fn=_die_with_parent,
            )  # fmt: skip
        self._wait()

    def _wait(self, seconds: float = 10) -> None:
        deadline = time.monotonic() + seconds
        while True:
            with contextlib.suppress(OSError):
                socket.create_connection(("127.0.0.1", self.port), 1).close()
                return
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"nginx did not start:\n{self.errors.read_text()}")
            time.sleep(0.05)

    def log(self) -> list[Logged]:
        """Every request logged so far (a websocket is logged when it closes)."""
        found = []
        for line in self.access.read_text(errors="replace").splitlines():
            match = LOG_LINE.search(line)
            if match:
                fields = match.groupdict()
                found.append(Logged(**{**fields, "status": int(fields["status"])}))  # type: ignore[arg-type]
        return found

    def reload(self, seconds: float = 10) -> None:
        """Start fresh workers (SIGHUP), and wait up to ``seconds`` for the old ones to finish
        what they serve and exit. Each worker counts a server's failures on its own (the file
        has no shared ``zone``): after a replica was revived, a worker still in its fail_timeout
        would send that replica's browsers to another; fresh workers know of no failure."""
        old = {child.pid for child in psutil.Process(self.process.pid).children()}
        self.process.send_signal(signal.SIGHUP)
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            now = {child.pid for child in psutil.Process(self.process.pid).children()}
            if now and not now & old:
                return
            time.sleep(0.05)

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)


def _die_with_parent() -> None:
    """In the child before exec: die when the process that started it dies (a test or bench
    killed mid-run leaves no replica or nginx behind on a shared machine)."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG; nginx's master then stops its workers


# --- the replicas ------------------------------------------------------------------------------


# What deploy/compose.yaml sets for every replica besides the database (a test compares them).
REPLICA_ENV = {"STREAMLIT_RUNNER_POST_SCRIPT_GC": "false"}


class Replica:
    """One `streamlit run streamlit_app.py`, as bench/serve.py starts it, with its own
    CLASSROOM_DB_URL, in a process group of its own (so that it can be killed whole)."""

    def __init__(self, db_url: str, cpus: str | None = None, port: int | None = None) -> None:
        self.db_url = db_url
        self.cpus = cpus
        self.port = port or free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.base = f"http://{self.address}"
        self.log: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115 (closed by stop())
        command = [
            sys.executable, "-m", "streamlit", "run", "streamlit_app.py",
            "--server.headless", "true", "--server.port", str(self.port),
            "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
            "--server.fileWatcherType", "none",
        ]  # fmt: skip
        if cpus:
            command = ["taskset", "-c", cpus, *command]
        env = {**os.environ, **REPLICA_ENV, "CLASSROOM_DB_URL": db_url}
        self.process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=self.log,
            start_new_session=True, preexec_fn=_die_with_parent,
        )  # fmt: skip

    @property
    def pid(self) -> int:
        return self.process.pid

    def wait_healthy(self, seconds: float = 90) -> None:
        wait_healthy(self.base, self.process, self.log, seconds)

    def alive(self) -> bool:
        return self.process.poll() is None

    def kill(self) -> None:
        """SIGKILL its whole process group: the replica dies as a machine dies, mid-sentence."""
        if self.alive():
            os.killpg(self.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.alive():
            os.killpg(self.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()
        self.log.close()

    def stderr(self) -> str:
        self.log.seek(0)
        return self.log.read().decode(errors="replace")


class Topology:
    """nginx in front of ``replicas`` streamlit replicas, all on loopback, sharing ``db_url``.

    ``cpus``: a taskset CPU list per replica (None: the scheduler decides).
    """

    def __init__(
        self,
        db_url: str,
        replicas: int = 2,
        cpus: Sequence[str | None] | None = None,
        nginx_cpus: str | None = None,
    ) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="replicas-"))
        self.db_url = db_url
        self.cpus = list(cpus) if cpus else [None] * replicas
        self.replicas = [Replica(db_url, self.cpus[i]) for i in range(replicas)]
        self.nginx: Nginx | None = None
        try:
            for replica in self.replicas:
                replica.wait_healthy()
            self.nginx = Nginx(self.folder, [r.address for r in self.replicas], nginx_cpus)
        except BaseException:
            self.close()
            raise
        self._cookies: dict[str, str] = {}  # probe → the upstream nginx chose, read with all up
        self._handed: set[str] = set()  # cookies_for's values so far
        self.homes: list[str] = []
        self.homes = [self.cookie_for(i) for i in range(replicas)]

    @property
    def base(self) -> str:
        assert self.nginx is not None
        return self.nginx.base

    def revive(self, index: int) -> None:
        """Start replica ``index`` again on its port (after a kill), wait until healthy, and
        until nginx's fresh workers send its browsers to it again."""
        old = self.replicas[index]
        old.stop()
        self.replicas[index] = Replica(self.db_url, old.cpus, old.port)
        self.replicas[index].wait_healthy()
        assert self.nginx is not None
        self.nginx.reload()
        self.wait_routed(index)

    def wait_routed(self, index: int, seconds: float = 30) -> None:
        """Wait until nginx sends replica ``index``'s own browsers to it again: after a failure
        nginx skips a server for its fail_timeout (10 s), so a revived replica's browsers would
        meet the other replica meanwhile."""
        assert self.nginx is not None
        cookie = self.homes[index]
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            get(self.base + "/_stcore/health", cookie=cookie)
            last = [entry for entry in self.nginx.log() if entry.affinity == cookie][-1:]
            if last and self.replica_of(last[0].upstream) == index:
                return
            time.sleep(0.5)
        raise RuntimeError(f"nginx did not send replica {index} its browsers within {seconds} s")

    def replica_of(self, upstream: str) -> int | None:
        """Which replica an nginx ``$upstream_addr`` names last (the one that answered)."""
        last = upstream.split(",")[-1].strip()
        for i, replica in enumerate(self.replicas):
            if replica.address == last:
                return i
        return None

    def cookie_for(self, index: int) -> str:
        """An affinity cookie value that nginx's consistent hash sends to replica ``index`` (the
        same one each time: the replica's "home" cookie)."""
        return self._probe(index, 1)[0]

    def cookies_for(self, index: int, count: int) -> list[str]:
        """``count`` affinity cookie values that nginx sends to replica ``index``, none of them
        handed out before (nor a home cookie): one per phone, as each browser has its own."""
        found = self._probe(index, count, skip={*self._handed, *self.homes})
        self._handed.update(found)
        return found

    def _probe(
        self, index: int, count: int, skip: Collection[str] = (), tries: int = 2000
    ) -> list[str]:
        """The first ``count`` probe values not in ``skip`` that nginx sends to replica ``index``,
        found by asking nginx itself (a health check per candidate, read from its log)."""
        assert self.nginx is not None
        found: list[str] = []
        for start in range(0, tries, 20):
            batch = [f"probe{n}" for n in range(start, start + 20)]
            unknown = [value for value in batch if value not in self._cookies]
            if unknown and all(r.alive() for r in self.replicas):
                for value in unknown:
                    get(self.base + "/_stcore/health", cookie=value)
                for entry in self.nginx.log():
                    if entry.affinity in unknown:
                        self._cookies[entry.affinity] = entry.upstream
            found += [
                value
                for value in batch
                if value not in skip and self.replica_of(self._cookies.get(value, "")) == index
            ]
            if len(found) >= count:
                return found[:count]
        raise RuntimeError(f"not {count} cookies of {tries} reach replica {index}")

    def close(self) -> None:
        if self.nginx is not None:
            self.nginx.stop()
        for replica in self.replicas:
            replica.stop()
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> "Topology":
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def get(url: str, cookie: str | None = None, timeout: float = 10) -> tuple[bytes, str | None]:
    """GET ``url`` (with the affinity cookie ``cookie``); the body, and the affinity cookie
    nginx set, if it set one."""
    request = urllib.request.Request(url)
    if cookie:
        request.add_header("Cookie", f"{COOKIE}={cookie}")
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return response.read(), _affinity(response.headers.get_all("Set-Cookie") or [])


# --- a browser tab, reduced to its websocket ---------------------------------------------------


@dataclass
class Shown:
    """One element a run drew: its kind (an alert's kind: "success", "warning", …), its text,
    the widget key if it is a widget, and its fragment."""

    kind: str
    text: str
    key: str = ""
    fragment: str = ""


ALERTS = {1: "error", 2: "warning", 3: "info", 4: "success"}
TAGS = re.compile(r"<[^>]+>")


def _shown(element: Element, fragment: str) -> Shown | None:
    """What a person reads in ``element`` (None for what they do not: CSS, spacers)."""
    kind = element.WhichOneof("type") or ""
    inner = getattr(element, kind, None)
    widget_id = str(getattr(inner, "id", "") or "")
    key = widget_id.rsplit("-", 1)[-1] if widget_id.startswith("$$ID") else ""
    if kind == "alert":
        return Shown(ALERTS.get(element.alert.format, "alert"), element.alert.body, key, fragment)
    if kind in ("markdown", "heading", "text"):
        return Shown(kind, inner.body, key, fragment)  # type: ignore[union-attr]
    if kind == "html":
        text = html.unescape(TAGS.sub("", re.sub(r"<style.*?</style>", "", element.html.body)))
        return Shown(kind, text.strip(), key, fragment) if text.strip() else None
    if kind == "code":
        return Shown(kind, element.code.code_text, key, fragment)
    if kind == "exception":
        return Shown(kind, element.exception.message, key, fragment)
    if key:
        return Shown(kind, str(getattr(inner, "label", "")), key, fragment)
    return None


class Tab(stream.Tab):
    """One browser tab on the class page, through nginx: its affinity cookie (fetched the way a
    browser gets it, by loading the page), what the last runs drew, every warning they drew, and
    each run's seconds. Its fragments' timers (``st.fragment(run_every=…)``) run when ``tick``
    finds them due, as the browser runs them."""

    def __init__(
        self, base: str, query: str, cookie: str | None = None, timeout: float = 30
    ) -> None:
        super().__init__(base, query, PAGE, timeout)
        self.cookie = cookie
        self.drawn: dict[tuple[int, ...], Shown] = {}
        self.warned: list[str] = []  # every warning any run drew
        self.runs: list[float] = []  # seconds per run, fragments' included
        self._full = False  # the run being read is a full one: what it does not draw is gone
        self._seen: set[tuple[int, ...]] = set()  # the places it drew

    # connecting and running

    def open(self) -> "Tab":
        """Load the page (which gives the cookie on a first visit), connect, run the script."""
        if self.cookie is None:
            _, self.cookie = get(f"{self.base}/{PAGE}?{self.query}")
        self.connect(cookie=f"{COOKIE}={self.cookie}")
        self.run()
        return self

    def run(self, widgets: dict[str, Any] | None = None, fragment: str = "") -> float:
        """One rerun (of ``fragment`` alone, if given) with ``widgets`` (key → value; True
        taps a button), read until it has finished; returns its seconds."""
        start = time.monotonic()
        self._full, self._seen = not fragment, set()
        self.send(widgets, fragment, auto=bool(fragment) and not widgets)
        self.read_run(self.timeout)
        if self._full:  # elements not drawn again are gone, as the browser clears them
            self.drawn = {path: s for path, s in self.drawn.items() if path in self._seen}
        seconds = time.monotonic() - start
        self.runs.append(seconds)
        return seconds

    def full_run(self) -> None:
        super().full_run()
        self._full, self._seen = True, set()

    def note(self, element: Element, fragment: str, path: tuple[int, ...]) -> None:
        """Keep what a person reads at ``path``, and every warning."""
        super().note(element, fragment, path)
        shown = _shown(element, fragment)
        self._seen.add(path)
        if shown is None:
            self.drawn.pop(path, None)
        else:
            self.drawn[path] = shown
            if shown.kind == "warning":
                self.warned.append(shown.text)

    def tick(self) -> bool:
        """Run every fragment whose timer is due (as the browser does); whether one ran."""
        now = time.monotonic()
        ran = False
        for fragment, due in sorted(self.due.items(), key=lambda item: item[1]):
            if due <= now and fragment in self.timers:
                self.due[fragment] = now + self.timers[fragment]
                self.run(fragment=fragment)
                ran = True
        return ran

    def next_due(self) -> float:
        """Seconds until the next fragment timer fires (60 when none)."""
        return max(0.0, min(self.due.values(), default=time.monotonic() + 60) - time.monotonic())

    def tap(self, key: str) -> float:
        """Tap the button keyed ``key``."""
        return self.run({key: True})

    # reading the page

    def shown(self, kind: str | None = None) -> list[Shown]:
        return [s for _, s in sorted(self.drawn.items()) if kind is None or s.kind == kind]

    def texts(self, kind: str | None = None) -> list[str]:
        return [s.text for s in self.shown(kind)]

    def widget_keys(self) -> list[str]:
        return [s.key for s in self.shown() if s.key]

    def has(self, text: str, kind: str | None = None) -> bool:
        return any(text in s for s in self.texts(kind))


def wait_for(tab: Tab, done: Callable[[], bool], seconds: float) -> bool:
    """Let ``tab`` run its fragments' timers, as an open browser tab does, until ``done()``
    (True) or ``seconds`` have passed (False)."""
    deadline = time.monotonic() + seconds
    while not done():
        if time.monotonic() > deadline:
            return False
        time.sleep(min(0.05, tab.next_due()))
        tab.tick()
    return True


# --- the class, as the page says it ------------------------------------------------------------

LANGS = ("en", "zh")


def lead(key: str, lang: str) -> str:
    """The class page's string ``key`` in ``lang`` up to its first field ("You are: ")."""
    return STRINGS[key][lang].split("{")[0]


def says(tab: Tab, key: str, kind: str | None = None) -> bool:
    """Whether the tab shows the string ``key`` (its text up to its first field, in either
    language)."""
    return any(tab.has(lead(key, lang).strip(), kind) for lang in LANGS)


def answered_count(tab: Tab) -> int | None:
    """The projector's live count ("Answered N of M"), if it shows one."""
    for text in tab.texts("markdown"):
        found = re.search(r"(\d+)\s*(?:of|/)\s*(\d+)", text)
        if found:
            return int(found.group(1))
    return None


# --- a phone: the class's JSON API (ui/phone), through nginx -----------------------------------


@dataclass(frozen=True)
class Reply:
    """One answer of the API: what was asked ("GET state?since=3"), its status (0 when none
    came: refused, reset, timed out), its JSON (``{"error": …}`` for nginx's own pages too), its
    Retry-After in seconds, when it was asked (time.monotonic) and its seconds."""

    what: str
    status: int
    body: dict[str, Any]
    retry_after: float | None
    started: float
    seconds: float

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    @property
    def error(self) -> str:
        return str(self.body.get("error", ""))


def _json(raw: bytes, status: int) -> dict[str, Any]:
    """An API body as a dict; an error's page that is not JSON (nginx's 502) as its status."""
    try:
        found = json.loads(raw)
    except ValueError:
        found = None
    return found if isinstance(found, dict) else {"error": f"http_{status}"}


def _affinity(set_cookie: list[str]) -> str | None:
    """The affinity cookie among a response's Set-Cookie headers, if nginx set it."""
    for header in set_cookie:
        name, _, rest = header.partition("=")
        if name.strip() == COOKIE:
            return rest.split(";")[0]
    return None


class Phone:
    """A student's phone on the class's JSON API through nginx, as the light phone page's script
    uses it: an affinity cookie of its own (the one nginx sets on its first answer unless it is
    given one, kept as a browser keeps it), its token as ``Authorization: Bearer``, the room as
    the last state it was told. What it sent and what was acknowledged are kept.

    Its long-poll is ui/phone/phone.js's: again at once after a 200; after a failure (no answer,
    502, 503) 1 s, twice as long after each failure in a row, at most 10 s; never after a 404 or
    403. The tests and the bench ask choice questions only, whose stored value is the option's
    key (what a 200 says was saved).
    """

    def __init__(
        self, base: str, code: str, cookie: str | None = None, lang: str = "en", timeout: float = 40
    ) -> None:
        split = urlsplit(base)
        self.host, self.port = split.hostname or "127.0.0.1", split.port or 80
        self.code = code
        self.cookie = cookie
        self.lang = lang
        self.timeout = timeout  # s: a request's own limit (phone.js: 40 s)
        self.token = ""
        self.name = ""
        self.state: dict[str, Any] = {}  # the room as the API last said it (GET …/state)
        self.replies: list[Reply] = []  # every reply, in order
        self.acked: dict[int, str] = {}  # question number → the answer a 200 acknowledged
        self.sent: dict[int, list[str]] = {}  # every answer tapped
        self.seen_at: dict[int, float] = {}  # when each question was first told open
        self.tapped_at: dict[int, float] = {}  # the acknowledged answer's tap
        self.acked_at: dict[int, float] = {}
        self.failures: list[str] = []
        self._pause = 0.0  # s before the next long-poll (phone.js's back-off)
        self._closed = threading.Event()
        self._open: set[http.client.HTTPConnection] = set()

    # asking the API

    def call(
        self, method: str, what: str, body: dict[str, Any] | None = None, timeout: float = 0
    ) -> Reply:
        """One request to ``/api/rooms/CODE/<what>`` through nginx, its reply kept; the affinity
        cookie nginx sets is kept."""
        headers = {"Accept": "application/json", "Accept-Language": self.lang}
        if self.cookie:
            headers["Cookie"] = f"{COOKIE}={self.cookie}"
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        connection = http.client.HTTPConnection(
            self.host, self.port, timeout=timeout or self.timeout
        )
        self._open.add(connection)
        started = time.monotonic()
        try:
            connection.request(method, f"/api/rooms/{self.code}/{what}", data, headers)
            response = connection.getresponse()
            raw = response.read()
            status, retry = response.status, response.headers.get("Retry-After")
            found = _json(raw, status)
            cookie = _affinity(response.headers.get_all("Set-Cookie") or [])
        except (OSError, http.client.HTTPException) as error:
            status, retry, found, cookie = 0, None, {"error": f"no_answer: {error!r}"}, None
        finally:
            connection.close()
            self._open.discard(connection)
        if self.cookie is None and cookie:
            self.cookie = cookie
        after = float(retry) if retry and retry.replace(".", "", 1).isdigit() else None
        reply = Reply(f"{method} {what}", status, found, after, started, time.monotonic() - started)
        self.replies.append(reply)
        return reply

    def join(self, seconds: float = 10) -> "Phone":
        """Join the class (POST …/students): the token and nickname it is given. Told 503
        (nothing saved: the database away a moment, the server busy), it taps Join again after
        Retry-After, for ``seconds`` at most."""
        deadline = time.monotonic() + seconds
        reply = self.call("POST", "students", {"lang": self.lang})
        while reply.status == 503 and time.monotonic() + (reply.retry_after or 1) < deadline:
            time.sleep(reply.retry_after or 1)
            reply = self.call("POST", "students", {"lang": self.lang})
        if reply.status != 201:
            raise RuntimeError(f"join failed: {reply.status} {reply.body}")
        self.token, self.name = str(reply.body["token"]), str(reply.body["nickname"])
        return self

    def look(self, since: int | None = None, timeout: float = 0) -> Reply:
        """GET …/state: at once, or with ``since`` a long-poll the server holds until the room
        moves past that version (at most its 25 s); a 200 becomes the phone's state."""
        reply = self.call(
            "GET", "state" if since is None else f"state?since={since}", None, timeout
        )
        if reply.status == 200:
            self.state = reply.body
            number = self.question()
            if number is not None:
                self.seen_at.setdefault(number, time.monotonic())
        return reply

    def listen(self, until: Callable[[dict[str, Any]], bool], seconds: float) -> bool:
        """Long-poll as the phone page's script does until ``until(state)`` holds (True); False
        after ``seconds``, once the class refuses it (404, 403), or once the phone is closed."""
        deadline = time.monotonic() + seconds
        while not until(self.state):
            left = deadline - time.monotonic()
            if left <= 0 or self._closed.is_set():
                return False
            reply = self.look(self.state.get("version"), timeout=min(self.timeout, left + 1))
            if reply.ok:
                self._pause = 0.0
            elif reply.status in (403, 404):
                return False
            else:
                self._pause = min(self._pause * 2 or 1.0, 10.0)
                self._closed.wait(min(self._pause, max(0.0, deadline - time.monotonic())))
        return True

    def wait_question(self, number: int, seconds: float = 10) -> bool:
        """Long-poll until the phone is told question ``number`` is open."""
        return self.listen(lambda state: self.question(state) == number, seconds)

    def question(self, state: dict[str, Any] | None = None) -> int | None:
        """The number of the open question (in ``state``, else the phone's last state)."""
        state = self.state if state is None else state
        return (
            int(state["number"]) if state.get("phase") == "open" and state.get("number") else None
        )

    def answer(self, choice: int | None = None, rng: random.Random | None = None) -> Reply:
        """Tap an answer to the open question the phone was told of (its option ``choice``, else
        one at random), sent with the question's number (a late tap never answers the next);
        acknowledged only by a 200."""
        number = self.question()
        if number is None:
            raise RuntimeError(f"{self.name}: no open question to answer ({self.state})")
        options = list(self.state["options"])
        value = (
            options[choice % len(options)]
            if choice is not None
            else (rng or random).choice(options)
        )
        tapped = time.monotonic()
        self.sent.setdefault(number, []).append(value)
        reply = self.call("POST", "answers", {"value": value, "number": number})
        if reply.status == 200:
            self.acked[number] = str(reply.body["answer_key"])
            self.tapped_at[number], self.acked_at[number] = tapped, time.monotonic()
        return reply

    def close(self) -> None:
        """Stop listening: a long-poll in flight is cut, none is sent again."""
        self._closed.set()
        for connection in list(self._open):
            with contextlib.suppress(OSError, AttributeError):
                connection.sock.shutdown(socket.SHUT_RDWR)  # type: ignore[union-attr]


def answers_in_db(db_url: str) -> dict[tuple[str, str, int], str]:
    """(room code, nickname, question number) → the answer the database holds."""
    query = (
        "SELECT r.code, s.nickname, q.number, a.value FROM answers a "
        "JOIN students s ON s.id = a.student_id JOIN asked q ON q.id = a.asked_id "
        "JOIN rooms r ON r.id = q.room_id"
    )
    return {(str(c), str(n), int(str(k))): str(v) for c, n, k, v in raw_rows(db_url, query)}


def lost_answers(phones: dict[str, list[Phone]], db_url: str) -> list[str]:
    """Every acknowledged answer the database does not hold as the phone last had it
    acknowledged (a later answer sent during an outage may stand in its place)."""
    held = answers_in_db(db_url)
    lost = []
    for code, room_phones in phones.items():
        for phone in room_phones:
            for number, acked in phone.acked.items():
                value = held.get((code, phone.name, number))
                later = phone.sent.get(number, [])
                later = later[later.index(acked) :] if acked in later else later
                if value is None or (value != acked and value not in later):
                    lost.append(f"{code}/{phone.name} q{number}: acked {acked!r}, db {value!r}")
    return lost


# --- the bench: a school's classes on several replicas ------------------------------------------

QUESTIONS_ASKED = ("lab_top_key", "translator_word", "article_why_scale")  # choices: one tap
GOALS = {"answer": 2.0, "question": 3.0}  # s, p95: tap → projector, teacher → phone


class Projector:
    """A teacher's tab: Start, then Ask through the page's own form; a thread of its own keeps
    its timer (the live count) and notes every count it shows."""

    def __init__(self, base: str) -> None:
        self.tab = Tab(base, "lang=en").open()
        self.tab.tap("classroom_start")
        links = " ".join(self.tab.texts("code"))  # the join link: /join/CODE
        self.code = re.search(r"/join/([A-Z0-9]+)", links).group(1)  # type: ignore[union-attr]
        self.counts: list[tuple[float, int]] = []  # (time.monotonic(), answered)
        self.asked_at: dict[int, float] = {}
        self._ask: list[tuple[int, str]] = []
        self._wake = threading.Event()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._live, daemon=True)

    def ask(self, number: int, question: str) -> None:
        """Ask ``question`` (its picker's label, then Ask) at the thread's next moment."""
        self._ask.append((number, question))
        self._wake.set()

    def _live(self) -> None:
        from classroom import QUESTIONS

        while not self.stop.is_set():
            if self._ask:
                number, question = self._ask.pop(0)
                label = self.tab.options["classroom_question"][list(QUESTIONS).index(question)]
                self.counts.clear()
                self.asked_at[number] = time.monotonic()
                self.tab.run({"classroom_question": label, "classroom_ask": True})
            elif self.tab.tick():
                count = answered_count(self.tab)
                if count is not None:
                    self.counts.append((time.monotonic(), count))
            self._wake.wait(self.tab.next_due())
            self._wake.clear()

    def counted(self) -> int:
        return max((n for _, n in self.counts), default=0)


def phone_life(phone: Phone, pauses: dict[int, float], stop: threading.Event) -> None:
    """A student's phone for the whole class: it long-polls the room (as the phone page's script
    does), taps an answer ``pauses[n]`` s after it is told question n is open, and waits for the
    next."""
    rng = random.Random(phone.name)
    try:
        while not stop.is_set():
            number = phone.question()
            if number is not None and number not in phone.sent:
                tap_at = phone.seen_at[number] + pauses.get(number, 0.0)
                if not stop.wait(max(0.0, tap_at - time.monotonic())):
                    phone.answer(rng=rng)
                continue
            version = phone.state.get("version")
            phone.listen(lambda state, v=version: state.get("version") != v, 60)
    except Exception as error:  # a failure is counted, never hidden
        phone.failures.append(repr(error))


@dataclass
class Usage:
    """CPU seconds and peak memory of a group of processes over the class."""

    name: str
    pids: list[int]
    pss: bool = False  # proportional memory: shared pages (PostgreSQL's buffers) counted once
    children: bool = True  # with its child processes (not for the driver: they are the servers)
    cpu_start: float = 0.0
    cpu: float = 0.0
    rss_peak: float = 0.0

    def _processes(self) -> list[psutil.Process]:
        found = []
        for pid in self.pids:
            with contextlib.suppress(psutil.Error):
                process = psutil.Process(pid)
                found += [process, *(process.children(recursive=True) if self.children else [])]
        return found

    def cpu_now(self) -> float:
        total = 0.0
        for process in self._processes():
            with contextlib.suppress(psutil.Error):
                times = process.cpu_times()
                total += times.user + times.system
        return total

    def sample(self) -> None:
        total = 0.0
        for process in self._processes():
            with contextlib.suppress(psutil.Error):
                memory = process.memory_full_info() if self.pss else process.memory_info()
                total += (memory.pss if self.pss else memory.rss) / 1e6
        self.rss_peak = max(self.rss_peak, total)


def runqueue_wait(pid: int) -> float:
    """Seconds the threads of ``pid`` have spent runnable but waiting for a CPU (the kernel's
    schedstat): time a busy core took from the process."""
    total = 0
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(OSError, ValueError, IndexError):
                total += int((task / "schedstat").read_text().split()[1])
    return total / 1e9


def postgres_pids() -> list[int]:
    """The PostgreSQL server's processes (the postmaster and its backends)."""
    return [p.pid for p in psutil.process_iter(["name"]) if p.info["name"] == "postgres"]


class Meter:
    """Every 0.5 s: each group's CPU so far (a time series, to read any window of the class
    afterwards) and memory, and each replica's connections to PostgreSQL (its pool in use)."""

    def __init__(self, groups: list[Usage], replicas: dict[str, int]) -> None:
        self.groups = groups
        self.replicas = replicas  # name → pid
        self.samples: dict[str, list[tuple[float, float]]] = {g.name: [] for g in groups}
        self.pool: dict[str, int] = dict.fromkeys(replicas, 0)  # most connections at once
        self.waits: dict[str, list[tuple[float, float]]] = {}  # replica → (t, runqueue wait)
        # replica → (t, its connections not idle in the pool: in a query or a transaction)
        self.busy: dict[str, list[tuple[float, int]]] = {}
        self._db = sa.create_engine(PG_URL, poolclass=sa.NullPool)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True, name="meter")
        self.seconds = 0.0

    def _poll(self) -> None:
        while True:
            now = time.monotonic()
            for group in self.groups:
                self.samples[group.name].append((now, group.cpu_now()))
                group.sample()
            states = self._db_states()
            for name, pid in self.replicas.items():
                self.waits.setdefault(name, []).append((now, runqueue_wait(pid)))
                with contextlib.suppress(psutil.Error):
                    connections = psutil.Process(pid).net_connections("tcp")
                    ports = [c.laddr.port for c in connections if c.raddr and c.raddr.port == 5432]
                    self.pool[name] = max(self.pool[name], len(ports))
                    busy = sum(1 for port in ports if states.get(port, "idle") != "idle")
                    self.busy.setdefault(name, []).append((now, busy))
            if self._stop.wait(0.5):
                return

    def _db_states(self) -> dict[int, str]:
        """PostgreSQL's view of every connection: client port → state ("idle", "active",
        "idle in transaction")."""
        query = sa.text("SELECT client_port, state FROM pg_stat_activity WHERE client_port > 0")
        try:
            with self._db.connect() as conn:
                return {int(port): str(state) for port, state in conn.execute(query)}
        except sa.exc.SQLAlchemyError:
            return {}

    def busy_in(self, name: str, windows: list[tuple[float, float]]) -> tuple[float, float]:
        """In ``windows``: the mean of replica ``name``'s connections in use, and the share of
        samples with all ten (the pool's 5 + 5) in use."""
        inside = [n for t, n in self.busy.get(name, []) if any(a <= t <= b for a, b in windows)]
        if not inside:
            return float("nan"), float("nan")
        return sum(inside) / len(inside), sum(1 for n in inside if n >= 10) / len(inside)

    def cpu_between(self, name: str, start: float, end: float, wait: bool = False) -> float:
        """CPU seconds of group ``name`` between two instants (nearest samples); with ``wait``,
        the seconds its threads waited for a CPU instead (a replica's run-queue wait)."""
        samples = (self.waits if wait else self.samples)[name]
        before = max((s for s in samples if s[0] <= start), default=samples[0])
        after = min((s for s in samples if s[0] >= end), default=samples[-1])
        return after[1] - before[1]

    def start(self) -> None:
        self._began = time.monotonic()
        for group in self.groups:
            group.cpu_start = group.cpu_now()
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        self._db.dispose()
        self.seconds = time.monotonic() - self._began
        for group in self.groups:
            group.cpu = group.cpu_now() - group.cpu_start


@dataclass
class ClassResult:
    """What one run of the class measured."""

    replicas: int
    rooms: int
    phones: int
    questions: int
    joined: int = 0
    stored: int = 0
    acknowledged: int = 0
    lost: list[str] = field(default_factory=list)  # acknowledged, not in the database
    answer: list[float] = field(default_factory=list)  # tap → projector's count, s
    question: list[float] = field(default_factory=list)  # teacher's Ask → phone shows it, s
    received: list[float] = field(default_factory=list)  # tap → the phone's own "received"
    join: list[float] = field(default_factory=list)  # open the link + Join, s
    usage: list[Usage] = field(default_factory=list)
    bursts: list[tuple[float, float]] = field(default_factory=list)  # Ask → the last phone sees it
    burst_cpu: dict[str, float] = field(default_factory=dict)  # CPU-s within the bursts
    burst_wait: dict[str, float] = field(default_factory=dict)  # s waiting for a CPU, in them
    burst_pool: dict[str, tuple[float, float]] = field(default_factory=dict)  # Meter.busy_in
    pool: dict[str, int] = field(default_factory=dict)  # most PostgreSQL connections at once
    unavailable: int = 0  # 503s told to the phones, "not saved yet" warnings to the projectors
    seconds: float = 0.0
    served: dict[int, int] = field(default_factory=dict)  # replica → phones' API requests
    asked: list[str] = field(default_factory=list)  # the questions the database holds
    failures: list[str] = field(default_factory=list)


def answer_latencies(phones: list[Phone], projector: Projector, number: int) -> list[float]:
    """From each acknowledged tap to the projector's first count that includes it: the k-th
    answer acknowledged is included by the first count ≥ k (answers only add up)."""
    acked = sorted((p.acked_at[number], p.tapped_at[number]) for p in phones if number in p.acked)
    latencies = []
    for rank, (_, tapped) in enumerate(acked, 1):
        shown = next((t for t, n in projector.counts if n >= rank and t >= tapped), None)
        if shown is not None:
            latencies.append(shown - tapped)
    return latencies


def play_class(
    base: str, result: ClassResult, window: float, spread: float, seed: int
) -> dict[str, list[Phone]]:
    """Each room's teacher starts a class and its phones join (spread over ``spread`` s); then
    each question is asked in every room at the same moment (the worst case) and answered within
    ``window`` s. One thread per phone and per projector."""
    rng = random.Random(seed)
    projectors = [Projector(base) for _ in range(result.rooms)]
    rooms = [(pr, [Phone(base, pr.code) for _ in range(result.phones)]) for pr in projectors]
    everyone = [phone for _, phones in rooms for phone in phones]

    def join(phone: Phone) -> None:
        time.sleep(rng.uniform(0, spread))
        began = time.monotonic()
        try:
            phone.join()
            result.join.append(time.monotonic() - began)
        except Exception as error:  # a failure is counted, never hidden
            result.failures.append(f"join: {error!r}")

    together([partial(join, phone) for phone in everyone], timeout=600)
    result.joined = sum(1 for phone in everyone if phone.name)
    stop = threading.Event()
    pauses = {n: [rng.uniform(0, window) for _ in everyone] for n in range(1, 4)}
    lives = [
        threading.Thread(
            target=phone_life,
            args=(phone, {n: pauses[n][i] for n in pauses}, stop),
            daemon=True,
        )
        for i, phone in enumerate(everyone)
        if phone.name
    ]
    for projector in projectors:
        projector.thread.start()
    for thread in lives:
        thread.start()
    try:
        time.sleep(5)  # every phone long-polling
        for number, question in enumerate(QUESTIONS_ASKED[: result.questions], 1):
            for projector in projectors:
                projector.ask(number, question)
            wait_until(
                lambda n=number: all(n in p.sent or not p.name for p in everyone), window + 60, 0.1
            )
            wait_until(lambda n=number: all(n in p.acked for p in everyone if n in p.sent), 30, 0.1)
            wait_until(lambda: all(pr.counted() >= result.phones for pr in projectors), 30, 0.1)
            for projector, phones in rooms:
                asked = projector.asked_at[number]
                result.answer += answer_latencies(phones, projector, number)
                result.question += [
                    p.seen_at[number] - asked for p in phones if number in p.seen_at
                ]
                result.received += [
                    p.acked_at[number] - p.tapped_at[number] for p in phones if number in p.acked
                ]
                if projector.counted() < result.phones:
                    result.failures.append(f"{projector.code} q{number}: {projector.counted()}")
            asked = min(projector.asked_at[number] for projector in projectors)
            seen = max((p.seen_at[number] for p in everyone if number in p.seen_at), default=asked)
            result.bursts.append((asked, seen))
            time.sleep(2)
    finally:
        stop.set()
        for phone in everyone:
            phone.close()
        for projector in projectors:
            projector.stop.set()
            projector._wake.set()
        for thread in [*lives, *(pr.thread for pr in projectors)]:
            thread.join(timeout=60)
        for projector in projectors:
            projector.tab.close()
            result.failures += projector.tab.failures
        for phone in everyone:
            result.failures += phone.failures
    result.acknowledged = sum(len(p.acked) for p in everyone)
    unavailable = tuple(lead("refusal_unavailable", lang).strip() for lang in LANGS)
    result.unavailable = sum(
        1 for pr in projectors for text in pr.tab.warned if text in unavailable
    ) + sum(1 for p in everyone for reply in p.replies if reply.status == 503)
    return {projector.code: phones for projector, phones in rooms}


def measure_class(
    replicas: int, sizes: tuple[int, int, int], pin: bool, window: float, seed: int
) -> ClassResult:
    """One class on a fresh topology and a throwaway schema; ``sizes``: rooms, phones per room,
    questions."""
    result = ClassResult(replicas, *sizes)
    cores = os.cpu_count() or 1
    cpus = [str(i % cores) for i in range(replicas)] if pin else None
    with pg_schema(PG_URL, prefix="bench_replicas") as schema:
        db_url = with_search_path(PG_URL, schema)
        with Topology(db_url, replicas, cpus) as topology:
            for replica in topology.replicas:  # imports, as after a first visitor
                Tab(replica.base, "lang=en").open().close()
            assert topology.nginx is not None
            groups = [Usage(f"replica {i}", [r.pid]) for i, r in enumerate(topology.replicas)]
            groups += [
                Usage("nginx", [topology.nginx.process.pid]),
                Usage("PostgreSQL (every client's; PSS)", postgres_pids(), pss=True),
                Usage("this driver", [os.getpid()], children=False),
            ]
            meter = Meter(groups, {f"replica {i}": r.pid for i, r in enumerate(topology.replicas)})
            meter.start()
            rooms = play_class(topology.base, result, window, spread=10.0, seed=seed)
            meter.stop()
            result.usage, result.seconds, result.pool = groups, meter.seconds, meter.pool
            result.burst_cpu = {
                g.name: sum(meter.cpu_between(g.name, *burst) for burst in result.bursts)
                for g in groups
            }
            result.burst_pool = {name: meter.busy_in(name, result.bursts) for name in meter.busy}
            result.burst_wait = {
                name: sum(meter.cpu_between(name, *burst, wait=True) for burst in result.bursts)
                for name in meter.waits
            }
            held = answers_in_db(db_url)
            result.stored = sum(1 for code, _, _ in held if code in rooms)
            result.lost = lost_answers(rooms, db_url)
            result.asked = sorted(_asked(db_url))
            requests = [e for e in topology.nginx.log() if e.uri.startswith("/api/rooms/")]
            served = [topology.replica_of(e.upstream) for e in requests]
            result.served = {i: served.count(i) for i in range(replicas)}
    return result


def _asked(db_url: str) -> set[str]:
    """The question ids asked in the schema (the teacher's picker chose what was meant)."""
    return {str(q) for (q,) in raw_rows(db_url, "SELECT question_id FROM asked")}


def report(result: ClassResult) -> None:
    """Print one run's numbers, with the goals met or not."""
    total = result.rooms * result.phones * result.questions
    print(
        f"\n{result.replicas} replica(s): {result.rooms} rooms × {result.phones} phones, "
        f"{result.questions} questions; joined {result.joined} (open + Join p50 "
        f"{percentile(result.join, 0.5):.2f} s, p95 {percentile(result.join, 0.95):.2f} s); "
        f"phones' API requests per replica {result.served}; asked {', '.join(result.asked)}"
    )
    print(
        f"answers lost: {len(result.lost)} acknowledged answers missing; the database holds "
        f"{result.stored} of {total} ({result.acknowledged} acknowledged on the phones)"
    )
    for name, values, goal in (
        ("tap → projector's count", result.answer, GOALS["answer"]),
        ("teacher's Ask → the phone shows it", result.question, GOALS["question"]),
        ("tap → the phone's own 'received'", result.received, None),
    ):
        p50, p95 = percentile(values, 0.5), percentile(values, 0.95)
        verdict = "" if goal is None else f" (goal p95 ≤ {goal:.0f} s: "
        verdict += "" if goal is None else ("met)" if p95 <= goal else "NOT MET)")
        print(f"{name}: p50 {p50:.2f} s, p95 {p95:.2f} s over {len(values)}{verdict}")
    bursts = sum(end - start for start, end in result.bursts)
    print(
        f"over {result.seconds:.0f} s of class, and within the {len(result.bursts)} bursts "
        f"(Ask → the last phone shows it: {bursts:.1f} s in all): CPU (share of one core), "
        "peak memory"
    )
    for usage in result.usage:
        share = usage.cpu / result.seconds if result.seconds else float("nan")
        burst = result.burst_cpu.get(usage.name, float("nan"))
        print(
            f"    {usage.name}: {usage.cpu:.0f} CPU-s ({share:.0%}); in the bursts {burst:.1f} "
            f"CPU-s ({burst / bursts if bursts else float('nan'):.0%}); {usage.rss_peak:.0f} MB"
            + (
                f"; its threads waited {result.burst_wait[usage.name]:.1f} s for a CPU in the "
                "bursts"
                if usage.name in result.burst_wait
                else ""
            )
        )
    replicas = sum(v for k, v in result.burst_cpu.items() if k.startswith("replica"))
    runs = result.joined * len(result.bursts)
    print(
        f"replicas' CPU per phone per burst: {replicas / max(runs, 1) * 1e3:.0f} "
        f"ms; most PostgreSQL connections at once per replica {result.pool} (its pool: 5 + 5); "
        f"503s and 'not saved yet' warnings: {result.unavailable}"
    )
    for name, (mean, full) in result.burst_pool.items():
        print(
            f"    {name}'s PostgreSQL connections in use in the bursts: {mean:.1f} on average, "
            f"all 10 in {full:.0%} of the samples"
        )
    print(f"bursts, s: {[round(end - start, 1) for start, end in result.bursts]}")
    print(f"failures: {len(result.failures)}")
    for failure in sorted(set(result.failures + result.lost))[:8]:
        print(f"    {failure[:200]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=5)
    parser.add_argument("--phones", type=int, default=40, help="phones per room")
    parser.add_argument("--questions", type=int, default=3, choices=(1, 2, 3))
    parser.add_argument("--replicas", type=int, default=2)
    parser.add_argument("--window", type=float, default=20.0, help="s within which phones answer")
    parser.add_argument("--no-pin", dest="pin", action="store_false", help="no taskset")
    parser.add_argument(
        "--no-single", dest="single", action="store_false", help="skip the class on 1 replica"
    )
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}; cores: {os.cpu_count()}; pinned: {args.pin}")
    sizes = (args.rooms, args.phones, args.questions)
    runs = [args.replicas, 1] if args.single and args.replicas != 1 else [args.replicas]
    for replicas in runs:
        report(measure_class(replicas, sizes, args.pin, args.window, args.seed))
        print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
