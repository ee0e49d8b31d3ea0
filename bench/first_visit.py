"""A phone's first visit, in bytes and in seconds on a slow link: the lab, and joining a class.

Chromium (a fresh profile: nothing cached) is throttled by its own network emulation to
1 Mbit/s each way with a 400 ms round trip, as a school's Wi-Fi shared by a class or a server
abroad. Bytes are what crossed the wire (``encodedDataLength``: compressed when the server
compressed). "Ready" is the lab's weights heatmap drawn, or the join button shown.

    python -m bench.first_visit                 # this checkout
    python -m bench.first_visit --before e81bff8  # and an older commit, in a temporary worktree

The older commit's join page is the Streamlit class page (``/classroom?room=CODE``); this one's
is the light page (``/join/CODE``).
"""

import argparse
import os
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from playwright.sync_api import sync_playwright

from bench.serve import ROOT, streamlit_server
from classroom import Store

SLOW = {
    "offline": False,
    "latency": 400,
    "downloadThroughput": 125_000,
    "uploadThroughput": 125_000,
}
LAB_READY = ".st-key-weights_heatmap .main-svg"
JOIN_READY = {"light": "main button.primary", "streamlit": ".st-key-classroom_join button"}


def visit(browser, url: str, ready: str, slow: bool) -> tuple[int, int, float]:
    """(requests, bytes, seconds) for one first visit of ``url`` until ``ready`` is visible."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    if slow:
        cdp.send("Network.emulateNetworkConditions", SLOW)
    sizes: list[int] = []
    cdp.on("Network.loadingFinished", lambda event: sizes.append(int(event["encodedDataLength"])))
    start = time.perf_counter()
    page.goto(url, wait_until="commit", timeout=300_000)
    page.wait_for_selector(ready, timeout=300_000)
    seconds = time.perf_counter() - start
    page.wait_for_timeout(500)  # what the page still fetches once ready counts as its weight
    context.close()
    return len(sizes), sum(sizes), seconds


def measure(checkout: Path, label: str) -> None:
    """Both first visits on one checkout's server, fast and throttled."""
    data = Path(tempfile.mkdtemp(prefix="first-visit-"))
    os.environ["CLASSROOM_DATA_DIR"] = str(data)
    light = (checkout / "ui" / "phone").is_dir()
    with streamlit_server(cwd=checkout) as (base, _pid):
        room = Store(f"sqlite:///{data / 'classroom.db'}").create_room().code
        join = f"/join/{room}?lang=zh" if light else f"/classroom?room={room}&lang=zh"
        ready = JOIN_READY["light" if light else "streamlit"]
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium")
            for name, path, selector in (("lab", "/?lang=zh", LAB_READY), ("join", join, ready)):
                for slow in (False, True):
                    count, size, seconds = visit(browser, base + path, selector, slow)
                    link = "1 Mbit/s, 400 ms" if slow else "loopback"
                    row = (label, name, link, count, f"{size / 1e3:,.1f} kB", f"{seconds:.1f} s")
                    print("| " + " | ".join(map(str, row)) + " |")
            browser.close()


@contextmanager
def worktree(commit: str) -> Iterator[Path]:
    """A temporary checkout of ``commit``."""
    folder = Path(tempfile.mkdtemp(prefix="first-visit-tree-")) / "tree"
    subprocess.run(
        ["git", "worktree", "add", "--detach", str(folder), commit], cwd=ROOT, check=True
    )
    try:
        yield folder
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(folder)], cwd=ROOT, check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", help="an older commit to measure too")
    args = parser.parse_args()
    print("| checkout | page | link | requests | bytes | ready |")
    print("|---|---|---|---|---|---|")
    if args.before:
        with worktree(args.before) as folder:
            measure(folder, args.before)
    measure(ROOT, "this")


if __name__ == "__main__":
    main()
