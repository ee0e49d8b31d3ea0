"""The teacher's projector: how to join (link, QR code, the code in large letters), the question
to ask, the live count, then the class's answers and the truth; the students, the CSV and the
end of the class. The teacher's key never shows unless the teacher asks for their link."""

import html
from functools import partial
from typing import Any
from urllib.parse import urlsplit

import segno
import streamlit as st

from classroom import PHASES, QUESTIONS, RoomView
from ui.classroom import shared
from ui.classroom.compute import LAB_VIEW, TEACHING, default_truth, store
from ui.classroom.errors import said
from ui.classroom.settings import ClassroomParams
from ui.kit import lesson_bar, state
from ui.kit.display import safe_text, state_toggle
from ui.kit.lessons import lessons
from ui.kit.snippets import snippet
from ui.kit.text import t

LIVE = 0.5  # s between the projector's looks at the count (one small query each)
PROBLEM = state.Slot("classroom", "teacher_problem", "")  # why the last action did nothing
# A button that copies the teacher's link: the link itself is never drawn on the projector.
COPY_JS = """export default function ({ parentElement, data }) {
  let button = parentElement.querySelector("button");
  if (!button) {
    button = document.createElement("button");
    button.style.cssText = "font:inherit;padding:.4rem .8rem;border-radius:.5rem;"
      + "border:1px solid #c5c9d6;background:#fff;cursor:pointer";
    parentElement.appendChild(button);
  }
  button.textContent = data.label;
  button.onclick = () => {
    const copied = () => { button.textContent = data.done; };
    const byHand = () => {  // no clipboard API (plain http): a hidden box, copied, removed
      const box = document.createElement("textarea");
      box.value = data.link;
      box.style.cssText = "position:fixed;opacity:0";
      document.body.appendChild(box);
      box.select();
      const done = document.execCommand("copy");
      box.remove();
      button.textContent = done ? data.done : data.failed;
    };
    if (navigator.clipboard) navigator.clipboard.writeText(data.link).then(copied, byHand);
    else byHand();
  };
}"""
CODE_STYLE = "font-size:4.2rem;font-weight:700;letter-spacing:.35rem;line-height:1.1;margin:0"


def view(room: str, key: str, lang: str) -> None:
    """A question handed over by the lab is asked first. While the class answers: the controls
    beside the ways to join; once the answers are shown: the question and the charts first, on
    a projector's first screen, and the next question below."""
    lab_view = LAB_VIEW.pop()
    if lab_view:
        act(room, key, "ask", "lab_top_key", lab_view)
    current = store().room(room)
    problem = PROBLEM.pop()
    if problem:
        st.warning(problem, icon=":material/error:")
    if current.counts is None:
        asking(room, key, current, lang)
    else:
        showing(room, key, current, lang)
    tools(room, key, current.locked, lang)


def asking(room: str, key: str, current: RoomView, lang: str) -> None:
    """The question to ask, the one asked and its live count, beside the ways to join."""
    controls, join = st.columns([3, 2], gap="large")
    with controls:
        question_bar(room, key, lang)
        if current.question_id is not None:
            shared.prompt(current, lang)
            live_count(room, key, lang)
            phase_buttons(room, key, current, lang)
    with join:
        join_panel(room, current.locked, lang)


def showing(room: str, key: str, current: RoomView, lang: str) -> None:
    """The question, the next step, the class's answers and (revealed) the truth; the code to
    join stays in a corner; the next question below."""
    asked, steps = st.columns([3, 2], gap="large", vertical_alignment="bottom")
    with asked:
        shared.prompt(current, lang)
    with steps:
        phase_buttons(room, key, current, lang)
        safe_text(t("cl_code_line", lang, room=room))
        shared.reveal_heading(current, lang)
    shared.results(current, lang)
    question_bar(room, key, lang)


