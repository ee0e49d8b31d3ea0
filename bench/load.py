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
import random
import statistics
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from functools import partial
from pathlib import Path
from urllib.parse import urlencode

from streamlit.proto.Element_pb2 import Element
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from bench.measure import PeakRss, percentile, rss_mb, together
from bench.serve import ROOT, streamlit_server
from bench.stream import Tab
from ui.kit.pages import PAGES, PATHS

SENTENCES = [
    "我喜欢人工智能",
    "我爱我家",
    "Attention is all you need",
    "注意力机制很有趣",
    "你好世界",
]
DS = [64, 96, 768, 1536, 6144]
LINK = "text=%E6%88%91%E5%96%9C%E6%AC%A2%E4%BA%BA%E5%B7%A5%E6%99%BA%E8%83%BD&d=64&lang=zh"


class Session(Tab):
    """One student's browser tab: each run's seconds and bytes, the charts of the last run."""

    def __init__(self, base: str, page: str = "") -> None:
        super().__init__(base, page=page, timeout=60)
        self.latencies: list[float] = []
        self.received: list[int] = []  # bytes the server sent, per run
        self.charts: list[str] = []  # keys of the charts of the last run

    def key_of(self, element_id: str) -> str:
        # the lab's widgets are keyed lab_<field>; the yardstick's by the field alone
        return super().key_of(element_id).removeprefix("lab_")

    def run(self, query: str, widgets: dict[str, object]) -> None:
        """Send one rerun with the link's ``query`` and read until the script has finished;
        record time and bytes."""
        start = time.perf_counter()
        self.send(widgets, self.fragment_of(widgets), query=query)
        self.received.append(self.read_run())
        self.latencies.append(time.perf_counter() - start)

    def receive(self, frame: bytes | str) -> ForwardMsg:
        message = super().receive(frame)
        if message.WhichOneof("type") == "new_session":
            self.charts = []
        return message

    def note(self, element: Element, fragment: str, path: tuple[int, ...]) -> None:
        super().note(element, fragment, path)
        if element.WhichOneof("type") == "plotly_chart":
            self.charts.append(element.plotly_chart.id.rsplit("-", 1)[-1])

    def lesson(self, changes: int, start: threading.Barrier) -> None:
        """Open the shared link together with the class, then change the sentence and d."""
        try:
            self.connect()
            start.wait()
            self.run(LINK, {})
            for i in range(changes):
                if i % 2 == 0 or "d" not in self.widget_ids:
                    self.run(LINK, {"text": SENTENCES[i % len(SENTENCES)]})
                else:
                    self.run(LINK, {"d": DS[i % len(DS)]})
            self.close()
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
        session.connect()
        start.wait()
        link = heaviest_link(seed)
        session.run(link, {})
        for i in range(changes):
            if i % 2 == 0:
                session.run(link, {"seed": seed + 1000 * (i + 1)})
            else:
                text = "".join(chr(0x5000 + 11 * j + seed % 89 + i) for j in range(40))
                session.run(link, {"text": text})
        session.close()
    except Exception as error:  # a failure is counted, never hidden
        session.failures.append(repr(error))


def wave(
    base: str, sessions: int, changes: int, worst: bool = False
) -> tuple[list[Session], float]:
    """All sessions at once; returns them and the wall time."""
    start = threading.Barrier(sessions)
    students = [Session(base) for _ in range(sessions)]
    lessons = [
        partial(worst_lesson, s, 7919 * (i + 1), changes, start)
        if worst
        else partial(s.lesson, changes, start)
        for i, s in enumerate(students)
    ]
    began = time.perf_counter()
    together(lessons, timeout=600)
    return students, time.perf_counter() - began


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


def first_visit(session: Session, query: str, start: threading.Barrier) -> None:
    """A student opening the teacher's link: one first run, at the same instant as the class."""
    try:
        session.connect()
        start.wait()
        session.run(query, {})
        session.close()
    except Exception as error:  # a failure is counted, never hidden
        session.failures.append(repr(error))


def classroom(
    base: str, sessions: int, visit: Callable[..., None], argument: Callable[[int], object]
) -> list[Session]:
    """``sessions`` students on every page in turn, each ``visit(student, argument(i), start)``
    in a thread of its own, all released at once."""
    start = threading.Barrier(sessions)
    students = [Session(base, page=_url_path(PATHS[i % len(PATHS)])) for i in range(sessions)]
    together([partial(visit, s, argument(i), start) for i, s in enumerate(students)], 600)
    return students


def cold_class(base: str, sessions: int) -> list[Session]:
    """``sessions`` first runs at once, to every page in turn, alternately in zh and en."""
    return classroom(base, sessions, first_visit, lambda i: f"lang={('zh', 'en')[i % 2]}")


def _url_path(path: str) -> str:
    """The default page is served at the root."""
    return "" if path == PATHS[0] else path


def impatient_visit(session: Session, seed: int, start: threading.Barrier) -> None:
    """Open a page, send five reruns of random pages 0–60 ms apart without waiting, then one
    calm run of the page; the calm run must show that page's main chart."""
    rng = random.Random(seed)
    try:
        session.connect()
        start.wait()
        session.run("lang=zh", {})
        for _ in range(5):
            session.send(page=_url_path(rng.choice(PATHS)), query="lang=zh")
            time.sleep(rng.uniform(0, 0.06))
        session.drain(quiet=5.0)  # /scaling and /train rerun themselves for a while
        session.page_hash = ""  # the calm run names its page, as a click on its link does
        session.run("lang=en", {})
        session.close()
    except Exception as error:  # a failure is counted, never hidden
        session.failures.append(repr(error))
        return
    chart = next(p.chart for p in PAGES if _url_path(p.path) == session.page)
    if chart and chart not in session.charts:
        session.failures.append(f"calm run of /{session.page} lacks {chart}: {session.charts}")


def impatient_class(base: str, sessions: int) -> list[Session]:
    """``sessions`` impatient students at once, every page in turn."""
    return classroom(base, sessions, impatient_visit, lambda i: 101 * i)


COLD_TARGET = 3.0  # s: p95 of a class's first runs on a freshly started server


def print_cold(sizes: list[int], tries: int, cwd: Path = ROOT) -> None:
    """Classes of each size on freshly started servers: first runs, then an impatient class."""
    print(f"cold start: every page in turn, a fresh server per try ({cwd})")
    print("sessions | try | failures | p50 s | p95 s | max s | RSS MB | impatient failures")
    for sessions in sizes:
        for number in range(1, tries + 1):
            with streamlit_server("streamlit_app.py", cwd=cwd) as (base, pid):
                students = cold_class(base, sessions)
                rss = rss_mb(pid)
                impatient = impatient_class(base, sessions)
            firsts = [s.latencies[0] for s in students if s.latencies]
            failures = [f for s in students for f in s.failures]
            late = [f for s in impatient for f in s.failures]
            print(
                f"{sessions} | {number} | {len(failures)} | {statistics.median(firsts):.2f} | "
                f"{percentile(firsts, 0.95):.2f} | {max(firsts):.2f} | {rss:.0f} | {len(late)}"
            )
            for failure in sorted(set(failures + late))[:5]:
                print(f"    {failure[:160]}")
            met = percentile(firsts, 0.95) <= COLD_TARGET
            print(f"    p95 ≤ {COLD_TARGET:.0f} s: {'met' if met else 'NOT MET'}")


def print_long_lesson(waves: int, watch: str | None = None, cwd: Path = ROOT) -> None:
    """A long lesson on one server: ``waves`` times an ordinary class (30 sessions, 10 changes)
    then a worst-case class (20 sessions at the heaviest link, 3 changes), each wave's memory
    read once its tabs have closed. Memory should level off, not climb wave after wave."""
    ttl = ("--server.disconnectedSessionTTL", str(SESSION_TTL))
    print(f"long lesson: {waves} waves of an ordinary class then a worst-case class, one server")
    print("wave | failures | ordinary p95 s | worst p95 s | peak MB | after the wave MB")
    levels = []
    with streamlit_server("streamlit_app.py", *ttl, cwd=cwd, watch=watch) as (base, pid):
        wave(base, 1, 1)  # imports, as after the first visitor
        print(f"0 | – | – | – | – | {rss_mb(pid):.0f}")
        for number in range(1, waves + 1):
            with PeakRss(pid) as peak:
                ordinary, _ = wave(base, 30, 10)
                worst, _ = wave(base, 20, 3, worst=True)
            time.sleep(SESSION_TTL + 5)
            levels.append(rss_mb(pid))
            failures = sum(len(s.failures) for s in ordinary + worst)
            p95s = [
                percentile([x for s in c for x in s.latencies], 0.95) for c in (ordinary, worst)
            ]
            print(
                f"{number} | {failures} | {p95s[0]:.2f} | {p95s[1]:.2f} | {peak.peak:.0f} | "
                f"{levels[-1]:.0f}"
            )
    half = len(levels) // 2
    print(f"  memory after the waves: first half {levels[:half]}, second half {levels[half:]}")
    print(f"  growth over the second half: {levels[-1] - levels[half]:+.0f} MB")


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


def print_ordinary(sessions: int, changes: int) -> None:
    """The ordinary class against the lab and the yardstick, with the targets met or not."""
    rows = measure(sessions, changes)
    waves = "two waves each, lab and yardstick in turn"
    print(f"{sessions} sessions × {changes} changes each, {waves}")
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=None)
    parser.add_argument("--changes", type=int, default=None)
    parser.add_argument("--worst", action="store_true", help="the heaviest-settings class")
    parser.add_argument("--waves", type=int, default=1, help="worst-case classes in a row")
    parser.add_argument("--cold", action="store_true", help="first runs on a fresh server")
    parser.add_argument("--tries", type=int, default=3, help="fresh servers per --cold size")
    parser.add_argument("--checkout", type=Path, default=ROOT, help="the tree --cold, --long serve")
    parser.add_argument("--long", type=int, default=0, help="waves of a long lesson, one server")
    parser.add_argument("--watch", help="with --long: log the server's memory (bench.memwatch)")
    args = parser.parse_args()
    if args.long:
        print_long_lesson(args.long, args.watch, args.checkout)
        return
    if args.cold:
        print_cold([args.sessions] if args.sessions else [20, 30], args.tries, args.checkout)
        return
    if args.worst:
        print_worst(args.sessions or 20, args.changes or 3, args.waves)
        return
    print_ordinary(args.sessions or 30, args.changes or 10)


if __name__ == "__main__":
    main()
