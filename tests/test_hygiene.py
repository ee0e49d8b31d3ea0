"""Project rules checked by the test command: a pure core, typed, lint-clean."""

import subprocess
import sys

from conftest import ROOT


def test_core_imports_neither_streamlit_nor_plotly():
    """Importing viz_core in a fresh interpreter loads no streamlit and no plotly."""
    code = (
        "import sys, viz_core, viz_core.lab;"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('streamlit', 'plotly')];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_core_source_never_mentions_streamlit_or_plotly():
    """No import of the UI libraries hides in a function body either."""
    for path in (ROOT / "viz_core").glob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "import streamlit" not in text and "import plotly" not in text, path


def test_mypy_strict_is_clean_on_the_core():
    """viz_core is fully annotated: mypy --strict reports nothing."""
    from mypy import api

    args = ["--config-file", str(ROOT / "pyproject.toml"), str(ROOT / "viz_core")]
    stdout, stderr, status = api.run(args)
    assert status == 0, stdout + stderr


def test_ruff_is_clean():
    """ruff check passes on the whole project."""
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "."], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr
