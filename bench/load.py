"""A classroom under load: 30 sessions open the shared link at once, then each changes the
sentence and d ten times, over Streamlit's own websocket protocol. Run by hand:

    python -m bench.load [--sessions 30] [--changes 10]
    python -m bench.load --worst [--sessions 20] [--changes 3] [--waves 1]

Prints failures, p50/p95 latency and runs per second for the lab and for the yardstick page,
whether the lab keeps ≥ 0.5× the yardstick's runs per second with no failure, and the server's
memory before, after a first wave and after a second wave of sessions (each read once the
wave's sessions have closed and outlived a disconnected-session TTL of 10 s).

``--worst`` is the class that once took the server down: every session opens the lab at the
heaviest settings a link allows (32 tokens with padding, d = 8192, 64 heads, embeddings), each
with its own seed so that nothing is shared through the cache, then changes the seed, the
sentence and the seed again. It prints failures, p50/p95 and the server's peak and final RSS.

"""

import argparse
import statistics
import threading
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from urllib.parse import urlencode

import psutil
import websocket
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from bench.serve import streamlit_server

SENTENCES = [
    "我喜欢人工智能",
    "我爱我家",
    "Attention is all you need",
    "注意力机制很有趣",
    "你好世界",
]
DS = [64, 96, 768, 1536, 6144]
LINK = "text=%E6%88%91%E5%96%9C%E6%AC%A2%E4%BA%BA%E5%B7%A5%E6%99%BA%E8%83%BD&d=64&lang=zh"


@dataclass
class Session:
    """One student's browser tab, reduced to its websocket."""

    base: str
    latencies: list[float] = field(default_factory=list)
    received: list[int] = field(default_factory=list)  # bytes the server sent, per run
    failures: list[str] = field(default_factory=list)
    widget_ids: dict[str, str] = field(default_factory=dict)
    fragments: dict[str, str] = field(default_factory=dict)  # widget key → its fragment's id
    page_hash: str = ""

    def connect(self) -> websocket.WebSocket:
        url = self.base.replace("http", "ws") + "/_stcore/stream"
        return websocket.create_connection(url, subprotocols=["streamlit"], timeout=60)

    def run(self, ws: websocket.WebSocket, query: str, widgets: dict[str, object]) -> None:
        """Send one rerun and read until the script has finished; record time and bytes."""
        message = BackMsg()
        message.rerun_script.query_string = query
        message.rerun_script.page_script_hash = self.page_hash
        # As a browser does: a change to widgets of one fragment reruns that fragment alone.
        (fragment, *others) = {self.fragments.get(key, "") for key in widgets} or {""}
        message.rerun_script.fragment_id = "" if others else fragment
        for key, value in widgets.items():
            state = message.rerun_script.widget_states.widgets.add()
            state.id = self.widget_ids[key]
            if isinstance(value, str):
                state.string_value = value
            else:
                state.double_value = float(value)
        start = time.perf_counter()
        ws.send_binary(message.SerializeToString())
        size = 0
        while True:
            frame = ws.recv()
            size += len(frame)
            reply = ForwardMsg()
            reply.ParseFromString(frame)
            kind = reply.WhichOneof("type")
            if kind == "new_session":
                self.page_hash = reply.new_session.page_script_hash
            elif kind == "delta" and reply.delta.WhichOneof("type") == "new_element":
                element = reply.delta.new_element
                widget = getattr(element, element.WhichOneof("type") or "", None)
                widget_id = getattr(widget, "id", "")
                if widget_id and "-" in widget_id:
                    key = widget_id.rsplit("-", 1)[-1]
                    self.widget_ids.setdefault(key, widget_id)
                    self.fragments[key] = reply.delta.fragment_id
                if element.WhichOneof("type") == "exception":
                    self.failures.append(element.exception.message)
            elif kind == "script_finished":
                break
        self.latencies.append(time.perf_counter() - start)
        self.received.append(size)

    def lesson(self, changes: int, start: threading.Barrier) -> None:
        """Open the shared link together with the class, then change the sentence and d."""
        try:
            ws = self.connect()
            start.wait()
            self.run(ws, LINK, {})
            for i in range(changes):
                if i % 2 == 0 or "d" not in self.widget_ids:
                    self.run(ws, LINK, {"text": SENTENCES[i % len(SENTENCES)]})
                else:
                    self.run(ws, LINK, {"d": DS[i % len(DS)]})
            ws.close()
        except Exception as error:  # a failure is counted, never hidden
            self.failures.append(repr(error))


def heaviest_link(seed: int) -> str:
    """The heaviest lab a link can ask for, with its own seed."""
    text = "".join(chr(0x4E00 + 7 * i + seed % 97) for i in range(40))
    query = {"text": text, "d": 8192, "heads": 64, "head": 63, "source": "embedding"}
    return urlencode({**query, "mask": "padding", "seed": seed, "temperature": 0.05})


