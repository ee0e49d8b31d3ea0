"""Where the time of one interaction goes, from Chromium's own performance trace. Run by hand:

    python -m bench.trace [--old /tmp/oldmain] [--runs 3] [--save DIR]

The lab against the yardstick page (one text box, one heatmap), or against an older checkout of
the lab with ``--old``. For each design: a server, Chromium at 1280×720, the page opened and one
untimed sentence entered (every chunk loaded, JIT warm); then, traced, a new sentence typed and
Enter pressed, until 爱 is on the weights heatmap's axis (redrawn) and the main thread has gone
quiet (settled). The breakdown, the median over ``--runs`` traced interactions:

- the server: Enter → the rerun's BackMsg sent, then → the first delta and → script finished as
  they reach the browser's network stack (DevTools' Network events, ahead of the main thread),
  and how long the last message then waits for the main thread (a hook on the page's WebSocket);
- the websocket: frames and kB received;
- the main thread, Enter → settled: busy time; JavaScript by V8's sampling profiler, split by
  the script a sample's stack runs in (Streamlit's PlotlyChart chunk, which holds plotly.js and
  so Plotly.react / newPlot; its KaTeX chunks; the rest of Streamlit and React); garbage
  collection; and the rendering events (UpdateLayoutTree, Layout, PrePaint/Paint/Layerize/
  Commit), with the part forced from inside a script call (counted in the JavaScript too).

``--old`` is a checkout of the design before the one-stage lab (a git worktree of the earlier
main); ``--save`` keeps each trace as JSON, to open in chrome://tracing or DevTools.
"""

import argparse
import base64
import itertools
import json
import statistics
from collections.abc import Iterable
from pathlib import Path

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from bench.bench import HEATMAP, IDLE, SENTENCES, VIEWPORT, launch
from bench.serve import ROOT, streamlit_server

CATEGORIES = [
    "toplevel",
    "devtools.timeline",
    "disabled-by-default-devtools.timeline",
    "disabled-by-default-devtools.timeline.frame",
    "v8.execute",
    "v8",
    "blink.user_timing",
    "disabled-by-default-v8.cpu_profiler",
]

# Installed before the page's own scripts: when the page handles each websocket message, and a
# user-timing mark at Enter (once armed), in the page's clock.
HOOK = r"""
(() => {
  const bench = (window.__bench = { received: [], enter: null, armed: false });
  const Native = window.WebSocket;
  class Hooked extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", () => bench.received.push(performance.now()));
    }
  }
  window.WebSocket = Hooked;
  window.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && bench.armed) {
      bench.armed = false;
      bench.enter = performance.now();
      performance.mark("bench:enter");
    }
  }, true);
})();
"""

REDRAWN = (  # 爱 becomes the sentence's last character, new to the axis
    '() => { const ok = [...document.querySelectorAll("' + HEATMAP + ' g.ytick text")]'
    ".some(t => t.textContent === '爱');"
    " if (ok && !window.__redrawn) { window.__redrawn = performance.now();"
    " performance.mark('bench:redrawn'); } return ok; }"
)

JS_EVENTS = {"FunctionCall", "EvaluateScript", "v8.callFunction", "v8.run", "V8.Execute",
             "RunMicrotasks", "v8.evaluateModule"}  # fmt: skip
RENDERING = {
    "style (UpdateLayoutTree)": {"UpdateLayoutTree", "RecalculateStyles"},
    "layout (Layout)": {"Layout"},
    "paint (PrePaint, Paint, Layerize, Commit …)": {
        "PrePaint", "Paint", "PaintImage", "Layerize", "UpdateLayer", "UpdateLayerTree",
        "Commit", "CompositeLayers", "PaintSetup", "Decode Image", "Draw LazyPixelRef",
    },
}  # fmt: skip
TASKS = {"RunTask", "ThreadControllerImpl::RunTask"}
PLOTLY = "JS: Plotly (plotly.js, in Streamlit's PlotlyChart chunk: Plotly.react / newPlot)"
KATEX = "JS: KaTeX (Streamlit's katex chunks)"
OTHER_JS = "JS: Streamlit, React and the rest"
GC = "garbage collection"
NATIVE = "native code outside JS: (program), (root)"
BUCKETS = (PLOTLY, KATEX, OTHER_JS, GC, NATIVE)  # V8's samples, Enter → settled


