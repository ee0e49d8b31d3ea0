"""The class store's rules, each on SQLite and on PostgreSQL (a throwaway schema per session).

Without a PostgreSQL server the PostgreSQL half skips loudly, or fails when CI or
REQUIRE_POSTGRES=1 says the server must be there.
"""

import csv
import hashlib
import hmac
import io
import itertools
import json
import math
import re
import threading
import time
from dataclasses import replace
from datetime import UTC, datetime
from functools import partial

import pytest
import sqlalchemy as sa
from classroom_support import (
    START,
    FakeClock,
    build_v1,
)

import classroom
from bench.pg import PG_URL, pg_schema, raw_execute, raw_rows, with_search_path
from bench.proxy import proxied
from classroom import QUESTIONS, Store, Unavailable, default_url, schema
from classroom import store as store_module
from classroom.refusals import Invalid

ALPHABET = set("ABCDEFGHJKMNPQRSTUVWXYZ23456789")
HOUR = 3600.0


# --- fixtures -----------------------------------------------------------------------------------


@pytest.fixture(params=["sqlite", "postgresql"])
def fresh_url(request, tmp_path):
    """An empty database: a new SQLite file, or a new PostgreSQL schema of its own."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'fresh.db'}"
        return
    request.getfixturevalue("postgres")  # skips or fails without a server
    with pg_schema() as schema:
        yield with_search_path(PG_URL, schema)


@pytest.fixture
def clock():
    return FakeClock()


@pytest.fixture
def make_store(url, clock):
    """Stores on this test's database with the fake clock; every engine closed afterwards."""
    made = []

    def make(at=None, **options):
        options.setdefault("clock", clock)
        options.setdefault("sleeper", clock.sleep)
        made.append(Store(at or url, **options))
        return made[-1]

    yield make
    for store in made:
        store.dispose()


@pytest.fixture
def store(make_store):
    return make_store()


@pytest.fixture
def room(store):
    return store.create_room()


def teacher(store, room, action, *args):
    """Call a teacher action with the room's code and key."""
    return getattr(store, action)(room.code, room.teacher_key, *args)


def ask(store, room, question_id="softmax_top", settings=None):
    return store.ask(room.code, room.teacher_key, question_id, settings)


# --- a lesson the phones follow ----------------------------------------------------------------


def test_present_records_the_teacher_s_step_for_every_phone_and_keeps_the_question(store, room):
    """The step the teacher presents is in every phone's view, each change bumps the version (a
    phone's long-poll wakes), the question asked stays, and None, None ends the lesson."""
    ask(store, room)
    before = store.room(room.code)
    assert (before.lesson, before.step) == (None, None)
    shown = teacher(store, room, "present", "why_sqrt_d", 3)
    seen = store.room(room.code)
    assert (seen.lesson, seen.step) == ("why_sqrt_d", 3) == (shown.lesson, shown.step)
    assert seen.version == before.version + 1 == shown.version
    assert (seen.question_id, seen.phase) == (before.question_id, "open")
    assert store.roster(room.code).view.step == 3
    teacher(store, room, "present", None, None)
    assert (store.room(room.code).lesson, store.room(room.code).step) == (None, None)


@pytest.mark.parametrize(
    ("lesson", "step"),
    [("why_sqrt_d", None), (None, 1), ("why_sqrt_d", 0), ("x" * 9000, 1), (3, 1)],
)
def test_a_step_that_is_no_step_is_refused(store, room, lesson, step):
    with pytest.raises(Invalid) as refusal:
        teacher(store, room, "present", lesson, step)
    assert refusal.value.code == "no_lesson"


def test_only_the_teacher_presents(store, room):
    with pytest.raises(PermissionError):
        store.present(room.code, "not-the-key", "why_sqrt_d", 1)
    assert store.room(room.code).step is None


# --- rooms and codes ----------------------------------------------------------------------------


def test_a_room_code_is_six_unambiguous_characters_and_the_key_has_128_bits(store):
    """Codes use no 0/O, 1/I/L; keys are URL-safe and at least 128 bits; rooms differ."""
    rooms = [store.create_room() for _ in range(5)]
    for room in rooms:
        assert len(room.code) == 6 and set(room.code) <= ALPHABET
        assert re.fullmatch(r"[A-Za-z0-9_-]{22,}", room.teacher_key)  # 22 base64 chars ≥ 128 bits
    assert len({r.code for r in rooms}) == 5 and len({r.teacher_key for r in rooms}) == 5


def test_a_code_typed_in_lower_case_or_with_spaces_still_works(store, room):
    """'abc def', 'ABC-DEF', full-width letters: the same room."""
    spaced = f" {room.code[:3].lower()} {room.code[3:].lower()} "
    full_width = "".join(chr(ord(c) + 0xFEE0) for c in room.code)
    for typed in (spaced, f"{room.code[:3]}-{room.code[3:]}", full_width):
        assert store.join(typed).nickname
        assert store.room(typed).code == room.code


def test_an_unknown_or_malformed_code_is_a_lookup_error(store, room):
    """Every call that takes a code refuses one that names no room."""
    other = next(c for c in ("AAAAAA", "BBBBBB") if c != room.code)
    for code in (other, "", "ABC", "O0O0O0", None, 123456):
        with pytest.raises(LookupError):
            store.room(code)
        with pytest.raises(LookupError):
            store.join(code)
        with pytest.raises(LookupError):
            store.pulse(code)


def test_a_room_expires_after_12_hours_and_creating_a_room_clears_it_away(url, store, clock):
    """Every call fails with LookupError after 12 h; the next create_room deletes its rows."""
    room = store.create_room()
    student = store.join(room.code)
    ask(store, room)
    store.answer(room.code, student.token, "0.5")
    clock.advance(12 * HOUR - 1)
    assert store.pulse(room.code) == 1
    clock.advance(1)
    for call in (
        lambda: store.room(room.code),
        lambda: store.pulse(room.code),
        lambda: store.join(room.code),
        lambda: store.me(room.code, student.token),
        lambda: store.answer(room.code, student.token, "0.5"),
        lambda: store.tally(room.code, room.teacher_key),
    ):
        with pytest.raises(LookupError):
            call()
    store.create_room()
    assert raw_rows(url, "SELECT id FROM rooms WHERE code = :c", c=room.code) == []
    assert raw_rows(url, "SELECT id FROM students WHERE nickname = :n", n=student.nickname) == []


