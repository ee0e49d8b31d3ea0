"""A lesson on any page: ``?lesson=ID&step=N`` opens that step's view exactly, with a bar above
the page (the lesson's and the step's titles, N / total, ← →, the teacher's notes on request).
The keys ←/→ and PageUp/PageDown (what a presentation clicker sends) press ← and →.
"""

import streamlit as st

from ui.kit import notes, state
from ui.kit.display import safe_text
from ui.kit.lessons import Lesson, Step, lessons
from ui.kit.pages import page_named, page_settings
from ui.kit.snippets import snippet
from ui.kit.text import t
from viz_core.settings import Note, to_int

GO = "_lesson_go"  # the step a click on ← or → asked for, applied at the top of the next run

# A key outside a text box presses the bar's button; added once per document.
KEYS_JS = """export default function () {
  if (window.__labLessonKeys) return;
  window.__labLessonKeys = true;
  const buttons = { ArrowRight: "next", PageDown: "next", ArrowLeft: "prev", PageUp: "prev" };
  document.addEventListener("keydown", (event) => {
    const which = buttons[event.key];
    const typing = event.target.closest && event.target.closest("input, textarea, select");
    if (!which || typing || event.altKey || event.ctrlKey || event.metaKey) return;
    const button = document.querySelector(`.st-key-lesson_${which} button:not([disabled])`);
    if (button) { event.preventDefault(); button.click(); }
  });
}"""


def from_link() -> list[Note]:
    """The lesson and step of the link, once per session: a known lesson's step (the first
    when the number is off), with a note where the link's values were not usable."""
    if state.LESSON in st.session_state:
        return []
    found = state.query()
    asked = (found.get("lesson") or [""])[0]
    if not asked:
        st.session_state[state.LESSON] = None
        return []
    lesson = lessons().get(asked)
    if lesson is None:
        st.session_state[state.LESSON] = None
        return [Note("lesson", "—")]
    raw = (found.get("step") or ["1"])[0]
    number = to_int(raw)
    usable = number is not None and 1 <= number <= len(lesson.steps)
    st.session_state[GO] = (lesson.id, number if usable else 1)
    return [] if usable else [Note("step", "1")]


def apply_step(lesson: Lesson, number: int) -> None:
    """Open step ``number`` of ``lesson`` with exactly its view's settings: what the view does
    not set is the page's default, never a value carried from the page before."""
    step = lesson.steps[number - 1]
    asked = {key: [value] for key, value in step.query.items()}
    for settings in page_settings(page_named(step.page)):
        values, _ = settings.parse(asked)
        state.hand_on(values)
    st.session_state[state.LESSON] = {"id": lesson.id, "step": number}
    st.switch_page(page_named(step.page).file)


def follow() -> list[Note]:
    """At the top of every run, before the page: the link's lesson (first run), or the step a
    click asked for, opened."""
    found = from_link()
    go = st.session_state.pop(GO, None)
    if go is not None:
        notes.hold(found)  # shown by the step's page, after the switch
        lesson_id, number = go
        apply_step(lessons()[lesson_id], number)
    return found


def go(lesson_id: str, number: int) -> None:
    """Open step ``number`` of a lesson on the next run (a button's callback)."""
    st.session_state[GO] = (lesson_id, number)


def _leave() -> None:
    st.session_state[state.LESSON] = None


def bar(lang: str) -> None:
    """The lesson bar, when a lesson is on: titles, N / total, ← →, notes, and leave."""
    where = st.session_state.get(state.LESSON)
    if not where:
        return
    lesson = lessons()[where["id"]]
    number, total = where["step"], len(lesson.steps)
    step: Step = lesson.steps[number - 1]
    with st.container(horizontal=True, key="lesson_bar", vertical_alignment="center"):
        st.button("←", key="lesson_prev", disabled=number == 1, on_click=go,
                  args=(lesson.id, number - 1), help=t("lesson_prev", lang))  # fmt: skip
        safe_text(f"{lesson.title[lang]} · {number} / {total} · {step.title[lang]}", tag="strong")
        st.button("→", key="lesson_next", disabled=number == total, on_click=go,
                  args=(lesson.id, number + 1), help=t("lesson_next", lang))  # fmt: skip
        with st.popover(t("lesson_notes", lang), key="lesson_notes"):
            safe_text(step.notes[lang])
        st.button(t("lesson_leave", lang), key="lesson_leave", on_click=_leave)
    snippet("lesson_keys", KEYS_JS)(key="_lesson_keys")
