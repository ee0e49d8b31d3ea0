"""Start `streamlit run` on a free port and wait until it is healthy (tests and benchmarks)."""

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    """A TCP port nobody listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_healthy(
    base: str, process: subprocess.Popen[bytes], log: IO[bytes] | None = None, seconds: float = 60
) -> None:
    """Poll /_stcore/health until it answers ok; raise with the server's log (``log``, else its
    stderr pipe) if it dies."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            if urllib.request.urlopen(base + "/_stcore/health", timeout=1).read() == b"ok":
                return
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                if log is not None:
                    log.seek(0)
                source = log if log is not None else process.stderr
                output = source.read().decode(errors="replace") if source else ""
                raise RuntimeError(f"streamlit did not become healthy:\n{output}") from None
            time.sleep(0.2)


@contextmanager
def streamlit_server(
    app: str = "streamlit_app.py", *options: str, cwd: Path = ROOT, watch: str | None = None
) -> Iterator[tuple[str, int]]:
    """Yield (base URL, server pid) of a headless server running ``app``; stop it afterwards.

    ``options`` are further command-line settings, e.g. "--server.disconnectedSessionTTL", "10";
    ``cwd`` the checkout to serve (another worktree, to compare with an older design);
    ``watch`` a file where ``bench.memwatch`` logs what the server's memory is made of.
    """
    port = free_port()
    launcher = (
        ["-m", "streamlit"] if watch is None else ["-m", "bench.memwatch", watch, "streamlit"]
    )
    command = [
        sys.executable,
        *launcher,
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
        *options,
    ]
    # The log goes to a file: a pipe nobody reads fills at 64 kB and then blocks the server.
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(
            command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=log, start_new_session=True
        )
        base = f"http://127.0.0.1:{port}"
        try:
            wait_healthy(base, process, log)
            yield base, process.pid
        finally:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=10)