def act(room: str, key: str, action: str, *args: Any) -> None:
    """One of the teacher's actions on the store; a refusal is said, never raised."""
    try:
        getattr(store(), action)(room, key, *args)
    except Exception as error:
        PROBLEM.set(said(error, state.lang()))


def question_bar(room: str, key: str, lang: str) -> None:
    """Which question, from the app's own computations, and Ask (it closes the one before): a
    form, so Ask asks the question shown in the box at that moment."""
    with st.form("classroom_asking", border=False):
        row = st.container(horizontal=True, vertical_alignment="bottom")
        picked = row.selectbox(
            t("cl_pick_question", lang),
            tuple(QUESTIONS),
            key="classroom_question",
            format_func=partial(question_label, lang=lang),
        )
        asked = row.form_submit_button(
            t("cl_ask", lang), key="classroom_ask", type="primary", icon=":material/send:"
        )
    if asked:
        act(room, key, "ask", picked)
        st.rerun()  # the page then shows the question asked


def question_label(question_id: str, lang: str) -> str:
    """A question as the picker lists it: its prompt at its own settings."""
    return QUESTIONS[question_id].text(lang, default_truth(question_id))


def answered_line(room: str, key: str, lang: str) -> tuple[str, bool]:
    """Answered so far, of those who joined (no answer shown); or why it could not be counted.
    The second value says whether it is the count."""
    try:
        tally = store().tally(room, key)
    except Exception as error:
        return said(error, lang), False
    return t("cl_answered", lang, answered=tally.answered, joined=tally.joined), True


@st.fragment(run_every=LIVE)
def live_count(room: str, key: str, lang: str) -> None:
    """The count, large on the projector, every LIVE seconds."""
    line, counted = answered_line(room, key, lang)
    if counted:
        st.markdown(f"## {line}")
    else:
        st.caption(line)


def phase_buttons(room: str, key: str, current: RoomView, lang: str) -> None:
    """Close, show the class's answers, reveal: each once the step before is done, the next
    step the primary button."""
    done = PHASES.index(current.phase)  # 1 open, 2 closed, 3 shown, 4 revealed

    def step(action: str, at: int) -> dict[str, Any]:
        kind = "primary" if done == at - 1 else "secondary"
        return {"key": f"classroom_{action}", "disabled": done >= at, "type": kind,
                "on_click": act, "args": (room, key, action)}  # fmt: skip

    with st.container(horizontal=True):
        st.button(t("cl_close", lang), icon=":material/lock:", **step("close", 2))
        st.button(
            t("cl_show_answers", lang), icon=":material/bar_chart:", **step("show_answers", 3)
        )
        st.button(t("cl_reveal", lang), icon=":material/visibility:", **step("reveal", 4))


def origin() -> str:
    """This server's address as the projector's browser reached it (scheme and host)."""
    url = urlsplit(st.context.url or "")
    return f"{url.scheme}://{url.netloc}" if url.scheme and url.netloc else ""


def join_url(room: str) -> str:
    """The join link: the light phone page of the room (``ui.phone``), and nothing else."""
    return f"{origin()}/join/{room}"


def teacher_url(room: str, key: str) -> str:
    """The teacher's own link: this page with the key, which gives control of the room."""
    return f"{origin()}/classroom?room={room}&key={key}"


def join_panel(room: str, locked: bool, lang: str) -> None:
    """The three ways to join: the code in large letters, a QR code of the link, the link."""
    url = join_url(room)
    st.caption(t("cl_join_with", lang))
    st.html(f'<p style="{CODE_STYLE}">{html.escape(room)}</p>')
    if locked:
        st.warning(t("cl_locked", lang), icon=":material/lock:")
    # A PNG in a data URL: st.html's sanitiser drops inline <svg>, and a media file would be
    # served by one replica only.
    qr = segno.make(url, error="m").png_data_uri(scale=6, border=2)
    st.html(f'<img src="{qr}" alt="QR" style="width:200px;height:200px">')
    st.code(url, language=None, wrap_lines=True)


