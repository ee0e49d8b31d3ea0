"""A lesson on any page: ``?lesson=ID&step=N`` opens that step's view exactly, with a bar above
the page (the lesson's and the step's titles, N / total, ← →, the teacher's notes on request).
The keys ←/→ and PageUp/PageDown (what a presentation clicker sends) press ← and →.
"""

from collections.abc import Callable
from typing import Any, NamedTuple

import streamlit as st

from ui.kit import notes, state
from ui.kit.display import safe_text
from ui.kit.lessons import CUSTOM, MINE, Lesson, Step, lesson_of, parse_view, view_of
from ui.kit.pages import page_named, page_settings
from ui.kit.snippets import snippet
from ui.kit.text import t
from viz_core.settings import Note, to_int

GO = "_lesson_go"  # the step a click on ← or → asked for, applied at the top of the next run


class ClassTools(NamedTuple):
    """What the class page does in a lesson: tell its store the step on screen (every phone
    follows), and draw the step's class controls in the bar."""

    tell: Callable[[dict[str, Any] | None], None]
    controls: Callable[[Step, str], None]


# The class page's, handed over when it is imported (the kit imports no page).
CLASS: list[ClassTools] = []


def with_class(tools: ClassTools) -> None:
    """The class page hands the bar what it does for a class."""
    CLASS[:] = [tools]


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
    st.session_state[state.LESSON] = None
    if not asked:
        return []
    token = (found.get("steps") or [""])[0] if asked == CUSTOM else None
    try:
        lesson = lesson_of({"id": asked, "steps": token})
    except (KeyError, ValueError):  # not a lesson we ship, or steps we cannot read
        return [Note("steps" if token is not None else "lesson", "—")]
    raw = (found.get("step") or ["1"])[0]
    number = to_int(raw)
    usable = number is not None and 1 <= number <= len(lesson.steps)
    st.session_state[GO] = (lesson.id, number if usable else 1, token)
    return [] if usable else [Note("step", "1")]


def apply_step(lesson: Lesson, number: int, token: str | None = None) -> None:
    """Open step ``number`` of ``lesson`` with exactly its view's settings: what the view does
    not set is the page's default, never a value carried from the page before."""
    step = lesson.steps[number - 1]
    asked = {key: [value] for key, value in step.query.items()}
    for settings in page_settings(page_named(step.page)):
        values, _ = settings.parse(asked)
        state.hand_on(values)
    where = {"id": lesson.id, "step": number} | ({"steps": token} if token else {})
    st.session_state[state.LESSON] = where
    for tools in CLASS:  # the phones hear of the step while the projector draws it
        tools.tell(where)
    st.switch_page(page_named(step.page).file)


def follow() -> list[Note]:
    """At the top of every run, before the page: the link's lesson (first run), or the step a
    click asked for, opened."""
    found = from_link()
    go = st.session_state.pop(GO, None)
    if go is not None:
        notes.hold(found)  # shown by the step's page, after the switch
        lesson_id, number, token = go
        apply_step(lesson_of({"id": lesson_id, "steps": token}), number, token)
    return found


def go(lesson_id: str, number: int, token: str | None = None) -> None:
    """Open step ``number`` of a lesson on the next run (a button's callback); a teacher's own
    lesson is named by its link's ``steps``."""
    st.session_state[GO] = (lesson_id, number, token)


def _leave() -> None:
    st.session_state[state.LESSON] = None


def bar(lang: str, path: str) -> None:
    """The lesson bar, when a lesson is on: titles, N / total, ← →, notes, a class's controls for
    the step (not on the class page ``path``, which has its own), and leave. A class's store is
    told the step first, lesson or none."""
    where = state.lesson_where()
    for tools in CLASS:
        tools.tell(where)
    if not where:
        return
    lesson, token = lesson_of(where), where.get("steps")
    number, total = where["step"], len(lesson.steps)
    step: Step = lesson.steps[number - 1]
    with st.container(horizontal=True, key="lesson_bar", vertical_alignment="center"):
        st.button("←", key="lesson_prev", disabled=number == 1, on_click=go,
                  args=(lesson.id, number - 1, token), help=t("lesson_prev", lang))  # fmt: skip
        safe_text(f"{lesson.title[lang]} · {number} / {total} · {step.title[lang]}", tag="strong")
        st.button("→", key="lesson_next", disabled=number == total, on_click=go,
                  args=(lesson.id, number + 1, token), help=t("lesson_next", lang))  # fmt: skip
        if step.notes:  # a teacher's own lesson has none
            with st.popover(t("lesson_notes", lang), key="lesson_notes"):
                safe_text(step.notes[lang])
        for tools in CLASS if path != "classroom" else ():
            tools.controls(step, lang)
        st.button("", key="lesson_leave", icon=":material/close:", help=t("lesson_leave", lang),
                  on_click=_leave)  # fmt: skip
    snippet("lesson_keys", KEYS_JS)(key="_lesson_keys")


# --- my lesson: views collected on any page, named and ordered on /lesson --------------------


class Collected(NamedTuple):
    """One collected view; ``number`` names its title box wherever the step moves."""

    number: int
    view: str
    title: str


COLLECTED: state.Slot[tuple[Collected, ...]] = state.Slot("lesson", "mine", ())


def add_view(path: str, lang: str) -> None:
    """Add the view on screen (its page and the settings its address holds) to my lesson."""
    mine = COLLECTED.get()
    if len(mine) >= MINE:
        st.toast(t("lesson_mine_full", lang, most=MINE), icon=":material/block:")
        return
    view = view_of(path, st.query_params.to_dict())
    try:
        parse_view(view)
    except ValueError:  # the address is being rewritten: the next click takes it
        st.toast(t("lesson_mine_later", lang), icon=":material/hourglass_top:")
        return
    number = max((step.number for step in mine), default=0) + 1
    title = t(page_named(path).title_key, lang)
    COLLECTED.set((*mine, Collected(number, view, title)))
    st.toast(t("lesson_mine_added", lang, n=len(mine) + 1), icon=":material/playlist_add:")


def add_button(path: str, lang: str) -> None:
    """Add to my lesson, in the page's link popover: the view a teacher would share."""
    st.button(t("lesson_add", lang), key="lesson_add", icon=":material/playlist_add:",
              on_click=add_view, args=(path, lang))  # fmt: skip


def move(index: int, by: int) -> None:
    """Move collected step ``index`` by ``by`` places (a button's callback)."""
    mine = list(COLLECTED.get())
    mine.insert(index + by, mine.pop(index))
    COLLECTED.set(tuple(mine))


def drop(index: int) -> None:
    """Remove collected step ``index`` (a button's callback)."""
    mine = COLLECTED.get()
    COLLECTED.set(mine[:index] + mine[index + 1 :])
