"""Phones on the light page: a class plays the JSON API (``ui/phone``) over real HTTP, many
phones at once, and the numbers the goals table asks for are printed. Run by hand:

    python -m bench.phones [--setting sqlite1000|pg400|replicas] [--phones N --rooms R]
                           [--window 10] [--join-over 5] [--quiet 25] [--kill] [--seed 7]
                           [--profile FILE]

Settings (``--phones`` is the whole class, spread evenly over ``--rooms``):

- ``sqlite1000``: 1,000 phones in 4 rooms on SQLite, one server;
- ``pg400``: 400 phones in 2 rooms on PostgreSQL (a throwaway schema), one server;
- ``replicas``: 5 rooms × 200 phones on 2 replicas behind nginx (``bench.replicas.Topology``) on
  PostgreSQL. ``--kill`` kills replica 0 (SIGKILL) halfway through the second question's answer
  window, and the teacher asks the third question AFTER_KILL s later, answers still coming.

The server side (every replica and nginx) runs under ``taskset -c 0``; this process, every phone
and the teacher, on core 1 (PostgreSQL is left to the scheduler). Each phone is a coroutine with
one keep-alive HTTP/1.1 connection of its own for its long-poll, spoken over asyncio streams: no
HTTP library's work per request on the client's one core (1,000 phones: some 4 CPU-s for the
three questions, the event loop never more than a few ms late). Joins and answers open a fresh
connection each, as a browser does once the server closed its idle one (uvicorn keeps one 5 s).
Every request says ``Accept-Encoding: gzip`` as a browser does, and a phone keeps nginx's
affinity cookie. A failed long-poll is tried again as ui/phone/phone.js does (1, 2, 4 … 10 s);
a failed or 5xx answer is tapped again a second later, up to ten times.

The class: the teacher (``classroom.Store`` in this process: another process than the server's,
which notices a change by its room's poll every ``ui.phone.hub.CHECK`` s on SQLite, and is told
by PostgreSQL's NOTIFY) creates the rooms; the phones join within ``--join-over`` s and long-poll
``state?since=V``; nothing happens for ``--quiet`` s (one long-poll's WAIT: each phone renews its
poll once); then three questions, each asked in every room at the same moment, and each phone
answers once it sees the question, at a random moment within ``--window`` s, a right-ish value
(the truth 60 % of the time; a number drawn around it, σ = 10 %). A projector per room long-polls
``count?since=N`` with the teacher's key.

It prints: answers lost (acknowledged with 200, missing from the database at the end); Ask →
phone (from the moment ``Store.ask`` returned to the moment the phone's long-poll brought the new
version); answer → acknowledged (the tap, the first send, to the 200, retries included); answer →
count (the tap to the projector's first count that includes it: the k-th answer acknowledged in
a room is included by the first count ≥ k received after its acknowledgement); the server's CPU
per waiting phone and minute over the quiet period; its memory per phone (RSS once all waited,
less RSS before any joined); for each question the server's CPU and the seconds its threads
waited for a CPU (the kernel's schedstat: other processes on its core, or its own threads in
each other's way); then a row of the goals table. ``--profile FILE`` runs one server under
cProfile (CPU time, every thread) and writes its stats to FILE at the end.
"""

import argparse
import asyncio
import contextlib
import json
import os
import random
import resource
import signal
import subprocess
import tempfile
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil

from bench.measure import cpu_seconds, percentile, rss_mb
from bench.pg import PG_URL, pg_schema, raw_rows, with_search_path
from bench.replicas import Replica, Topology, postgres_pids
from bench.serve import ROOT
from classroom import QUESTIONS, Store
from classroom.questions import Truth
from classroom.safety import digest
from ui.phone.hub import CHECK, WAIT

SERVER_CPU = "0"  # taskset's list for every server process
CLIENT_CPU = 1  # this process's core
ROUNDS = ("lab_top_key", "softmax_top", "article_softmax_ops")  # choice, number, long choice
GOALS = {"question": 0.5, "acknowledged": 0.5, "count": 1.0, "lost": 0, "cpu": 0.01}
KILL_GOAL = 5.0  # s for every phone to hear the next question after a replica died
AFTER_KILL = 1.0  # s from the kill to the teacher's next question
USER_AGENT = "Mozilla/5.0 (Linux; Android 14; Pixel 8) bench.phones"
AFFINITY = "lab_affinity"  # nginx's cookie (deploy/nginx.conf)


@dataclass(frozen=True)
class Setting:
    """One of the class sizes the goals are set for."""

    name: str
    database: str  # "sqlite" or "postgresql"
    phones: int  # in all, spread evenly over the rooms
    rooms: int
    replicas: int


SETTINGS = {
    "sqlite1000": Setting("sqlite1000", "sqlite", 1000, 4, 1),
    "pg400": Setting("pg400", "postgresql", 400, 2, 1),
    "replicas": Setting("replicas", "postgresql", 1000, 5, 2),
}


# --- HTTP/1.1 over asyncio streams ------------------------------------------------------------


@dataclass
class Reply:
    """One HTTP response: its status, headers (lower-case names), body, and the monotonic time
    its last byte was read."""

    status: int
    headers: dict[str, str]
    body: bytes
    at: float

    def json(self) -> Any:
        """The body as JSON."""
        return json.loads(self.body)