def test_the_lifetime_and_the_class_size_are_set_in_the_constructor(make_store, clock):
    """lifetime= and max_students= replace the 12 hours and the 300 students."""
    store = make_store(lifetime=60.0, max_students=2)
    room = store.create_room()
    store.join(room.code)
    store.join(room.code)
    with pytest.raises(ValueError, match="full"):
        store.join(room.code)
    clock.advance(60)
    with pytest.raises(LookupError):
        store.pulse(room.code)


def test_the_301st_student_is_refused_with_a_sentence(store, room):
    """300 students may join a room; the next one gets a ValueError that says it is full."""
    for _ in range(300):
        store.join(room.code)
    with pytest.raises(ValueError, match=r"full \(300 students\)"):
        store.join(room.code)
    assert teacher(store, room, "tally").joined == 300


# --- the teacher key ----------------------------------------------------------------------------

TEACHER_ACTIONS = {
    "close": (),
    "show_answers": (),
    "reveal": (),
    "tally": (),
    "export_csv": (),
    "students": (),
    "ask": ("softmax_top",),
    "remove": (1,),
    "end": (),
}


@pytest.mark.parametrize("action", TEACHER_ACTIONS)
def test_a_wrong_teacher_key_is_refused_and_changes_nothing(store, room, action):
    """A wrong key, an empty one, None, or a student's own token: PermissionError, and the
    room's version, phase and students stay as they were."""
    student = store.join(room.code)
    ask(store, room)
    before = store.room(room.code)
    for key in ("wrong", "", None, student.token, room.teacher_key + "x"):
        with pytest.raises(PermissionError):
            getattr(store, action)(room.code, key, *TEACHER_ACTIONS[action])
    after = store.room(room.code)
    assert (after.version, after.phase) == (before.version, before.phase)
    assert store.me(room.code, student.token).nickname == student.nickname


def test_is_teacher_tells_the_key_from_anything_else(store, room):
    """True for the key only; another room's key is not this room's."""
    other = store.create_room()
    student = store.join(room.code)
    assert store.is_teacher(room.code, room.teacher_key) is True
    for key in (other.teacher_key, student.token, "", None):
        assert store.is_teacher(room.code, key) is False
    with pytest.raises(LookupError):
        store.is_teacher("ZZZZZZ" if room.code != "ZZZZZZ" else "YYYYYY", room.teacher_key)


def test_keys_are_compared_with_hmac_compare_digest(store, room, monkeypatch):
    """Every key check goes through hmac.compare_digest (constant time)."""
    calls = []
    real = hmac.compare_digest

    def spy(a, b):
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", spy)
    store.is_teacher(room.code, room.teacher_key)
    teacher(store, room, "tally")
    with pytest.raises(PermissionError):
        store.tally(room.code, "wrong")
    assert len(calls) == 3
    digest = hashlib.sha256(room.teacher_key.encode()).hexdigest()
    assert calls[0] == (digest, digest)


def test_only_hashes_of_keys_and_tokens_are_stored(url, store, room):
    """The database holds the SHA-256 of the teacher key and of each token, never them."""
    student = store.join(room.code)
    [(key_hash,)] = raw_rows(url, "SELECT key_hash FROM rooms WHERE code = :c", c=room.code)
    assert key_hash == hashlib.sha256(room.teacher_key.encode()).hexdigest()
    [(token_hash,)] = raw_rows(url, "SELECT token_hash FROM students WHERE id = :i", i=student.id)
    assert token_hash == hashlib.sha256(student.token.encode()).hexdigest()
    assert len(student.token) >= 22  # ≥ 128 bits


# --- students -----------------------------------------------------------------------------------


def test_generated_nicknames_are_friendly_unique_and_in_the_pages_language(store, room):
    """蓝色的猫-style in Chinese, 'blue cat'-style in English, never twice in one room."""
    zh = [store.join(room.code, lang="zh").nickname for _ in range(40)]
    en = [store.join(room.code, lang="en").nickname for _ in range(40)]
    assert len(set(zh + en)) == 80
    assert all(re.fullmatch(r"\w+的\w+( \d+)?", name) for name in zh), zh
    assert all(re.fullmatch(r"[a-z]+ [a-z]+( \d+)?", name) for name in en), en


def test_a_taken_nickname_gets_a_number(store, room, monkeypatch):
    """When the generated pair is taken, the smallest free number from 2 is added."""
    monkeypatch.setattr(classroom.names, "random_pair", lambda lang: "蓝色的猫")
    names = [store.join(room.code).nickname for _ in range(3)]
    assert names == ["蓝色的猫", "蓝色的猫 2", "蓝色的猫 3"]
    assert store.join(room.code, nickname=" 蓝色的猫 ").nickname == "蓝色的猫 4"


def test_an_unknown_language_is_refused(store, room):
    with pytest.raises(ValueError, match="zh"):
        store.join(room.code, lang="fr")


def test_a_nickname_is_cleaned_and_limited_to_24_characters(store, room):
    """Control, format and separator characters go, then surrounding space; 24 characters
    pass, 25 do not, nothing left does not."""
    student = store.join(room.code)
    assert store.rename(room.code, student.token, "  a\u202eb\x00c\u200b\u2028d\t ") == "abcd"
    assert store.me(room.code, student.token).nickname == "abcd"
    assert store.rename(room.code, student.token, "猫" * 24) == "猫" * 24
    for bad in ("猫" * 25, "   ", "\u200b\u202e", "", 42):
        with pytest.raises(ValueError):
            store.rename(room.code, student.token, bad)
    assert store.me(room.code, student.token).nickname == "猫" * 24


def test_renaming_to_someone_elses_nickname_is_refused(store, room):
    first = store.join(room.code, nickname="Ada")
    second = store.join(room.code, nickname="Bo")
    with pytest.raises(ValueError, match="already"):
        store.rename(room.code, second.token, " Ada ")
    assert store.rename(room.code, first.token, "Ada") == "Ada"  # keeping one's own is fine


def test_an_unknown_or_foreign_token_is_a_lookup_error(store, room):
    """A token works only in the room it joined."""
    other = store.create_room()
    stranger = store.join(other.code)
    ask(store, room)
    for token in (stranger.token, "nonsense", "", None):
        with pytest.raises(LookupError):
            store.me(room.code, token)
        with pytest.raises(LookupError):
            store.answer(room.code, token, "0.5")
        with pytest.raises(LookupError):
            store.rename(room.code, token, "x")