def interact(chromium, base: str, sentence: str, warm: str) -> tuple[bytes, dict]:
    """Open the lab, enter ``warm`` untraced, then trace Enter after typing ``sentence``."""
    page = chromium.new_page(viewport=VIEWPORT)
    page.add_init_script(HOOK)
    cdp = page.context.new_cdp_session(page)
    network: dict[str, list] = {"sent": [], "received": []}  # (timestamp s, base64 payload)
    cdp.on("Network.webSocketFrameSent", lambda e: network["sent"].append(e["timestamp"]))
    cdp.on(
        "Network.webSocketFrameReceived",
        lambda e: network["received"].append((e["timestamp"], e["response"]["payloadData"])),
    )
    cdp.send("Network.enable")  # before the page opens its websocket
    page.goto(base + "/")
    page.wait_for_selector(f"{HEATMAP} .main-svg", timeout=60_000)
    page.wait_for_selector(IDLE)
    box = page.locator("[data-testid='stTextInput'] input").first
    for text, traced in [(warm, False), (sentence, True)]:
        page.wait_for_timeout(1000)
        network["sent"].clear()
        network["received"].clear()
        box.fill(text)
        page.evaluate("() => { window.__bench.received = [];"
                      " window.__bench.armed = true; window.__redrawn = null; }")  # fmt: skip
        if traced:
            chromium.start_tracing(page=page, screenshots=False, categories=CATEGORIES)
        box.press("Enter")
        redraw = REDRAWN.replace("爱", text[-1])  # a character new to the axis
        page.wait_for_function(redraw, polling="raf", timeout=60_000)
        page.wait_for_selector(IDLE)
        page.wait_for_timeout(1500)
    trace = chromium.stop_tracing()
    hook = page.evaluate("() => ({enter: window.__bench.enter, received: window.__bench.received})")
    hook["network"] = network
    hook["charts"] = page.locator(".js-plotly-plot").count()
    hook["katex"] = page.locator(".katex").count()
    page.close()
    return trace, hook


def union(intervals: Iterable[tuple[float, float]]) -> list[tuple[float, float]]:
    """Merge overlapping intervals."""
    merged: list[list[float]] = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(a, b) for a, b in merged]


def length(intervals: list[tuple[float, float]], lo: float, hi: float) -> float:
    """Total length of (merged) intervals inside [lo, hi]."""
    return sum(max(0.0, min(b, hi) - max(a, lo)) for a, b in intervals)


def intersect(a: list[tuple[float, float]], b: list[tuple[float, float]]) -> list:
    """The intersection of two merged interval lists."""
    out, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if lo < hi:
            out.append((lo, hi))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out


def thread_spans(events: list[dict], pid: int, tid: int) -> list[tuple[str, float, float]]:
    """(name, start µs, end µs) of the complete and begin/end events of one thread."""
    spans, open_ = [], {}
    for event in events:
        if event.get("pid") != pid or event.get("tid") != tid:
            continue
        phase, name = event.get("ph"), event.get("name", "")
        if phase == "X":
            spans.append((name, event["ts"], event["ts"] + event.get("dur", 0)))
        elif phase == "B":
            open_.setdefault(name, []).append(event["ts"])
        elif phase == "E" and open_.get(name):
            spans.append((name, open_[name].pop(), event["ts"]))
    return spans