class Connection:
    """One HTTP/1.1 keep-alive connection, opened on first use and again after the server
    closed it (a GET is then sent once more; any other method is never repeated here)."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(
        self, method: str, path: str, headers: dict[str, str], body: bytes = b""
    ) -> Reply:
        """Send one request and read its whole response."""
        for again in (False, True):
            fresh = self.writer is None
            if fresh:
                self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
            assert self.reader is not None and self.writer is not None
            try:
                self.writer.write(self._head(method, path, headers, body) + body)
                return await self._reply()
            except (ConnectionError, asyncio.IncompleteReadError):
                self.close()
                if fresh or again or method != "GET":
                    raise
        raise AssertionError("unreachable")

    def _head(self, method: str, path: str, headers: dict[str, str], body: bytes) -> bytes:
        """The request line and headers, as a browser on a phone sends them (gzip accepted)."""
        lines = [
            f"{method} {path} HTTP/1.1",
            f"Host: {self.host}:{self.port}",
            f"User-Agent: {USER_AGENT}",
            "Accept-Encoding: gzip",
        ]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        if body or method == "POST":
            lines += ["Content-Type: application/json", f"Content-Length: {len(body)}"]
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")

    async def _reply(self) -> Reply:
        """Read one response: its head, then a body of Content-Length bytes, chunks, or up
        to the end of the connection; gunzipped once its last byte is timed."""
        assert self.reader is not None
        head = (await self.reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        status = int(head[0].split(" ", 2)[1])
        headers: dict[str, str] = {}
        for line in head[1:]:
            name, _, value = line.partition(":")
            if name:
                key = name.strip().lower()
                headers[key] = (
                    f"{headers[key]}\n{value.strip()}" if key in headers else value.strip()
                )
        if status in (204, 304) or status < 200:
            body = b""
        elif "chunked" in headers.get("transfer-encoding", ""):
            body = await self._chunks()
        elif "content-length" in headers:
            body = await self.reader.readexactly(int(headers["content-length"]))
        else:
            body = await self.reader.read()
            headers["connection"] = "close"
        at = time.monotonic()
        if headers.get("connection", "").lower() == "close":
            self.close()
        if headers.get("content-encoding") == "gzip":
            body = zlib.decompress(body, 16 + zlib.MAX_WBITS)
        return Reply(status, headers, body, at)

    async def _chunks(self) -> bytes:
        """A chunked body, joined (trailers are not used by the server)."""
        assert self.reader is not None
        parts = []
        while True:
            size = int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16)
            parts.append(await self.reader.readexactly(size + 2))
            if size == 0:
                return b"".join(parts)[:-2]
            parts[-1] = parts[-1][:-2]

    def close(self) -> None:
        """Close the socket, if open; the next request opens another."""
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


async def once(
    host: str, port: int, method: str, path: str, headers: dict[str, str], body: bytes = b""
) -> Reply:
    """One request on a fresh connection, closed afterwards."""
    connection = Connection(host, port)
    try:
        return await connection.request(method, path, headers, body)
    finally:
        connection.close()


# --- the class ----------------------------------------------------------------------------------


@dataclass
class Room:
    """One room: its code, the teacher's key, and what its projector and its teacher saw."""

    code: str
    key: str
    phones: list["Phone"] = field(default_factory=list)
    counts: list[tuple[float, int]] = field(default_factory=list)  # (time, answer counter)
    asked: dict[int, tuple[int, float]] = field(default_factory=dict)  # number → (version, t)
    base: dict[int, int] = field(default_factory=dict)  # number → the counter before its ask


@dataclass
class Phone:
    """One phone: who it is, the versions it heard and when, and its answers."""

    room: Room
    token: str = ""
    nickname: str = ""
    cookie: str = ""  # nginx's affinity cookie, once set
    version: int = -1
    heard: dict[int, float] = field(default_factory=dict)  # version → when it first came
    tapped: dict[int, float] = field(default_factory=dict)  # number → the first send
    acked: dict[int, tuple[float, str]] = field(default_factory=dict)  # number → (t, key)
    done: set[int] = field(default_factory=set)  # numbers answered, refused or given up
    errors: list[str] = field(default_factory=list)
    join_seconds: float | None = None  # from the POST to the 201

    def headers(self) -> dict[str, str]:
        """The phone's token and nginx's affinity cookie, once it has them."""
        sent = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        return sent | ({"Cookie": f"{AFFINITY}={self.cookie}"} if self.cookie else {})

    def keep_cookie(self, reply: Reply) -> None:
        """nginx's affinity cookie, kept as a browser keeps it (one replica per phone)."""
        for line in reply.headers.get("set-cookie", "").split("\n"):
            name, _, rest = line.partition("=")
            if name.strip() == AFFINITY and rest.split(";")[0]:
                self.cookie = rest.split(";")[0]


@dataclass
class Class:
    """The whole class as this process plays it: the server's address, the rooms, the truths
    phones answer near, and the tasks to stop at the end."""

    host: str
    port: int
    rooms: list[Room]
    truths: dict[str, Truth]
    window: float
    rng: random.Random
    tasks: set[asyncio.Task[None]] = field(default_factory=set)

    @property
    def phones(self) -> list[Phone]:
        """Every phone of every room."""
        return [phone for room in self.rooms for phone in room.phones]

    def start(self, coroutine: Any) -> None:
        """Run ``coroutine`` as a task kept until the class stops."""
        task = asyncio.get_running_loop().create_task(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def stop(self) -> None:
        """Cancel every phone's, projector's and watcher's task, and wait for them."""
        for task in list(self.tasks):
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)


