"""Import everything the pages need once, completely, before any page runs.

On a freshly started server the first runs of a class execute the entry script in parallel
threads. When two threads import the same package at once, Python breaks the import-lock
deadlock by handing one of them a half-initialised module (``partially initialized module
'pandas' has no attribute 'NaT'``). Here the first run imports every module under one lock while
the other first runs wait on it; later runs see the flag and skip it. This module imports
nothing a script thread could be importing at the same moment (Streamlit has loaded
``threading`` and ``importlib`` before any script runs), so importing it cannot race.
"""

import importlib
import os
import threading

# One BLAS thread, set before numpy loads OpenBLAS: the server shares its cores with a class (on
# Community Cloud, a fraction of one): a second thread waiting for a busy core slowed the
# model's forward pass (docs/history.md).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

# Packages that import each other (pandas and pyarrow, narwhals, plotly's JSON), which Streamlit's
# elements and the pages import at first use, and the entry's own modules. What a page run may
# still import after these is a generated Plotly class, which imports only what is loaded here.
LIBRARIES = (
    "ctypes.util",
    "encodings.cp437",
    "numpy",
    "pandas",
    "pyarrow",
    "pyarrow.pandas_compat",
    "pyarrow.vendored.version",
    "narwhals",
    "narwhals._interchange.dataframe",
    "orjson",
    "PIL.Image",
    "plotly.animation",
    "plotly.graph_objects",
    "plotly.io",
    "plotly.io._json",
    "plotly.offline",
    "plotly.tools",
    "streamlit.dataframe_util",
    "streamlit.emojis",
    "streamlit.material_icon_names",
    "ui.kit.memory",
    "ui.kit.state",
    "ui.kit.touch",
)

_lock = threading.Lock()
_done = threading.Event()


def import_all() -> None:
    """Import the libraries and every page's body once per process; other threads wait."""
    if _done.is_set():
        return
    with _lock:
        if _done.is_set():
            return
        from ui.kit.pages import PAGES

        for name in (*LIBRARIES, *(page.module for page in PAGES)):
            importlib.import_module(name)
        importlib.import_module("PIL.Image").init()  # its format plugins, for the favicon
        _done.set()