def test_a_removed_students_token_stops_working(store, room):
    """remove(): gone from the list and the tally; their token is a LookupError."""
    stays, goes = store.join(room.code), store.join(room.code)
    ask(store, room)
    store.answer(room.code, stays.token, "0.66")
    store.answer(room.code, goes.token, "0.1")
    teacher(store, room, "remove", goes.id)
    assert [row.id for row in teacher(store, room, "students")] == [stays.id]
    tally = teacher(store, room, "tally")
    assert (tally.joined, tally.answered) == (1, 1)
    with pytest.raises(LookupError):
        store.me(room.code, goes.token)
    with pytest.raises(LookupError):
        teacher(store, room, "remove", goes.id)


def test_a_student_of_another_room_cannot_be_removed(store, room):
    other = store.create_room()
    stranger = store.join(other.code)
    with pytest.raises(LookupError):
        teacher(store, room, "remove", stranger.id)
    assert store.me(other.code, stranger.token).nickname == stranger.nickname


def test_the_student_list_says_who_answered_the_current_question(store, room):
    a, b = store.join(room.code, nickname="A"), store.join(room.code, nickname="B")
    ask(store, room)
    store.answer(room.code, b.token, "0.7")
    rows = teacher(store, room, "students")
    assert [(r.id, r.nickname, r.answered) for r in rows] == [(a.id, "A", False), (b.id, "B", True)]


# --- questions and answers ----------------------------------------------------------------------


def test_an_unknown_question_id_is_a_lookup_error(store, room):
    with pytest.raises(LookupError):
        ask(store, room, "no_such_question")
    assert store.room(room.code).phase == "idle"


def test_answering_before_any_question_or_after_closing_is_a_value_error(store, room, clock):
    """No question yet, then closed, shown or revealed: ValueError with a sentence."""
    student = store.join(room.code)
    with pytest.raises(ValueError, match="not asked a question"):
        store.answer(room.code, student.token, "0.5")
    with pytest.raises(ValueError, match="No question has been asked"):
        teacher(store, room, "close")
    for action in ("close", "show_answers", "reveal"):
        ask(store, room)
        teacher(store, room, action)
        clock.advance(1)
        with pytest.raises(ValueError, match=r"^The teacher has closed this question\.$"):
            store.answer(room.code, student.token, "0.5")


@pytest.mark.parametrize(
    ("question_id", "bad"),
    [
        ("lab_top_key", "猫"),  # not one of the tokens
        ("softmax_top", "about half"),  # not a number
        ("softmax_top", "1.5"),  # outside every bin
        ("softmax_top", "nan"),
        ("model_fill", "欢迎"),  # two characters
        ("model_fill", " "),
    ],
)
def test_an_answer_that_does_not_fit_is_a_value_error(store, room, question_id, bad):
    student = store.join(room.code)
    ask(store, room, question_id)
    with pytest.raises(ValueError):
        store.answer(room.code, student.token, bad)
    assert store.me(room.code, student.token).answer is None


def test_an_answer_is_cleaned_and_limited_to_32_characters(store, room):
    """Control characters are stripped; 32 characters pass, 33 do not."""
    student = store.join(room.code)
    ask(store, room)
    assert store.answer(room.code, student.token, "\u200b 0.66\u202e\n") == "0.65–0.7"
    assert store.me(room.code, student.token).answer == "0.66"
    thirty_two = "0." + "6" * 30
    assert store.answer(room.code, student.token, thirty_two) == "0.65–0.7"
    with pytest.raises(ValueError, match="too long"):
        store.answer(room.code, student.token, thirty_two + "6")
    assert store.me(room.code, student.token).answer == thirty_two


def test_each_kind_of_answer_is_counted_under_its_key(store, room):
    """A choice by its option (any case), a number by its bin, a character as itself."""
    student = store.join(room.code)
    for question_id, typed, key in (
        ("translator_word", "LIKE", "like"),
        ("article_why_scale", "a", "A"),
        ("lab_top_weight", "0.95", "0.8–1"),
        ("score_std", "39", "31–49"),
        ("model_fill", " 欢 ", "欢"),
    ):
        ask(store, room, question_id)
        assert store.answer(room.code, student.token, typed) == key
        mine = store.me(room.code, student.token)
        assert (mine.answer, mine.answer_key) == (typed.strip(), key)


def test_a_number_is_stored_as_typed_and_tallied_under_its_bin(store, room):
    """softmax([2, 1, 0.1]): the bins are [a, b) but the last is [0.9, 1]; the tally lists
    every bin in order, empty ones too. Expected bins worked out by hand."""
    typed = ["0.3", "0.659", "66%", "0.7", "1", "0.65", "0.6499", "0.55"]
    expected_bins = ["0–0.4", "0.65–0.7", "0.65–0.7", "0.7–0.75", "0.9–1", "0.65–0.7",
                     "0.6–0.65", "0.55–0.6"]  # fmt: skip
    ask(store, room)
    for value, expected in zip(typed, expected_bins, strict=True):
        student = store.join(room.code)
        assert store.answer(room.code, student.token, value) == expected
        assert store.me(room.code, student.token).answer == value
    tally = teacher(store, room, "tally")
    edges = [0, 0.4, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.9, 1]
    labels = [f"{a:g}–{b:g}" for a, b in itertools.pairwise(edges)]
    assert list(tally.counts) == labels
    assert tally.counts == {label: expected_bins.count(label) for label in labels}
    assert (tally.question_id, tally.joined, tally.answered) == ("softmax_top", 8, 8)


def test_the_tally_of_characters_lists_what_was_typed_most_first(store, room):
    ask(store, room, "model_fill")
    for typed in ("欢", "爱", "欢", "有", "欢", "爱"):
        store.answer(room.code, store.join(room.code).token, typed)
    assert teacher(store, room, "tally").counts == {"欢": 3, "爱": 2, "有": 1}


def test_asking_closes_the_question_before_and_starts_a_fresh_count(url, store, room):
    student = store.join(room.code)
    ask(store, room)
    store.answer(room.code, student.token, "0.66")
    view = ask(store, room, "model_fill")
    assert (view.phase, view.question_id, view.number) == ("open", "model_fill", 2)
    assert store.me(room.code, student.token).answer is None
    assert teacher(store, room, "tally").answered == 0
    query = (
        "SELECT closed_at FROM asked WHERE question_id = 'softmax_top' "
        "AND room_id = (SELECT id FROM rooms WHERE code = :c)"
    )
    closed = raw_rows(url, query, c=room.code)
    assert closed[0][0] is not None


def test_the_lab_view_becomes_the_question_and_every_phone_gets_its_settings(store, room):
    """Settings given to ask() are merged over the defaults and shared with every phone."""
    view_settings = {"text": "我爱我家", "d": 8, "row": 3, "seed": 5}
    view = ask(store, room, "lab_top_key", view_settings)
    expected = {**QUESTIONS["lab_top_key"].defaults, **view_settings}
    assert view.settings == expected
    assert store.room(room.code).settings == expected
    assert view.options == ("[CLS]", "我 (1)", "爱", "我 (3)", "家", "[SEP]")
    assert view.args["token"] == "我"