def right_ish(truth: Truth, kind: str, rng: random.Random) -> str:
    """What a class thinks: the truth 60 % of the time, else another option; a number near the
    truth (σ = 10 %)."""
    if kind == "number" and truth.value is not None:
        return f"{truth.value * (1 + rng.gauss(0, 0.1)):.3f}"
    if rng.random() < 0.6 or not truth.options:
        return truth.answer
    return rng.choice(truth.options)


async def join(run: Class, phone: Phone, at: float) -> None:
    """Join at the monotonic time ``at`` (a 503 or a failure: again after a second), read the
    state once, then long-poll for as long as the class lasts."""
    await asyncio.sleep(max(0.0, at - time.monotonic()))
    path = f"/api/rooms/{phone.room.code}/students"
    for _ in range(10):
        try:
            sent = time.monotonic()
            reply = await once(run.host, run.port, "POST", path, phone.headers(), b'{"lang":"en"}')
            phone.keep_cookie(reply)
            if reply.status in (200, 201):
                phone.join_seconds = reply.at - sent
                phone.token, phone.nickname = reply.json()["token"], reply.json()["nickname"]
                break
            phone.errors.append(f"join {reply.status} {reply.body[:80]!r}")
        except (OSError, asyncio.IncompleteReadError) as error:
            phone.errors.append(f"join {error!r}")
        await asyncio.sleep(1.0)
    if phone.token:
        await watch(run, phone)


async def watch(run: Class, phone: Phone) -> None:
    """The phone page's long-poll (ui/phone/phone.js): ``state?since=V`` again at once after a
    200; after a failure again in 1, 2, 4 … 10 s; a 403 or 404 ends it (the class is gone)."""
    connection, pause = Connection(run.host, run.port), 0.0
    try:
        while True:
            since = f"?since={phone.version}" if phone.version >= 0 else ""
            status = 0
            try:
                async with asyncio.timeout(40):  # the page's XMLHttpRequest timeout
                    path = f"/api/rooms/{phone.room.code}/state{since}"
                    reply = await connection.request("GET", path, phone.headers())
                status = reply.status
                phone.keep_cookie(reply)
            except (OSError, asyncio.IncompleteReadError, TimeoutError) as error:
                phone.errors.append(f"poll {error!r}")
                connection.close()
            if status == 200:
                hear(run, phone, reply)
                pause = 0.0
            elif status in (403, 404):
                return
            else:
                phone.errors.append(f"poll {status}") if status else None
                pause = min(pause * 2 or 1.0, 10.0)
                await asyncio.sleep(pause)
    finally:
        connection.close()


def hear(run: Class, phone: Phone, reply: Reply) -> None:
    """A state came: note a new version's time; a new open question is answered a while later."""
    state = reply.json()
    version = int(state["version"])
    if version <= phone.version:
        return
    phone.version = version
    phone.heard[version] = reply.at
    number = state.get("number")
    if state["phase"] == "open" and number and number not in phone.tapped:
        phone.tapped[number] = float("inf")  # taken: the tap's time is set when it is sent
        truth = run.truths[state["question_id"]]
        value = right_ish(truth, state["kind"], run.rng)
        run.start(answer(run, phone, number, value, run.rng.uniform(0, run.window)))


async def answer(run: Class, phone: Phone, number: int, value: str, pause: float) -> None:
    """Tap ``value`` after ``pause`` s; a failure or a 5xx is tapped again a second later (a
    student who sees "not saved"), up to ten times."""
    await asyncio.sleep(pause)
    phone.tapped[number] = time.monotonic()
    body = json.dumps({"value": value, "number": number}).encode()
    path = f"/api/rooms/{phone.room.code}/answers"
    try:
        for _ in range(10):
            try:
                reply = await once(run.host, run.port, "POST", path, phone.headers(), body)
            except (OSError, asyncio.IncompleteReadError) as error:
                phone.errors.append(f"answer {error!r}")
                await asyncio.sleep(1.0)
                continue
            if reply.status == 200:
                phone.acked[number] = (reply.at, reply.json()["answer_key"])
                return
            phone.errors.append(f"answer {reply.status} {reply.body[:80]!r}")
            if reply.status < 500:
                return
            await asyncio.sleep(1.0)
    finally:
        phone.done.add(number)


async def project(run: Class, room: Room) -> None:
    """The projector's count: ``count?since=N`` with the teacher's key, again at once."""
    connection, since = Connection(run.host, run.port), ""
    headers = {"Authorization": f"Bearer {room.key}"}
    try:
        while True:
            try:
                reply = await connection.request(
                    "GET", f"/api/rooms/{room.code}/count{since}", headers
                )
            except (OSError, asyncio.IncompleteReadError):
                connection.close()
                await asyncio.sleep(0.5)
                continue
            if reply.status != 200:
                await asyncio.sleep(0.5)
                continue
            counter = int(reply.json()["answers"])
            room.counts.append((reply.at, counter))
            since = f"?since={counter}"
    finally:
        connection.close()


# --- the teacher, in this process --------------------------------------------------------------


def ask_all(store: Store, rooms: list[Room], question_id: str, number: int) -> None:
    """Ask ``question_id`` in every room, one after the other as fast as the store goes; each
    room keeps the new version and the moment its ask returned (committed)."""
    for room in rooms:
        room.base[number] = store.beat(room.code)[1]
    for room in rooms:
        view = store.ask(room.code, room.key, question_id)
        room.asked[number] = (view.version, time.monotonic())


