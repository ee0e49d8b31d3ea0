"""The app under Streamlit's AppTest, opened as a link opens it (the tests and bench.bench)."""

from typing import Any

from streamlit.testing.v1 import AppTest

from bench.serve import ROOT

APP = str(ROOT / "dashboard.py")  # the Streamlit script AppTest opens


def open_link(page: str, query: dict[str, Any], timeout: float) -> AppTest:
    """Run the app as if opened from a link to ``page`` (a folder of ui/) with ``query``."""
    at = AppTest.from_file(APP, default_timeout=timeout)
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    if page != "lab":
        # AppTest always starts on the default page, which rewrites the URL; a browser opening
        # /page?query runs that page first, so put the link's query back before switching.
        for key in list(at.query_params):
            del at.query_params[key]
        for key, value in query.items():
            at.query_params[key] = value
        at.switch_page(f"ui/{page}/page.py").run()
    return at
