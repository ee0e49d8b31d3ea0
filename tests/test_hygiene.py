"""Project rules checked by the test command: a pure core, typed, lint-clean."""

import ast
import importlib
import os
import re
import subprocess
import sys

import pytest
from conftest import ROOT

from ui.kit.pages import PATHS


@pytest.mark.slow  # starts mypy or Python
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


@pytest.mark.slow  # starts mypy or Python
def test_mypy_strict_is_clean_on_the_core_the_ui_and_the_classroom():
    """viz_core, ui/, classroom/ and the entry are fully annotated: mypy --strict over the files
    pyproject.toml lists reports nothing."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert set(config["tool"]["mypy"]["files"]) >= {
        "viz_core",
        "ui",
        "streamlit_app.py",
        "dashboard.py",
    }
    result = subprocess.run(
        [sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stdout + result.stderr


# Calls of chart() with a builder of the pages' shape; the last two are wrong.
CHART_CALLS = """
from typing import Any

from ui.kit.display import Chart, chart
from ui.kit.typography import LAPTOP, Screen


def bars(values: list[float], *, lang: str, screen: Screen = LAPTOP) -> dict[str, Any]:
    return {}


chart("bars", bars, [1.0], lang="en")
chart(Chart("bars", select=lambda: None, first=True), bars, [1.0], lang="en")
chart("bars", bars, "1.0", lang="en")
chart("bars", bars, [1.0], lang="en", first=True)
"""


@pytest.mark.slow  # starts mypy or Python
def test_mypy_checks_a_builders_arguments_at_each_chart_call(tmp_path):
    """chart() passes its builder's signature on: mypy --strict rejects a wrong argument and an
    option given as the builder's keyword, and accepts the calls that leave screen to chart."""
    scratch = tmp_path / "chart_calls.py"
    scratch.write_text(CHART_CALLS, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", str(scratch)],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    errors = [line for line in result.stdout.splitlines() if ": error:" in line]
    last = len(CHART_CALLS.splitlines())  # the wrong calls are the file's last two lines
    assert [line.split(":")[1] for line in errors] == [str(last - 1), str(last)], result.stdout
    assert '"str"; expected "list[float]"' in errors[0]
    assert 'Unexpected keyword argument "first"' in errors[1]


def test_ruff_is_clean():
    """ruff check passes on the whole project."""
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "."], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


def python_files(*folders):
    """Every .py file below the given project folders."""
    return [path for folder in folders for path in sorted((ROOT / folder).rglob("*.py"))]


