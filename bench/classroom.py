"""A class of phones: a teacher and N phones in one room of the class page (/classroom), played
over Streamlit's own websocket protocol as browsers would play it. Run by hand:

    python -m bench.classroom [--phones 60] [--wait 60] [--join-over 20] [--answer-window 20]
                              [--classes 1]
    python -m bench.classroom --cost 100
    python -m bench.classroom --option runner.postScriptGC=false   (any Streamlit setting)

A fresh server (SQLite in a temporary folder, through CLASSROOM_DB_URL) is started. The
teacher's tab opens /classroom?lang=en and clicks Start, and reads the room's code and its key
from its page; the phones (a phone's User-Agent) open the join link within ``--join-over`` s and
tap Join. Every tab keeps the polling timers the server announces (ForwardMsg ``auto_rerun``: a
fragment id and an interval) as the browser does: a ``setInterval`` that sends a
``rerun_script`` with that fragment id and ``is_auto_rerun`` every interval, whether a run is
going on or not; a full run clears them (the frontend's ``cleanupAutoReruns``) and its own
``auto_rerun`` messages set them again. The phones wait ``--wait`` s; the teacher picks the
choice question ``lab_top_key`` in the select box and clicks Ask; each phone taps one of its pick
buttons a random time within ``--answer-window`` s after it shows them; the teacher clicks End
(in its popover).

It prints the answers lost (the database's count against N: must be 0); p50 and p95 from a
phone's tap to the projector's count including it (goal: p95 ≤ 2 s) and from the teacher's Ask
to each phone showing the question (goal: p95 ≤ 3 s); the server's CPU seconds per phone per
minute while the phones wait (the cost of keeping them current); its memory before the class,
at the peak (read every 0.2 s) and after the class ended; and the machine's cores.

``--cost N`` measures instead what one run of each kind costs the server, N runs one after the
other on an otherwise idle server (a phone's poll, a phone's page, the projector's count; a bare
Streamlit app's empty fragment and page beside them), and the store's queries alone.
"""

import argparse
import os
import random
import re
import sqlite3
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import psutil
from streamlit.proto.Element_pb2 import Element

from bench.measure import PeakRss, cpu_seconds, percentile, rss_mb, together, wait_until
from bench.serve import streamlit_server
from bench.stream import Clock, LiveTab
from classroom import QUESTIONS
from classroom.safety import digest

PAGE = "classroom"
QUESTION = "lab_top_key"  # a choice: one tap on a pick button answers
PHONE_AGENT = (  # "Mobi": the app sizes the page for a phone without waiting for the width
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/131.0.0.0 Mobile Safari/537.36"
)
COUNT = re.compile(r"(?:Answered|已作答)\s*(\d+)\s*(?:of|/)\s*(\d+)")
SESSION_TTL = 10  # s: a closed tab's session is dropped this long after (Streamlit's default: 120)
GOALS = {"answer": 2.0, "question": 3.0}  # s, p95


@dataclass
class Teacher:
    """The projector: the room's code and key read from its page, and every count it showed."""

    code: str = ""
    key: str = ""
    questions: list[str] = field(default_factory=list)  # the select box's labels, in order
    counts: list[tuple[float, int, int]] = field(default_factory=list)  # (time, answered, of)

    def on_element(self, _tab: LiveTab, element: Element, _fragment: str, now: float) -> None:
        kind = element.WhichOneof("type")
        if kind == "code" and "room=" in element.code.code_text:
            text = element.code.code_text
            self.code = re.search(r"room=([A-Za-z0-9]+)", text).group(1)  # type: ignore[union-attr]
            found = re.search(r"key=([A-Za-z0-9_\-]+)", text)
            if found:
                self.key = found.group(1)
        elif kind == "selectbox" and element.selectbox.id.endswith("-classroom_question"):
            self.questions = list(element.selectbox.options)
        elif kind == "markdown":
            found = COUNT.search(element.markdown.body)
            if found:
                self.counts.append((now, int(found.group(1)), int(found.group(2))))


@dataclass
class Phone:
    """What one phone saw: when the question showed, its pick buttons, when it was answered."""

    picks: list[str] = field(default_factory=list)
    asked_at: float | None = None  # set when the teacher clicks Ask
    shown_at: float | None = None  # the first message showing the question after that
    sent_at: float | None = None
    received_at: float | None = None  # the phone's "received and saved"
    token: str = ""

    def on_element(self, _tab: LiveTab, element: Element, _fragment: str, now: float) -> None:
        kind = element.WhichOneof("type")
        if kind == "button" and "-classroom_pick_" in element.button.id:
            key = element.button.id.rsplit("-", 1)[-1]
            if key not in self.picks:
                self.picks.append(key)
            if self.asked_at is not None and self.shown_at is None:
                self.shown_at = now
        elif (
            kind == "alert"
            and self.sent_at is not None
            and self.received_at is None
            and element.alert.body.startswith(("Received", "已收到"))
        ):
            self.received_at = now


