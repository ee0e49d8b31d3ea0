"""Notes for link values that were replaced, and runs that go on in the next run.

A note names a setting and the value used instead; no user text is echoed. A run that reruns
itself (training, a sweep, the width watch) hands its notes to the next, which the user sees.
"""

import time

import streamlit as st

from ui.kit.text import STRINGS, literal, t
from viz_core.settings import Note

SHOWN, PENDING = "_notes_shown", "_notes_pending"  # notes of this run; of a run that reran
# The server and the browser each pass messages on every 10 ms: what a run sends reaches the
# browser and starts drawing within this wait.
DRAWN = 0.05


def begin_run() -> None:
    """The start of every script run: no note shown yet."""
    st.session_state[SHOWN] = []


def hold(notes: list[Note]) -> None:
    """Keep ``notes`` for the next run, which is about to start in this one's place."""
    st.session_state[PENDING] = notes


def take_held() -> list[Note]:
    """The notes a run that reran left for this one (and no longer held)."""
    held: list[Note] = st.session_state.pop(PENDING, [])
    return held


def show_notes(notes: list[Note], lang: str) -> None:
    """Tell the user which link values were replaced, and which carried values a page kept."""
    st.session_state[SHOWN] = [*st.session_state.get(SHOWN, []), *notes]
    for note in notes:
        if note.key == "text" and note.kept is None:
            st.info(note_text(note, lang), icon=":material/content_cut:")
        else:
            st.info(note_text(note, lang), icon=":material/build:")


def note_text(note: Note, lang: str) -> str:
    """One note in the page's language."""
    if note.kept is not None:  # a carried value this page cannot use: it keeps its own
        own = f"note_kept_{note.page}_{note.key}"
        key = own if own in STRINGS else "note_kept"
        asked, used = literal(note.kept), literal(note.used)  # a carried sentence is user text
        return t(key, lang, key=note.key, asked=asked, used=used, limit=note.limit)
    if note.carried:
        return t("note_carried", lang, key=note.key, used=note.used)
    if note.key == "text":
        return t("note_text_cut", lang, used=note.used)
    return t("note_prefix", lang, key=note.key, used=note.used)


def let_draw() -> None:
    """Wait DRAWN seconds, so that what this run sent so far is drawn before what comes next: the
    browser draws the charts that arrive together in one go, so the first waits for the last;
    and Streamlit drops what the browser has not shown yet when the next run starts."""
    time.sleep(DRAWN)


def drawn_first(chart: str, shows: object) -> None:
    """After a page's main chart (``chart(..., first=True)``): let_draw, when the chart shows what
    this session has not been sent before (``shows``, hashable), so that the rest of the page
    comes after it is drawn."""
    sent = f"_drawn_first_{chart}"
    if st.session_state.get(sent) != shows:
        st.session_state[sent] = shows
        let_draw()


def rerun() -> None:
    """Rerun the script to go on with work spread over runs (training, a sweep), once what this
    run drew (a curve so far, a progress bar) has reached the browser; the notes this run showed
    are shown again by the next, which the user sees in its place."""
    hold(st.session_state.get(SHOWN, []))
    let_draw()
    st.rerun()
