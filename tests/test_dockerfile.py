"""The Dockerfile's own commands, run in a fresh virtual environment (there is no Docker daemon
on the development machines; CI builds the image itself where one is available)."""

import os
import re
import shlex
import signal
import subprocess
import time
import venv

import pytest
from conftest import ROOT

from bench.serve import free_port, wait_healthy

pytestmark = pytest.mark.slow  # pip installs into a fresh virtualenv, then a server starts

DOCKERFILE = (ROOT / "Dockerfile").read_text(encoding="utf-8")


def instructions(name):
    """The arguments of every instruction ``name``, continuation lines joined."""
    joined = re.sub(r"\\\n\s*", " ", DOCKERFILE)
    return [line.split(None, 1)[1] for line in joined.splitlines() if line.startswith(name + " ")]


def test_dockerfile_follows_the_deployment_rules():
    """Official slim Python, a non-root user, a health check on /_stcore/health, $PORT."""
    (base,) = instructions("FROM")
    assert re.fullmatch(r"python:3\.1[1-3]-slim", base)
    (user,) = instructions("USER")
    assert user not in ("root", "0")
    (health,) = instructions("HEALTHCHECK")
    assert "/_stcore/health" in health
    (command,) = instructions("CMD")
    assert "streamlit run streamlit_app.py" in command and "--server.port=$PORT" in command
    copied = " ".join(instructions("COPY"))
    for needed in [
        "requirements.txt",
        "streamlit_app.py",
        "dashboard.py",
        ".streamlit",
        "viz_core",
        "ui",
    ]:
        assert needed in copied
    assert re.search(r"\bclassroom\b", copied)  # the class mode's store
    # Every folder the server reads at run time (tracked by git; not the tests', the benches',
    # training's, the docs' or deployment's): lessons/ was once left out.
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout.split()  # fmt: skip
    folders = {path.split("/")[0] for path in tracked if "/" in path}
    runtime = folders - {"tests", "bench", "training", "docs", "deploy", ".ci"}
    assert runtime and all(re.search(rf"(^|\s){re.escape(f)}(\s|$)", copied) for f in runtime), (
        runtime
    )
    (data,) = [run for run in instructions("RUN") if "/app/data" in run]
    assert "chown app:app /app/data" in data  # the non-root user writes the SQLite file
    assert any("CLASSROOM_DATA_DIR=/app/data" in env for env in instructions("ENV"))


def gone(group: int, seconds: float = 20) -> None:
    """Wait until every process of a process group has exited: the shell ends at once on
    SIGTERM, while the Streamlit server it started may still be shutting down (and answering)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    raise AssertionError(f"process group {group} still running {seconds} s after SIGTERM")


def test_dockerfile_commands_install_start_and_pass_the_health_check(tmp_path):
    """pip install from the RUN line, the CMD on a free $PORT, then the HEALTHCHECK command."""
    environment = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(environment)
    bin_dir = environment / "bin"
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "VIRTUAL_ENV": str(environment),
        "PORT": str(free_port()),
    }
    env.pop("PYTHONPATH", None)
    (install,) = [run for run in instructions("RUN") if run.startswith("pip install")]
    subprocess.run(
        shlex.split(install), cwd=ROOT, env=env, check=True, timeout=900, stdout=subprocess.DEVNULL
    )
    (command,) = instructions("CMD")
    server = subprocess.Popen(
        ["sh", "-c", command],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        wait_healthy(f"http://127.0.0.1:{env['PORT']}", server, seconds=90)
        (health,) = instructions("HEALTHCHECK")
        check = health.split(" CMD ", 1)[1]
        subprocess.run(["sh", "-c", check], env=env, check=True, timeout=30)
        assert (
            str(bin_dir)
            in subprocess.run(
                ["sh", "-c", "command -v streamlit"], env=env, capture_output=True, text=True
            ).stdout
        )
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=10)
        gone(server.pid)
    # The health check is a real check: with the server gone, the same command fails.
    stopped = subprocess.run(["sh", "-c", check], env=env, timeout=30, capture_output=True)
    assert stopped.returncode != 0