def tools(room: str, key: str, locked: bool, lang: str) -> None:
    """The students (remove one), the teacher's own link, the CSV, and ending the class."""
    with st.container(horizontal=True, vertical_alignment="center"):
        with st.popover(t("cl_lessons_button", lang), icon=":material/slideshow:"):
            lessons_list(lang)
        with st.popover(t("cl_students", lang), icon=":material/group:"):
            students_list(room, key, lang)
        with st.popover(t("cl_teacher_link", lang), icon=":material/key:"):
            teacher_link(room, key, lang)
        lock_toggle(room, key, locked, lang)
        st.download_button(
            t("cl_download", lang), data=partial(answers_csv, room, key, lang),
            file_name=f"class-{room}.csv", mime="text/csv", key="classroom_csv",
            on_click="ignore", icon=":material/download:",
        )  # fmt: skip
        with st.popover(t("cl_end", lang), icon=":material/stop_circle:"):
            st.caption(t("cl_end_why", lang))
            confirm = t("cl_end_confirm", lang)
            st.button(confirm, key="classroom_end", on_click=end, args=(room, key), type="primary")


def lessons_list(lang: str) -> None:
    """The lessons by title: a click presents step 1, the class kept (the phones follow)."""
    st.caption(t("cl_lessons", lang))
    for lesson in lessons().values():
        st.button(lesson.title[lang], key=f"classroom_lesson_{lesson.id}",
                  on_click=lesson_bar.go, args=(lesson.id, 1))  # fmt: skip


def teacher_link(room: str, key: str, lang: str) -> None:
    """The teacher's own link, never written out (the projector shows this popover): a button
    copies it, and a QR code for the teacher's own phone is drawn only after a warning."""
    st.caption(t("cl_teacher_link_why", lang))
    copy = snippet("copy_link", COPY_JS)
    copy(key="_copy_teacher_link", data={"link": teacher_url(room, key),
         "label": t("cl_copy_link", lang), "done": t("cl_copied", lang),
         "failed": t("cl_copy_failed", lang)})  # fmt: skip
    why = t("cl_teacher_qr_why", lang)
    if st.toggle(t("cl_teacher_qr", lang), key="classroom_teacher_qr", help=why):
        qr = segno.make(teacher_url(room, key), error="m").png_data_uri(scale=5, border=2)
        st.html(f'<img src="{qr}" alt="QR" style="width:180px;height:180px">')


def lock_toggle(room: str, key: str, locked: bool, lang: str) -> None:
    """Lock the class: no one new joins (a stranger who found the code, a second phone). The
    switch shows the store's state (``locked``, read this run): another teacher device may
    have changed it."""
    act_on = partial(act, room, key, "lock")
    state_toggle(t("cl_lock", lang), "classroom_lock", locked, act_on, help=t("cl_lock_why", lang))


def answers_csv(room: str, key: str, lang: str) -> bytes:
    """The class's answers as a CSV that spreadsheets open in UTF-8 (nicknames are Chinese),
    each question named in the page's language."""
    return store().export_csv(room, key, lang).encode("utf-8-sig")


def students_list(room: str, key: str, lang: str) -> None:
    """Who joined, as text; a rude nickname can be removed (its phone is out of the class)."""
    students = store().students(room, key)
    st.caption(t("cl_students_count", lang, count=len(students)))
    for student in students[:40]:
        safe_text(student.nickname + (" ✓" if student.answered else ""))
    if not students:
        return
    names = {student.id: student.nickname for student in students}
    who = st.selectbox(
        t("cl_remove_who", lang), tuple(names), format_func=names.__getitem__,
        key="classroom_remove_who",
    )  # fmt: skip
    remove = (room, key, "remove", who)
    st.button(t("cl_remove", lang), key="classroom_remove", on_click=act, args=remove)


def end(room: str, key: str) -> None:
    """End the class: its answers are deleted, and this page is a start page again."""
    act(room, key, "end")
    TEACHING.set(("", ""))
    state.put(ClassroomParams())
