"""The class on a phone: a light page (``/join/CODE``) and a small JSON API
(``/api/rooms/CODE/…``) served beside the Streamlit app by ``st.App`` in ``streamlit_app.py``.
A phone downloads a few kilobytes instead of Streamlit's bundle, works with JavaScript off and
in old in-app browsers, and hears the teacher through a long-poll the server wakes at once.

``routes()`` gives the routes; ``MIDDLEWARE`` compresses what the server sends (Streamlit's
bundle too).
"""

import asyncio
from collections.abc import Callable

from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.routing import BaseRoute, Route

from classroom import Store
from ui.classroom.compute import store as class_store  # its package registers the cl_ strings
from ui.kit.text import register_page
from ui.phone.api import Api
from ui.phone.hub import Hub
from ui.phone.pages import Pages

register_page(__file__)

MIDDLEWARE = [Middleware(GZipMiddleware, minimum_size=500)]


def routes(store: Callable[[], Store] = class_store) -> list[BaseRoute]:
    """The phone page's and the API's routes over the server's store (``store()``: the class
    page's, so the projector's actions wake the phones in-process), read on the first request:
    the hub lives in the server's event loop."""
    hubs: dict[int, Hub] = {}

    def hub() -> Hub:
        made = store()
        if id(made) not in hubs:
            for old in hubs.values():  # a new store (tests): the old hub's rooms were the old one's
                old.close()
            hubs.clear()
            hubs[id(made)] = Hub(made, asyncio.get_running_loop())
        return hubs[id(made)]

    api = Api(hub)
    pages = Pages(api)
    return [
        Route("/join", pages.ask_code, methods=["GET"]),
        Route("/join/{code}", pages.page, methods=["GET"]),
        Route("/join/{code}", pages.post, methods=["POST"]),
        Route("/api/rooms/{code}/students", api.join, methods=["POST"]),
        Route("/api/rooms/{code}/state", api.state, methods=["GET"]),
        Route("/api/rooms/{code}/answers", api.answer, methods=["POST"]),
        Route("/api/rooms/{code}/nickname", api.rename, methods=["POST"]),
        Route("/api/rooms/{code}/count", api.count, methods=["GET"]),
    ]
