"""The class page under AppTest: a teacher starts a class and asks, students answer (through the
store, or through the phone page's routes), the projector counts, shows and reveals; the
teacher's key never reaches a link, a QR code or any text on the projector; a student's link
controls nothing; a phone that opens the class page is sent on to the light phone page
(``/join/CODE``); bad links get a friendly note, never a traceback.

What the phone page itself does is tests/test_phone_api.py's."""

import base64
import csv
import io
import itertools
import json
from urllib.parse import parse_qs, urlsplit

import pytest
import segno
from conftest import chart_keys, decode, figure, markdown_texts, open_app
from PIL import Image
from starlette.applications import Starlette
from starlette.testclient import TestClient

import ui.phone
from classroom import QUESTIONS, NotFound, Store
from classroom.safety import CODE_ALPHABET

ORIGIN = "https://lab.example"  # the address a projector's browser reached the server at


@pytest.fixture(autouse=True)
def class_db(tmp_path, monkeypatch):
    """Each test's own SQLite file: the page's store is built from CLASSROOM_DB_URL."""
    url = f"sqlite:///{tmp_path / 'class.db'}"
    monkeypatch.setenv("CLASSROOM_DB_URL", url)
    return url


@pytest.fixture
def store(class_db):
    """The students' and the test's own store on the page's database (no pacing)."""
    made = Store(class_db, pace=0.0)
    yield made
    made.dispose()


@pytest.fixture
def phones(store):
    """The phone page and its API over the same database, as ``streamlit_app.py`` serves them;
    a TestClient that does not follow redirects (one phone: one cookie jar)."""
    app = Starlette(routes=ui.phone.routes(lambda: store), middleware=ui.phone.MIDDLEWARE)
    with TestClient(app, follow_redirects=False) as client:
        yield client


@pytest.fixture
def downloads(monkeypatch):
    """What each download button would send when clicked: its deferred callable by file id."""
    from streamlit.runtime.media_file_manager import MediaFileManager

    made = {}
    original = MediaFileManager.add_deferred

    def add_deferred(self, data_callable, *args, **kwargs):
        file_id = original(self, data_callable, *args, **kwargs)
        made[file_id] = data_callable
        return file_id

    monkeypatch.setattr(MediaFileManager, "add_deferred", add_deferred)
    return made


# --- reading the page ---------------------------------------------------------------------------


def htmls(at):
    """Every st.html body of the run (safe text, the code, the QR codes)."""
    return [element.value for element in at.get("html")]


def codes(at):
    """Every code box's text (the join link, the share link)."""
    return [element.value for element in at.code]


def nodes(at):
    """Every element and block of the run: the main area, the sidebar and the event area (the
    page's styles), popovers' contents included (AppTest draws them)."""
    stack = [at._tree]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(getattr(node, "children", {}).values())


def component(at, key):
    """The data a components-v2 element keyed ``key`` was given (its proto's JSON)."""
    (found,) = [e for e in at.get("bidi_component") if e.proto.id.endswith(f"-{key}")]
    return json.loads(found.proto.json) if found.proto.json else {}


def qr_images(at):
    """The data URIs of the page's QR codes (PNG images: st.html drops inline <svg>)."""
    return [body.split('src="', 1)[1].split('"', 1)[0] for body in htmls(at) if 'alt="QR"' in body]


def qr_modules(data_uri):
    """The QR code's dark modules, read from its PNG (module size from the finder pattern)."""
    png = base64.b64decode(data_uri.split("base64,", 1)[1])
    image = Image.open(io.BytesIO(png)).convert("L")
    width, height = image.size

    def dark(x, y):
        return image.getpixel((x, y)) < 128

    top = next(y for y in range(height) if any(dark(x, y) for x in range(width)))
    left = next(x for x in range(width) if dark(x, top))
    scale = (next(x for x in range(left, width) if not dark(x, top)) - left) / 7
    n = round((width - 2 * left) / scale)
    return tuple(
        tuple(dark(int(left + (c + 0.5) * scale), int(top + (r + 0.5) * scale)) for c in range(n))
        for r in range(n)
    )