def open_teacher(base: str, teacher: Teacher) -> LiveTab:
    """The teacher's tab: /classroom?lang=en, then Start; the page shows the join link and, in
    the teacher-link popover, the link with the key."""
    tab = LiveTab(base, "teacher", PAGE, on_element=teacher.on_element)
    tab.query = "lang=en"
    tab.run()
    before = tab.full_runs
    tab.click("classroom_start")
    tab.wait_full_run(before)
    if not (teacher.code and teacher.key):
        raise RuntimeError(f"no room code or teacher key in the teacher's page: {tab.failures}")
    return tab


def join_phone(
    base: str, code: str, phone: Phone, number: int, at: float, clock: Clock | None = None
) -> LiveTab:
    """A phone opens the join link at the time ``at`` (time.monotonic) and taps Join; its
    timers are kept by ``clock`` from the start."""
    tab = LiveTab(base, f"phone{number}", PAGE, PHONE_AGENT, phone.on_element)
    if clock is not None:
        clock.tabs.append(tab)
    tab.query = f"room={code}&lang=en"
    time.sleep(max(0.0, at - time.monotonic()))
    tab.run()
    before = tab.full_runs
    tab.click("classroom_join")
    tab.wait_full_run(before)
    found = re.search(r"(?:^|&)me=([^&]+)", tab.query)
    if not found:
        raise RuntimeError(f"{tab.name} did not join: query {tab.query!r}, {tab.failures}")
    phone.token = found.group(1)
    return tab


def join_all(
    base: str, code: str, phones: list[Phone], spread: float, seed: int, clock: Clock | None
) -> tuple[list[LiveTab], list[float], list[str]]:
    """Every phone joins, each in a thread, at a random moment within ``spread`` s (0: all at
    the same instant); returns the tabs, the seconds each took to open and join, the failures."""
    rng = random.Random(seed + 1)
    start = time.monotonic() + 2.0  # every websocket open by then
    moments = [start + rng.uniform(0, spread) for _ in phones]
    tabs: list[LiveTab | None] = [None] * len(phones)
    took: list[float] = []
    failures: list[str] = []

    def one(i: int) -> None:
        try:
            tabs[i] = join_phone(base, code, phones[i], i, moments[i], clock)
            took.append(time.monotonic() - moments[i])
        except Exception as error:  # a failure is counted, never hidden
            failures.append(f"phone{i} join: {error!r}")

    together([partial(one, i) for i in range(len(phones))], timeout=300)
    return [tab for tab in tabs if tab is not None], took, failures


def ask(teacher_tab: LiveTab, teacher: Teacher, phones: list[Phone]) -> float:
    """The teacher picks QUESTION in the select box (by its label, as the browser sends it) and
    clicks Ask; returns the click's time."""
    label = teacher.questions[list(QUESTIONS).index(QUESTION)]
    asked = time.time()
    for phone in phones:
        phone.asked_at = asked
    teacher_tab.click("classroom_ask", classroom_question=label)
    return asked


def answer_all(tabs: list[LiveTab], phones: list[Phone], window: float, seed: int) -> list[str]:
    """Each phone, once it shows the question, taps a random pick after a random pause within
    ``window`` s; returns the failures."""
    rng = random.Random(seed)
    failures: list[str] = []
    pauses = [rng.uniform(0, window) for _ in phones]
    choices = [rng.random() for _ in phones]

    def one(i: int) -> None:
        phone, tab = phones[i], tabs[i]
        deadline = time.time() + 60
        while phone.shown_at is None and time.time() < deadline:
            time.sleep(0.02)
        if phone.shown_at is None or not phone.picks:
            failures.append(f"{tab.name}: the question never showed")
            return
        time.sleep(max(0.0, phone.shown_at + pauses[i] - time.time()))
        pick = phone.picks[int(choices[i] * len(phone.picks))]
        phone.sent_at = time.time()
        try:
            tab.click(pick)
        except Exception as error:  # a failure is counted, never hidden
            failures.append(f"{tab.name} answer: {error!r}")

    together([partial(one, i) for i in range(len(phones))], timeout=300)
    return failures


