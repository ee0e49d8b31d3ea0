"""The teacher's key, kept in the projector tab's own storage (``sessionStorage``): when the
server that held this session goes away (a deploy, a crash, the balancer moving the tab), the tab
reconnects to another server as a new session, which would meet a join link. The tab hands its
key back, and the new session teaches the room again. Only that tab holds it: a student's phone,
another tab or another browser never does."""

import streamlit as st

from classroom import Unavailable
from ui.classroom.compute import TEACHING, store, teaching
from ui.kit import state
from ui.kit.snippets import rerun_only, snippet

# Keep the key this session teaches with; hand back the kept one (once per value the server has
# not been told); forget one the room no longer takes.
KEEP_JS = """export default function ({ data, setStateValue }) {
  const name = "attention-lab-teacher-" + data.room;
  if (data.forget) sessionStorage.removeItem(name);
  else if (data.key) sessionStorage.setItem(name, data.key);
  const kept = sessionStorage.getItem(name);
  if (kept && kept !== data.told) setStateValue("key", kept);
}"""
KEEP_CSS = "<style>.st-key-_teacher_key{display:none}</style>"  # no gap for a hidden element
TOLD = state.Slot("classroom", "kept_told", "")  # the kept key the server last received
FORGET = state.Slot("classroom", "kept_forget", "")  # a room whose kept key it refused


def keep_key(room: str) -> None:
    """For a class's page (``room``): keep the key this session teaches with in the tab, or take
    the tab's kept key back when this session does not teach (a new session after its server
    went away). A kept key the room refuses is forgotten, with no warning: the class ended."""
    taught = teaching(room) or ""
    data = {"room": room, "key": taught, "told": TOLD.get(), "forget": FORGET.pop() == room}
    st.html(KEEP_CSS)
    keeper = snippet("teacher_key", KEEP_JS)
    result = keeper(key="_teacher_key", data=data, default={"key": ""}, on_key_change=rerun_only)
    kept = str(result.get("key") or "")
    TOLD.set(kept)
    if taught or not kept:
        return
    try:
        takes = store().is_teacher(room, kept)
    except (LookupError, Unavailable):
        takes = False  # an ended class; a database away is tried again by the page's recover
    if takes:
        TEACHING.set((room, kept))
    else:
        FORGET.set(room)