def qr_encodes(data_uri, text):
    """Whether the QR image is ``text`` encoded: the same modules as a QR code (or Micro QR) of
    ``text`` at some error level and mask. No decoder is installed; an encoder that follows the
    standard draws one of these."""
    seen = qr_modules(data_uri)
    for error, mask, micro in itertools.product("lmqh", range(8), (False, True)):
        try:
            made = segno.make(text, error=error, mask=mask, micro=micro, boost_error=False)
        except (ValueError, segno.DataOverflowError):
            continue  # no such mask for a Micro QR, or too long for one
        if tuple(tuple(bool(v) for v in row) for row in made.matrix) == seen:
            return True
    return False


def send_on_target(at):
    """Where this page sends the tab on: the snippet's target, which the link button repeats."""
    (button,) = at.get("link_button")
    data = component(at, "_send_on")
    assert data["target"] == button.proto.url
    return data


# --- acting ---------------------------------------------------------------------------------------


def start_class(lang="en", url=None):
    """A teacher's session that started a class (its browser at ``url``, if any); its room
    code and key, the key read from the copy button's teacher link."""
    at = open_app("classroom", lang=lang)
    if url:
        at.context["url"] = url
    at.button(key="classroom_start").click().run()
    assert not at.exception
    room = at.query_params["room"]
    link = urlsplit(component(at, "_copy_teacher_link")["link"])
    assert link.path == "/classroom"
    query = parse_qs(link.query)
    assert query["room"] == [room]
    return at, room, query["key"][0]


def type_code(at, text):
    """Type ``text`` in the start page's code box and press its button (in any language)."""
    at.text_input(key="classroom_code_typed").input(text)
    (go,) = [button for button in at.button if button.form_id == "classroom_code"]
    go.click().run()


def ask(teacher, question_id):
    teacher.selectbox(key="classroom_question").set_value(question_id)  # in a form: no run
    teacher.button(key="classroom_ask").click().run()
    assert not teacher.exception


# --- starting, the teacher's link, and keys that are not it ------------------------------------


def test_starting_a_class_puts_only_the_room_in_the_url(store):
    """Start a class: ?room=CODE, six characters without look-alikes; the key is in no URL and
    no code box, only in the teacher link the copy button holds."""
    at, room, key = start_class()
    assert len(room) == 6 and set(room) <= set(CODE_ALPHABET)
    assert not set(room) & set("0O1IL")
    assert "key" not in at.query_params and "me" not in at.query_params
    assert store.is_teacher(room, key) and len(key) >= 22  # ≥ 128 bits
    assert not any("key" in code for code in codes(at))  # the teacher link is never written out
    assert f"/join/{room}" in codes(at)  # the join link (no URL in AppTest: no origin)
    assert any(room in body for body in htmls(at))  # the code in large letters
    (qr,) = qr_images(at)  # an image: no <svg>, which st.html's sanitiser would drop
    assert qr.startswith("data:image/png;base64,")


@pytest.mark.parametrize("url", [None, f"{ORIGIN}/classroom"])
def test_the_join_link_and_qr_code_are_the_phone_page(url):
    """The join link and its QR code: this server's /join/CODE (the origin the projector's
    browser reached), never the teacher's key or the class page."""
    at, room, key = start_class(url=url)
    join = f"{ORIGIN if url else ''}/join/{room}"
    assert join in codes(at)
    (qr,) = qr_images(at)
    assert qr_encodes(qr, join)
    assert not qr_encodes(qr, f"{ORIGIN if url else ''}/classroom?room={room}&key={key}")


