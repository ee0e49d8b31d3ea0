"""The class page under AppTest: a teacher starts a class and asks, phones join and answer, the
projector counts, shows and reveals; the teacher's key never reaches a link; a student's link
controls nothing; bad links and bad answers get a friendly note, never a traceback."""

import json

import pytest
from conftest import chart_keys, figure, markdown_texts, open_app

from classroom import QUESTIONS, Store
from classroom.safety import CODE_ALPHABET


@pytest.fixture(autouse=True)
def class_db(tmp_path, monkeypatch):
    """Each test's own SQLite file: the page's store is built from CLASSROOM_DB_URL."""
    url = f"sqlite:///{tmp_path / 'class.db'}"
    monkeypatch.setenv("CLASSROOM_DB_URL", url)
    return url


def htmls(at):
    """Every st.html body of the run (safe text, the code, the QR code)."""
    return [element.value for element in at.get("html")]


def codes(at):
    """Every code box's text (the join link, the teacher link, the share link)."""
    return [element.value for element in at.code]


def start_class(lang="en"):
    """A teacher's session that started a class; its room code and the teacher link."""
    at = open_app("classroom", lang=lang)
    at.button(key="classroom_start").click().run()
    room = at.query_params["room"]
    (link,) = [code for code in codes(at) if "key=" in code]
    return at, room, link.split("key=")[1]


def phone(room, lang="en"):
    """A student's phone that opened the join link and tapped Join."""
    at = open_app("classroom", lang=lang, room=room)
    at.button(key="classroom_join").click().run()
    assert not at.exception
    return at


def ask(teacher, question_id):
    teacher.selectbox(key="classroom_question").set_value(question_id)  # in a form: no run
    teacher.button(key="classroom_ask").click().run()
    assert not teacher.exception


def submit(at, text):
    """Type an answer in the box and press Send (a number or a character question)."""
    at.text_input[-1].input(text)
    (send,) = [b for b in at.button if b.label in ("Send", "提交")]
    send.click().run()
    assert not at.exception


def test_starting_a_class_puts_only_the_room_in_the_url(class_db):
    """Start a class: ?room=CODE, six characters without look-alikes; the key is in no URL and
    no share link, only in the teacher link (behind its own button)."""
    at, room, key = start_class()
    assert len(room) == 6 and set(room) <= set(CODE_ALPHABET)
    assert not set(room) & set("0O1IL")
    assert "key" not in at.query_params and "me" not in at.query_params
    assert Store(class_db).is_teacher(room, key) and len(key) >= 22  # ≥ 128 bits
    for code in codes(at):
        assert ("key=" in code) == code.endswith(key)
    assert any(f"?room={room}" in code and "key" not in code for code in codes(at))  # join link
    assert any(room in body for body in htmls(at))  # the code in large letters
    (qr,) = [body for body in htmls(at) if 'alt="QR"' in body]  # an image: no <svg>, which
    assert "data:image/png;base64," in qr  # st.html's sanitiser would drop


def test_the_teachers_link_gives_control_and_then_leaves_the_url(class_db):
    """?room=CODE&key=KEY on another device: that session controls the room (it can ask); the
    address bar keeps ?room=CODE only."""
    _, room, key = start_class()
    projector = open_app("classroom", lang="en", room=room, key=key, present="true")
    assert "key" not in projector.query_params and projector.query_params["room"] == room
    ask(projector, "softmax_top")
    assert Store(class_db).room(room).question_id == "softmax_top"


@pytest.mark.parametrize("who", ["a guessed key", "a student's token"])
def test_a_wrong_key_or_a_students_link_controls_nothing(class_db, who):
    """A guessed key, or a student's own token used as a key: a note, no control, and the key
    gone from the URL."""
    _teacher, room, _ = start_class()
    student = phone(room)
    key = "A" * 24 if who == "a guessed key" else student.query_params["me"]
    at = open_app("classroom", lang="en", room=room, key=key)
    assert "key" not in at.query_params
    assert any("does not open this class" in w.value for w in at.warning)
    assert [b for b in at.button if b.key == "classroom_ask"] == []
    assert Store(class_db).room(room).question_id is None


