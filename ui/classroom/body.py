"""The class: a teacher starts a class and asks the app's questions; the class's phones answer;
the projector shows how many answered, then the class's answers, then the truth the app
computed. Who is who lives in the link (the room, a student's token) and in the database, never
only in this server's memory: a reload, or another server, finds the same class."""

from dataclasses import replace

import streamlit as st

from classroom import Unavailable
from classroom.safety import normalise_code
from ui.classroom import follow, student, teacher
from ui.classroom.compute import TEACHING, store, teaching
from ui.classroom.errors import said
from ui.classroom.kept import keep_key
from ui.classroom.settings import ClassroomParams
from ui.kit import lesson_bar, state
from ui.kit.text import t

# Imported before any page runs (ui.boot): every page's lesson bar then does this for a class.
lesson_bar.with_class(follow.TOOLS)


def render() -> None:
    """The link's teacher key first (it leaves the URL at once), then the view for who this
    is: the teacher, a student, someone with a join link, or someone with none."""
    lang = state.open_page("cl_title", "cl_intro", ClassroomParams)
    params = take_key(state.current(ClassroomParams), lang)
    room = normalise_code(params.room)
    if room:
        keep_key(room)  # in the tab, and back from it on another server
    try:
        params = route(params, lang)
    except Unavailable as error:
        st.warning(said(error, lang), icon=":material/cloud_off:")
        if params.room:
            recover(params.room)
    # A student's link names the student: it is never offered to be shared.
    state.close_page(params, share=not params.me)


@st.fragment(run_every=student.POLL)
def recover(room: str) -> None:
    """After the database did not answer: look again every POLL seconds, and draw the page anew
    (the question, the answer buttons, the polls) as soon as it answers, with no reload."""
    try:
        store().pulse(room)
    except Unavailable:
        return
    except LookupError:
        pass  # it answers: the page says what became of the class
    st.rerun(scope="app")


def take_key(params: ClassroomParams, lang: str) -> ClassroomParams:
    """The teacher's link: its key gives this session control of the room, and then leaves the
    URL (a projector never shows it); a wrong key opens nothing and says so."""
    if not params.key:
        return params
    room = normalise_code(params.room) or ""
    try:
        controls = bool(room) and store().is_teacher(room, params.key)
    except LookupError:
        controls = False
    if controls:
        TEACHING.set((room, params.key))
    else:
        st.warning(t("cl_bad_key", lang), icon=":material/key_off:")
    params = replace(params, room=room or params.room, key="")
    state.put(params)
    return params


def route(params: ClassroomParams, lang: str) -> ClassroomParams:
    """The view for who this is; returns the settings the link should now hold."""
    room = normalise_code(params.room)
    if params.room and room is None:
        st.warning(t("refusal_no_room", lang), icon=":material/error:")
        return start_view(ClassroomParams(), lang)
    key = teaching(room or "")
    if room and key:
        try:
            teacher.view(room, key, lang)
        except LookupError as error:  # ended on another device, or expired
            st.warning(said(error, lang), icon=":material/event_busy:")
            TEACHING.set(("", ""))
            return start_view(ClassroomParams(), lang)
        return ClassroomParams(room=room)
    if room:  # a phone: on to the phone page (an old link's token rides along once)
        student.send_on(room, lang, params.me)
        return ClassroomParams(room=room)
    return start_view(params, lang)


def start_view(params: ClassroomParams, lang: str) -> ClassroomParams:
    """No class yet: a teacher starts one; a student types the code on the board."""
    teach, join = st.columns(2, gap="large")
    with teach:
        st.subheader(t("cl_teacher_title", lang))
        st.caption(t("cl_teacher_why", lang))
        if st.button(t("cl_start", lang), key="classroom_start", type="primary"):
            room = store().create_room()
            TEACHING.set((room.code, room.teacher_key))
            state.put(ClassroomParams(room=room.code))
            st.rerun()
    with join:
        st.subheader(t("cl_student_title", lang))
        student.code_box(lang)
    return params
