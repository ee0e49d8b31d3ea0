"""Benchmarks, side by side with a yardstick in one run (these machines are noisy, so ratios
matter more than absolute numbers). Run by hand:

    python -m bench.bench [--quick] [--parts core,pages,browser,experiment]

Prints one table per part: the core against a one-expression numpy reference; each page's
script time per rerun (AppTest) against the yardstick page; in Chromium, first chart drawn and
Enter-to-redrawn against the yardstick, and websocket bytes per interaction; the √d experiment's
time and peak memory.
"""

import argparse
import math
import statistics
import time
import timeit
import tracemalloc
from pathlib import Path

import numpy as np

from bench.serve import ROOT, streamlit_server
from viz_core import attention, dot_product_variance, make_qkv, multi_head_attention, saturation
from viz_core.lessons import sample_dot_products

APP = str(ROOT / "streamlit_app.py")
YARDSTICK = str(ROOT / "bench" / "yardstick.py")


def reference(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
    """softmax(QKᵀ/√d)·V in plain numpy, keeping nothing."""
    s = q @ k.T / math.sqrt(q.shape[1])
    e = np.exp(s - s.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True) @ v


def reference_heads(q: np.ndarray, k: np.ndarray, v: np.ndarray, heads: int) -> np.ndarray:
    """Multi-head attention by reshaping into (heads, n, d_k) and batched matmuls."""
    n, d = q.shape
    qh, kh, vh = (x.reshape(n, heads, d // heads).transpose(1, 0, 2) for x in (q, k, v))
    s = qh @ kh.transpose(0, 2, 1) / math.sqrt(d // heads)
    w = np.exp(s - s.max(-1, keepdims=True))
    return (w / w.sum(-1, keepdims=True)) @ vh


def best_of(function, budget: float = 0.3) -> float:
    """Seconds per call: the best of 5 repeats, each about ``budget`` long."""
    once = timeit.timeit(function, number=1)
    number = max(1, int(budget / max(once, 1e-6)))
    return min(timeit.repeat(function, number=number, repeat=5)) / number


def core(quick: bool) -> None:
    print("\n## Core: attention (every intermediate kept) vs one-expression numpy reference")
    print("n | d | attention | reference | ratio")
    for n in (9, 64, 256, 512):
        for d in (64, 1536, 6144):
            if quick and n * d > 64 * 1536:
                continue
            q, k, v = make_qkv(["x"] * n, d=d)
            ours = best_of(lambda q=q, k=k, v=v: attention(q, k, v))
            theirs = best_of(lambda q=q, k=k, v=v: reference(q, k, v))
            print(f"{n} | {d} | {ours * 1e6:.0f} µs | {theirs * 1e6:.0f} µs | {ours / theirs:.2f}")
    print("\nmulti_head_attention vs reshape-and-batch reference")
    print("n | d | heads | multi_head | reference | ratio")
    for n, d, heads in [(9, 768, 12), (64, 768, 12), (9, 1536, 16), (256, 1536, 16)]:
        q, k, v = make_qkv(["x"] * n, d=d)
        ours = best_of(lambda q=q, k=k, v=v, h=heads: multi_head_attention(q, k, v, h))
        theirs = best_of(lambda q=q, k=k, v=v, h=heads: reference_heads(q, k, v, h))
        times = f"{ours * 1e6:.0f} µs | {theirs * 1e6:.0f} µs | {ours / theirs:.2f}"
        print(f"{n} | {d} | {heads} | {times}")


def script_time(path: str, page: str | None, runs: int) -> float:
    """Median seconds of a warm rerun of one page under AppTest."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(path, default_timeout=120)
    at.run()
    if page:
        at.switch_page(f"ui/{page}/page.py").run()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        at.run()
        times.append(time.perf_counter() - start)
    assert not at.exception, [e.value for e in at.exception]
    return statistics.median(times)


def pages(quick: bool) -> None:
    print("\n## Page script time per rerun (AppTest, warm caches, median)")
    runs = 3 if quick else 10
    yardstick = script_time(YARDSTICK, None, runs)
    print("page | seconds | × yardstick")
    print(f"yardstick | {yardstick:.3f} | 1.00")
    for page in ("lab", "softmax", "scaling", "steps", "quiz"):
        seconds = script_time(APP, None if page == "lab" else page, runs)
        print(f"{page} | {seconds:.3f} | {seconds / yardstick:.2f}")


HEAVIEST = {
    "lab": ({"text": "".join(chr(0x4E00 + 7 * i) for i in range(40)), "d": "8192",
             "heads": "64", "head": "63", "source": "embedding", "mask": "padding",
             "temperature": "0.05"}, "seed", [11, 12, 13]),
    "steps": ({"text": "".join(chr(0x4E00 + 7 * i) for i in range(40)), "d": "8192",
               "heads": "64", "head": "63", "source": "embedding", "mask": "padding"},
              None, []),
    "scaling": ({"d": "8192", "distribution": "uniform"}, "d", [8191, 8190, 8189]),
    "softmax": ({"values": ",".join(["1000000"] * 12), "divisor": "0.001"}, None, []),
    "quiz": ({"quiz_seed": str(2**31 - 1)}, None, []),
}


def heaviest_time(page: str) -> tuple[float, float, float]:
    """Script seconds of one page at its heaviest URL: a setting never computed before (cold)
    and a plain rerun (warm), each the median of three."""
    from streamlit.testing.v1 import AppTest

    query, key, cold_values = HEAVIEST[page]
    at = AppTest.from_file(APP, default_timeout=120)
    for name, value in query.items():
        at.query_params[name] = value
    at.run()  # the lab first, as AppTest always starts there
    if page != "lab":
        for name in list(at.query_params):
            del at.query_params[name]
        for name, value in query.items():
            at.query_params[name] = value
        at.switch_page(f"ui/{page}/page.py").run()
    cold = []
    for value in cold_values:
        widget = at.number_input(key=key)
        widget.set_value(value)
        start = time.perf_counter()
        at.run()
        cold.append(time.perf_counter() - start)
    warm = []
    for _ in range(3):
        start = time.perf_counter()
        at.run()
        warm.append(time.perf_counter() - start)
    assert not at.exception, [e.value for e in at.exception]
    figures_kb = sum(len(c.proto.spec) for c in at.get("plotly_chart")) / 1e3
    return (statistics.median(cold) if cold else float("nan")), statistics.median(warm), figures_kb


def heaviest(quick: bool) -> None:
    print("\n## Each page at its heaviest URL (AppTest; budget: 1 s of script, 500 kB of figures)")
    print("page | cold s (new setting) | warm s | figures kB | within budget")
    for page in HEAVIEST:
        cold, warm, kb = heaviest_time(page)
        worst = max(cold, warm) if cold == cold else warm
        verdict = "met" if worst <= 1.0 and kb <= 500 else "NOT MET"
        print(f"{page} | {cold:.3f} | {warm:.3f} | {kb:.0f} | {verdict}")


def browser(quick: bool) -> None:
    from playwright.sync_api import sync_playwright

    print("\n## In Chromium (median of runs): lab vs yardstick")
    runs = 2 if quick else 5
    rows = {}
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path="/usr/bin/chromium",
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        for name, app in [("lab", "streamlit_app.py"), ("yardstick", "bench/yardstick.py")]:
            with streamlit_server(app) as (base, _pid):
                rows[name] = [one_visit(chromium, base) for _ in range(runs)]
        chromium.close()
    print(
        "page | first chart s | Enter→redrawn s | kB per interaction (new sentence) | kB (d preset)"
    )
    for name, visits in rows.items():
        first, redraw, typed, preset = (statistics.median(v[i] for v in visits) for i in range(4))
        print(f"{name} | {first:.2f} | {redraw:.2f} | {typed:.1f} | {preset:.1f}")
    lab, yard = rows["lab"], rows["yardstick"]
    first = statistics.median(v[0] for v in lab) / statistics.median(v[0] for v in yard)
    redraw = statistics.median(v[1] for v in lab) / statistics.median(v[1] for v in yard)
    print(f"lab/yardstick: first chart ×{first:.2f} (target ≤ 1.5), ", end="")
    print(f"Enter→redrawn ×{redraw:.2f} (target ≤ 2)")


def one_visit(chromium, base: str) -> tuple[float, float, float, float]:
    """Open the page, then type a sentence and press Enter; then press the 1,536 preset."""
    page = chromium.new_page(viewport={"width": 1400, "height": 1000})
    received = []
    page.on(
        "websocket", lambda ws: ws.on("framereceived", lambda frame: received.append(len(frame)))
    )
    start = time.perf_counter()
    page.goto(base + "/")
    page.wait_for_selector("[data-testid='stPlotlyChart'] .main-svg", timeout=60_000)
    first = time.perf_counter() - start
    idle = "[data-testid='stApp'][data-test-script-state='notRunning']"
    page.wait_for_selector(idle)
    page.wait_for_timeout(500)
    box = page.locator("[data-testid='stTextInput'] input").first
    box.fill("我爱我家")
    received.clear()
    start = time.perf_counter()
    box.press("Enter")
    page.wait_for_function(
        "() => [...document.querySelectorAll('[data-testid=stPlotlyChart] g.ytick text')]"
        ".filter(t => t.textContent === '爱').length > 0",
        timeout=60_000,
    )
    redraw = time.perf_counter() - start
    page.wait_for_selector(idle)
    page.wait_for_timeout(500)
    typed = sum(received) / 1e3
    preset = float("nan")
    button = page.get_by_role("button", name="1,536", exact=True)
    if button.count():
        received.clear()
        button.click()
        page.wait_for_timeout(300)
        page.wait_for_selector(idle)
        page.wait_for_timeout(500)
        preset = sum(received) / 1e3
    page.close()
    return first, redraw, typed, preset


def experiment() -> None:
    print("\n## The √d experiment (default sample count 2,000)")
    print("what | seconds | peak MB")
    for name, function in [
        ("q·k samples at d = 8192", lambda: sample_dot_products(8192, 2000)),
        ("Var(q·k) for d = 1 … 8192", lambda: dot_product_variance(samples=2000)),
        ("saturation curves, d = 1 … 8192", lambda: saturation(n=9, trials=200)),
        ("20,000 samples at d = 8192", lambda: sample_dot_products(8192, 20_000)),
    ]:
        tracemalloc.start()
        start = time.perf_counter()
        function()
        seconds = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1] / 1e6
        tracemalloc.stop()
        print(f"{name} | {seconds:.2f} | {peak:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer sizes and runs")
    parser.add_argument(
        "--parts",
        default="core,pages,heaviest,browser,experiment",
        help="comma-separated: core, pages, heaviest, browser, experiment",
    )
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    print(f"# Benchmark, {time.strftime('%Y-%m-%d')}, {Path('/proc/cpuinfo').exists() and _cpu()}")
    for name, part in [
        ("core", core),
        ("pages", pages),
        ("heaviest", heaviest),
        ("browser", browser),
    ]:
        if name in parts:
            part(args.quick)
    if "experiment" in parts:
        experiment()


def _cpu() -> str:
    names = [
        line.split(":", 1)[1].strip()
        for line in Path("/proc/cpuinfo").read_text().splitlines()
        if line.startswith("model name")
    ]
    return f"{len(names)} × {names[0]}" if names else "unknown CPU"


if __name__ == "__main__":
    main()
