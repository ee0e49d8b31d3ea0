"""Hidden browser snippets: a few lines of JavaScript run in the page through a components-v2
component that draws nothing (the app's CSS hides its element by its key). Three use it: the
window's width (``screen``), one tap on a touch screen (``touch``) and the teacher's kept key
(``ui/classroom/kept.py``)."""

import functools
from collections.abc import Callable
from typing import Any

import streamlit as st


@functools.cache
def snippet(name: str, js: str) -> Callable[..., Any]:
    """The component ``name`` running ``js``, registered once per server (not once per run)."""
    return st.components.v2.component(name, js=js)


def rerun_only() -> None:
    """A snippet's change callback: the rerun the change comes with is all that is needed."""