def opened_at(database: Path) -> float:
    """When the question asked last was stored (the store's clock, just before its commit)."""
    with sqlite3.connect(database) as db:
        return float(db.execute("SELECT MAX(opened_at) FROM asked").fetchone()[0])


def stored_answers(database: Path) -> dict[str, float]:
    """Every stored answer: the student's token hash → the time it was committed."""
    with sqlite3.connect(database) as db:
        rows = db.execute(
            "SELECT students.token_hash, answers.answered_at FROM answers"
            " JOIN students ON students.id = answers.student_id"
        ).fetchall()
    return {str(token_hash): float(at) for token_hash, at in rows}


def count_latencies(phones: list[Phone], teacher: Teacher, stored: dict[str, float]) -> list[float]:
    """For each stored answer, from its tap to the first count on the projector that includes
    it: the k-th answer committed is included by the first count ≥ k (answers only add up)."""
    committed = sorted(
        (stored[digest(p.token)], p) for p in phones if p.sent_at and digest(p.token) in stored
    )
    latencies = []
    for rank, (_, phone) in enumerate(committed, 1):
        shown = next((t for t, n, _ in teacher.counts if n >= rank), None)
        if shown is not None and phone.sent_at is not None:
            latencies.append(shown - phone.sent_at)
    return latencies


@dataclass
class Memory:
    """The server's resident memory in MB: before the class, at its peak, after End, and once
    the tabs have closed and their sessions are dropped."""

    before: float = 0.0
    peak: float = 0.0
    ended: float = 0.0
    after: float = 0.0


@dataclass
class Result:
    phones: int
    joined: int = 0
    join_p50: float = float("nan")
    join_p95: float = float("nan")
    wait_seconds: float = 0.0
    wait_cpu: float = 0.0
    idle_cpu_per_s: float = 0.0
    driver_cpu: float = 0.0
    polls_sent: int = 0
    polls_served: int = 0
    question: list[float] = field(default_factory=list)
    committed: float = float("nan")  # s from Ask to the question stored
    projected: float = float("nan")  # s from Ask to the projector's first count
    answers: list[float] = field(default_factory=list)
    received: list[float] = field(default_factory=list)
    stored: int = 0
    question_cpu: float = 0.0
    burst_seconds: float = float("nan")  # s from Ask until every phone shows the question
    burst_cpu: float = float("nan")
    lockstep: int = 0
    question_seconds: float = 0.0
    rss: Memory = field(default_factory=Memory)
    ended: bool = False
    failures: list[str] = field(default_factory=list)


def play(
    phones: int,
    wait: float,
    window: float,
    spread: float,
    seed: int,
    classes: int = 1,
    options: tuple[str, ...] = (),
) -> list[Result]:
    """``classes`` classes one after the other on one fresh server (the warm-up visit first);
    returns what each measured. A class's memory "before" is the last one's "after"."""
    folder = Path(tempfile.mkdtemp(prefix="bench-classroom-"))
    database = folder / "classroom.db"
    os.environ["CLASSROOM_DB_URL"] = f"sqlite:///{database}"
    ttl = ("--server.disconnectedSessionTTL", str(SESSION_TTL))
    results = []
    with streamlit_server("streamlit_app.py", *ttl, *options) as (base, pid):
        warm = LiveTab(base, "warm-up", PAGE)
        warm.query = "lang=en"
        warm.run()  # imports, as after the first visitor
        warm.close()
        time.sleep(SESSION_TTL + 5)
        before = rss_mb(pid)
        for number in range(classes):
            result = Result(phones, rss=Memory(before))
            idle = cpu_seconds(pid)
            time.sleep(5)
            result.idle_cpu_per_s = (cpu_seconds(pid) - idle) / 5
            with PeakRss(pid, every=0.2) as memory:
                _lesson(base, pid, result, database, (wait, window, spread), seed + number)
                result.rss.peak = memory.peak
            time.sleep(SESSION_TTL + 5)
            result.rss.after = before = rss_mb(pid)
            results.append(result)
    return results