def js_samples(events: list[dict], pid: int) -> list[tuple[float, str]]:
    """V8's samples of the page's renderer: (time µs, bucket), from the profile with the most
    samples in JavaScript (the main thread's)."""
    profiles: dict[object, dict] = {}
    for event in events:
        if event.get("pid") != pid or event.get("name") not in ("Profile", "ProfileChunk"):
            continue
        profile = profiles.setdefault(event.get("id"), {"nodes": {}, "samples": [], "deltas": []})
        data = event.get("args", {}).get("data", {})
        if event["name"] == "Profile":
            profile["start"] = data.get("startTime", event["ts"])
            continue
        cpu = data.get("cpuProfile", {})
        for node in cpu.get("nodes", []):
            profile["nodes"][node["id"]] = node
        profile["samples"] += cpu.get("samples", [])
        profile["deltas"] += data.get("timeDeltas", [])
    best: list[tuple[float, str]] = []
    for profile in profiles.values():
        buckets: dict[int, str] = {}
        time, samples = profile.get("start", 0), []
        for node_id, delta in zip(profile["samples"], profile["deltas"], strict=False):
            time += delta
            samples.append((time, bucket(node_id, profile["nodes"], buckets)))
        if sum(b.startswith("JS") for _, b in samples) > sum(b.startswith("JS") for _, b in best):
            best = samples
    return best


def bucket(node_id: int, nodes: dict[int, dict], memo: dict[int, str]) -> str:
    """A sample's bucket from its stack: the script chunk it runs in, GC, idle or native."""
    if node_id in memo:
        return memo[node_id]
    leaf = nodes.get(node_id, {}).get("callFrame", {}).get("functionName", "")
    special = {"(garbage collector)": GC, "(idle)": "idle", "(program)": NATIVE, "(root)": NATIVE}
    result = special.get(leaf)
    node_id_walk = node_id
    while result is None and node_id_walk in nodes:
        url = nodes[node_id_walk].get("callFrame", {}).get("url", "")
        if "PlotlyChart" in url:
            result = PLOTLY
        elif "katex" in url.lower():
            result = KATEX
        node_id_walk = nodes[node_id_walk].get("parent")
    if result is None:
        result = OTHER_JS if leaf else NATIVE
    memo[node_id] = result
    return result


def breakdown(trace: bytes, hook: dict) -> dict[str, float]:
    """Milliseconds per part of one traced interaction."""
    events = json.loads(trace)["traceEvents"]
    marks = {e["name"]: e for e in events if "user_timing" in e.get("cat", "")}
    enter, redrawn = marks["bench:enter"], marks["bench:redrawn"]
    pid, tid, t0 = enter["pid"], enter["tid"], enter["ts"]
    offset = t0 - 1000 * hook["enter"]  # the page's clock (ms) → the trace's (µs)
    # DevTools' Network events carry the trace's clock, in seconds.
    network = hook["network"]
    nan = float("nan")  # when DevTools reported no frame (rare): the server's rows are left out
    sent = 1e6 * min((t for t in network["sent"] if 1e6 * t >= t0), default=nan)
    kinds = []
    for time, data in network["received"]:
        payload = base64.b64decode(data)
        message = ForwardMsg()
        message.ParseFromString(payload)
        kinds.append((1e6 * time, message.WhichOneof("type"), len(payload)))
    first_delta = min((t for t, kind, _ in kinds if kind == "delta"), default=nan)
    finished = max((t for t, kind, _ in kinds if kind == "script_finished"), default=nan)
    # The page handles each message on its main thread, after whatever task runs there.
    handled = 1000 * max(hook["received"]) + offset if hook["received"] else nan
    spans = thread_spans(events, pid, tid)
    tasks = sorted((a, b) for name, a, b in spans if name in TASKS and b - a >= 1000 and a >= t0)
    horizon = max(redrawn["ts"], finished if finished == finished else 0) + 500_000
    settled = max([b for a, b in tasks if a <= horizon] + [redrawn["ts"]])
    row = {
        "Enter → redrawn (the new tokens on the weights heatmap's axis), wall": redrawn["ts"] - t0,
        "Enter → settled (last main-thread task ≥ 1 ms ends), wall": settled - t0,
        "Enter → rerun request sent (BackMsg)": sent - t0,
        "server: request → first delta on the wire": first_delta - sent,
        "server: request → script finished on the wire (the script's run)": finished - sent,
        "page: last message on the wire → handled on the main thread": handled
        - (kinds[-1][0] if kinds else nan),
        "websocket: frames received": len(kinds) * 1000,  # shown ÷ 1000 below
        "websocket: kB received": sum(size for _, _, size in kinds),  # bytes, ÷ 1000 → kB
    }
    busy = union((a, b) for name, a, b in spans if name in TASKS)
    row["main thread busy, Enter → settled"] = length(busy, t0, settled)
    row.update(dict.fromkeys(BUCKETS, 0.0))
    samples = js_samples(events, pid)
    for (time, name), (following, _) in itertools.pairwise(samples):
        if t0 <= time < settled and name != "idle":
            row[name] = row.get(name, 0.0) + (following - time)
    script = union((a, b) for name, a, b in spans if name in JS_EVENTS)
    for label, names in RENDERING.items():
        spans_of = union((a, b) for name, a, b in spans if name in names)
        row[label] = length(spans_of, t0, settled)
        row[f"  of which forced inside a script call, {label.split(' ')[0]}"] = length(
            intersect(spans_of, script), t0, settled
        )
    row["charts on the page"] = hook["charts"] * 1000
    row["KaTeX formulas on the page"] = hook["katex"] * 1000
    return {name: value / 1000 for name, value in row.items()}  # µs → ms