async def until(condition: Callable[[], bool], seconds: float, every: float = 0.1) -> bool:
    """Whether ``condition()`` came true within ``seconds``."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(every)
    return True


class Lag:
    """How late this process's event loop wakes (a timer of 10 ms): when it is late, the
    phones' timestamps are late too, and the client, not the server, is being measured."""

    def __init__(self) -> None:
        self.samples: list[tuple[float, float]] = []

    async def run(self) -> None:
        """Sleep 10 ms again and again, noting how late each wake was."""
        while True:
            before = time.monotonic()
            await asyncio.sleep(0.01)
            now = time.monotonic()
            self.samples.append((now, now - before - 0.01))

    def worst(self, start: float, end: float) -> float:
        """The latest wake between two moments."""
        return max((lag for t, lag in self.samples if start <= t <= end), default=0.0)


# --- what is measured --------------------------------------------------------------------------


@dataclass
class Result:
    """What one class measured."""

    setting: Setting
    joined: int = 0
    join: list[float] = field(default_factory=list)  # s from the POST to the 201
    question: dict[int, list[float]] = field(default_factory=dict)  # number → s, Ask → phone
    missed: int = 0  # phone × question never heard
    acknowledged: list[float] = field(default_factory=list)  # s from the tap to the 200
    counted: list[float] = field(default_factory=list)  # s from the tap to the count
    acked: int = 0
    stored: int = 0
    lost: list[str] = field(default_factory=list)
    quiet_cpu: float = float("nan")  # server CPU-s over the quiet period
    quiet_seconds: float = float("nan")
    quiet_extra: dict[str, float] = field(default_factory=dict)  # nginx, PostgreSQL, this
    idle_cpu: float = float("nan")  # the server's CPU-s per s before any phone
    rss_before: float = float("nan")
    rss_after: float = float("nan")
    bursts: list[float] = field(default_factory=list)  # s from the first ask to the last phone
    burst_cpu: list[tuple[float, float]] = field(default_factory=list)  # CPU-s, CPU wait s
    whole: list[tuple[float, float, float]] = field(default_factory=list)  # s, CPU-s, wait s
    lag: float = 0.0  # the worst event-loop lag in the bursts, s
    client_cpu: float = 0.0  # this process's CPU-s over the rounds
    kill: dict[str, float] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    load: list[tuple[float, float, float]] = field(default_factory=list)


def answer_to_count(room: Room, number: int) -> list[float]:
    """From each acknowledged tap to the projector's first count that includes it: the k-th
    acknowledged answer of the room is counted by the first count ≥ base + k received after
    its 200 (the counter only goes up)."""
    acked = sorted((p.acked[number][0], p.tapped[number]) for p in room.phones if number in p.acked)
    latencies = []
    for rank, (at, tapped) in enumerate(acked, 1):
        target = room.base[number] + rank
        shown = next((t for t, n in room.counts if t >= at and n >= target), None)
        if shown is not None:
            latencies.append(shown - tapped)
    return latencies


def collect(result: Result, rooms: list[Room], number: int) -> float:
    """Add one question's latencies to ``result``; the moment the last phone heard it."""
    last = 0.0
    for room in rooms:
        version, asked = room.asked[number]
        for phone in room.phones:
            if not phone.token:
                continue
            times = [at for v, at in phone.heard.items() if v >= version]
            if not times:
                result.missed += 1
                continue
            result.question.setdefault(number, []).append(min(times) - asked)
            last = max(last, min(times))
            if number in phone.acked:
                result.acknowledged.append(phone.acked[number][0] - phone.tapped[number])
        result.counted += answer_to_count(room, number)
    return last


def stored_answers(db_url: str) -> set[tuple[str, int, str]]:
    """Every answer in the database: (the student's token hash, the question's number in its
    room, the answer's key)."""
    rows = raw_rows(
        db_url,
        "SELECT s.token_hash, q.number, a.answer_key FROM answers a"
        " JOIN asked q ON q.id = a.asked_id JOIN students s ON s.id = a.student_id",
    )
    return {(str(h), int(n), str(k)) for h, n, k in rows}


def lost_answers(result: Result, phones: list[Phone], db_url: str) -> None:
    """Acknowledged answers missing from the database (or stored under another key)."""
    stored = stored_answers(db_url)
    result.stored = len(stored)
    for phone in phones:
        for number, (_, key) in phone.acked.items():
            result.acked += 1
            if (digest(phone.token), number, key) not in stored:
                result.lost.append(f"{phone.nickname} q{number} {key}")


# --- the servers -----------------------------------------------------------------------------


@dataclass
class Served:
    """The server side as the phones reach it: the address, the app's processes (measured),
    the others (nginx), and how to kill a replica (None: one server)."""

    host: str
    port: int
    db_url: str
    pids: list[int]
    others: dict[str, list[int]]
    kill: Callable[[], None] | None
    stderr: Callable[[], str]
    last: dict[int, float] = field(default_factory=dict)  # pid → its CPU-s when last read

    def cpu(self) -> float:
        """The app's processes' CPU-s so far (a killed replica's as last read)."""
        for pid in self.pids:
            self.last[pid] = _own_cpu(pid, children=True) or self.last.get(pid, 0.0)
        return sum(self.last.values())

    def rss(self) -> float:
        """The app's processes' resident memory now, MB."""
        return sum(rss_mb(pid) for pid in self.pids)