def _lesson(
    base: str,
    pid: int,
    result: Result,
    database: Path,
    times: tuple[float, float, float],
    seed: int,
) -> None:
    """The teacher starts the class, the phones join, then the question (``times``: the wait,
    the answers' window, the joins' spread). Each tab's timers run from the moment the server
    announces them, as in a browser."""
    wait, window, spread = times
    teacher = Teacher()
    teacher_tab = open_teacher(base, teacher)
    phones = [Phone() for _ in range(result.phones)]
    clock = Clock([teacher_tab])
    try:
        with clock:
            tabs, took, failures = join_all(base, teacher.code, phones, spread, seed, clock)
            result.failures += failures
            result.joined = len(tabs)
            result.join_p50, result.join_p95 = statistics.median(took), percentile(took, 0.95)
            phones = [phone for phone in phones if phone.token]
            _question(pid, result, teacher, teacher_tab, tabs, phones, database, wait, window, seed)
    finally:
        for tab in clock.tabs[1:]:
            tab.close()
        result.failures += [f"{tab.name}: {f}" for tab in clock.tabs for f in tab.failures]
    teacher_tab.close()


def _question(
    pid: int,
    result: Result,
    teacher: Teacher,
    teacher_tab: LiveTab,
    tabs: list[LiveTab],
    phones: list[Phone],
    database: Path,
    wait: float,
    window: float,
    seed: int,
) -> None:
    """The phones wait (their polls measured), the question, the answers, the end."""
    time.sleep(5)  # every phone's timer started
    result.lockstep = lockstep(tabs)
    me = psutil.Process()
    sent, served = sum(t.polls_sent for t in tabs), sum(t.fragment_runs for t in tabs)
    cpu, mine, began = cpu_seconds(pid), me.cpu_times(), time.monotonic()
    time.sleep(wait)
    result.wait_seconds = time.monotonic() - began
    result.wait_cpu = cpu_seconds(pid) - cpu
    result.driver_cpu = sum(me.cpu_times()[:2]) - sum(mine[:2])
    result.polls_sent = sum(t.polls_sent for t in tabs) - sent
    result.polls_served = sum(t.fragment_runs for t in tabs) - served

    cpu, began = cpu_seconds(pid), time.monotonic()
    asked = ask(teacher_tab, teacher, phones)
    burst = threading.Thread(target=_burst, args=(pid, result, phones, cpu, began), daemon=True)
    burst.start()
    result.failures += answer_all(tabs, phones, window, seed)
    burst.join()
    counted = wait_until(lambda: any(n >= len(phones) for _, n, _ in teacher.counts), 30)
    wait_until(lambda: all(p.received_at for p in phones if p.sent_at), 10)
    result.question_seconds = time.monotonic() - began
    result.question_cpu = cpu_seconds(pid) - cpu
    if not counted:
        result.failures.append(f"the projector never counted {len(phones)}: {teacher.counts[-3:]}")
    result.question = [p.shown_at - asked for p in phones if p.shown_at is not None]
    result.committed = opened_at(database) - asked
    result.projected = teacher.counts[0][0] - asked if teacher.counts else float("nan")
    stored = stored_answers(database)
    result.stored = len(stored)
    result.answers = count_latencies(phones, teacher, stored)
    result.received = [p.received_at - p.sent_at for p in phones if p.received_at and p.sent_at]
    result.failures += [f"teacher: {f}" for f in teacher_tab.failures]
    teacher_tab.failures.clear()
    _end(teacher_tab, result, pid)


def _burst(pid: int, result: Result, phones: list[Phone], cpu: float, began: float) -> None:
    """The server's CPU from Ask until every phone shows the question."""
    wait_until(lambda: all(p.shown_at for p in phones), 60)
    result.burst_seconds = time.monotonic() - began
    result.burst_cpu = cpu_seconds(pid) - cpu


def lockstep(tabs: list[LiveTab], within: float = 0.05) -> int:
    """The most phones whose poll timers fire within ``within`` s of each other: the server's
    slow moments hand many phones their timers at once, and then they poll together."""
    phases = sorted(
        due % tab.timers[fragment]
        for tab in tabs
        for fragment, due in list(tab.due.items())[:1]
        if fragment in tab.timers
    )
    if not phases:
        return 0
    interval = next(iter(tabs[0].timers.values()))
    wrapped = phases + [phase + interval for phase in phases]
    return max(
        sum(1 for other in wrapped[i : i + len(phases)] if other - phase <= within)
        for i, phase in enumerate(phases)
    )


def _end(teacher_tab: LiveTab, result: Result, pid: int) -> None:
    """The teacher ends the class (End, in its popover); the phones then learn it at a poll."""
    try:
        before = teacher_tab.full_runs
        teacher_tab.click("classroom_end")
        teacher_tab.wait_full_run(before, 30)
        result.ended = True
    except Exception as error:  # a failure is counted, never hidden
        result.failures.append(f"end: {error!r}")
    time.sleep(5)  # every phone has polled and seen the class gone
    result.rss.ended = rss_mb(pid)


