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


def wait_idle(page, settle_ms=400):
    """Wait until the script has finished and the frontend has drawn."""
    page.wait_for_timeout(150)
    page.wait_for_selector(IDLE, timeout=60_000)
    page.wait_for_timeout(settle_ms)


def screenshot(page, name):
    """Save a screenshot as a test artifact (git-ignored)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