def test_a_phone_joins_and_a_reload_is_the_same_student(class_db):
    """The join link and one tap: a nickname in the page's language and ?me=TOKEN; opening that
    link again (a reload) is the same student with the same answer."""
    teacher, room, _ = start_class()
    student = phone(room, lang="zh")
    token = student.query_params["me"]
    me = Store(class_db).me(room, token)
    assert any(me.nickname in body for body in htmls(student))
    assert all(ord(ch) > 0x2E80 or ch.isdigit() for ch in me.nickname)  # 蓝色的猫, in Chinese
    ask(teacher, "model_fill")
    student.run()
    submit(student, "欢")
    again = open_app("classroom", lang="zh", room=room, me=token)
    assert any(me.nickname in body for body in htmls(again))
    assert Store(class_db).me(room, token).answer == "欢"
    assert any("欢" in body for body in htmls(again))


def test_predict_commit_reveal(class_db):
    """The teacher asks; the phone shows the question and no figure; its answer is received;
    the projector counts it; show draws the class's answers; reveal draws the truth (the
    app's own computation, stored when asked) on them, beside the app's figure, and tells the
    phone it was right."""
    teacher, room, key = start_class()
    student = phone(room)
    ask(teacher, "softmax_top")
    student.run()
    assert chart_keys(student) == []  # nothing that gives the answer away
    submit(student, "0.66")
    assert any("Received" in s.value for s in student.success)
    teacher.run()
    assert any("Answered 1 of 1" in text for text in markdown_texts(teacher))
    assert chart_keys(teacher) == []  # no counts before the teacher shows them
    teacher.button(key="classroom_show_answers").click().run()
    bars = figure(teacher, "class_answers")["data"][0]
    tally = Store(class_db).tally(room, key)
    assert bars["customdata"] == list(tally.counts) and sum(bars["x"]) == 1  # lying bars
    teacher.button(key="classroom_reveal").click().run()
    truth = QUESTIONS["softmax_top"].truth()
    right = list(tally.counts).index(truth.answer)
    assert figure(teacher, "class_answers")["data"][0]["text"][right].endswith("✓")
    assert figure(teacher, "class_truth")["data"][0]["y"] == truth.chart["values"]
    student.run()
    assert any("Right" in s.value for s in student.success)
    assert {"class_answers", "class_truth"} <= set(chart_keys(student))


def test_a_bad_answer_gets_a_sentence_in_the_pages_language(class_db):
    """Not a number, in Chinese: the phone says so in Chinese and nothing is saved."""
    teacher, room, _ = start_class()
    student = phone(room, lang="zh")
    ask(teacher, "score_std")
    student.run()
    submit(student, "很多")
    assert any("请输入一个数" in w.value for w in student.warning)
    assert Store(class_db).me(room, student.query_params["me"]).answer is None


@pytest.mark.parametrize(
    "room", ["<script>alert(1)</script>", "x" * 400, "ZZZZZZ", "[a](javascript:x)", ""]
)
def test_a_bad_or_unknown_code_is_a_friendly_note(room):
    """A junk code, one too long, an unknown one: a note, never a traceback or rendered text."""
    at = open_app("classroom", lang="en", room=room, me="nobody", key="<b>k</b>")
    for text in markdown_texts(at) + htmls(at):
        assert "<script" not in text and "<b>k" not in text and "](javascript" not in text
    joins = [button for button in at.button if button.key == "classroom_join"]
    if joins:  # a code that could be one: joining it says there is no such class
        joins[0].click().run()
        assert not at.exception
        assert any("No class is running" in w.value for w in at.warning)


