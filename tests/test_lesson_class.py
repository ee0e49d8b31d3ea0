"""A lesson with a class: a teacher who started a class picks a lesson on /classroom and the
store records each step the projector shows (each a new room version, so every phone's
long-poll wakes); the phone page names the step; the lesson bar asks the step's question and
moves it to the reveal; a session that teaches nothing writes nothing."""

import pytest
import test_classroom_page as class_page
from conftest import figure, navigate
from test_lesson_bar import bar_text

from classroom import QUESTIONS
from ui.kit.lessons import custom_lesson, lessons, step_named, steps_token

LESSON = "why_sqrt_d"
class_db, store, phones = class_page.class_db, class_page.store, class_page.phones  # fixtures
start_class = class_page.start_class


def test_a_lesson_picked_on_the_class_page_is_followed_by_the_store_step_by_step(store):
    """Teach a lesson: step 1 with the bar and the class kept; → moves the store's step too,
    each a new version; Leave clears it."""
    teacher, room, _ = start_class()
    version = store.room(room).version
    teacher.button(key=f"classroom_lesson_{LESSON}").click().run()
    assert not teacher.exception
    lesson = lessons()[LESSON]
    assert bar_text(teacher) == f"{lesson.title['en']} · 1 / {len(lesson.steps)} · "  \
        f"{lesson.steps[0].title['en']}"  # fmt: skip
    seen = store.room(room)
    assert (seen.lesson, seen.step) == (LESSON, 1) and seen.version > version
    teacher.button(key="lesson_next").click().run()
    assert (store.room(room).lesson, store.room(room).step) == (LESSON, 2)
    assert store.room(room).version == seen.version + 1
    teacher.run()  # a run that changes no step writes nothing
    assert store.room(room).version == seen.version + 1
    teacher.button(key="lesson_leave").click().run()
    assert (store.room(room).lesson, store.room(room).step) == (None, None)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_phone_names_the_teacher_s_step(store, phones, lang):
    """The phone page and its JSON API both say the lesson, "N / total" and the step's title in
    the phone's language, from the store's record; a teacher's own lesson too."""
    _, room, key = start_class()
    phones.get(f"/join/{room}?lang={lang}")
    joined = phones.post(f"/join/{room}", data={"do": "join", "lang": lang})
    assert joined.status_code == 303
    store.present(room, key, LESSON, 3)
    lesson = lessons()[LESSON]
    page = phones.get(f"/join/{room}?lang={lang}").text
    assert lesson.steps[2].title[lang] in page and f"3 / {len(lesson.steps)}" in page
    state = phones.get(f"/api/rooms/{room}/state").json()
    place = f"3 / {len(lesson.steps)}"
    told = {"lesson": lesson.title[lang], "place": place, "title": lesson.steps[2].title[lang]}
    assert state["step"][lang] == told
    token = steps_token([["/lab", "<script>x</script>"], ["/softmax", "二"]])
    store.present(room, key, f"custom:{token}", 1)
    page = phones.get(f"/join/{room}?lang={lang}").text
    assert "&lt;script&gt;x&lt;/script&gt;" in page and "<script>x</script>" not in page
    assert custom_lesson(token).steps[0].title[lang] == "<script>x</script>"


@pytest.mark.parametrize(
    ("ref", "step"), [("nope", 1), (LESSON, 99), ("custom:!!", 1), (None, None)]
)
def test_a_step_the_server_cannot_name_is_left_out(ref, step):
    assert step_named(ref, step, "en") is None


def test_the_bar_asks_the_step_s_question_and_moves_it_to_the_reveal(store):
    """On a step with a question, Ask the class asks it (the store's question); then Close,
    Show and Reveal from the bar, the class's answers and the truth in its popover."""
    teacher, room, _ = start_class()
    student = store.join(room, None, "en")
    number = next(n for n, s in enumerate(lessons()[LESSON].steps, 1) if s.question)
    question = lessons()[LESSON].steps[number - 1].question
    teacher.button(key=f"classroom_lesson_{LESSON}").click().run()
    for _ in range(number - 1):
        teacher.button(key="lesson_next").click().run()
    # AppTest runs the page it opened unless told: a browser stays on the page switched to
    teacher.switch_page(f"ui/{lessons()[LESSON].steps[number - 1].page}/page.py")
    teacher.button(key="lesson_ask").click().run()
    assert not teacher.exception
    assert store.room(room).question_id == question and store.room(room).phase == "open"
    truth = QUESTIONS[question].truth()
    store.answer(room, student.token, str(truth.value) if truth.value is not None else truth.answer)
    for action in ("close", "show_answers", "reveal"):
        teacher.button(key=f"lesson_{action}").click().run()
        assert not teacher.exception
    assert store.room(room).phase == "revealed"
    assert store.me(room, student.token).right is True
    assert figure(teacher, "class_answers")["data"][0]["type"] == "bar"


def test_without_a_class_the_bar_asks_nothing_and_the_store_is_not_written(store):
    from conftest import open_app

    at = open_app("lab", lang="en", lesson=LESSON, step="6")
    assert not [b for b in at.button if b.key == "lesson_ask"]
    navigate(at, "classroom")
    assert not at.exception