def worst_lesson(session: Session, seed: int, changes: int, start: threading.Barrier) -> None:
    """Open the heaviest link, then change the seed and the sentence, all at the heaviest."""
    try:
        ws = session.connect()
        start.wait()
        link = heaviest_link(seed)
        session.run(ws, link, {})
        for i in range(changes):
            if i % 2 == 0:
                session.run(ws, link, {"seed": seed + 1000 * (i + 1)})
            else:
                text = "".join(chr(0x5000 + 11 * j + seed % 89 + i) for j in range(40))
                session.run(ws, link, {"text": text})
        ws.close()
    except Exception as error:  # a failure is counted, never hidden
        session.failures.append(repr(error))


def wave(
    base: str, sessions: int, changes: int, worst: bool = False
) -> tuple[list[Session], float]:
    """All sessions at once; returns them and the wall time."""
    start = threading.Barrier(sessions)
    students = [Session(base) for _ in range(sessions)]
    threads = [
        threading.Thread(target=worst_lesson, args=(s, 7919 * (i + 1), changes, start))
        if worst
        else threading.Thread(target=s.lesson, args=(changes, start))
        for i, s in enumerate(students)
    ]
    began = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=600)
    return students, time.perf_counter() - began


def rss_mb(pid: int) -> float:
    """Resident memory of the server process and its children, in MB."""
    process = psutil.Process(pid)
    return sum(p.memory_info().rss for p in [process, *process.children(recursive=True)]) / 1e6


class PeakRss:
    """Polls the server's resident memory every 50 ms while in a ``with`` block."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.peak = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def _poll(self) -> None:
        while not self._stop.wait(0.05):
            self.peak = max(self.peak, rss_mb(self.pid))

    def __enter__(self) -> "PeakRss":
        self.peak = rss_mb(self.pid)
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()


def measure_worst(sessions: int, changes: int, waves: int = 1) -> list[dict[str, float]]:
    """The worst-case class against a fresh server, ``waves`` times one after the other (a day
    of classes): per wave, failures, latency, peak memory, and memory once its tabs are closed."""
    ttl = ("--server.disconnectedSessionTTL", str(SESSION_TTL))
    rows = []
    with streamlit_server("streamlit_app.py", *ttl) as (base, pid):
        wave(base, 1, 1)  # imports, as after the first visitor
        before = rss_mb(pid)
        for _ in range(waves):
            with PeakRss(pid) as peak:
                students, seconds = wave(base, sessions, changes, worst=True)
            time.sleep(SESSION_TTL + 5)
            rows.append(_worst_row(students, seconds, before, peak.peak, rss_mb(pid)))
    return rows


def _worst_row(
    students: list[Session], seconds: float, before: float, peak: float, final: float
) -> dict[str, float]:
    latencies = sorted(x for s in students for x in s.latencies)
    return {
        "failures": sum(len(s.failures) for s in students),
        "runs": len(latencies),
        "p50": statistics.median(latencies) if latencies else float("nan"),
        "p95": latencies[int(0.95 * (len(latencies) - 1))] if latencies else float("nan"),
        "kb_per_run": statistics.median(x for s in students for x in s.received) / 1e3,
        "seconds": seconds,
        "rss_before": before,
        "rss_peak": peak,
        "rss_final": final,
    }


def print_worst(sessions: int, changes: int, waves: int) -> None:
    """Run the worst-case class and print a row per wave, with the targets met or not."""
    rows = measure_worst(sessions, changes, waves)
    print(f"worst case: {sessions} sessions at the heaviest settings, {changes} changes each")
    print("wave | failures | runs | p50 s | p95 s | kB/run | RSS before MB | peak MB | final MB")
    for number, row in enumerate(rows, 1):
        print(
            f"{number} | {row['failures']:.0f} | {row['runs']:.0f} | {row['p50']:.2f} | "
            f"{row['p95']:.2f} | {row['kb_per_run']:.0f} | {row['rss_before']:.0f} | "
            f"{row['rss_peak']:.0f} | {row['rss_final']:.0f}"
        )
    for name, met in [
        ("0 failures", all(row["failures"] == 0 for row in rows)),
        ("peak RSS < 690 MB", all(row["rss_peak"] < 690 for row in rows)),
        ("p95 < 10 s", all(row["p95"] < 10 for row in rows)),
    ]:
        print(f"  {name}: {'met' if met else 'NOT MET'}")
    if len(rows) > 1:
        growth = rows[-1]["rss_final"] - rows[0]["rss_final"]
        print(f"  memory kept from the first wave's end to the last's: {growth:+.0f} MB")


SESSION_TTL = 10  # s; Streamlit's default keeps a closed tab's session 120 s for reconnection
MIN_THROUGHPUT = 0.5  # the lab's runs per second, at least this share of the yardstick's


APPS = {"lab": "streamlit_app.py", "yardstick": "bench/yardstick.py"}


def measure(sessions: int, changes: int) -> dict[str, dict[str, float]]:
    """The lab and the yardstick, each on its own fresh server, two waves each, taken in turn
    (lab, yardstick, lab, yardstick): this machine's speed drifts over minutes, and taking them
    in turn spreads the drift over both. Memory before, and after each wave once its sessions
    have closed and outlived the server's disconnected-session TTL."""
    ttl = ("--server.disconnectedSessionTTL", str(SESSION_TTL))
    with ExitStack() as stack:
        servers = {
            name: stack.enter_context(streamlit_server(app, *ttl)) for name, app in APPS.items()
        }
        waves: dict[str, list[tuple[list[Session], float]]] = {name: [] for name in APPS}
        memory: dict[str, list[float]] = {name: [] for name in APPS}
        for name, (base, _) in servers.items():
            waves[name].append(wave(base, 1, 1))  # imports and caches, as after the first visitor
        time.sleep(SESSION_TTL + 5)
        for name, (_, pid) in servers.items():
            memory[name].append(rss_mb(pid))
        for _ in range(2):
            for name, (base, pid) in servers.items():
                waves[name].append(wave(base, sessions, changes))
                time.sleep(SESSION_TTL + 5)
                memory[name].append(rss_mb(pid))
    return {name: _row(waves[name], memory[name]) for name in APPS}


