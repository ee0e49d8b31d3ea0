"""A real `streamlit run` server and headless Debian Chromium for the browser tests."""

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager

import pytest
from conftest import ROOT

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


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def streamlit_server(app="streamlit_app.py"):
    """Start `streamlit run` on a free port and yield its base URL once /_stcore/health is ok."""
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        app,
        "--server.headless",
        "true",
        "--server.port",
        str(port),
        "--browser.gatherUsageStats",
        "false",
        "--server.fileWatcherType",
        "none",
    ]
    process = subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if urllib.request.urlopen(base + "/_stcore/health", timeout=1).read() == b"ok":
                    break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(process.stderr.read().decode(errors="replace")) from None
                time.sleep(0.2)
        yield base
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=10)


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


def has_chromium():
    return os.path.exists(CHROMIUM) and shutil.which("chromium") is not None
