"""The class page's store, shared by every session of the server, the questions' default truths,
and what a session keeps of its class (the room it teaches, a view the lab hands over)."""

import functools
from typing import Any

import streamlit as st

from classroom import QUESTIONS, Store, Truth, default_url
from ui.kit import state

# (room, key) this session teaches: set when a teacher's link opened, kept while it lives.
TEACHING = state.Slot("classroom", "teaching", ("", ""))
# The lab's settings and row that "Ask the class about this view" handed to the class page.
LAB_VIEW: state.Slot[dict[str, Any]] = state.Slot("classroom", "lab_view", {})


@st.cache_resource
def store() -> Store:
    """One store for the server: its connection pool is shared by every session."""
    return Store(default_url())


@functools.cache  # bounded: one small entry per question of QUESTIONS, a few kB in all
def default_truth(question_id: str) -> Truth:
    """A question's truth at its own settings (the picker's prompts name their row, d, …)."""
    return QUESTIONS[question_id].truth()


def teaching(room: str) -> str | None:
    """The teacher's key when this session teaches ``room``, else None."""
    taught, key = TEACHING.get()
    return key if room and taught == room else None
