"""A lesson with a class: while this session teaches a room, every phone follows the lesson's
step (the store records it, and the phones' long-poll wakes), and the lesson bar asks the class
the step's question, moves it on (close, show, reveal) and shows the class's answers and the
reveal in a popover, the step's view staying on the screen behind it."""

from typing import Any

import streamlit as st

from classroom import PHASES, RoomView
from ui.classroom import shared
from ui.classroom.compute import TEACHING, store
from ui.classroom.errors import said
from ui.classroom.teacher import LIVE, PROBLEM, act, answered_line
from ui.kit import lesson_bar, state
from ui.kit.lessons import Step, lesson_ref
from ui.kit.text import t

# (room, lesson, step) the store was last told by this session: one write per step, not per run.
TOLD: state.Slot[tuple[str, str | None, int | None]] = state.Slot(
    "classroom", "lesson_told", ("", None, None)
)
# The answers' popover as wide as the screen allows: its charts side by side, as on /classroom.
WIDE = (
    "<style>div[data-testid='stPopoverBody']:has(.st-key-lesson_answers_body)"
    "{width:min(1180px,96vw)!important;max-width:96vw!important}</style>"
)
NEXT = {"open": "close", "closed": "show_answers", "shown": "reveal"}  # the bar's next action


def tell_step(where: dict[str, Any] | None) -> None:
    """Tell the store the step on this projector, when it changed and a class is on."""
    room, key = TEACHING.get()
    if not room:
        return
    ref = lesson_ref(where) if where else None
    number = where["step"] if where else None
    if TOLD.get() == (room, ref, number):
        return
    act(room, key, "present", ref, number)
    TOLD.set((room, ref, number))


def step_controls(step: Step, lang: str) -> None:
    """In the lesson bar, while teaching: Ask the class (this step's question), then the live
    count, the next phase's button and the answers; nothing for a step without a question."""
    room, key = TEACHING.get()
    if not room or step.question is None:
        return
    problem = PROBLEM.pop()
    if problem:
        st.caption(problem)
    try:
        current = store().room(room)
    except Exception as error:  # the bar stays: the refusal is said in it
        st.caption(said(error, lang))
        return
    asked = current.question_id == step.question and current.phase != "idle"
    st.button(t("cl_ask_step", lang), key="lesson_ask", icon=":material/send:",
              type="secondary" if asked else "primary",
              on_click=act, args=(room, key, "ask", step.question))  # fmt: skip
    if not asked:
        return
    if current.phase == "open":
        count(room, key, lang)
    if current.phase in NEXT:
        action = NEXT[current.phase]
        st.button(t(f"cl_{action}", lang), key=f"lesson_{action}", type="primary",
                  on_click=act, args=(room, key, action))  # fmt: skip
    answers(current, lang)


@st.fragment(run_every=LIVE)
def count(room: str, key: str, lang: str) -> None:
    """The count, small in the bar, every LIVE seconds."""
    st.caption(answered_line(room, key, lang)[0])


def answers(current: RoomView, lang: str) -> None:
    """The class's answers and, once revealed, the truth and why: in a popover over the step."""
    if PHASES.index(current.phase) < PHASES.index("shown"):
        return
    with st.popover(t("cl_step_answers", lang), key="lesson_answers", icon=":material/bar_chart:"):
        st.html(WIDE)
        with st.container(key="lesson_answers_body"):
            shared.results(current, lang)


TOOLS = lesson_bar.ClassTools(tell_step, step_controls)  # every page's lesson bar, for a class
