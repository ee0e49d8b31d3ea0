"""Lessons as data (lessons/*.toml): every shipped lesson loads, and every step opens its view in
zh and en with the view's settings on the page; a bad file names the file, the step and the
problem."""

import tomllib
from pathlib import Path

import pytest
from conftest import ROOT, open_app

from classroom.questions import QUESTIONS
from ui.kit.lessons import LessonError, lessons, load_lesson

SHIPPED = sorted((ROOT / "lessons").glob("*.toml"))
STEPS = [
    (path.stem, number)
    for path in SHIPPED
    for number in range(len(tomllib.loads(path.read_text(encoding="utf-8"))["steps"]))
]


def test_three_lessons_ship_each_with_notes_in_both_languages_and_a_question():
    """why_sqrt_d, the softmax lesson and the trained models' lesson: 4–20 steps each, every
    step with a title and notes in zh and en, at least one class question, all of them real."""
    found = lessons()
    assert {"why_sqrt_d", "softmax_two_steps", "what_attention_learns"} <= set(found)
    for lesson in found.values():
        assert 4 <= len(lesson.steps) <= 20 and lesson.title["zh"] and lesson.title["en"]
        assert all(step.notes["zh"] and step.notes["en"] for step in lesson.steps)
        asked = [step.question for step in lesson.steps if step.question]
        assert asked and set(asked) <= set(QUESTIONS)
    assert found["why_sqrt_d"].minutes == 10


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize(("lesson", "number"), STEPS)
def test_every_step_opens_its_view_with_its_settings(lesson, number, lang):
    """Each step's page opens from its view without an exception or a note, and the URL the page
    writes back holds every setting the view gives, as the view writes it."""
    step = lessons()[lesson].steps[number]
    at = open_app(step.page, lang=lang, **step.query)
    assert not at.warning, [w.value for w in at.warning]
    for key, value in step.query.items():
        assert at.query_params[key] == value, (key, at.query_params[key], value)


BAD = {
    "the page": ('view = "/nowhere"', "'/nowhere' is not a page of the app"),
    "a key": ('view = "/scaling?dd=5"', "/scaling has no setting dd"),
    "a value": ('view = "/scaling?d=999999"', "d=999999 is not a value /scaling takes"),
    "the form": ('view = "/lab?scale=0"', "write scale=false, not scale=0"),
    "twice": ('view = "/lab?d=4&d=8"', "d given twice"),
    "a question": ('view = "/lab"\nquestion = "nope"',
                   "asks 'nope', which is not a class question"),
}  # fmt: skip


def lesson_text(step_two):
    good = 'view = "/lab"\ntitle = { zh = "甲", en = "A" }\nnotes = { zh = "乙", en = "B" }\n'
    asked = good + 'question = "score_std"\n'
    steps = [asked, good + "", good, good]
    steps[1] = step_two + '\ntitle = { zh = "甲", en = "A" }\nnotes = { zh = "乙", en = "B" }\n'
    head = 'title = { zh = "课", en = "L" }\nminutes = 5\n'
    return head + "".join(f"[[steps]]\n{step}\n" for step in steps)


@pytest.mark.parametrize("case", BAD)
def test_a_bad_step_is_named_with_its_file_and_problem(tmp_path, case):
    """A lesson with one bad step fails to load with "lessons/<file>: step 2: <problem>"."""
    step, problem = BAD[case]
    path = tmp_path / "bad.toml"
    path.write_text(lesson_text(step), encoding="utf-8")
    with pytest.raises(LessonError) as raised:
        load_lesson(path)
    assert str(raised.value) == f"lessons/bad.toml: step 2: {problem}"


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda text: text.replace(', en = "L"', ""), "title needs exactly zh and en"),
        (lambda text: text.replace('question = "score_std"\n', ""), "asks the class no question"),
        (lambda text: text.replace("minutes = 5", "minutes = 0"), "minutes must be"),
        (lambda text: text.split("[[steps]]")[0] + "[[steps]]" + text.split("[[steps]]")[1],
         "needs 4 to 20 [[steps]]"),
        (lambda text: text + "[[", "lessons/bad.toml: "),
    ],
)  # fmt: skip
def test_a_bad_lesson_is_named_with_its_problem(tmp_path, change, problem):
    """A lesson-wide problem (its title, no question, minutes, too few steps, bad TOML) names
    the file and the problem."""
    path = tmp_path / "bad.toml"
    path.write_text(change(lesson_text('view = "/lab"')), encoding="utf-8")
    with pytest.raises(LessonError, match=r"^lessons/bad\.toml: ") as raised:
        load_lesson(path)
    assert problem in str(raised.value)


def test_a_good_lesson_made_by_hand_loads(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text(lesson_text('view = "/scaling?d=64&section=variance"'), encoding="utf-8")
    lesson = load_lesson(Path(path))
    assert lesson.id == "mine" and lesson.steps[1].query == {"d": "64", "section": "variance"}
