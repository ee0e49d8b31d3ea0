"""A real `streamlit run` server and headless Debian Chromium for the browser tests."""

import os
from contextlib import contextmanager

import pytest
from conftest import ROOT

from bench import serve

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = ROOT / "artifacts" / "screenshots"
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"
MUST_RUN = bool(os.environ.get("CI") or os.environ.get("REQUIRE_BROWSER"))


def require_browser():
    """Skip loudly without Chromium or Playwright; in CI, fail instead: there they must run."""
    missing = []
    if not os.path.exists(CHROMIUM):
        missing.append(f"{CHROMIUM} (apt-get install chromium fonts-noto-cjk)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing.append("playwright (pip install -r requirements-dev.txt)")
    if missing:
        message = "BROWSER TESTS NOT RUN: missing " + ", ".join(missing)
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


# Counts the script runs a page has seen: each time the app's script state turns to "running".
COUNT_RUNS = """
(() => {
  window.__scriptRuns = 0;
  window.__runsSeen = 0;
  let last = null;
  const look = () => {
    const app = document.querySelector("[data-testid='stApp']");
    const state = app && app.getAttribute("data-test-script-state");
    if (state === "running" && last !== "running") window.__scriptRuns += 1;
    last = state;
  };
  new MutationObserver(look).observe(document, {
    subtree: true, childList: true, attributes: true, attributeFilter: ["data-test-script-state"],
  });
})();
"""
RAN_AND_IDLE = f"""() => window.__scriptRuns > window.__runsSeen
  && document.querySelector("{IDLE}") !== null"""


def count_runs(context):
    """Make every page of a browser context count its script runs (see ``wait_idle``)."""
    context.add_init_script(COUNT_RUNS)
    return context


def wait_idle(page, settle_ms=400):
    """Wait until a script run that started after the last wait has finished, then let the
    frontend draw for ``settle_ms``. The page's context must count runs (``count_runs``)."""
    page.wait_for_function(RAN_AND_IDLE, timeout=60_000)
    page.evaluate("() => { window.__runsSeen = window.__scriptRuns; }")
    page.wait_for_timeout(settle_ms)


def screenshot(page, name):
    """Save a screenshot as a test artifact (git-ignored)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
