"""/lesson: every shipped lesson with its length and steps; Present opens its first step with
the bar; the teacher's notes of one lesson as one printable page; Download gives its TOML."""

import html
import re

import pytest
import test_classroom_page
from conftest import open_app

from ui.kit.lessons import lessons

downloads = test_classroom_page.downloads  # a fixture: each download's deferred callable


def texts(at):
    return [html.unescape(re.sub(r"<[^>]+>", "", e.proto.body)) for e in at.get("html")]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_page_lists_every_lesson_with_its_length_and_steps(lang):
    at = open_app("lesson", lang=lang)
    shown = "\n".join(texts(at))
    for lesson in lessons().values():
        assert lesson.title[lang] in shown
        length = (f"About {lesson.minutes} minutes · {len(lesson.steps)} steps" if lang == "en"
                  else f"约 {lesson.minutes} 分钟 · {len(lesson.steps)} 步")  # fmt: skip
        assert length in shown
        for number, step in enumerate(lesson.steps, start=1):
            assert f"{number}. {step.title[lang]}" in shown
    buttons = at.get("download_button")
    assert len(buttons) == 2 * len(lessons())  # its TOML and its offline file


def test_present_opens_the_first_step_with_the_bar():
    at = open_app("lesson", lang="en")
    at.button(key="present_why_sqrt_d").click().run()
    assert not at.exception
    first = lessons()["why_sqrt_d"].steps[0]
    assert at.query_params["lesson"] == "why_sqrt_d" and at.query_params["step"] == "1"
    for key, value in first.query.items():
        assert at.query_params[key] == value


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_notes_of_one_lesson_are_one_page_with_every_step(lang):
    """?notes=ID: every step's title, notes, view and question, in order; no lesson card."""
    at = open_app("lesson", lang=lang, notes="why_sqrt_d")
    shown = texts(at)
    lesson = lessons()["why_sqrt_d"]
    places = [shown.index(step.notes[lang]) for step in lesson.steps]
    assert places == sorted(places)
    assert all(step.view in shown for step in lesson.steps)
    assert not at.get("download_button")


def test_a_bad_notes_value_gets_a_note_and_the_list():
    at = open_app("lesson", lang="en", notes="<b>nope</b>")
    assert at.info and len(at.get("download_button")) == 2 * len(lessons())


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_offline_download_is_the_exported_lesson_made_when_clicked(downloads, lang):
    """Each lesson's offline button sends, when clicked, what ``python -m ui.lesson.export``
    writes for it in the page's language; nothing is made before the click."""
    from ui.lesson.export import lesson_html

    at = open_app("lesson", lang=lang)
    offline = [d for d in at.get("download_button") if d.proto.deferred_file_id]
    assert len(offline) == len(lessons()) == len(downloads)
    sent = downloads[offline[-1].proto.deferred_file_id]()
    lesson = list(lessons().values())[-1]
    assert sent == lesson_html(lesson, lang).encode("utf-8")