def test_a_nickname_is_shown_as_text_and_limited(class_db):
    """A nickname with Markdown and HTML is shown as typed, never rendered; 25 characters are
    refused with a sentence."""
    teacher, room, _key = start_class()
    student = phone(room)
    store = Store(class_db)
    store.rename(room, student.query_params["me"], "**bold** <b>x</b> :red[y")
    student.run()
    assert any("**bold** &lt;b&gt;x&lt;/b&gt; :red[y" in body for body in htmls(student))
    assert not any("**bold**" in text for text in markdown_texts(student))
    teacher.run()
    assert not any("**bold**" in text for text in markdown_texts(teacher))
    with pytest.raises(ValueError):
        store.rename(room, student.query_params["me"], "n" * 25)


def test_a_removed_student_is_told_and_can_join_again(class_db):
    """The teacher removes a student: that phone says the teacher removed it (not "a wrong
    code"), and that it may join again."""
    _teacher, room, key = start_class()
    student = phone(room)
    (row,) = Store(class_db).students(room, key)
    Store(class_db).remove(room, key, row.id)
    student.run()
    assert any("The teacher removed you from this class" in w.value for w in student.warning)
    assert not student.exception


def test_the_lab_hands_its_view_to_the_class(class_db):
    """A teacher in the lab: "Ask the class about this view" asks the lab's row at the lab's
    settings, computed by the app, and brings the teacher back to the class."""
    teacher, room, key = start_class()
    for name in list(teacher.query_params):
        del teacher.query_params[name]
    teacher.switch_page("ui/lab/page.py").run()
    teacher.number_input(key="lab_d").set_value(96).run()
    teacher.selectbox(key="lab_row").set_value(3).run()
    teacher.button(key="lab_ask_class").click().run()
    assert not teacher.exception
    view = Store(class_db).room(room)
    assert view.question_id == "lab_top_key"
    assert view.settings["d"] == 96 and view.settings["row"] == 3
    expected = QUESTIONS["lab_top_key"].truth({"d": 96, "row": 3}).answer
    assert Store(class_db).tally(room, key).question_id == "lab_top_key"
    teacher.button(key="classroom_reveal").click().run()
    assert Store(class_db).room(room).answer == expected


def test_no_lab_button_without_a_class():
    """The lab offers to ask a class only to a session teaching one."""
    at = open_app(lang="en")
    assert [b for b in at.button if b.key == "lab_ask_class"] == []


def test_the_csv_and_the_end_of_the_class(class_db):
    """The download holds each answer (a formula-looking nickname neutralised); ending deletes
    the class, and its phones are told it has ended (not that the code is wrong)."""
    teacher, room, key = start_class()
    student = phone(room)
    Store(class_db).rename(room, student.query_params["me"], "=cmd()")
    ask(teacher, "model_fill")
    student.run()
    submit(student, "欢")
    csv = Store(class_db).export_csv(room, key)
    assert "'=cmd()" in csv and "欢" in csv
    teacher.button(key="classroom_end").click().run()
    assert "room" not in teacher.query_params
    with pytest.raises(LookupError):
        Store(class_db).room(room)
    student.run()
    assert any("This class has ended" in w.value for w in student.warning)


def test_every_class_string_is_in_both_languages():
    """The page's strings, every refusal's sentence and every question's prompt: zh and en."""
    from classroom.refusals import STRINGS as REFUSALS
    from ui.classroom import errors  # noqa: F401 (registers the refusals' sentences)
    from ui.kit.text import STRINGS

    keys = [key for key in STRINGS if key.startswith(("cl_", "refusal_"))]
    assert len(keys) > 90
    for key in keys:
        assert STRINGS[key]["zh"] and STRINGS[key]["en"]
    for code, table in REFUSALS.items():
        assert STRINGS[f"refusal_{code}"] == table and table["zh"] != table["en"]
    for question in QUESTIONS.values():
        truth = question.truth()
        assert question.text("zh", truth) != question.text("en", truth)
        json.dumps(truth.to_json())