def test_bad_settings_are_refused_before_anything_changes(store, room):
    for settings in ({"colour": "red"}, {"d": 0}, {"row": 99}, {"scale": "yes"}):
        with pytest.raises(ValueError):
            ask(store, room, "lab_top_key", settings)
    assert store.room(room.code).phase == "idle"


def test_the_truth_is_kept_from_when_the_question_was_asked(store, room, monkeypatch):
    """The reveal shows what the class saw, even if the computation changes afterwards."""
    ask(store, room, "softmax_top")
    question = QUESTIONS["softmax_top"]
    wrong = replace(question, compute=lambda settings: pytest.fail("recomputed"))
    monkeypatch.setitem(QUESTIONS, "softmax_top", wrong)
    view = teacher(store, room, "reveal")
    expected = math.exp(2) / (math.exp(2) + math.exp(1) + math.exp(0.1))
    assert view.value == pytest.approx(expected, abs=1e-12)
    assert view.answer == "0.65–0.7"


# --- phases: what phones may see -----------------------------------------------------------------


def test_phones_see_counts_only_once_shown_and_the_truth_only_once_revealed(store, room):
    """room() and me() hold back counts until shown and truth, chart and right until revealed."""
    student = store.join(room.code)
    idle = store.room(room.code)
    assert (idle.phase, idle.question_id, idle.counts, idle.answer) == ("idle", None, None, None)
    ask(store, room)
    store.answer(room.code, student.token, "0.66")
    for phase in ("open", "closed"):
        if phase == "closed":
            teacher(store, room, "close")
        view, mine = store.room(room.code), store.me(room.code, student.token)
        assert view.phase == phase
        assert (view.counts, view.answered, view.answer, view.value, view.chart) == (None,) * 5
        assert mine.right is None and mine.answer == "0.66"
    shown = teacher(store, room, "show_answers")
    assert shown.counts["0.65–0.7"] == 1 and shown.answered == 1
    assert (shown.answer, shown.value, shown.chart) == (None, None, None)
    assert store.me(room.code, student.token).right is None
    revealed = teacher(store, room, "reveal")
    assert revealed.answer == "0.65–0.7" and revealed.chart["kind"] == "bars"
    assert store.room(room.code) == revealed
    assert store.me(room.code, student.token).right is True


def test_a_room_never_moves_back_a_phase(store, room):
    """show after reveal stays revealed; close after show stays shown."""
    ask(store, room)
    assert teacher(store, room, "show_answers").phase == "shown"
    assert teacher(store, room, "close").phase == "shown"
    assert teacher(store, room, "reveal").phase == "revealed"
    assert teacher(store, room, "show_answers").phase == "revealed"


def test_the_version_moves_on_every_teacher_action_and_only_then(store, room):
    """pulse() is the version; joins and answers leave it alone."""
    versions = [store.pulse(room.code)]
    student = store.join(room.code)
    assert store.pulse(room.code) == versions[-1]
    for action, args in (("ask", ("softmax_top",)), ("close", ()), ("show_answers", ()),
                         ("reveal", ()), ("ask", ("model_fill",))):  # fmt: skip
        teacher(store, room, action, *args)
        versions.append(store.pulse(room.code))
        assert store.room(room.code).version == versions[-1]
    store.answer(room.code, student.token, "欢")
    assert store.pulse(room.code) == versions[-1]
    teacher(store, room, "remove", student.id)
    versions.append(store.pulse(room.code))
    assert versions == sorted(set(versions)) and len(versions) == 7


# --- pacing -------------------------------------------------------------------------------------


def test_a_burst_of_answers_is_slowed_not_refused_and_the_last_one_counts(store, room, clock):
    """Five answers at once: the first goes through, each next one sleeps until 0.5 s after
    the one before (with the injected sleeper), all are accepted, the tally has the last."""
    student = store.join(room.code)
    ask(store, room)
    for value in ("0.1", "0.3", "0.45", "0.52", "0.66"):
        store.answer(room.code, student.token, value)
    assert clock.sleeps == pytest.approx([0.5, 0.5, 0.5, 0.5])
    assert store.me(room.code, student.token).answer == "0.66"
    assert teacher(store, room, "tally").counts["0.65–0.7"] == 1
    assert teacher(store, room, "tally").answered == 1


def test_answers_far_enough_apart_never_wait(store, room, clock):
    student = store.join(room.code)
    ask(store, room)
    store.answer(room.code, student.token, "0.1")
    clock.advance(0.3)
    store.answer(room.code, student.token, "0.2")
    clock.advance(0.6)
    store.answer(room.code, student.token, "0.3")
    assert clock.sleeps == pytest.approx([0.2])


def test_pacing_is_per_student(store, room, clock):
    ask(store, room)
    for _ in range(4):
        store.answer(room.code, store.join(room.code).token, "0.5")
    assert clock.sleeps == []


# --- export and end -----------------------------------------------------------------------------


def test_the_export_has_every_answer_and_no_formulas(url, store, room, clock):
    """Columns nickname, question, answer, right, time (ISO-8601 UTC); =, +, -, @ lead with '."""
    names = ['=HYPERLINK("x")', "+1", "-2", "@SUM", "Ada"]
    students = [store.join(room.code, nickname=name) for name in names]
    ask(store, room)
    for student, value in zip(students, ("0.66", "-0.5", "0.3", "0.7", "+0.659"), strict=True):
        try:
            store.answer(room.code, student.token, value)
        except ValueError:
            store.answer(room.code, student.token, "0.1")  # -0.5 lies outside every bin
    clock.advance(60)
    ask(store, room, "model_fill")
    store.answer(room.code, students[4].token, "欢")
    rows = list(csv.reader(io.StringIO(teacher(store, room, "export_csv"))))
    assert rows[0] == ["nickname", "question", "answer", "right", "time"]
    top, fill = (asked_as(url, room, number) for number in (1, 2))
    body = {(row[0], row[1]): row[2:] for row in rows[1:]}
    assert len(rows) == 7
    assert body[('\'=HYPERLINK("x")', top)][:2] == ["0.66", "true"]
    assert body[("'+1", top)][:2] == ["0.1", "false"]
    assert body[("Ada", top)][:2] == ["'+0.659", "true"]
    assert body[("Ada", fill)][:2] == ["欢", "true"]
    assert {row[0] for row in rows[1:]} == {'\'=HYPERLINK("x")', "'+1", "'-2", "'@SUM", "Ada"}
    stamp = datetime.fromisoformat(body[("Ada", fill)][2])
    assert stamp.utcoffset().total_seconds() == 0
    assert stamp == datetime.fromtimestamp(clock.now, UTC).replace(microsecond=0)