@contextlib.contextmanager
def database(kind: str) -> Iterator[str]:
    """A fresh database: a SQLite file in a temporary folder, or a throwaway PostgreSQL
    schema."""
    if kind == "sqlite":
        with tempfile.TemporaryDirectory(prefix="bench-phones-") as folder:
            yield f"sqlite:///{Path(folder) / 'classroom.db'}"
    else:
        with pg_schema(PG_URL, prefix="bench_phones") as schema:
            yield with_search_path(PG_URL, schema)


@contextlib.contextmanager
def serving(setting: Setting, db_url: str) -> Iterator[Served]:
    """One server (bench.replicas.Replica: `streamlit run streamlit_app.py` with the database's
    URL) or the replicas behind nginx, every one under ``taskset -c SERVER_CPU``."""
    if setting.replicas == 1:
        replica = Replica(db_url, SERVER_CPU)
        try:
            replica.wait_healthy()
            yield Served("127.0.0.1", replica.port, db_url, [replica.pid], {}, None, replica.stderr)
        finally:
            replica.stop()
        return
    cpus = [SERVER_CPU] * setting.replicas
    with Topology(db_url, setting.replicas, cpus, nginx_cpus=SERVER_CPU) as topology:
        assert topology.nginx is not None
        replicas = topology.replicas

        def stderr() -> str:
            """The end of every replica's log."""
            return "\n".join(replica.stderr()[-2000:] for replica in replicas)

        others = {"nginx": [topology.nginx.process.pid]}
        pids = [replica.pid for replica in replicas]
        yield Served(
            "127.0.0.1", topology.nginx.port, db_url, pids, others, replicas[0].kill, stderr
        )


PROFILER = """
import cProfile, os, pstats, signal, sys, threading, time

_profiles = []


class _Snapshot:
    def __init__(self, profile):
        profile.snapshot_stats()  # another thread's profile goes on; its numbers so far
        self.stats = profile.stats

    def create_stats(self):
        pass


def _profile_thread(*_):
    sys.setprofile(None)
    profile = cProfile.Profile(time.thread_time)  # CPU, not wall time
    _profiles.append(profile)
    profile.enable()


def _dump(*_):
    stats = pstats.Stats(_Snapshot(_profiles[0]))
    for profile in _profiles[1:]:
        stats.add(pstats.Stats(_Snapshot(profile)))
    stats.dump_stats(os.environ["BENCH_PHONES_PROFILE"])


_profile_thread()
threading.setprofile(_profile_thread)
signal.signal(signal.SIGUSR1, _dump)  # uvicorn ends on SIGTERM by the signal itself: no atexit
"""


@contextlib.contextmanager
def profiled(path: str | None) -> Iterator[None]:
    """With ``path``: every server started meanwhile runs cProfile (of CPU time) in each of
    its threads (a sitecustomize put first on its PYTHONPATH) and writes the merged stats to
    ``path`` on SIGUSR1 (``dump_profile``); read them with ``python -m pstats``."""
    if path is None:
        yield
        return
    saved = dict(os.environ)
    with tempfile.TemporaryDirectory(prefix="bench-phones-profile-") as folder:
        (Path(folder) / "sitecustomize.py").write_text(PROFILER)
        os.environ["PYTHONPATH"] = os.pathsep.join([folder, os.environ.get("PYTHONPATH", "")])
        os.environ["BENCH_PHONES_PROFILE"] = str(Path(path).resolve())
        try:
            yield
        finally:
            os.environ.clear()
            os.environ.update(saved)


def dump_profile(served: Served, path: str) -> None:
    """Ask the profiled server for its stats (SIGUSR1) and wait until they are written."""
    target = Path(path).resolve()
    with contextlib.suppress(FileNotFoundError):
        target.unlink()
    for pid in served.pids:
        os.kill(pid, signal.SIGUSR1)
    deadline = time.monotonic() + 30
    while not target.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(1)  # written whole
    print(f"profile: {target} ({'written' if target.exists() else 'NOT written'})")


