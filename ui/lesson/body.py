"""The lessons: each with its length, its steps, and Present, the teacher's notes as one
printable page, and Download (its TOML file)."""

import streamlit as st

from ui.kit import lesson_bar, state
from ui.kit.display import safe_text, selectbox
from ui.kit.lessons import FOLDER, Lesson, lessons
from ui.kit.text import t
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