def test_a_question_asked_twice_is_told_apart_in_the_export(store, room):
    student = store.join(room.code)
    for _ in range(2):
        ask(store, room)
        store.answer(room.code, student.token, "0.66")
    rows = list(csv.reader(io.StringIO(teacher(store, room, "export_csv"))))
    first, second = (row[1] for row in rows[1:])
    assert first.startswith("1. ") and second.startswith("2. ") and first[3:] == second[3:]


def asked_as(url, room, number):
    """How the export names the room's question ``number``: its number, its English prompt and
    its settings as the database holds them (read back raw, not through the store)."""
    [(question_id, settings, truth)] = raw_rows(
        url,
        "SELECT question_id, settings, truth FROM asked WHERE number = :n AND room_id ="
        " (SELECT id FROM rooms WHERE code = :code)",
        n=number,
        code=room.code,
    )
    prompt = QUESTIONS[question_id].prompt["en"]
    args = {k.removesuffix("_en"): v for k, v in json.loads(truth)["args"].items()
            if not k.endswith("_zh")}  # fmt: skip
    listed = ", ".join(
        f"{k}={str(v).lower() if isinstance(v, bool) else v}"
        for k, v in json.loads(settings).items()
    )
    return f"{number}. {prompt.format(**args)} ({listed})"


def test_ending_a_room_deletes_its_students_questions_and_answers(url, store, room):
    """end(): nothing of the room is left; another room is untouched."""
    other = store.create_room()
    keeper = store.join(other.code)
    ask(store, other)
    store.answer(other.code, keeper.token, "0.66")
    students = [store.join(room.code) for _ in range(3)]
    ask(store, room)
    for student in students:
        store.answer(room.code, student.token, "0.5")
    [(room_id,)] = raw_rows(url, "SELECT id FROM rooms WHERE code = :c", c=room.code)
    teacher(store, room, "end")
    for query in (
        "SELECT id FROM rooms WHERE id = :r",
        "SELECT id FROM students WHERE room_id = :r",
        "SELECT id FROM asked WHERE room_id = :r",
        "SELECT a.id FROM answers a JOIN asked q ON a.asked_id = q.id WHERE q.room_id = :r",
    ):
        assert raw_rows(url, query, r=room_id) == []
    ids = ",".join(str(s.id) for s in students)
    assert raw_rows(url, f"SELECT id FROM answers WHERE student_id IN ({ids})") == []
    with pytest.raises(LookupError):
        store.room(room.code)
    assert teacher(store, other, "tally").answered == 1


# --- durability, schema, outages ------------------------------------------------------------------


def test_a_new_store_on_the_same_database_sees_everything(make_store):
    """A server restart loses nothing: rooms, students, the question and every answer."""
    first = make_store()
    room = first.create_room()
    students = [first.join(room.code) for _ in range(3)]
    ask(first, room)
    for student, value in zip(students, ("0.66", "0.2", "0.95"), strict=True):
        first.answer(room.code, student.token, value)
    first.dispose()
    second = make_store()
    tally = teacher(second, room, "tally")
    assert (tally.question_id, tally.joined, tally.answered) == ("softmax_top", 3, 3)
    assert second.me(room.code, students[0].token).answer == "0.66"
    assert second.room(room.code).phase == "open"
    assert second.answer(room.code, students[1].token, "0.3") == "0–0.4"


def test_a_version_1_database_is_upgraded_to_the_latest_with_its_rows(fresh_url, clock):
    """Tables made by hand as version 1 shipped, with a room, students, a question and answers:
    a new Store upgrades to the latest version (pacing column, tally index, tombstones,
    counters) and everything still works."""
    build_v1(fresh_url)
    key, tokens = "teacher-key-of-v1", ["token-a-of-v1", "token-b-of-v1"]
    truth = QUESTIONS["softmax_top"].truth().to_json()
    raw_execute(
        fresh_url,
        "INSERT INTO rooms (id, code, key_hash, created_at, expires_at, phase, asked_id, version) "
        "VALUES (1, 'ABCDEF', :kh, :t, :t + 43200, 'open', 1, 1)",
        "INSERT INTO students (id, room_id, token_hash, nickname, lang, joined_at) "
        "VALUES (1, 1, :ta, '蓝色的猫', 'zh', :t), (2, 1, :tb, 'red fox', 'en', :t)",
        "INSERT INTO asked (id, room_id, number, question_id, settings, truth, opened_at) "
        "VALUES (1, 1, 1, 'softmax_top', '{\"values\": [2.0, 1.0, 0.1]}', :truth, :t)",
        "INSERT INTO answers (asked_id, student_id, value, answer_key, answered_at) "
        "VALUES (1, 1, '0.66', '0.65–0.7', :t)",
        kh=hashlib.sha256(key.encode()).hexdigest(), t=START,
        ta=hashlib.sha256(tokens[0].encode()).hexdigest(),
        tb=hashlib.sha256(tokens[1].encode()).hexdigest(), truth=classroom.store._json(truth),
    )  # fmt: skip
    store = Store(fresh_url, clock=clock, sleeper=clock.sleep)
    try:
        assert raw_rows(fresh_url, "SELECT version FROM schema_version") == [(schema.LATEST,)]
        tally = store.tally("ABCDEF", key)
        assert (tally.joined, tally.answered, tally.counts["0.65–0.7"]) == (2, 1, 1)
        assert store.me("ABCDEF", tokens[0]).answer == "0.66"
        assert store.answer("ABCDEF", tokens[1], "0.3") == "0–0.4"
        assert raw_rows(fresh_url, "SELECT last_answer_at FROM students WHERE id = 2") == [(START,)]
        assert store.room("abcdef").version == 1
    finally:
        store.dispose()


def test_the_first_step_builds_exactly_the_version_1_tables(fresh_url, tmp_path):
    """upgrade(target=1) gives the columns and indexes version 1 shipped (written by hand)."""
    import sqlalchemy as sa

    from classroom import schema

    engine = store_module.make_engine(fresh_url)
    with engine.begin() as conn:
        assert schema.upgrade(conn, target=1) == 1
        made = _shape(sa.inspect(conn))
    engine.dispose()
    other = f"sqlite:///{tmp_path / 'by_hand.db'}" if "sqlite" in fresh_url else None
    if other is None:
        with pg_schema() as name:
            other = with_search_path(PG_URL, name)
            build_v1(other)
            by_hand = _inspect(other)
    else:
        build_v1(other)
        by_hand = _inspect(other)
    assert made == by_hand