def _row(waves: list[tuple[list[Session], float]], memory: list[float]) -> dict[str, float]:
    """Failures over every wave; latency, runs per second and bytes over the two class waves."""
    classes = [students for students, _ in waves[1:]]
    everyone = [s for students in classes for s in students]
    latencies = sorted(x for s in everyone for x in s.latencies[1:])
    opening = sorted(s.latencies[0] for s in everyone if s.latencies)
    runs = sum(len(s.latencies) for s in everyone)
    return {
        "failures": sum(len(s.failures) for students, _ in waves for s in students),
        "open_p50": statistics.median(opening) if opening else float("nan"),
        "p50": statistics.median(latencies) if latencies else float("nan"),
        "p95": latencies[int(0.95 * (len(latencies) - 1))] if latencies else float("nan"),
        "runs_per_s": runs / sum(seconds for _, seconds in waves[1:]),
        "kb_per_run": statistics.median(x for s in everyone for x in s.received[1:]) / 1e3,
        "rss_before": memory[0],
        "rss_wave1": memory[1],
        "rss_wave2": memory[2],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=None)
    parser.add_argument("--changes", type=int, default=None)
    parser.add_argument("--worst", action="store_true", help="the heaviest-settings class")
    parser.add_argument("--waves", type=int, default=1, help="worst-case classes in a row")
    args = parser.parse_args()
    if args.worst:
        print_worst(args.sessions or 20, args.changes or 3, args.waves)
        return
    args.sessions = args.sessions or 30
    args.changes = args.changes or 10
    rows = measure(args.sessions, args.changes)
    waves = "two waves each, lab and yardstick in turn"
    print(f"{args.sessions} sessions × {args.changes} changes each, {waves}")
    header = [
        "page",
        "failures",
        "open p50 s",
        "p50 s",
        "p95 s",
        "runs/s",
        "kB/run",
        "RSS before MB",
        "after wave 1",
        "after wave 2",
    ]
    print(" | ".join(header))
    for name, row in rows.items():
        print(
            f"{name} | {row['failures']:.0f} | {row['open_p50']:.2f} | {row['p50']:.2f} | "
            f"{row['p95']:.2f} | {row['runs_per_s']:.1f} | {row['kb_per_run']:.1f} | "
            f"{row['rss_before']:.0f} | {row['rss_wave1']:.0f} | {row['rss_wave2']:.0f}"
        )
    lab, yard = rows["lab"], rows["yardstick"]
    p50 = lab["p50"] / yard["p50"]
    speed = lab["runs_per_s"] / yard["runs_per_s"]
    print(f"lab/yardstick: p50 ×{p50:.2f}, runs/s ×{speed:.2f}")
    print(f"memory growth from wave 1 to wave 2: {lab['rss_wave2'] - lab['rss_wave1']:+.1f} MB")
    print("\ntarget (issue 12) | measured | verdict")
    for name, measured, met in [
        ("lab runs/s ≥ 0.5 × the yardstick's", f"×{speed:.2f}", speed >= MIN_THROUGHPUT),
        ("0 failures (lab, warm-up and both waves)", f"{lab['failures']:.0f}", not lab["failures"]),
    ]:
        print(f"{name} | {measured} | {'met' if met else 'NOT MET'}")


if __name__ == "__main__":
    main()