def measure(
    checkout: Path, runs: int, save: Path | None, label: str, app: str = "streamlit_app.py"
) -> dict[str, float]:
    """The median breakdown of ``runs`` traced interactions against a server of ``app`` in
    ``checkout``."""
    from playwright.sync_api import sync_playwright

    rows = []
    with sync_playwright() as playwright, streamlit_server(app, cwd=checkout) as (base, _pid):
        chromium = launch(playwright)
        for i in range(runs):
            trace, hook = interact(chromium, base, SENTENCES[i % len(SENTENCES)], f"预热第{i}句")
            if save:
                save.mkdir(parents=True, exist_ok=True)
                (save / f"{label}-{i}.json").write_bytes(trace)
            rows.append(breakdown(trace, hook))
        chromium.close()
    names = list(dict.fromkeys(name for row in rows for name in row))
    return {name: median([row.get(name, 0.0) for row in rows]) for name in names}


def median(values: list[float]) -> float:
    """The median of the values that are numbers (nan where none is)."""
    numbers = [v for v in values if v == v]
    return statistics.median(numbers) if numbers else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--old", type=Path, default=None, help="an older checkout, instead of the yardstick"
    )
    parser.add_argument("--runs", type=int, default=3, help="traced interactions per design")
    parser.add_argument("--save", type=Path, default=None, help="folder for the trace files")
    args = parser.parse_args()
    if args.old:
        first, first_name = measure(args.old, args.runs, args.save, "old"), f"old ({args.old})"
    else:
        yardstick = "bench/yardstick.py"
        first, first_name = measure(ROOT, args.runs, args.save, "yardstick", yardstick), yardstick
    designs = {"first": first, "lab": measure(ROOT, args.runs, args.save, "lab")}
    print(
        f"## One interaction traced (Enter after a new sentence; 1280×720; median of {args.runs})"
    )
    print(f"{first_name} against the lab of {ROOT}. Times in ms; JS from V8's samples")
    print(f"part | {first_name} | lab")
    names = list(dict.fromkeys(name for row in designs.values() for name in row))
    for name in names:
        before, after = (designs[d].get(name, 0.0) for d in ("first", "lab"))
        counted = name.startswith(("websocket: frames", "charts", "KaTeX formulas"))
        shown = f"{before:.0f} | {after:.0f}" if counted else f"{before:.1f} | {after:.1f}"
        print(f"{name} | {shown}")


if __name__ == "__main__":
    main()
