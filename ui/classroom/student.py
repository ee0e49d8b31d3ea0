"""A student's phone: join under a generated nickname, answer the open question, see the truth.

Before the reveal the phone shows nothing that gives the answer away; it learns of the
teacher's next step by polling one number (the room's version) every POLL seconds.
"""

from dataclasses import replace

import streamlit as st

from classroom import RoomView, StudentView, Unavailable
from classroom.safety import normalise_code
from ui.classroom import shared
from ui.classroom.compute import store
from ui.classroom.errors import said
from ui.classroom.settings import ClassroomParams
from ui.kit import state
from ui.kit.display import safe_text
from ui.kit.text import t

POLL = 1.5  # s between a phone's looks at the room: a new question shows within ~2 s
SEEN = state.Slot("classroom", "seen", -1)  # the room's version this phone last drew
PROBLEM = state.Slot("classroom", "problem", "")  # why the answer just sent was not saved


def code_box(params: ClassroomParams, lang: str) -> ClassroomParams:
    """The code on the board, typed: joins that class at once."""
    with st.form("classroom_code", border=False):
        typed = st.text_input(t("cl_code_label", lang), max_chars=12, key="classroom_code_typed")
        go = st.form_submit_button(t("cl_join", lang), type="primary", width="stretch")
    if not go:
        return params
    room = normalise_code(typed)
    if room is None:
        st.warning(t("refusal_no_room", lang), icon=":material/error:")
        return params
    return join(replace(params, room=room), lang)


def join_view(params: ClassroomParams, lang: str) -> ClassroomParams:
    """A join link: the class's code and one tap to join (a link preview never joins)."""
    st.subheader(t("cl_join_title", lang, room=params.room))
    st.caption(t("cl_join_why", lang))
    if st.button(t("cl_join", lang), key="classroom_join", type="primary", width="stretch"):
        return join(params, lang)
    return params


def join(params: ClassroomParams, lang: str) -> ClassroomParams:
    """Join the class under a generated nickname; the link then names this student."""
    try:
        joined = store().join(params.room, lang=lang)
    except (LookupError, ValueError) as error:
        st.warning(said(error, lang), icon=":material/error:")
        return replace(params, me="")
    params = replace(params, me=joined.token)
    state.put(params)
    st.rerun()  # the phone's view, with the token in its link


def view(params: ClassroomParams, lang: str) -> ClassroomParams:
    """The phone: who I am, the question and my answer, the truth once revealed."""
    try:
        me = store().me(params.room, params.me)
        room = store().room(params.room)
    except LookupError as error:
        st.warning(said(error, lang), icon=":material/person_off:")
        return join_view(replace(params, me=""), lang)
    SEEN.set(room.version)
    name_line(params, me, lang)
    question_panel(params, room, me, lang)
    watch(params.room)
    return params


def name_line(params: ClassroomParams, me: StudentView, lang: str) -> None:
    """My nickname (as text: a student typed it), and a way to change it."""
    row = st.container(horizontal=True, vertical_alignment="center")
    with row:
        safe_text(t("cl_you_are", lang, name=me.nickname))
        popover = st.popover(t("cl_rename", lang), icon=":material/edit:")
        with popover, st.form("classroom_rename", border=False):
            name = st.text_input(t("cl_rename_label", lang), max_chars=24)
            if st.form_submit_button(t("cl_rename_save", lang)):
                rename(params, name, lang)


def rename(params: ClassroomParams, name: str, lang: str) -> None:
    """A new nickname, within the store's limits (a friendly note otherwise)."""
    try:
        store().rename(params.room, params.me, name)
    except (LookupError, ValueError, Unavailable) as error:
        st.warning(said(error, lang), icon=":material/error:")
        return
    st.rerun()


def question_panel(params: ClassroomParams, room: RoomView, me: StudentView, lang: str) -> None:
    """Waiting, the open question, the closed one, or the class's answers and the truth."""
    if room.question_id is None:
        st.info(t("cl_waiting", lang), icon=":material/hourglass_top:")
        return
    shared.prompt(room, lang)
    if room.phase == "open":
        answer_controls(params, room, me, lang)
        return
    mine = t("cl_your_answer", lang, answer=me.answer or t("cl_no_answer", lang))
    safe_text(mine)
    if room.phase == "closed":
        st.info(t("cl_closed", lang), icon=":material/lock:")
        return
    if room.phase == "revealed":
        verdict(me, lang)
    shared.results(room, lang)


def verdict(me: StudentView, lang: str) -> None:
    """Whether my answer was right, once the truth is out."""
    if me.right is None:
        st.info(t("cl_not_answered", lang), icon=":material/help:")
    elif me.right:
        st.success(t("cl_right", lang), icon=":material/check_circle:")
    else:
        st.error(t("cl_wrong", lang), icon=":material/cancel:")


def answer_controls(params: ClassroomParams, room: RoomView, me: StudentView, lang: str) -> None:
    """Big buttons for a choice (one tap answers), else a box and Send; then what was saved."""
    number = room.number or 0
    if room.kind == "choice":
        texts = room.option_text.get(lang, room.options)
        for i, (option, text) in enumerate(zip(room.options, texts, strict=True)):
            picked = option == me.answer_key
            st.button(
                text, key=f"classroom_pick_{number}_{i}", width="stretch",
                type="primary" if picked else "secondary",
                on_click=send, args=(params, option),
            )  # fmt: skip
    else:
        with st.form(f"classroom_answer_{number}", border=False):
            hint = t(f"cl_type_{room.kind}", lang)
            typed = st.text_input(hint, max_chars=32, value=me.answer or "")
            if st.form_submit_button(t("cl_send", lang), type="primary", width="stretch"):
                send(params, typed)
                st.rerun()  # the view then reads what the database holds for me
    sent_note(me, lang)


def send(params: ClassroomParams, value: str) -> None:
    """Save this answer; only once it is committed does the phone say "received"."""
    try:
        store().answer(params.room, params.me, value)
    except (LookupError, ValueError, Unavailable) as error:
        PROBLEM.set(said(error, state.lang()))


def sent_note(me: StudentView, lang: str) -> None:
    """What became of the last answer sent (not saved, and why), and the answer the database
    holds for me: "received" only for that."""
    problem = PROBLEM.pop()
    if problem:
        st.warning(problem, icon=":material/error:")
    if me.answer is not None:  # read from the database after the answer was committed
        st.success(t("cl_received", lang), icon=":material/check:")
        safe_text(t("cl_your_answer", lang, answer=me.answer))


@st.fragment(run_every=POLL)
def watch(room: str) -> None:
    """Every POLL seconds, the room's version: when the teacher has moved on, the whole page is
    drawn again (a phone woken from sleep catches up at its first look)."""
    try:
        moved = store().pulse(room) != SEEN.get()
    except LookupError:
        moved = True  # the class ended, or this student was removed: the page says so
    except Unavailable:
        moved = False  # the database is away: look again at the next poll
    if moved:
        st.rerun(scope="app")