def test_no_element_on_the_projector_shows_the_teachers_key(store):
    """Every element of the projector, in each of its views (asking, answers shown, revealed,
    the popovers open, the class locked, the teacher's QR code drawn): the key is in no text,
    label, link or component data, except where it must be: the copy button's data (what it
    copies), and the tab's own keeper (kept.py: the key kept in the tab's sessionStorage, drawn
    nowhere)."""
    teacher, room, key = start_class(url=f"{ORIGIN}/classroom")
    allowed = ("-_copy_teacher_link", "-_teacher_key")

    def leaks():
        assert not teacher.exception
        return [
            type(node).__name__
            for node in nodes(teacher)
            if getattr(node, "proto", None) is not None
            and key in str(node.proto)
            and not str(getattr(node.proto, "id", "")).endswith(allowed)
        ]

    assert leaks() == []
    assert key in component(teacher, "_copy_teacher_link")["link"]
    student = store.join(room, "Ada", "en")
    ask(teacher, "softmax_top")
    store.answer(room, student.token, "0.66")
    teacher.run()
    assert leaks() == []
    teacher.button(key="classroom_show_answers").click().run()
    assert leaks() == []
    teacher.button(key="classroom_reveal").click().run()
    assert leaks() == []
    teacher.toggle(key="classroom_lock").set_value(True).run()
    assert leaks() == []
    teacher.toggle(key="classroom_teacher_qr").set_value(True).run()
    teacher_qr = f"{ORIGIN}/classroom?room={room}&key={key}"
    assert any(qr_encodes(image, teacher_qr) for image in qr_images(teacher))
    assert leaks() == []  # the key is in that QR code's modules only, never as text
    assert "key" not in teacher.query_params


def test_the_teachers_qr_code_is_drawn_only_after_its_toggle():
    """The teacher link's QR code (for the teacher's own phone): not drawn until the teacher
    turns its toggle on, then the teacher link encoded; gone again when turned off."""
    teacher, room, key = start_class(url=f"{ORIGIN}/classroom")
    (join_qr,) = qr_images(teacher)
    assert teacher.toggle(key="classroom_teacher_qr").value is False
    teacher.toggle(key="classroom_teacher_qr").set_value(True).run()
    assert not teacher.exception
    images = qr_images(teacher)
    assert len(images) == 2 and join_qr in images
    (mine,) = [image for image in images if image != join_qr]
    assert qr_encodes(mine, f"{ORIGIN}/classroom?room={room}&key={key}")
    teacher.toggle(key="classroom_teacher_qr").set_value(False).run()
    assert qr_images(teacher) == [join_qr]


def test_the_lock_toggle_locks_and_unlocks_the_class(store):
    """Lock the class: the store says locked, a new student is refused "locked" (those who
    joined stay), the projector says so; unlock: a new student joins again."""
    teacher, room, _key = start_class()
    inside = store.join(room, None, "en")
    assert teacher.toggle(key="classroom_lock").value is False
    teacher.toggle(key="classroom_lock").set_value(True).run()
    assert not teacher.exception
    assert store.room(room).locked
    with pytest.raises(PermissionError) as refused:
        store.join(room, None, "en")
    assert refused.value.code == "locked"
    assert store.me(room, inside.token).nickname == inside.nickname
    assert teacher.toggle(key="classroom_lock").value is True
    assert any("Class locked" in w.value for w in teacher.warning)
    teacher.toggle(key="classroom_lock").set_value(False).run()
    assert not teacher.exception
    assert not store.room(room).locked
    assert store.join(room, None, "en").token
    assert not any("Class locked" in w.value for w in teacher.warning)


def test_a_second_teacher_session_keeps_the_lock_made_by_the_first(store):
    """The teacher locks on one device; the other (opened with the teacher link before) asks a
    question: the class stays locked, and that device's toggle shows it."""
    first, room, key = start_class()
    second = open_app("classroom", lang="en", room=room, key=key)
    first.toggle(key="classroom_lock").set_value(True).run()
    assert store.room(room).locked
    ask(second, "softmax_top")
    assert store.room(room).question_id == "softmax_top"
    assert store.room(room).locked
    assert second.toggle(key="classroom_lock").value is True


def test_the_teachers_link_gives_control_and_then_leaves_the_url(store):
    """?room=CODE&key=KEY on another device: that session controls the room (it can ask); the
    address bar keeps ?room=CODE only, and that tab is not sent on to the phone page."""
    _, room, key = start_class()
    projector = open_app("classroom", lang="en", room=room, key=key, present="true")
    assert "key" not in projector.query_params and projector.query_params["room"] == room
    assert projector.get("link_button") == []
    ask(projector, "softmax_top")
    assert store.room(room).question_id == "softmax_top"


