"""What the benchmarks read a server by, and how they play a class: a process's memory and CPU,
its peak memory over a while, a percentile, waiting for a condition, and many students at once,
a thread each."""

import threading
import time
from collections.abc import Callable

import psutil


def rss_mb(pid: int) -> float:
    """Resident memory of the server process and its children, in MB."""
    process = psutil.Process(pid)
    return sum(p.memory_info().rss for p in [process, *process.children(recursive=True)]) / 1e6


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds of the server (and any children) so far."""
    process = psutil.Process(pid)
    times = [p.cpu_times() for p in [process, *process.children(recursive=True)]]
    return sum(t.user + t.system for t in times)


class PeakRss:
    """Polls the server's resident memory every ``every`` seconds while in a ``with`` block."""

    def __init__(self, pid: int, every: float = 0.05) -> None:
        self.pid = pid
        self.every = every
        self.peak = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True, name="rss")

    def _poll(self) -> None:
        while not self._stop.wait(self.every):
            self.peak = max(self.peak, rss_mb(self.pid))

    def __enter__(self) -> "PeakRss":
        self.peak = rss_mb(self.pid)
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()


def percentile(values: list[float], share: float) -> float:
    """The value below which ``share`` of ``values`` lie (nearest rank); NaN when empty."""
    ordered = sorted(values)
    return ordered[int(share * (len(ordered) - 1))] if ordered else float("nan")


def wait_until(condition: Callable[[], bool], timeout: float, every: float = 0.05) -> bool:
    """Whether ``condition()`` came true within ``timeout`` s (asked every ``every`` s)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(every)
    return True


def together(students: list[Callable[[], None]], timeout: float) -> None:
    """Run each of ``students`` in a thread of its own, all started before any is waited for;
    each is waited for at most ``timeout`` s."""
    threads = [threading.Thread(target=student) for student in students]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=timeout)