def report(result: Result) -> None:
    """Print the class's numbers and the goals met or not."""
    n = result.phones
    lost = n - result.stored
    minutes = result.wait_seconds / 60
    per_phone = result.wait_cpu / max(result.joined, 1) / minutes if minutes else float("nan")
    print(f"phones: {n}, joined: {result.joined} (open + Join p50 {result.join_p50:.2f} s, "
          f"p95 {result.join_p95:.2f} s)")  # fmt: skip
    print(f"answers lost: {lost} (the database holds {result.stored} of {n})")
    for name, values, goal in [
        ("answer → projector's count", result.answers, GOALS["answer"]),
        ("Ask → question on the phone", result.question, GOALS["question"]),
    ]:
        p50, p95 = statistics.median(values) if values else float("nan"), percentile(values, 0.95)
        verdict = "met" if p95 <= goal else "NOT MET"
        top = max(values, default=float("nan"))
        print(f"{name}: p50 {p50:.2f} s, p95 {p95:.2f} s, max {top:.2f} s over {len(values)}"
              f" (goal p95 ≤ {goal:.0f} s: {verdict})")  # fmt: skip
    print(f"    Ask → every phone shows it: {result.burst_seconds:.2f} s, server CPU "
          f"{result.burst_cpu:.2f} s ({result.burst_cpu / max(result.joined, 1) * 1e3:.0f} ms "
          f"per phone); phones polling within 50 ms of each other: {result.lockstep} of "
          f"{result.joined}")  # fmt: skip
    print(f"    of which Ask → the question stored {result.committed:.2f} s, Ask → the "
          f"projector's first count {result.projected:.2f} s")  # fmt: skip
    if result.received:
        print(f"answer → the phone's own 'received': p50 {statistics.median(result.received):.2f}"
              f" s, p95 {percentile(result.received, 0.95):.2f} s")  # fmt: skip
    print(f"waiting {result.wait_seconds:.0f} s: server CPU {result.wait_cpu:.1f} s = "
          f"{per_phone:.3f} CPU-s per phone per minute ({result.wait_cpu / result.wait_seconds:.2f}"
          f" cores; idle server {result.idle_cpu_per_s:.3f} cores); polls sent "
          f"{result.polls_sent / result.wait_seconds:.1f}/s, fragment runs finished "
          f"{result.polls_served / result.wait_seconds:.1f}/s "
          f"({result.wait_cpu / max(result.polls_served, 1) * 1e3:.1f} ms CPU each); "
          f"this driver {result.driver_cpu:.1f} CPU-s")  # fmt: skip
    print(f"the question (Ask → all counted): {result.question_seconds:.1f} s, server CPU "
          f"{result.question_cpu:.1f} s")  # fmt: skip
    ended = "after End" if result.ended else "End NOT clicked"
    print(f"server RSS: before {result.rss.before:.0f} MB, peak {result.rss.peak:.0f} MB, "
          f"{ended} {result.rss.ended:.0f} MB, after the tabs closed and "
          f"{SESSION_TTL + 5} s {result.rss.after:.0f} MB")  # fmt: skip
    print(f"failures: {len(result.failures)}")
    for failure in sorted(set(result.failures))[:10]:
        print(f"    {failure[:200]}")


BARE_APP = """import gc

import streamlit as st

if not gc.get_freeze_count():  # as the app does after its imports (ui/kit/memory.py)
    gc.collect()
    gc.freeze()


@st.fragment(run_every=1.5)
def watch() -> None:
    pass


st.button("Join", key="classroom_join")
watch()
"""


def per_run(pid: int, runs: int, one: Callable[[], None]) -> tuple[float, float]:
    """Server CPU ms and wall ms per run, over ``runs`` runs one after the other."""
    one()  # a first run warms what it needs
    cpu, began = cpu_seconds(pid), time.perf_counter()
    for _ in range(runs):
        one()
    return (cpu_seconds(pid) - cpu) / runs * 1e3, (time.perf_counter() - began) / runs * 1e3


