"""The /train page's waiting times: its training at the default and the largest settings. By hand:

    python -m bench.train_page_bench [--repeats 3]

Prints, cold (shared caches emptied first) and cached: the page's core call (both runs, with
and without ÷√d_k) at the default setting and at the largest its controls allow, the sweep,
the whole page script under AppTest, and the figure bytes one rerun sends.
"""

import argparse
import time
import tracemalloc
from dataclasses import replace
from pathlib import Path

from streamlit.testing.v1 import AppTest

import ui.train  # noqa: F401  (registers the page's strings)
from ui.kit import memory
from ui.kit.cache import advance, clear_all
from ui.train import compute
from ui.train.body import SLICE
from ui.train.settings import STEPS_MAX, TrainParams
from viz_core import OPTIMIZERS
from viz_core.train import D_K_MAX

PAGE = str(Path(__file__).resolve().parent.parent / "ui" / "train" / "page.py")
DEFAULT = TrainParams().to_query()
LARGEST = {"d": str(D_K_MAX), "steps": str(STEPS_MAX)}


def best_of(repeats: int, call: object) -> float:
    """The best wall time of ``call()`` over ``repeats`` runs, each from empty caches."""
    best = float("inf")
    for _ in range(repeats):
        clear_all()
        start = time.perf_counter()
        call()  # type: ignore[operator]
        best = min(best, time.perf_counter() - start)
    return best


def pair_call(query: dict[str, str]) -> object:
    """The page's one core call for a URL query."""
    params, _ = TrainParams.parse(query)
    return lambda: compute.train_pair(replace(params, seed=0))


def core_times(repeats: int) -> None:
    """Both runs of a setting, cold, at the default and the largest settings."""
    print("## The page's training (both runs), cold, best of", repeats)
    print("setting | task | optimizer | d_k | steps | seconds | peak MB")
    cases = [("default", DEFAULT)]
    cases += [("largest", {**DEFAULT, **LARGEST, "optimizer": opt}) for opt in OPTIMIZERS]
    for name, query in cases:
        for task in ("previous", "max") if name == "largest" else ("previous",):
            call = pair_call({**query, "task": task})
            seconds = best_of(repeats, call)
            clear_all()
            tracemalloc.start()
            call()  # type: ignore[operator]
            peak = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()
            setting = f"{task} | {query['optimizer']} | {query['d']} | {query['steps']}"
            print(f"{name} | {setting} | {seconds:.2f} | {peak:.1f}")


def sweep_times(repeats: int) -> None:
    """The sweep on request, cold, for every task and optimizer: all of it, and the longest of
    the script runs the page spreads it over (SLICE of sweeping each, then a rerun)."""
    print("\n## The sweep (d_k 16 … 1024, 3 seeds, ≤ 300 steps), cold, best of", repeats)
    print("task | optimizer | seconds in all | script runs | longest run s")
    for task in ("previous", "reverse", "max"):
        for optimizer in OPTIMIZERS:
            call = lambda t=task, o=optimizer: compute.sweep(task=t, optimizer=o, seed=0)  # noqa: E731
            whole = best_of(repeats, call)
            clear_all()
            runs = []
            calls = compute.sweep_calls(task, optimizer, 0)
            while not runs or runs[-1][1] < len(calls):
                start = time.perf_counter()
                done = advance(calls, SLICE)
                runs.append((time.perf_counter() - start, done))
            longest = max(seconds for seconds, _ in runs)
            print(f"{task} | {optimizer} | {whole:.2f} | {len(runs)} | {longest:.2f}")


def page_times(query: dict[str, str], name: str) -> None:
    """The page script alone under AppTest, opened from a link: cold (training included), then
    a cached rerun; and the bytes of figure JSON one rerun sends."""
    at = AppTest.from_file(PAGE, default_timeout=120)
    for key, value in query.items():
        at.query_params[key] = value
    clear_all()
    start = time.perf_counter()
    at.run()
    cold = time.perf_counter() - start
    start = time.perf_counter()
    at.run()
    warm = time.perf_counter() - start
    assert not at.exception, [e.value for e in at.exception]
    sent = sum(len(chart.proto.spec) for chart in at.get("plotly_chart"))
    print(f"{name} | {cold:.2f} | {warm:.2f} | {sent / 1000:.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    memory.tune()  # as the app does on its first run: the server's allocator settings
    core_times(args.repeats)
    sweep_times(args.repeats)
    print("\n## The whole page script (AppTest): setting | cold s | cached rerun s | figure kB")
    page_times(DEFAULT, "default")
    page_times({**DEFAULT, **LARGEST, "optimizer": "adam", "task": "max"}, "largest (adam, max)")


if __name__ == "__main__":
    main()