def _inspect(url):
    import sqlalchemy as sa

    engine = sa.create_engine(url, poolclass=sa.NullPool)
    with engine.connect() as conn:
        shape = _shape(sa.inspect(conn))
    engine.dispose()
    return shape


def _shape(inspector):
    """Each table's column names and nullability, and its index names."""
    return {
        table: (
            sorted((c["name"], c["nullable"]) for c in inspector.get_columns(table)),
            sorted(i["name"] for i in inspector.get_indexes(table)),
        )
        for table in sorted(inspector.get_table_names())
    }


def test_two_replicas_starting_at_once_make_the_tables_once(fresh_url, clock):
    """Four Stores opened at once on an empty database: none fails; the latest version."""
    errors, stores = [], []
    barrier = threading.Barrier(4)

    def start():
        barrier.wait()
        try:
            stores.append(Store(fresh_url, clock=clock, sleeper=clock.sleep))
            stores[-1].create_room()
        except Exception as error:  # the test reports any failure
            errors.append(error)

    threads = [threading.Thread(target=start) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for store in stores:
        store.dispose()
    assert errors == []
    assert raw_rows(fresh_url, "SELECT version FROM schema_version") == [(schema.LATEST,)]


def test_many_threads_answering_at_once_lose_nothing(store, room):
    """Twenty students answer from twenty threads (as Streamlit sessions do): every answer is
    committed before answer() returns."""
    ask(store, room)
    students = [store.join(room.code) for _ in range(20)]
    errors = []

    def answer(student):
        try:
            store.answer(room.code, student.token, "0.66")
        except Exception as error:  # the test reports any failure
            errors.append(error)

    threads = [threading.Thread(target=answer, args=(s,)) for s in students]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert teacher(store, room, "tally").counts["0.65–0.7"] == 20


def test_sqlite_is_in_wal_mode_with_full_sync(tmp_path, clock):
    store = Store(f"sqlite:///{tmp_path / 'w.db'}", clock=clock)
    with store._engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 2  # FULL
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() > 0
    store.dispose()


def test_a_locked_sqlite_database_is_unavailable_then_recovers(tmp_path, clock):
    """While another process holds the write lock past the busy timeout: Unavailable with a
    sentence; once it lets go, the same Store carries on."""
    import sqlite3

    path = tmp_path / "locked.db"
    store = Store(f"sqlite:///{path}", clock=clock, sleeper=clock.sleep, timeout=0.2)
    room = store.create_room()
    student = store.join(room.code)
    ask(store, room)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    started = time.monotonic()
    with pytest.raises(Unavailable, match="not saved"):
        store.answer(room.code, student.token, "0.66")
    assert time.monotonic() - started < 2
    holder.execute("ROLLBACK")
    holder.close()
    assert store.answer(room.code, student.token, "0.66") == "0.65–0.7"
    store.dispose()


@pytest.fixture
def behind_proxy(postgres, clock):
    """A Store that reaches PostgreSQL through a proxy the test controls; a room, a student and
    an open question in it."""
    proxy, url = proxied(postgres)
    store = Store(url, clock=clock, sleeper=clock.sleep)
    try:
        room = store.create_room()
        student = store.join(room.code)
        ask(store, room)
        yield proxy, store, room, student
    finally:
        store.dispose()
        proxy.stop()


def test_postgres_gone_is_unavailable_within_seconds_and_the_store_recovers(behind_proxy, clock):
    """The server's connections reset, then new ones hang, then it is back: Unavailable within
    a page's 1-s budget each time, and the same Store works again without a restart."""
    proxy, store, room, student = behind_proxy
    proxy.stop()
    for hanging in (False, True):
        proxy.hanging = hanging
        if hanging:
            proxy.start()
        started = time.monotonic()
        with pytest.raises(Unavailable):
            store.answer(room.code, student.token, "0.66")
        assert time.monotonic() - started < 1.0
        clock.sleep(store_module.RETRY_AFTER)
        proxy.stop()
    proxy.hanging = False
    proxy.start()
    assert store.answer(room.code, student.token, "0.66") == "0.65–0.7"
    assert teacher(store, room, "tally").answered == 1


def test_a_server_that_stops_answering_an_open_connection_is_unavailable_in_seconds(
    behind_proxy, clock
):
    """The pooled connections' server reads and never answers: no reset, no refusal, and its
    keepalives acknowledged, so only the client's own deadline ends the wait. Unavailable within
    a page's 1-s budget (never a hang), and the store works again once the server answers."""
    proxy, store, room, student = behind_proxy
    proxy.muted = True
    outcome: list[object] = []

    def answer() -> None:
        try:
            outcome.append(store.answer(room.code, student.token, "0.66"))
        except Exception as error:  # what the call raised is the result
            outcome.append(error)

    started = time.monotonic()
    worker = threading.Thread(target=answer, daemon=True)
    worker.start()
    worker.join(timeout=15)  # a hang fails here, not the whole suite
    elapsed = time.monotonic() - started
    assert outcome and isinstance(outcome[0], Unavailable), (outcome, elapsed)
    assert elapsed < 1.0, elapsed  # the ping's wait and the pool's fresh try, together
    proxy.muted = False
    clock.sleep(store_module.RETRY_AFTER)
    assert store.answer(room.code, student.token, "0.66") == "0.65–0.7"
    assert teacher(store, room, "tally").answered == 1


def test_a_store_made_while_the_database_is_down_starts_working_when_it_is_up(postgres, clock):
    """The constructor does not fail: the first call says Unavailable, a later one works."""
    proxy, url = proxied(postgres)
    proxy.stop()
    store = Store(url, clock=clock, sleeper=clock.sleep)
    try:
        with pytest.raises(Unavailable):
            store.create_room()
        proxy.start()
        clock.sleep(store_module.RETRY_AFTER)
        assert len(store.create_room().code) == 6
    finally:
        store.dispose()
        proxy.stop()


def test_after_postgres_was_found_down_calls_fail_at_once_then_try_again(postgres, clock):
    """One call waits (within the budget) and finds the server gone; for RETRY_AFTER the next
    calls say Unavailable without waiting (a page makes several), then a call reaches it again."""
    proxy, url = proxied(postgres)
    store = Store(url, clock=clock, sleeper=clock.sleep)
    try:
        room = store.create_room()
        proxy.hanging = True
        proxy.stop()
        proxy.start()
        store.dispose()  # no pooled connection: the next call connects to the hanging proxy
        started = time.monotonic()
        with pytest.raises(Unavailable):
            store.pulse(room.code)
        assert store_module.BUDGET - 0.1 < time.monotonic() - started < 1.0
        proxy.hanging = False
        started = time.monotonic()
        with pytest.raises(Unavailable):
            store.pulse(room.code)  # the server answers again, but the page does not wait
        assert time.monotonic() - started < 0.05
        clock.sleep(store_module.RETRY_AFTER)
        store.pulse(room.code)
    finally:
        store.dispose()
        proxy.stop()


def test_a_call_slow_on_a_working_connection_fails_alone(postgres, clock):
    """A call that waits on a connection that works (here for a row lock another transaction
    holds; under load, for a CPU) fails alone, and the next call is not turned away: only a
    database that cannot be reached shuts calls out."""
    store = Store(postgres, clock=clock, sleeper=clock.sleep)
    holder = sa.create_engine(postgres, poolclass=sa.NullPool)
    try:
        room = store.create_room()
        with holder.connect() as conn, conn.begin():
            conn.execute(
                sa.text("SELECT 1 FROM rooms WHERE code = :c FOR UPDATE"), {"c": room.code}
            )
            started = time.monotonic()
            with pytest.raises(Unavailable):
                teacher(store, room, "ask", "softmax_top")
            assert time.monotonic() - started < 1.5  # the server's lock_timeout, 1 s
            started = time.monotonic()
            assert store.pulse(room.code) >= 0  # a read: no lock needed, and not turned away
            assert time.monotonic() - started < 0.5
    finally:
        store.dispose()
        holder.dispose()


def test_a_postgres_url_gets_a_bounded_pool_and_timeouts(postgres):
    engine = store_module.make_engine(postgres)
    try:
        assert engine.pool.size() == 5 and engine.pool._max_overflow == 5
        assert engine.pool._timeout == 2.0
        with engine.connect() as conn:
            assert conn.exec_driver_sql("SHOW statement_timeout").scalar() == "1s"
            assert conn.exec_driver_sql("SELECT current_schema()").scalar() in postgres
    finally:
        engine.dispose()


def test_an_unsupported_database_or_a_private_memory_one_is_refused():
    with pytest.raises(ValueError, match="SQLite or PostgreSQL"):
        store_module.make_engine("mysql://localhost/x")
    for url in ("sqlite://", "sqlite:///:memory:"):
        with pytest.raises(ValueError, match="SQLite file"):
            store_module.make_engine(url)


def test_a_sqlite_files_folder_is_created(tmp_path, clock):
    store = Store(f"sqlite:///{tmp_path / 'new' / 'folder' / 'c.db'}", clock=clock)
    assert len(store.create_room().code) == 6
    store.dispose()


# --- where the store lives ------------------------------------------------------------------------


def test_the_url_comes_from_the_environment_first(tmp_path):
    env = {"CLASSROOM_DB_URL": "postgresql+psycopg://db/x", "CLASSROOM_DATA_DIR": str(tmp_path)}
    assert default_url(cwd=tmp_path, home=tmp_path, environ=env) == "postgresql+psycopg://db/x"


def test_the_url_comes_from_streamlit_secrets_the_projects_before_the_home_folders(tmp_path):
    project, home = tmp_path / "project", tmp_path / "home"
    for folder, name in ((project, "project"), (home, "home")):
        (folder / ".streamlit").mkdir(parents=True)
        (folder / ".streamlit" / "secrets.toml").write_text(
            f'[connections.classroom]\nurl = "postgresql+psycopg://{name}/x"\n'
        )
    assert default_url(cwd=project, home=home, environ={}) == "postgresql+psycopg://project/x"
    (project / ".streamlit" / "secrets.toml").write_text("[connections.other]\nurl = 'x'\n")
    assert default_url(cwd=project, home=home, environ={}) == "postgresql+psycopg://home/x"


def test_without_settings_the_store_is_a_sqlite_file_in_data(tmp_path):
    """data/ under the working folder (created), or $CLASSROOM_DATA_DIR."""
    url = default_url(cwd=tmp_path, home=tmp_path / "nohome", environ={})
    assert url == f"sqlite:///{tmp_path / 'data' / 'classroom.db'}"
    assert (tmp_path / "data").is_dir()
    elsewhere = tmp_path / "elsewhere"
    url = default_url(cwd=tmp_path, home=tmp_path, environ={"CLASSROOM_DATA_DIR": str(elsewhere)})
    assert url == f"sqlite:///{elsewhere / 'classroom.db'}" and elsewhere.is_dir()


def test_a_bad_answer_is_refused_at_once_without_waiting(store, room, clock):
    """Pacing applies to accepted answers: an answer that does not fit never sleeps."""
    student = store.join(room.code)
    ask(store, room)
    store.answer(room.code, student.token, "0.5")
    with pytest.raises(ValueError):
        store.answer(room.code, student.token, "lots")
    assert clock.sleeps == []


def test_a_new_store_creates_its_tables_at_the_latest_version(fresh_url, clock):
    store = Store(fresh_url, clock=clock)
    try:
        assert raw_rows(fresh_url, "SELECT version FROM schema_version") == [(schema.LATEST,)]
        tables = {row[0] for row in raw_rows(fresh_url, _TABLES_QUERY[fresh_url[:6]])}
        assert tables >= {"rooms", "students", "asked", "answers", "gone", "schema_version"}
    finally:
        store.dispose()


_TABLES_QUERY = {
    "sqlite": "SELECT name FROM sqlite_master WHERE type = 'table'",
    "postgr": "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()",
}


def test_a_room_code_already_taken_is_drawn_again(store, monkeypatch):
    """Two rooms may draw the same code: the second create_room draws another."""
    first = store.create_room()
    letters = iter(first.code + first.code + "BCDEFG")

    class Draws:
        token_urlsafe = staticmethod(store_module.secrets.token_urlsafe)

        @staticmethod
        def choice(_alphabet):
            return next(letters)

    monkeypatch.setattr(store_module, "secrets", Draws)
    second = store.create_room()
    assert second.code == "BCDEFG" != first.code
    assert store.is_teacher(first.code, first.teacher_key)


# --- refusals by code ----------------------------------------------------------------------------


def refused(call):
    """The refusal ``call`` raises."""
    with pytest.raises(classroom.Refusal) as caught:
        call()
    return caught.value


def every_refusal(store, clock, url):
    """(code, base, the refusal raised through the store) for every situation the store refuses,
    each made to happen here."""
    from classroom.store import LIFETIME

    room = store.create_room()
    key, code = room.teacher_key, room.code
    small = Store(url, clock=clock, sleeper=clock.sleep, max_students=1)
    full = small.create_room()
    small.join(full.code)
    student = store.join(code, lang="en")
    gone = store.join(code, lang="en")
    made = [
        ("no_room", LookupError, lambda: store.room("ZZZZZZ")),
        ("not_in_class", LookupError, lambda: store.me(code, "no-such-token")),
        ("not_teacher", PermissionError, lambda: store.close(code, "not-the-key")),
        ("ask_first", ValueError, lambda: store.close(code, key)),
        ("not_asked", ValueError, lambda: store.answer(code, student.token, "x")),
        ("no_question", LookupError, lambda: store.ask(code, key, "no_such_question")),
        ("class_full", ValueError, lambda: small.join(full.code)),
        ("nickname_taken", ValueError, lambda: store.rename(code, gone.token, student.nickname)),
        ("nickname_too_long", ValueError, lambda: store.rename(code, student.token, "x" * 99)),
        ("nickname_empty", ValueError, lambda: store.rename(code, student.token, "  ")),
        ("no_student", LookupError, lambda: store.remove(code, key, 10**6)),
        ("no_lesson", ValueError, lambda: store.present(code, key, "why_sqrt_d", 0)),
    ]
    found = [(name, base, refused(call)) for name, base, call in made]
    answer = partial(store.answer, code, student.token)
    store.ask(code, key, "model_fill")
    found.append(
        ("one_character", ValueError, refused(lambda: store.answer(code, student.token, "ab")))
    )
    store.ask(code, key, "softmax_top")
    found.append(("not_a_number", ValueError, refused(lambda: answer("abc"))))
    store.ask(code, key, "lab_top_key")
    found.append(("not_an_option", ValueError, refused(lambda: answer("x"))))
    store.close(code, key)
    found.append(("closed", ValueError, refused(lambda: store.answer(code, student.token, "0.5"))))
    store.remove(code, key, gone.id)
    found.append(("removed", LookupError, refused(lambda: store.me(code, gone.token))))
    store.end(code, key)
    found.append(("ended", LookupError, refused(lambda: store.room(code))))
    expiring = store.create_room()
    clock.now += LIFETIME + 1
    found.append(("expired", LookupError, refused(lambda: store.pulse(expiring.code))))
    store.create_room()  # deletes the expired room: its tombstone says so
    found.append(("expired", LookupError, refused(lambda: store.room(expiring.code))))
    small.dispose()
    return found


# The sentences a page shows, in zh and en, written here from what each situation means.
SAID = {
    "no_room": ("没有这个代码的课堂", "No class is running with that code"),
    "not_in_class": ("这部手机不在这堂课里", "This phone is not in this class"),
    "not_teacher": ("这不是这堂课的老师钥匙", "That is not the teacher's key"),
    "ask_first": ("请先出一道题", "ask one first"),
    "no_lesson": ("课程要有名字", "steps count from 1"),
    "not_asked": ("老师还没有出题", "The teacher has not asked a question yet"),
    "no_question": ("没有叫 'no_such_question' 的题目", "no question called 'no_such_question'"),
    "class_full": ("这堂课已满（1 人）", "This class is full (1 students)"),
    "nickname_taken": ("已经有人用这个昵称", "already has that nickname"),
    "nickname_too_long": ("昵称太长了：最多 24 个字符", "nickname is too long: use at most 24"),
    "nickname_empty": ("昵称是空的", "Your nickname is empty"),
    "no_student": ("班里没有这位同学", "There is no such student"),
    "one_character": ("请只输入一个字", "Type exactly one character"),
    "not_an_option": ("请从给出的答案里选一个", "Pick one of the answers shown"),
    "not_a_number": ("请输入一个数", "Type a number, like 0.25 or 39"),
    "closed": ("老师已经关闭这道题", "The teacher has closed this question"),
    "removed": ("老师已把你移出这堂课", "The teacher removed you from this class"),
    "ended": ("这堂课已经结束了", "This class has ended"),
    "expired": ("这堂课已经过期", "This class has expired"),
}


def test_every_refusal_has_its_own_code_its_base_and_its_sentence_in_both_languages(
    store, clock, url
):
    """Each situation, made to happen through the store, is refused with its own code (an
    ended class, a removed student and an expired room apart from a wrong code), keeps its
    built-in base, and the page says it in zh and en with its parameters filled in."""
    from ui.classroom.errors import said

    found = every_refusal(store, clock, url)
    assert {code for code, _, _ in found} == set(SAID)
    for code, base, error in found:
        assert (error.code, isinstance(error, base)) == (code, True), (code, error)
        zh, en = SAID[code]
        assert zh in said(error, "zh") and en in said(error, "en"), (code, said(error, "en"))
        assert "{" not in said(error, "zh") + said(error, "en")


def test_a_tombstone_keeps_nothing_but_a_code_or_a_hash_and_goes_after_a_lifetime(fresh_url, clock):
    """An ended room's tombstone is its code, the reason and two times; a removed student's, the
    token's hash; a new room after the room's lifetime forgets both, and the code is unknown."""
    from classroom.store import LIFETIME

    store = Store(fresh_url, clock=clock, sleeper=clock.sleep)
    room = store.create_room()
    student = store.join(room.code)
    store.remove(room.code, room.teacher_key, student.id)
    store.end(room.code, room.teacher_key)
    rows = raw_rows(fresh_url, "SELECT key, reason FROM gone ORDER BY reason")
    assert rows == [(room.code, "ended"), (hashlib.sha256(student.token.encode()).hexdigest(),
                                           "removed")]  # fmt: skip
    clock.now += LIFETIME + 1
    store.create_room()
    assert refused(lambda: store.room(room.code)).code == "no_room"
    assert raw_rows(fresh_url, "SELECT key FROM gone") == []
    store.dispose()


def test_an_unexpected_error_is_logged_and_never_shown(caplog):
    """A bug (a KeyError) in a class action: the page says only that it did not work, in its
    language, and the error goes to the ui.classroom logger."""
    from ui.classroom.errors import said

    with caplog.at_level("ERROR", logger="ui.classroom"):
        told = said(KeyError("student_id"), "en")
    assert told == "That did not work: please try again." and "student_id" not in told
    assert [record.name for record in caplog.records] == ["ui.classroom"]
    assert "student_id" in caplog.text
