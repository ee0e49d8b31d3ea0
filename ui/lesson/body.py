"""The lessons: each with its length, its steps, and Present, the teacher's notes as one
printable page, and Download (its TOML file); and my lesson, the views a teacher collected
with ＋ on any page, named, ordered, presented from one link or downloaded."""

import json
from functools import partial
from urllib.parse import urlencode

import streamlit as st

from ui.kit import lesson_bar, state
from ui.kit.display import safe_text, selectbox
from ui.kit.lesson_bar import COLLECTED, Collected
from ui.kit.lessons import CUSTOM, FOLDER, Lesson, custom_lesson, lessons, steps_token
from ui.kit.text import t
from ui.lesson import export
from ui.lesson.settings import NONE, LessonsParams


def render() -> None:
    """Which lesson's notes to show, then the notes, or every lesson as a card."""
    lang = state.open_page("ls_title", "ls_intro", LessonsParams)
    names = {NONE: t("ls_notes_none", lang)} | {
        key: one.title[lang] for key, one in lessons().items()
    }
    choices = LessonsParams.spec("notes").choices
    selectbox(LessonsParams, "notes", t("ls_notes_label", lang), choices,
              format_func=names.__getitem__)  # fmt: skip
    params = state.current(LessonsParams)
    if params.notes == NONE:
        my_lesson(lang)
        for lesson in lessons().values():
            card(lesson, lang)
    else:
        printable_notes(lessons()[params.notes], lang)
    state.close_page(params)


def card(lesson: Lesson, lang: str) -> None:
    """One lesson: its title, minutes and steps, and what a teacher does with it."""
    with st.container(border=True, key=f"lesson_{lesson.id}"):
        safe_text(lesson.title[lang], tag="h3")
        words = {"minutes": lesson.minutes, "steps": len(lesson.steps)}
        safe_text(t("ls_length", lang, **words), size="0.875rem")
        listed = "".join(f"{n}. {step.title[lang]}\n" for n, step in enumerate(lesson.steps, 1))
        safe_text(listed.strip(), tag="pre")
        with st.container(horizontal=True):
            st.button(t("ls_present", lang), key=f"present_{lesson.id}", type="primary",
                      on_click=lesson_bar.go, args=(lesson.id, 1),
                      icon=":material/slideshow:")  # fmt: skip
            path = FOLDER / f"{lesson.id}.toml"
            st.download_button(t("ls_download", lang), path.read_bytes(), file_name=path.name,
                               mime="application/toml", key=f"download_{lesson.id}",
                               icon=":material/download:")  # fmt: skip
            # Made when clicked, in Streamlit's own thread: 5 MB never sits in a page's run.
            offline = partial(export.offline_file, lesson, lang)
            st.download_button(t("ls_offline", lang), offline, mime="text/html",
                               file_name=f"{lesson.id}-{lang}.html", on_click="ignore",
                               key=f"offline_{lesson.id}", help=t("ls_offline_help", lang),
                               icon=":material/wifi_off:")  # fmt: skip


def printable_notes(lesson: Lesson, lang: str) -> None:
    """Every step of one lesson with its view, its notes and its class question: one page to
    print (the browser's Print)."""
    safe_text(lesson.title[lang], tag="h2")
    safe_text(t("ls_length", lang, minutes=lesson.minutes, steps=len(lesson.steps)))
    for number, step in enumerate(lesson.steps, start=1):
        safe_text(f"{number}. {step.title[lang]}", tag="h4")
        safe_text(step.notes[lang])
        safe_text(step.view, tag="code", size="0.8rem")
        if step.question:
            safe_text(t("ls_asks", lang, question=step.question), size="0.875rem")


def my_lesson(lang: str) -> None:
    """The views collected with ＋, each named and moved here; then Present, its link (which
    carries every step: nothing is stored on the server) and Download."""
    mine = COLLECTED.get()
    with st.container(border=True, key="lesson_mine"):
        safe_text(t("my_lesson", lang), tag="h3")
        if not mine:
            safe_text(t("ls_mine_empty", lang), size="0.875rem")
            return
        named = tuple(mine_row(index, step, len(mine), lang) for index, step in enumerate(mine))
        if named != mine:
            COLLECTED.set(named)
        token = steps_token([[step.view, step.title] for step in named])
        with st.container(horizontal=True):
            st.button(t("ls_present", lang), key="present_mine", type="primary",
                      on_click=lesson_bar.go, args=(CUSTOM, 1, token),
                      icon=":material/slideshow:")  # fmt: skip
            st.download_button(t("ls_download", lang), mine_toml(named, lang),
                               file_name="my_lesson.toml", mime="application/toml",
                               key="download_mine", icon=":material/download:")  # fmt: skip
            offline = partial(export.offline_file, custom_lesson(token), lang)
            st.download_button(t("ls_offline", lang), offline, mime="text/html",
                               file_name=f"my_lesson-{lang}.html", on_click="ignore",
                               key="offline_mine", help=t("ls_offline_help", lang),
                               icon=":material/wifi_off:")  # fmt: skip
        base = (st.context.url or "").split("?")[0]
        st.caption(t("ls_mine_link", lang))
        link = urlencode({"lesson": CUSTOM, "steps": token, "step": 1, "lang": lang})
        st.code(f"{base}?{link}", language=None, wrap_lines=True)


def mine_row(index: int, step: Collected, total: int, lang: str) -> Collected:
    """One collected step: its number, its name (a box), its view, ↑ ↓ and remove. Returns the
    step as named now."""
    with st.container(horizontal=True, vertical_alignment="center", key=f"mine_{step.number}"):
        safe_text(f"{index + 1}.", tag="strong")
        title = st.text_input(t("ls_mine_name", lang), step.title, max_chars=80,
                              key=f"mine_title_{step.number}", label_visibility="collapsed",
                              width=260)  # fmt: skip
        safe_text(step.view, tag="code", size="0.8rem")
        st.button("", key=f"mine_up_{step.number}", icon=":material/arrow_upward:",
                  disabled=index == 0, help=t("ls_mine_up", lang),
                  on_click=lesson_bar.move, args=(index, -1))  # fmt: skip
        st.button("", key=f"mine_down_{step.number}", icon=":material/arrow_downward:",
                  disabled=index == total - 1, help=t("ls_mine_down", lang),
                  on_click=lesson_bar.move, args=(index, 1))  # fmt: skip
        st.button("", key=f"mine_drop_{step.number}", icon=":material/delete:",
                  help=t("ls_mine_drop", lang),
                  on_click=lesson_bar.drop, args=(index,))  # fmt: skip
    return step._replace(title=title.strip() or step.title)


def mine_toml(steps: tuple[Collected, ...], lang: str) -> str:
    """My lesson as a lesson file to put in lessons/: each step's name in both languages and
    notes to write (a shipped lesson needs notes on every step and one class question)."""
    quoted = json.dumps  # a TOML basic string is a JSON string
    title = quoted(t("my_lesson", lang))
    lines = [f"title = {{ zh = {title}, en = {title} }}", f"minutes = {2 * len(steps)}"]
    todo = quoted(t("ls_mine_notes_todo", lang))
    for step in steps:
        name = quoted(step.title)
        lines += ["", "[[steps]]", f"view = {quoted(step.view)}",
                  f"title = {{ zh = {name}, en = {name} }}",
                  f"notes = {{ zh = {todo}, en = {todo} }}"]  # fmt: skip
    return "\n".join(lines) + "\n"