def raise_fd_limit() -> None:
    """The soft limit of open files up to the hard one: 1,000 phones hold 1,000 sockets and
    more (the servers started from here inherit it)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def others_cpu(served: Served) -> dict[str, Any]:
    """CPU-s so far of nginx, of each PostgreSQL process (every client's, not only this
    bench's: read by process, as backends come and go) and of this process."""
    found: dict[str, Any] = {
        name: sum(cpu_seconds(pid) for pid in pids) for name, pids in served.others.items()
    }
    if served.db_url.startswith("postgresql"):
        found["PostgreSQL (all its clients)"] = {pid: _own_cpu(pid) for pid in postgres_pids()}
    found["this process"] = time.process_time()
    return found


def cpu_since(before: dict[str, Any], after: dict[str, Any]) -> dict[str, float]:
    """Each of ``others_cpu``'s CPU-s between two readings (PostgreSQL's processes that lived
    through both)."""
    spent = {}
    for name, now in after.items():
        if isinstance(now, dict):
            spent[name] = sum(now[pid] - before[name][pid] for pid in now if pid in before[name])
        else:
            spent[name] = now - before[name]
    return spent


def _own_cpu(pid: int, children: bool = False) -> float:
    """One process's CPU-s, with its children's or not (0 for one that ended meanwhile)."""
    try:
        return cpu_seconds(pid) if children else sum(psutil.Process(pid).cpu_times()[:2])
    except psutil.Error:
        return 0.0


def runqueue_wait(pid: int) -> float:
    """Seconds the process's threads have waited for a CPU while runnable (the kernel's
    schedstat): what other processes on the server's core cost it."""
    total = 0
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(OSError, IndexError, ValueError):
                total += int((task / "schedstat").read_text().split()[1])
    return total / 1e9


class Sampler:
    """The app's CPU-s and its wait for a CPU every 0.1 s, to read any window afterwards."""

    def __init__(self, served: Served) -> None:
        self.served = served
        self.samples: list[tuple[float, float, float]] = []  # (t, CPU-s, run-queue wait s)
        self.waits: dict[int, float] = {}  # pid → its run-queue wait when last read

    async def run(self) -> None:
        """Sample until cancelled."""
        while True:
            for pid in self.served.pids:
                self.waits[pid] = runqueue_wait(pid) or self.waits.get(pid, 0.0)
            wait = sum(self.waits.values())
            self.samples.append((time.monotonic(), self.served.cpu(), wait))
            await asyncio.sleep(0.1)

    def between(self, start: float, end: float) -> tuple[float, float]:
        """CPU-s spent and seconds waited for a CPU between two moments (the nearest samples
        outside them)."""
        before = max((s for s in self.samples if s[0] <= start), default=self.samples[0])
        after = min((s for s in self.samples if s[0] >= end), default=self.samples[-1])
        return after[1] - before[1], after[2] - before[2]


# --- the class, step by step ---------------------------------------------------------------------


def set_up(served: Served, setting: Setting, window: float, seed: int) -> tuple[Class, Store]:
    """The teacher's store and rooms; the phones, spread evenly over them; each question's
    truth (the phones answer near it)."""
    store = Store(served.db_url)
    rooms = [
        Room(made.code, made.teacher_key)
        for made in (store.create_room() for _ in range(setting.rooms))
    ]
    for i in range(setting.phones):
        room = rooms[i % len(rooms)]
        room.phones.append(Phone(room))
    truths = {q: QUESTIONS[q].compute(QUESTIONS[q].settings(None)) for q in ROUNDS}
    return Class(served.host, served.port, rooms, truths, window, random.Random(seed)), store


async def warm(run: Class, result: Result, served: Served) -> None:
    """A few requests to every room (the hub is made on the first; without a cookie nginx sends
    each to any replica); then the server's memory, and its CPU while nobody waits."""
    for room in run.rooms:
        for _ in range(4):
            await once(run.host, run.port, "GET", f"/api/rooms/{room.code}/state", {})
    await asyncio.sleep(2)
    result.rss_before = served.rss()
    cpu = served.cpu()
    await asyncio.sleep(5)
    result.idle_cpu = (served.cpu() - cpu) / 5


async def join_all(run: Class, result: Result, spread: float) -> None:
    """Every phone joins at a random moment within ``spread`` s; wait until each has its
    first state (a phone that cannot join gives up after ten tries)."""
    start = time.monotonic() + 0.5
    for room in run.rooms:
        run.start(project(run, room))
    for phone in run.phones:
        run.start(join(run, phone, start + run.rng.uniform(0, spread)))
    await until(lambda: all(p.version >= 0 or len(p.errors) >= 10 for p in run.phones), spread + 90)
    result.joined = sum(1 for p in run.phones if p.version >= 0)
    result.join = [p.join_seconds for p in run.phones if p.join_seconds is not None]


async def quiet(run: Class, result: Result, served: Served, seconds: float) -> None:
    """Every phone waits on its long-poll and nothing happens for ``seconds``: the server's
    CPU over them, and its memory at their end."""
    await asyncio.sleep(3)  # the joins' last roster reads are done
    cpu, others, began = served.cpu(), others_cpu(served), time.monotonic()
    await asyncio.sleep(seconds)
    result.quiet_seconds = time.monotonic() - began
    result.quiet_cpu = served.cpu() - cpu
    result.quiet_extra = cpu_since(others, others_cpu(served))
    result.rss_after = served.rss()


async def ask_round(
    run: Class, result: Result, store: Store, number: int, kill: Callable[[], None] | None
) -> tuple[float, float]:
    """Ask question ``number`` in every room, wait for every answer and its count. With
    ``kill``: a replica dies halfway through the answers, and the teacher moves on to the next
    question AFTER_KILL s later, answers still coming (the worst moment to ask). The first
    ask's and the last phone's moments."""
    question = ROUNDS[number - 1]
    await asyncio.to_thread(ask_all, store, run.rooms, question, number)
    first = min(room.asked[number][1] for room in run.rooms)
    joined = [p for p in run.phones if p.token]
    if kill is None:
        await until(lambda: all(number in p.done for p in joined), run.window + 60)
    else:
        await kill_later(result, kill, first, run.window / 2)
        await asyncio.sleep(AFTER_KILL)
    await until(lambda: all(counted(room, number) for room in run.rooms), 30 if kill is None else 5)
    return first, collect(result, run.rooms, number)


def counted(room: Room, number: int) -> bool:
    """Whether the projector has counted every answer acknowledged in the room so far."""
    acked = sum(1 for p in room.phones if number in p.acked)
    return bool(room.counts) and room.counts[-1][1] >= room.base[number] + acked


async def kill_later(result: Result, kill: Callable[[], None], asked: float, delay: float) -> None:
    """Kill a replica ``delay`` s after the ask, as a machine dies (SIGKILL)."""
    await asyncio.sleep(max(0.0, asked + delay - time.monotonic()))
    result.kill["at"] = time.monotonic() - asked
    await asyncio.to_thread(kill)
    result.kill["dead"] = time.monotonic() - asked


async def rounds(
    run: Class,
    result: Result,
    store: Store,
    watch: tuple[Sampler, Lag],
    kill: Callable[[], None] | None,
) -> None:
    """The questions one after the other, two seconds apart; ``kill`` during the second."""
    sampler, lag = watch
    cpu = time.process_time()
    for number in range(1, len(ROUNDS) + 1):
        first, last = await ask_round(run, result, store, number, kill if number == 2 else None)
        result.bursts.append(last - first)
        result.burst_cpu.append(sampler.between(first, last))
        end = time.monotonic()
        await asyncio.sleep(0.15)  # a sample after the end
        result.whole.append((end - first, *sampler.between(first, end)))
        result.lag = max(result.lag, lag.worst(first, last))
        if not (kill is not None and number == 2):  # after a kill, the next question at once
            await asyncio.sleep(2)
    result.client_cpu = time.process_time() - cpu


async def play(setting: Setting, served: Served, args: argparse.Namespace) -> Result:
    """One class on the servers ``served``, from the rooms' creation to the lost answers."""
    result = Result(setting)
    run, store = set_up(served, setting, args.window, args.seed)
    lag, sampler = Lag(), Sampler(served)
    run.start(lag.run())
    run.start(sampler.run())
    try:
        await warm(run, result, served)
        await join_all(run, result, args.join_over)
        await quiet(run, result, served, args.quiet)
        await rounds(run, result, store, (sampler, lag), served.kill if args.kill else None)
    finally:
        await run.stop()
        store.dispose()
    lost_answers(result, run.phones, served.db_url)
    result.errors = [error for phone in run.phones for error in phone.errors]
    return result


# --- the report ----------------------------------------------------------------------------------


def spread(values: list[float]) -> str:
    """p50, p95 and max of ``values`` in seconds, and how many."""
    top = max(values, default=float("nan"))
    return (
        f"p50 {percentile(values, 0.5):.3f} s, p95 {percentile(values, 0.95):.3f} s, "
        f"max {top:.3f} s over {len(values)}"
    )


def verdict(value: float, goal: float) -> str:
    """Whether ``value`` is within ``goal``, in the reports' words."""
    return "met" if value <= goal else "NOT MET"


def cpu_per_phone(result: Result) -> float:
    """The server's CPU-s per waiting phone per minute, over the quiet period."""
    return result.quiet_cpu / max(result.joined, 1) / (result.quiet_seconds / 60)


def table_row(result: Result) -> str:
    """The goals table's row for this class."""
    s = result.setting
    questions = [v for values in result.question.values() for v in values]
    place = "SQLite" if s.database == "sqlite" else "PostgreSQL"
    servers = "1 server" if s.replicas == 1 else f"{s.replicas} replicas + nginx"
    return (
        f"| {s.name} ({result.joined:,} phones, {s.rooms} rooms, {place}, {servers}) | "
        f"{percentile(questions, 0.95):.2f} s | {percentile(result.acknowledged, 0.95):.2f} s | "
        f"{percentile(result.counted, 0.95):.2f} s | {len(result.lost)} | "
        f"{cpu_per_phone(result):.4f} CPU-s a minute |"
    )


def report_latencies(result: Result) -> None:
    """The three latencies, each against its goal."""
    questions = [v for values in result.question.values() for v in values]
    for name, values, goal in (
        ("Ask → phone", questions, GOALS["question"]),
        ("answer → acknowledged", result.acknowledged, GOALS["acknowledged"]),
        ("answer → projector's count", result.counted, GOALS["count"]),
    ):
        p95 = percentile(values, 0.95)
        print(f"{name}: {spread(values)} (goal p95 ≤ {goal} s: {verdict(p95, goal)})")
    for number, values in sorted(result.question.items()):
        print(f"    question {number} ({ROUNDS[number - 1]}): Ask → phone {spread(values)}")
    database = result.setting.database
    heard = "is told by PostgreSQL's NOTIFY" if database != "sqlite" else f"polls every {CHECK} s"
    print(
        f"    phone × question never heard: {result.missed}; for an ask made in another process "
        f"the server {heard}"
    )
    bursts = zip(result.bursts, result.burst_cpu, strict=True)
    for i, (seconds, (cpu, waited)) in enumerate(bursts, 1):
        print(
            f"    burst {i} (first ask → last phone heard): {seconds:.2f} s, server CPU "
            f"{cpu:.2f} s = {cpu / max(result.joined, 1) * 1e3:.2f} ms per phone; its threads "
            f"waited {waited:.2f} s for a CPU"
        )
    for i, (seconds, cpu, waited) in enumerate(result.whole, 1):
        print(
            f"    question {i}, the ask to the last answer counted: {seconds:.1f} s, server CPU "
            f"{cpu:.2f} s ({cpu / seconds:.0%} of a core); its threads waited {waited:.2f} s "
            "for a CPU"
        )


def report_costs(result: Result) -> None:
    """CPU while waiting, memory, and this client's own load."""
    per_phone = cpu_per_phone(result)
    idle = result.idle_cpu * result.quiet_seconds
    print(
        f"quiet {result.quiet_seconds:.1f} s, {result.joined} phones long-polling: server CPU "
        f"{result.quiet_cpu:.2f} s = {per_phone:.4f} CPU-s per phone per minute (goal ≤ "
        f"{GOALS['cpu']}: {verdict(per_phone, GOALS['cpu'])}); the server alone before any "
        f"phone would have spent {idle:.2f} s of it"
    )
    for name, cpu in result.quiet_extra.items():
        print(f"    {name}: {cpu:.2f} CPU-s over the quiet period")
    delta = result.rss_after - result.rss_before
    print(
        f"server RSS: {result.rss_before:.0f} MB before the joins, {result.rss_after:.0f} MB "
        f"with every phone waiting: {delta / max(result.joined, 1) * 1e3:.0f} kB per phone"
    )
    print(
        f"this client: worst event-loop lag in the bursts {result.lag * 1e3:.0f} ms; "
        f"{result.client_cpu:.1f} CPU-s over the questions"
    )


def report(result: Result) -> None:
    """Print the class's numbers, the goals met or not, and the table's row."""
    s = result.setting
    print(
        f"\n{s.name}: {s.phones} phones in {s.rooms} rooms, {s.database}, {s.replicas} "
        f"server(s); joined {result.joined} (join {spread(result.join)})"
    )
    print(
        f"answers lost: {len(result.lost)} of {result.acked} acknowledged (the database holds "
        f"{result.stored}; {s.phones * len(ROUNDS)} taps meant)"
    )
    report_latencies(result)
    report_costs(result)
    if result.kill:
        heard = max(result.question.get(3, []), default=float("nan"))
        print(
            f"kill: replica 0 killed {result.kill['at']:.1f} s after question 2 was asked (dead "
            f"{result.kill['dead']:.1f} s), question 3 asked {AFTER_KILL} s later; "
            f"acknowledged answers lost {len(result.lost)} (must be 0); every phone heard "
            f"question 3 within {heard:.2f} s of its ask (goal ≤ {KILL_GOAL} s: "
            f"{verdict(heard, KILL_GOAL)})"
        )
    kinds: dict[str, int] = {}
    for error in result.errors:
        kinds[error[:60]] = kinds.get(error[:60], 0) + 1
    print(f"errors the phones met: {len(result.errors)}")
    for kind, n in sorted(kinds.items(), key=lambda item: -item[1])[:8]:
        print(f"    {n} × {kind}")
    for lost in result.lost[:5]:
        print(f"    lost: {lost}")
    print(f"load average after: {result.load}")
    print(
        "\n| setting | Ask → phone p95 | answer → acknowledged p95 | answer → count p95 | lost "
        "| CPU per waiting phone |\n|---|---|---|---|---|---|"
    )
    print(table_row(result))


def arguments() -> tuple[Setting, argparse.Namespace]:
    """The command line: the setting (its sizes as given) and the other options."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--setting", choices=sorted(SETTINGS), default="sqlite1000")
    parser.add_argument("--phones", type=int, help="phones in all (the setting's by default)")
    parser.add_argument("--rooms", type=int, help="rooms (the setting's by default)")
    parser.add_argument("--window", type=float, default=10.0, help="s within which phones answer")
    parser.add_argument("--join-over", type=float, default=5.0, help="s over which phones join")
    parser.add_argument("--quiet", type=float, default=WAIT, help="s of waiting measured")
    parser.add_argument("--kill", action="store_true", help="replicas: kill one mid-question")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--profile", metavar="FILE", help="cProfile the server into FILE")
    args = parser.parse_args()
    chosen = SETTINGS[args.setting]
    phones, rooms = args.phones or chosen.phones, args.rooms or chosen.rooms
    setting = Setting(chosen.name, chosen.database, phones, rooms, chosen.replicas)
    if args.kill and setting.replicas < 2:
        parser.error("--kill needs the replicas setting")
    if args.profile and setting.replicas > 1:
        parser.error("--profile is for one server")
    return setting, args


def code_version() -> str:
    """The commit served, and whether the app's code differs from it (another editor's work)."""

    def git(*words: str) -> str:
        """What a read-only git command prints."""
        done = subprocess.run(["git", *words], cwd=ROOT, capture_output=True, text=True)
        return done.stdout.strip()

    changed = git("status", "--porcelain", "--", "ui", "classroom", "streamlit_app.py")
    return git("rev-parse", "--short", "HEAD") + (" with uncommitted changes" if changed else "")


def main() -> None:
    """Read the command line, serve, play the class, report."""
    setting, args = arguments()
    raise_fd_limit()
    os.sched_setaffinity(0, {CLIENT_CPU})
    print(
        f"{time.strftime('%Y-%m-%d %H:%M')}, code {code_version()}: load average before "
        f"{os.getloadavg()}; {os.cpu_count()} cores; server on core {SERVER_CPU}, phones on "
        f"core {CLIENT_CPU}"
    )
    with (
        database(setting.database) as db_url,
        profiled(args.profile),
        serving(setting, db_url) as served,
    ):
        try:
            result = asyncio.run(play(setting, served, args))
            if args.profile:
                dump_profile(served, args.profile)
        except BaseException:
            print(served.stderr()[-3000:])
            raise
    result.load = [round(x, 2) for x in os.getloadavg()]  # type: ignore[misc]
    report(result)


if __name__ == "__main__":
    main()