def costs(runs: int, options: tuple[str, ...] = ()) -> None:
    """What one run costs the server, one after the other on an otherwise idle server: a
    phone's poll (its fragment), a phone's whole page waiting and with the question, the
    projector's count; beside a bare app's empty fragment and page; and the store's queries
    alone, in this process."""
    folder = Path(tempfile.mkdtemp(prefix="bench-classroom-"))
    os.environ["CLASSROOM_DB_URL"] = f"sqlite:///{folder / 'classroom.db'}"
    rows: list[tuple[str, tuple[float, float]]] = []
    with streamlit_server("streamlit_app.py", *options) as (base, pid):
        teacher = Teacher()
        teacher_tab = open_teacher(base, teacher)
        phone = Phone()
        tab = join_phone(base, teacher.code, phone, 0, time.monotonic())
        (poll,) = tab.timers
        rows.append(
            ("a phone's poll (watch fragment)", per_run(pid, runs, lambda: tab.run_fragment(poll)))
        )
        rows.append(("a phone's page, waiting (full run)", per_run(pid, runs, tab.run)))
        ask(teacher_tab, teacher, [phone])
        wait_until(lambda: teacher_tab.timers != {}, 10)
        (live,) = teacher_tab.timers
        rows.append(("a phone's page, the question (full run)", per_run(pid, runs, tab.run)))
        count = per_run(pid, runs, lambda: teacher_tab.run_fragment(live))
        rows.append(("the projector's count (live_count fragment)", count))
        rows.append(("the projector's page (full run)", per_run(pid, runs // 4, teacher_tab.run)))
        tab.close()
        teacher_tab.close()
    bare = folder / "bare.py"
    bare.write_text(BARE_APP)
    with streamlit_server(str(bare), *options) as (base, pid):
        empty = LiveTab(base, "bare")
        empty.run()
        (fragment,) = empty.timers
        rows.append(
            (
                "bare app: an empty fragment",
                per_run(pid, runs, lambda: empty.run_fragment(fragment)),
            )
        )
        rows.append(("bare app: its page, a button (full run)", per_run(pid, runs, empty.run)))
        empty.close()
    print(f"server CPU per run, {runs} runs one after the other (ms CPU, ms wall):")
    for name, (cpu, wall) in rows:
        print(f"  {name}: {cpu:.1f} ms CPU, {wall:.1f} ms wall")
    store_costs(str(folder / "store.db"), runs)


def store_costs(database: str, runs: int) -> None:
    """The store's calls alone, in this process, on a room of 60 with 30 answers."""
    from classroom import Store

    store = Store(f"sqlite:///{database}", pace=0)
    room = store.create_room()
    students = [store.join(room.code, lang="en") for _ in range(60)]
    store.ask(room.code, room.teacher_key, QUESTION)
    option = store.room(room.code).options[0]
    for student in students[:30]:
        store.answer(room.code, student.token, option)
    token = students[0].token
    calls: dict[str, Callable[[], object]] = {
        "pulse (a poll)": lambda: store.pulse(room.code),
        "me + room (a phone's page)": lambda: (store.me(room.code, token), store.room(room.code)),
        "tally (the projector's count)": lambda: store.tally(room.code, room.teacher_key),
    }
    print("the store's calls alone, in this process:")
    for name, call in calls.items():
        cpu, began = time.process_time(), time.perf_counter()
        for _ in range(runs):
            call()
        took = (time.process_time() - cpu) / runs * 1e3, (time.perf_counter() - began) / runs * 1e3
        print(f"  {name}: {took[0]:.2f} ms CPU, {took[1]:.2f} ms wall")
    store.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--phones", type=int, default=60)
    parser.add_argument("--wait", type=float, default=60, help="s the phones wait, measured")
    parser.add_argument("--answer-window", type=float, default=20, help="s over which they tap")
    parser.add_argument("--join-over", type=float, default=20, help="s over which they join")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--classes", type=int, default=1, help="classes in a row, one server")
    parser.add_argument("--cost", type=int, default=0, help="instead: N runs of each kind, alone")
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a Streamlit setting for the server, e.g. runner.postScriptGC=false (repeatable)",
    )
    args = parser.parse_args()
    options = tuple(
        part
        for option in args.option
        for part in (f"--{option.split('=')[0]}", option.split("=", 1)[1])
    )
    cores = psutil.cpu_count()
    pinned = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else cores
    print(f"{time.strftime('%Y-%m-%d %H:%M')}, {cores} cores ({pinned} usable by this process)")
    if options:
        print(f"server options: {' '.join(options)}")
    if args.cost:
        costs(args.cost, options)
        return
    times = (args.wait, args.answer_window, args.join_over)
    for number, result in enumerate(play(args.phones, *times, args.seed, args.classes, options), 1):
        if args.classes > 1:
            print(f"--- class {number} of {args.classes} on one server")
        report(result)


if __name__ == "__main__":
    main()
