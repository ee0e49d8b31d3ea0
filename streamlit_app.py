"""The server's entry: ``streamlit run streamlit_app.py`` finds ``app`` and serves the Streamlit
script ``dashboard.py`` (kept in the project's root: ``st.Page`` paths resolve against its folder),
the class's phone page and JSON API beside it (``ui.phone``: ``/join/CODE``, ``/api/rooms/…``),
and compresses everything it sends (a phone's first visit downloads Streamlit's bundle gzipped).

The server imports every library and page body before it answers (``ui.boot``): a class that
wakes it then waits for none of that, where each first run used to wait some 1.8 s for them.
"""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import streamlit as st
from starlette.concurrency import run_in_threadpool

from ui import boot, phone


@asynccontextmanager
async def warm_up(_: st.App) -> AsyncIterator[None]:
    """Import everything once at start, in a thread: the event loop stays free meanwhile."""
    await run_in_threadpool(boot.import_all)
    yield


app = st.App("dashboard.py", lifespan=warm_up, routes=phone.routes(), middleware=phone.MIDDLEWARE)
