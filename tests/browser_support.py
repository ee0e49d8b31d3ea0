"""A real `streamlit run` server and headless Debian Chromium for the browser tests."""

import os
import time
from contextlib import contextmanager

import pytest
from conftest import ROOT
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from bench import serve

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = ROOT / "artifacts" / "screenshots"
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"
MUST_RUN = bool(os.environ.get("CI") or os.environ.get("REQUIRE_BROWSER"))
# What the browser tests need, as .ci/run installs it: the browser, the Chinese font, the font
# that draws the ► / ❚❚ play buttons, and the Python driver.
APT_PACKAGES = ("chromium", "fonts-noto-cjk", "fonts-dejavu-core")
PIP_NEEDS = "playwright (pip install -r requirements-dev.txt)"


def require_browser():
    """Skip loudly without Chromium or Playwright; in CI, fail instead: there they must run."""
    missing = []
    if not os.path.exists(CHROMIUM):
        missing.append(CHROMIUM)
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing.append("playwright")
    if missing:
        message = (
            f"BROWSER TESTS NOT RUN: missing {', '.join(missing)}; they need "
            f"apt-get install {' '.join(APT_PACKAGES)} and {PIP_NEEDS}"
        )
        if MUST_RUN:
            pytest.fail(message + " — CI must install them (.ci/run does).")
        pytest.skip(message)


@contextmanager
def streamlit_server(app="streamlit_app.py"):
    """The app's base URL on a fresh `streamlit run` server."""
    with serve.streamlit_server(app) as (base, _pid):
        yield base


def launch(playwright):
    """Headless Debian Chromium with the flags this closed network needs."""
    return playwright.chromium.launch(
        executable_path=CHROMIUM,
        args=[
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
        ],
    )


def _finished(payload) -> bool:
    """Whether a websocket frame from the server says a script run is over: a
    ``script_finished`` message, but not one stopped early for a rerun (the width watch's on a
    first visit), whose rerun is still to come."""
    if not isinstance(payload, bytes):
        return False
    message = ForwardMsg()
    message.ParseFromString(payload)
    if message.WhichOneof("type") != "script_finished":
        return False
    return message.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN


def _watch_runs(page) -> None:
    """Count the script runs that end on this page, from the server's own messages.

    The app's ``data-test-script-state`` attribute is no count: React may batch a fast run's
    (a fragment's: 40 ms) "running" and "notRunning" into one render, and then the attribute never
    changes. A row click timed out in CI that way; the server's messages are never batched away.
    """
    page.runs_ended = 0
    page.runs_seen = 0

    def on_frame(payload) -> None:
        if _finished(payload):
            page.runs_ended += 1

    page.on("websocket", lambda socket: socket.on("framereceived", on_frame))


def count_runs(context):
    """Make every page of a browser context count its script runs (see ``wait_idle``)."""
    context.on("page", _watch_runs)
    return context


def wait_idle(page, settle_ms=400, timeout_s=60.0):
    """Wait until a script run has ended since the last wait and the app shows it is idle, then
    let the frontend draw for ``settle_ms``. The page's context must count runs (``count_runs``)."""
    deadline = time.monotonic() + timeout_s
    while page.runs_ended <= page.runs_seen:  # Playwright delivers the frames while it waits
        if time.monotonic() > deadline:
            raise TimeoutError(f"no script run ended within {timeout_s:.0f} s")
        page.wait_for_timeout(50)
    page.runs_seen = page.runs_ended
    page.wait_for_selector(IDLE, state="attached", timeout=60_000)
    page.wait_for_timeout(settle_ms)


def wait_quiet(page, quiet_ms=1500, timeout_s=60.0):
    """Wait until no script run has ended for ``quiet_ms``: a page that reruns itself (a first
    visit's width watch, /model's guesses after its heads) is done. Under a loaded CI machine a
    click between two such runs can land on a chart that is being replaced."""
    deadline = time.monotonic() + timeout_s
    seen, since = page.runs_ended, time.monotonic()
    while time.monotonic() - since < quiet_ms / 1000:
        if time.monotonic() > deadline:
            raise TimeoutError(f"the page kept rerunning for {timeout_s:.0f} s")
        page.wait_for_timeout(100)
        if page.runs_ended != seen:
            seen, since = page.runs_ended, time.monotonic()
    page.runs_seen = page.runs_ended
    page.wait_for_selector(IDLE, state="attached", timeout=60_000)


def poll(page, found, timeout_s=30.0):
    """``found()``'s first truthy value, asked every 100 ms while the page runs; else its last."""
    deadline = time.monotonic() + timeout_s
    while not (value := found()) and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    return value


def screenshot(page, name):
    """Save a screenshot as a test artifact (git-ignored)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def boxes(tab, selector):
    """Bounding boxes of every element matching ``selector``, with its text and font size."""
    return tab.evaluate(
        """(selector) => [...document.querySelectorAll(selector)].map(e => {
             const r = e.getBoundingClientRect();
             return {text: e.textContent, size: parseFloat(getComputedStyle(e).fontSize),
                     x0: r.left, x1: r.right, y0: r.top, y1: r.bottom};
           }).filter(b => b.text.trim() !== '')""",
        selector,
    )


def overlapping(found):
    """Pairs of boxes that overlap by more than half a pixel."""
    return [
        (a["text"], b["text"])
        for i, a in enumerate(found)
        for b in found[i + 1 :]
        if min(a["x1"], b["x1"]) - max(a["x0"], b["x0"]) > 0.5
        and min(a["y1"], b["y1"]) - max(a["y0"], b["y0"]) > 0.5
    ]


PHONE_AGENT = (  # a phone's browser says "Mobile"; the app sizes its figures to the phone
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/131.0.0.0 Mobile Safari/537.36"
)
SCREENS = {  # name: (context options, query)
    "phone": ({"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
               "device_scale_factor": 2, "user_agent": PHONE_AGENT}, ""),
    # snap.py's phone: touch and a phone's viewport, but a desktop User-Agent; the app sizes
    # its figures by the width the browser tells it
    "phone-plain": ({"viewport": {"width": 390, "height": 844}, "is_mobile": True,
                     "has_touch": True, "device_scale_factor": 2}, ""),
    "laptop": ({"viewport": {"width": 1280, "height": 720}}, ""),
    "laptop-wide": ({"viewport": {"width": 1366, "height": 768}}, ""),
    "projector": ({"viewport": {"width": 1280, "height": 720}}, "&present=true"),
}  # fmt: skip