@pytest.mark.parametrize("who", ["a guessed key", "a student's token"])
def test_a_wrong_key_or_a_students_token_controls_nothing(store, who):
    """A guessed key, or a student's own token used as a key: a note, no control, the key gone
    from the URL, and the tab sent on to the phone page like any phone (with no key)."""
    room = store.create_room().code
    key = "A" * 24 if who == "a guessed key" else store.join(room, None, "en").token
    at = open_app("classroom", lang="en", room=room, key=key)
    assert "key" not in at.query_params
    assert any("does not open this class" in w.value for w in at.warning)
    assert [b for b in at.button if b.key == "classroom_ask"] == []
    assert [t.key for t in at.toggle if (t.key or "").startswith("classroom_")] == []
    assert store.room(room).question_id is None
    target = send_on_target(at)["target"]
    assert target.startswith(f"/join/{room}?") and key not in target


# --- a phone is sent on to the phone page -------------------------------------------------------


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("old_link", [False, True], ids=["join link", "old ?me= link"])
def test_the_class_page_sends_a_phone_on_to_the_phone_page(store, phones, lang, old_link):
    """/classroom?room=CODE (a non-teacher): the class's name, a link to /join/CODE?lang=… and
    the snippet that goes there; no join button and no answer box. An old link's ?me=TOKEN
    rides along, and the phone page takes it: the same student."""
    room = store.create_room().code
    student = store.join(room, None, lang)
    query = {"room": room} | ({"me": student.token} if old_link else {})
    at = open_app("classroom", lang=lang, **query)
    data = send_on_target(at)
    assert data["room"] == room
    target = urlsplit(data["target"])
    assert target.path == f"/join/{room}"
    sent = {"lang": [lang]} | ({"me": [student.token]} if old_link else {})
    assert parse_qs(target.query) == sent
    assert any(room in s.value for s in at.subheader)
    assert [b.key for b in at.button if "classroom" in (b.key or "")] == []
    assert at.text_input == [] and chart_keys(at) == []
    if old_link:  # the phone page sets the token's cookie, and knows the student
        moved = phones.get(data["target"])
        assert moved.status_code == 303 and "me=" not in moved.headers["location"]
        shown = phones.get(moved.headers["location"])
        assert shown.status_code == 200 and student.nickname in shown.text


TYPED = {  # how a student may type the code on the board
    "as shown": lambda code: code,
    "lower case, spaced": lambda code: f"  {code.lower()} ",
    "dashed": lambda code: f"{code[:3]}-{code[3:]}",
    "full-width": lambda code: "".join(chr(ord(ch) + 0xFEE0) for ch in code),  # a zh keyboard
}


@pytest.mark.parametrize("typed", list(TYPED))
def test_the_start_pages_code_box_sends_a_typed_code_on(store, typed):
    """The code on the board typed in the start page's box: on to that class's phone page, in
    the page's language, with no note."""
    room = store.create_room().code
    at = open_app("classroom", lang="zh")
    type_code(at, TYPED[typed](room))
    assert not at.exception
    assert send_on_target(at) == {"room": room, "target": f"/join/{room}?lang=zh"}
    assert at.warning == []


@pytest.mark.parametrize("typed", ["zz", "<b>x</b>", "ABCDE0"])
def test_the_code_box_says_a_code_that_cannot_be_one_and_sends_nothing(typed):
    """A typed code that cannot be a class's: the note, no send-on, nothing rendered."""
    at = open_app("classroom", lang="en")
    type_code(at, typed)
    assert not at.exception
    assert any("No class is running" in w.value for w in at.warning)
    assert at.get("link_button") == []
    assert not any("<b>x" in text for text in markdown_texts(at) + htmls(at))


# --- predict, commit, reveal ----------------------------------------------------------------------


