"""How long a first visit waits for the browser to tell its width (``ui.kit.screen``).

A session's first run mounts the width watch and holds until the browser's report reruns the
app (or ``WIDTH_WAIT`` passes). This opens fresh windows of a desktop browser (whose User-Agent
does not say "Mobi", so the first run waits) and times, from the first message the server sent,
the message that carries the report. Run: ``python -m bench.width_wait [--visits 8]``.
"""

import argparse
import statistics
import sys
import time

from bench.serve import ROOT, streamlit_server


def one_visit(browser, url: str) -> float:
    """Seconds from the server's first message to the browser's width report."""
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    first, told = [], []
    page.on(
        "websocket",
        lambda ws: (
            ws.on("framereceived", lambda _: first or first.append(time.perf_counter())),
            ws.on("framesent", lambda data: _report(data, told)),
        ),
    )
    page.goto(url)
    deadline = time.monotonic() + 10
    while not told and time.monotonic() < deadline:
        page.wait_for_timeout(20)
    context.close()
    return told[0] - first[0] if first and told else float("nan")


def _report(data: str | bytes, told: list[float]) -> None:
    """Note the time of the first message that carries the width watch's value."""
    raw = data if isinstance(data, bytes) else data.encode()
    if b"_screen" in raw and not told:
        told.append(time.perf_counter())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--visits", type=int, default=8)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "tests"))
    from browser_support import launch
    from playwright.sync_api import sync_playwright

    with streamlit_server("streamlit_app.py") as (url, _), sync_playwright() as playwright:
        browser = launch(playwright)
        one_visit(browser, f"{url}/?lang=en")  # a first visit warms the server's imports
        waits = [one_visit(browser, f"{url}/?lang=en") for _ in range(args.visits)]
        browser.close()
    print(f"visits: {len(waits)}; width report after the first message, s:")
    print(" ".join(f"{w:.3f}" for w in waits))
    print(f"median {statistics.median(waits):.3f}, max {max(waits):.3f}")


if __name__ == "__main__":
    main()