def test_no_function_is_longer_than_40_lines():
    """Every function in viz_core/ and ui/, from its def to its last line, has ≤ 40 lines."""
    long = []
    for path in python_files("viz_core", "ui"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = node.end_lineno - node.lineno + 1
                if lines > 40:
                    long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({lines})")
    assert long == []


def imported_modules(path):
    """The modules a file imports, as dotted names (``from a import b`` gives a and a.b)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
    return names


PAGES = PATHS  # the registry's page folders
# What one page may use of another: its settings, its cached computation and its figure builders
# and presets (pure: numbers in, a figure or numbers out; the lesson export draws with them),
# never its body.
SHAREABLE = {"settings", "compute", "figures", "presets"}


def may_import(folder, name):
    """Whether a file of ui/<folder>/ may import the module ``name``."""
    parts = name.split(".")
    if parts[0] != "ui" or parts[1] in ("kit", folder):
        return True
    return folder != "kit" and len(parts) >= 3 and parts[2] in SHAREABLE


def test_a_page_imports_only_the_kit_the_core_and_other_pages_settings():
    """ui/<page>/ imports ui.kit, viz_core, and of another page only its settings, compute,
    figures or presets; ui/kit/ imports no page at all."""
    wrong = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in python_files("ui")
        for name in imported_modules(path)
        if not may_import(path.relative_to(ROOT / "ui").parts[0], name)
    ]
    assert wrong == []


def test_the_app_entry_knows_pages_only_by_the_registry():
    """dashboard.py imports the kit (and the warm-up) only, and builds its navigation from
    ui/kit/pages.py, whose every page is a folder with page.py, body.py and its nav title."""
    from ui.kit.pages import PAGES as REGISTERED
    from ui.kit.text import STRINGS

    names = imported_modules(ROOT / "dashboard.py")
    assert {name for name in names if name.startswith("ui.")} <= {
        name for name in names if name.startswith(("ui.kit", "ui.boot"))
    }
    assert "ui.kit.state" in names and "state.navigation_pages" in (
        ROOT / "dashboard.py"
    ).read_text(encoding="utf-8")
    assert "ui.kit.pages.PAGES" in imported_modules(ROOT / "ui" / "kit" / "state.py")
    assert REGISTERED[0].path == "lab"  # the default page first
    for page in REGISTERED:
        assert (ROOT / page.file).is_file() and (ROOT / "ui" / page.path / "body.py").is_file()
        importlib.import_module(f"ui.{page.path}")  # registers the page's own strings
        assert page.title_key in STRINGS


def test_the_readme_says_what_a_newcomer_needs_once():
    """At most 150 lines, each heading once; both articles named; the two commands verbatim (CI
    runs the second); the apt line the browser tests need; where the app opens and how the
    language is chosen; the screenshot and the script that makes it; every docs/ link resolves;
    no path outside the repository in README.md or docs/."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    lines = text.splitlines()
    assert len(lines) <= 150, f"README.md has {len(lines)} lines"
    headings = [line for line in lines if line.startswith("#")]
    assert len(headings) == len(set(headings)) and all(h.count("## ") <= 1 for h in headings)
    assert "第七篇：自注意力（二）—— 缩放、Softmax 与信息融合" in text
    assert "上一章节走完了自注意力的四步计算" in text
    app = "pip install -r requirements.txt && streamlit run streamlit_app.py"
    tests = "pip install -r requirements-dev.txt && python -m pytest"
    assert f"```bash\n{app}\n```" in text and f"```bash\n{tests}\n```" in text
    assert "apt-get install chromium fonts-noto-cjk" in text and "BROWSER TESTS NOT RUN" in text
    assert "http://localhost:8501" in text and "?lang=zh" in text
    assert "`python -m bench.screenshot`" in text and (ROOT / "bench" / "screenshot.py").is_file()
    assert "](docs/lab-zh.png)" in text
    links = re.findall(r"\]\((docs/[^)#\s]+)", text)
    assert {"docs/performance.md", "docs/operations.md", "docs/articles.md"} <= set(links)
    assert [link for link in links if not (ROOT / link).is_file()] == []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        body = page.read_text(encoding="utf-8")
        assert "../" not in body, f"{page.name} points outside the repository"
        local = re.findall(r"\]\(([^)#\s:]+)", body)  # relative links, no URLs
        assert [link for link in local if not (page.parent / link).exists()] == [], page.name
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert tests in ci
    assert "chromium fonts-noto-cjk fonts-dejavu-core" in ci  # no emoji font: Material icons


SCRATCH_PAGE = {
    "__init__.py": "from ui.kit.text import register_page\n\nregister_page(__file__)\n",
    "strings.toml": (
        '[nav_scratch]\nzh = "草稿页"\nen = "Scratch page"\n\n'
        '[scratch_title]\nzh = "草稿"\nen = "Scratch"\n\n'
        '[scratch_intro]\nzh = "一页新的。"\nen = "A new page."\n\n'
        '[scratch_size_label]\nzh = "大小"\nen = "Size"\n'
    ),
    "settings.py": (
        "from dataclasses import dataclass\nfrom typing import ClassVar\n\n"
        "from viz_core.settings import Settings, integer\n\n\n@dataclass(frozen=True)\n"
        'class ScratchParams(Settings):\n    PAGE: ClassVar[str] = "scratch"\n\n'
        "    size: int = integer(2, 1, 9)\n"
    ),
    "body.py": (
        "from ui.kit import state\nfrom ui.kit.display import number_input\n"
        "from ui.scratch.settings import ScratchParams\n\n\ndef render() -> None:\n"
        '    lang = state.open_page("scratch_title", "scratch_intro", ScratchParams)\n'
        '    number_input(ScratchParams, "size", lang, "scratch_size")\n'
        "    state.close_page(state.current(ScratchParams))\n"
    ),
    "page.py": "from ui.scratch.body import render\n\nrender()\n",
}
RUN_SCRATCH = """
import sys
sys.path[:0] = [{root!r}, {root!r} + "/tests"]
from streamlit.testing.v1 import AppTest
at = AppTest.from_file({app!r}, default_timeout=120)
at.query_params["lang"] = "en"
at.run()
del at.query_params["lang"]
at.query_params["size"] = "7"
at.switch_page("ui/scratch/page.py").run()
assert not at.exception, [e.value for e in at.exception]
assert at.number_input(key="scratch_size").value == 7 and at.query_params["size"] == "7"
import test_browser, test_figures, test_url_fuzz
from bench import bench
assert "size" in test_url_fuzz.PAGE_KEYS["scratch"], "the URL fuzz"
assert "scratch" in test_browser.PAGES, "the browser sweep"
assert ("scratch", {{}}) in test_figures.PAGES, "the figure sweep"
assert "scratch" in bench.PAGES, "the bench"
print(at.title[0].value)
"""


def test_adding_a_page_is_a_folder_and_one_registry_line(tmp_path):
    """The recipe in docs/adding.md, followed on a copy of the app: a folder ui/scratch/ with its
    files (one URL key, ``size``) and one line in ui/kit/pages.py, and nothing else, give a page
    that opens from its link; and the URL fuzz, the browser sweep, the figure sweep and the bench,
    none of them edited, each include the new page (and the fuzz its key)."""
    import shutil

    parts = ("streamlit_app.py", "dashboard.py", "ui", "viz_core", "classroom", ".streamlit")
    for part in (*parts, "tests", "bench"):
        source = ROOT / part
        copy = shutil.copytree if source.is_dir() else shutil.copy
        copy(source, tmp_path / part)
    for name, text in SCRATCH_PAGE.items():
        (tmp_path / "ui" / "scratch").mkdir(exist_ok=True)
        (tmp_path / "ui" / "scratch" / name).write_text(text, encoding="utf-8")
    registry = tmp_path / "ui" / "kit" / "pages.py"
    line = '    Page("scratch", ":material/draft:", None),\n)\nPATHS'
    registry.write_text(registry.read_text(encoding="utf-8").replace(")\nPATHS", line, 1))
    code = RUN_SCRATCH.format(root=str(tmp_path), app=str(tmp_path / "dashboard.py"))
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=300
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip().splitlines()[-1] == "Scratch"


SCRATCH = """
import pytest


@pytest.mark.slow
def test_marked_slow():
    pass


@pytest.mark.browser
def test_in_a_browser():
    pass


def test_quick():
    pass
"""


TIERS = [("not slow", ["test_quick"]), ("slow", ["test_marked_slow", "test_in_a_browser"])]


@pytest.mark.slow  # starts mypy or Python
@pytest.mark.parametrize(("tier", "chosen"), TIERS)
def test_the_quick_tier_leaves_out_what_is_marked_slow(tier, chosen):
    """A scratch test file in tests/ (so conftest.py and pyproject.toml apply): -m "not slow"
    collects only its unmarked test, -m slow the one marked slow and the browser one."""
    scratch = ROOT / "tests" / f"scratch_tier_{os.getpid()}.py"
    scratch.write_text(SCRATCH, encoding="utf-8")
    try:
        result = subprocess.run(
            [sys.executable, "-m", "pytest", str(scratch), "-m", tier, "--collect-only", "-q",
             "-n", "0", "-p", "no:cacheprovider"],
            cwd=ROOT, capture_output=True, text=True,
        )  # fmt: skip
    finally:
        scratch.unlink()
    collected = [line.rsplit("::", 1)[1] for line in result.stdout.splitlines() if "::" in line]
    assert collected == chosen, result.stdout + result.stderr