def test_predict_commit_reveal(store):
    """The teacher asks; students answer (through the store); the projector counts them, and
    shows no answer; show draws the class's answers; reveal draws the truth (the app's own
    computation, stored when asked) on them, beside the app's figure."""
    teacher, room, key = start_class()
    right_one = store.join(room, None, "en")
    wrong_one = store.join(room, None, "zh")
    store.join(room, None, "en")  # one who does not answer
    ask(teacher, "softmax_top")
    truth = QUESTIONS["softmax_top"].truth()
    assert store.room(room).counts is None
    store.answer(room, right_one.token, str(truth.value))
    store.answer(room, wrong_one.token, "0.01")
    teacher.run()
    assert not teacher.exception
    assert any("Answered 2 of 3" in text for text in markdown_texts(teacher))
    assert chart_keys(teacher) == []  # no counts before the teacher shows them
    teacher.button(key="classroom_close").click().run()
    teacher.button(key="classroom_show_answers").click().run()
    assert chart_keys(teacher) == ["class_answers"]  # no truth before the reveal
    bars = figure(teacher, "class_answers")["data"][0]
    tally = store.tally(room, key)
    assert bars["orientation"] == "h" and bars["customdata"] == list(tally.counts)  # lying bars
    assert list(decode(bars["x"])) == list(tally.counts.values()) and sum(decode(bars["x"])) == 2
    assert not any(text.endswith("✓") for text in bars["text"])
    teacher.button(key="classroom_reveal").click().run()
    assert not teacher.exception
    right = list(tally.counts).index(truth.answer)
    marked = figure(teacher, "class_answers")["data"][0]["text"]
    assert [i for i, text in enumerate(marked) if text.endswith("✓")] == [right]
    assert figure(teacher, "class_truth")["data"][0]["y"] == truth.chart["values"]
    assert store.me(room, right_one.token).right is True
    assert store.me(room, wrong_one.token).right is False


# --- bad links ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "room", ["<script>alert(1)</script>", "x" * 400, "ZZZZZZ", "[a](javascript:x)", ""]
)
def test_a_bad_or_unknown_code_is_a_friendly_note(phones, room):
    """A junk code, one too long, an unknown one: a note, never a traceback or rendered text.
    A code that cannot be one is said at once (no send-on); an unknown one that could be is sent
    on, and the phone page says there is no such class."""
    at = open_app("classroom", lang="en", room=room, me="nobody", key="<b>k</b>")
    texts = markdown_texts(at) + htmls(at) + codes(at)
    for text in texts:
        assert "<script" not in text and "<b>k" not in text and "](javascript" not in text
    assert "key" not in at.query_params
    if room == "ZZZZZZ":
        shown = phones.get(send_on_target(at)["target"], follow_redirects=True)
        assert shown.status_code == 404 and "No class is running" in shown.text
        assert "Traceback" not in shown.text
    elif room:
        assert any("No class is running" in w.value for w in at.warning)
        assert at.get("link_button") == [] and at.query_params.get("room") is None
    else:  # no code at all: the start page
        assert at.button(key="classroom_start")


# --- the students on the projector ------------------------------------------------------------


def test_a_nickname_is_shown_as_text_and_limited(store):
    """The projector's list of students: a nickname with Markdown and HTML is shown as typed,
    never rendered; a Chinese one as it is; 25 characters are refused with a sentence."""
    teacher, room, _key = start_class()
    student = store.join(room, None, "en")
    chinese = store.join(room, None, "zh")
    assert all(ord(ch) > 0x2E80 or ch.isdigit() for ch in chinese.nickname)  # 蓝色的猫
    store.rename(room, student.token, "**bold** <b>x</b> :red[y")
    teacher.run()
    assert not teacher.exception
    assert any("**bold** &lt;b&gt;x&lt;/b&gt; :red[y" in body for body in htmls(teacher))
    assert not any("<b>x" in body for body in htmls(teacher))
    assert not any("**bold**" in text for text in markdown_texts(teacher))
    assert any(chinese.nickname in body for body in htmls(teacher))
    assert any("2 joined" in text for text in markdown_texts(teacher))
    with pytest.raises(ValueError):
        store.rename(room, student.token, "n" * 25)


