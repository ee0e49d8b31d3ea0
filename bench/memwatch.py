"""Run the app in this process and log what its memory is made of, to find what grows.

    python -m bench.memwatch LOG streamlit run streamlit_app.py [options]

Every 5 s one JSON line goes to LOG: resident memory, the objects the collector tracks and has
frozen, the modules loaded, each shared cache's bytes, the sessions Streamlit holds, and with
``MEMWATCH_TRACE=1`` the memory Python allocated and the 12 source lines whose allocations grew
most between quiet moments.
``bench.load --long N --watch LOG`` starts the server this way.
"""

import gc
import json
import os
import sys
import threading
import time
import tracemalloc
import types

import psutil


def snapshot_line() -> dict[str, object]:
    """One reading of the process."""
    line: dict[str, object] = {
        "t": round(time.time(), 1),
        "rss_mb": round(psutil.Process().memory_info().rss / 1e6, 1),
        "gc_objects": len(gc.get_objects()),
        "gc_frozen": gc.get_freeze_count(),
        "modules": len(sys.modules),
    }
    if tracemalloc.is_tracing():
        line["traced_mb"] = round(tracemalloc.get_traced_memory()[0] / 1e6, 1)
    cache = sys.modules.get("ui.kit.cache")
    if cache is not None:
        line["caches_mb"] = {c.name: round(c.total / 1e6, 2) for c in cache.CACHES}
    runtime = sys.modules.get("streamlit.runtime")
    if runtime is not None and runtime.Runtime.exists():
        manager = runtime.Runtime.instance()._session_mgr  # a diagnostic reads a private field
        line["sessions"] = len(manager.list_sessions())
    return line


def held_traces() -> dict[str, object]:
    """Plotly traces with hover data still alive, their bytes, and what holds the first one
    (three referrers up): a quiet server should hold only what its caches count."""
    traces = [o for o in gc.get_objects() if isinstance(o, dict) and "customdata" in o]
    sizes = [getattr(t["customdata"], "nbytes", 0) for t in traces]
    chain, item = [], traces[0] if traces else None
    for _ in range(4):
        found = gc.get_referrers(item) if item is not None else []
        holders = [r for r in found if r is not traces and not isinstance(r, types.FrameType)]
        if not holders:
            break
        item = holders[0]
        chain.append(
            type(item).__name__ + (f" {sorted(item)[:6]}" if isinstance(item, dict) else "")
        )
    return {"count": len(traces), "mb": round(sum(sizes) / 1e6, 1), "held_by": chain}


def watch(path: str) -> None:
    """Append a line every 5 s, for as long as the process lives. When tracing, the first
    quiet moment (no session) after the first minute is the reference, and each later quiet
    line lists the 12 source lines whose live allocations grew most since."""
    if os.environ.get("MEMWATCH_TRACE"):
        tracemalloc.start(1)
    began, first = time.time(), None
    with open(path, "a", encoding="utf-8") as log:
        while True:
            line = snapshot_line()
            quiet = line.get("sessions") == 0 and time.time() - began > 60
            if quiet:
                line["held_traces"] = held_traces()
            if quiet and tracemalloc.is_tracing():
                if first is None:
                    first = tracemalloc.take_snapshot()
                else:
                    stats = tracemalloc.take_snapshot().compare_to(first, "lineno")[:12]
                    line["grew"] = [f"{s.size_diff / 1e6:+.2f} MB {s.traceback}" for s in stats]
            log.write(json.dumps(line, ensure_ascii=False) + "\n")
            log.flush()
            time.sleep(5)


def main() -> None:
    log, *argv = sys.argv[1:]
    threading.Thread(target=watch, args=(log,), daemon=True).start()
    from streamlit.web import cli

    sys.argv = argv
    cli.main()


if __name__ == "__main__":
    main()
