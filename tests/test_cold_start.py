"""A class waking the app: first runs on a freshly started server, and impatient clicking."""

import json
import os
import subprocess
import sys
import textwrap

import pytest
from conftest import ROOT

from bench.load import cold_class, impatient_class
from bench.serve import streamlit_server
from ui.kit.pages import PAGES

pytestmark = pytest.mark.slow  # starts fresh servers


@pytest.mark.parametrize("attempt", [1, 2])
def test_a_class_opening_every_page_on_a_fresh_server_sees_no_exception(attempt):
    """20 sessions send their first run at the same instant, each to one of the pages in turn,
    on a server that has run nothing yet: none shows an exception, every run draws its page.
    (Before the warm-up under one lock, 3 of 20 met a half-imported pandas on every try.)"""
    with streamlit_server("streamlit_app.py") as (base, _pid):
        students = cold_class(base, 20)
    assert [f for s in students for f in s.failures] == []
    assert all(len(s.latencies) == 1 for s in students)
    for student in students:
        chart = next(p.chart for p in PAGES if p.path == (student.page or "lab"))
        assert chart is None or chart in student.charts, (student.page, student.charts)


def test_bursts_of_interrupting_reruns_end_on_the_right_page():
    """On a fresh server, each session opens a page, sends five reruns of random pages 0–60 ms
    apart (each interrupting the last, /train and /scaling rerunning themselves), then a calm
    run of its page: no exception anywhere, and the calm run shows that page's main chart."""
    with streamlit_server("streamlit_app.py") as (base, _pid):
        students = impatient_class(base, 2 * len(PAGES))
    assert [f for s in students for f in s.failures] == []


ONE_BLAS_THREAD = textwrap.dedent(
    """
    import json, os, sys
    from ui import boot
    boot.import_all()
    from threadpoolctl import threadpool_info
    blas = [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]
    print(json.dumps([os.environ.get("OPENBLAS_NUM_THREADS"), blas]))
    """
)


def test_the_server_s_numpy_runs_one_blas_thread():
    """The entry's first import sets one BLAS thread before numpy loads, whatever the cores: a
    second one, waiting for a core the browser or another session holds, slowed the model."""
    env = {key: value for key, value in os.environ.items() if key != "OPENBLAS_NUM_THREADS"}
    out = subprocess.run(
        [sys.executable, "-c", ONE_BLAS_THREAD], cwd=ROOT, env=env, capture_output=True,
        text=True, check=True, timeout=120,
    )  # fmt: skip
    setting, blas = json.loads(out.stdout.strip().splitlines()[-1])
    assert setting == "1" and blas and all(threads == 1 for threads in blas), (setting, blas)


WARM_THEN_RUN_EVERY_PAGE = textwrap.dedent(
    """
    import pathlib, sys, tempfile
    sys.path.insert(0, {root!r})
    from streamlit.testing.v1 import AppTest
    scratch = pathlib.Path(tempfile.mkdtemp()) / "scratch.py"
    scratch.write_text("import streamlit as st\\nst.write('x')\\n")
    AppTest.from_file(str(scratch)).run()  # the test harness's own imports
    from ui import boot
    boot.import_all()
    before = set(sys.modules)
    from ui.kit.pages import PAGES
    for lang in ("zh", "en"):
        at = AppTest.from_file({app!r}, default_timeout=120)
        at.query_params["lang"] = lang
        at.run()
        for page in PAGES[1:]:
            at.switch_page(page.file).run()
            assert not at.exception, (page.path, [e.value for e in at.exception])
    print("\\n".join(sorted(set(sys.modules) - before)))
    """
)


def test_after_the_warm_up_no_page_imports_a_package_that_could_race():
    """In a fresh interpreter, after ``boot.import_all``, a run of every page in both languages
    imports only Plotly's generated figure classes, which import nothing not yet loaded: no
    package that another first run could be importing at the same moment."""
    code = WARM_THEN_RUN_EVERY_PAGE.format(root=str(ROOT), app=str(ROOT / "dashboard.py"))
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True
    )
    imported = result.stdout.split()
    assert [name for name in imported if not name.startswith("plotly.graph_objs.")] == []