def test_the_teacher_removes_a_student_who_may_join_again(store):
    """The projector's Remove: that student's token stops working ("removed", not "a wrong
    code"), the list no longer has them, and the phone may join again."""
    teacher, room, key = start_class()
    gone = store.join(room, "Rude", "en")
    stays = store.join(room, "Kind", "en")
    teacher.run()
    teacher.selectbox(key="classroom_remove_who").set_value(gone.id)
    teacher.button(key="classroom_remove").click().run()
    assert not teacher.exception
    with pytest.raises(NotFound) as told:
        store.me(room, gone.token)
    assert told.value.code == "removed"
    assert [row.nickname for row in store.students(room, key)] == ["Kind"]
    assert store.me(room, stays.token).nickname == "Kind"
    assert not any("Rude" in body for body in htmls(teacher))
    assert store.join(room, "Rude", "en").nickname == "Rude"


def test_a_class_ended_on_another_device_is_a_note_on_the_projector(store):
    """The teacher ends the class from another device (the teacher link): the projector's next
    run says the class has ended, with no traceback."""
    projector, room, key = start_class()
    other = open_app("classroom", lang="en", room=room, key=key)
    other.button(key="classroom_end").click().run()
    assert not other.exception
    with pytest.raises(LookupError):
        store.room(room)
    projector.run()
    assert not projector.exception, [e.value for e in projector.exception]
    assert any("This class has ended" in w.value for w in projector.warning)


# --- the lab, the CSV and the end --------------------------------------------------------------


def test_the_lab_hands_its_view_to_the_class(store):
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
    view = store.room(room)
    assert view.question_id == "lab_top_key"
    assert view.settings["d"] == 96 and view.settings["row"] == 3
    expected = QUESTIONS["lab_top_key"].truth({"d": 96, "row": 3}).answer
    assert store.tally(room, key).question_id == "lab_top_key"
    teacher.button(key="classroom_reveal").click().run()
    assert store.room(room).answer == expected


def test_no_lab_button_without_a_class():
    """The lab offers to ask a class only to a session teaching one."""
    at = open_app(lang="en")
    assert [b for b in at.button if b.key == "lab_ask_class"] == []


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_csv_and_the_end_of_the_class(store, downloads, lang):
    """The projector's download: UTF-8 with a BOM (spreadsheets open Chinese), each answer with
    its question named by number, prompt (in the page's language) and settings (a
    formula-looking nickname neutralised); ending deletes the class, and its phones are told it
    has ended (not that the code is wrong)."""
    teacher, room, _key = start_class(lang)
    student = store.join(room, None, "zh")
    store.rename(room, student.token, "=cmd()")
    ask(teacher, "softmax_top")
    store.answer(room, student.token, "0.66")
    first = store.room(room)
    ask(teacher, "model_fill")
    store.answer(room, student.token, "欢")
    second = store.room(room)
    teacher.run()
    (button,) = teacher.get("download_button")
    sent = downloads[button.proto.deferred_file_id]()
    assert sent.startswith(b"\xef\xbb\xbf")
    rows = list(csv.reader(io.StringIO(sent.decode("utf-8-sig"))))
    assert rows[0] == ["nickname", "question", "answer", "right", "time"]
    assert [row[0] for row in rows[1:]] == ["'=cmd()", "'=cmd()"]
    assert [row[2] for row in rows[1:]] == ["0.66", "欢"]
    for row, asked in zip(rows[1:], (first, second), strict=True):
        prompt = QUESTIONS[asked.question_id].say(lang, asked.args)
        assert row[1].startswith(f"{asked.number}. {prompt} (")
        assert all(f"{name}=" in row[1] for name in asked.settings)
    assert rows[1][1].startswith("1. ") and rows[2][1].startswith("2. ")
    teacher.button(key="classroom_end").click().run()
    assert not teacher.exception
    assert "room" not in teacher.query_params
    assert teacher.button(key="classroom_start")
    with pytest.raises(LookupError):
        store.room(room)
    with pytest.raises(NotFound) as told:
        store.me(room, student.token)
    assert told.value.code == "ended"


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
