"""URL values → settings: anything a browser can send gives sane values and a note."""

import pytest

from ui.lab.settings import MAX_TEXT_CHARS, LabParams, parse_lab
from viz_core.settings import Note, locale_to_lang, parse_lang


def test_empty_query_gives_the_defaults_and_no_notes():
    """No parameters: the articles' sentence, d = 64, scaled, no mask, seed 0, row 2 (喜)."""
    params, notes = parse_lab({})
    assert params == LabParams(
        text="我喜欢人工智能", special=True, d=64, scale=True, mask="none", seed=0, row=2
    )
    assert notes == []


def test_good_values_are_read():
    """Every key is read, with language-independent ids."""
    query = {
        "text": "我爱我家",
        "special": "false",
        "d": "1536",
        "scale": "false",
        "mask": "causal",
        "seed": "42",
        "row": "3",
    }
    params, notes = parse_lab(query)
    assert params == LabParams(
        text="我爱我家", special=False, d=1536, scale=False, mask="causal", seed=42, row=3
    )
    assert notes == []


def test_round_trip_through_the_query():
    """to_query() then parse_lab() gives the same settings back."""
    params = LabParams(
        text="a<b>&c", special=False, d=7, scale=False, mask="padding", seed=2**31 - 1, row=5
    )
    assert parse_lab(params.to_query()) == (params, [])


@pytest.mark.parametrize(
    ("raw", "used"),
    [
        ("1e400", 64),
        ("inf", 64),
        ("-inf", 64),
        ("nan", 64),
        ("NaN", 64),
        ("abc", 64),
        ("", 64),
        ("6.5", 64),
        ("0x40", 64),
        ("٦٤", 64),
        pytest.param("9" * 5000, 8192, id="5000-nines"),
        pytest.param("-" + "9" * 5000, 1, id="minus-5000-nines"),
        ("1_000", 64),
        ("0", 1),
        ("-5", 1),
        ("99999", 8192),
        ("1e5", 8192),
    ],
)
def test_bad_d_is_replaced_with_a_note(raw, used):
    """Garbage → the default; out of range → the nearest allowed value; always a note."""
    params, notes = parse_lab({"d": raw})
    assert params.d == used
    assert notes == [Note("d", str(used))]


@pytest.mark.parametrize("raw", ["64", " 64 ", "64.0", "6.4e1", "+64"])
def test_d_written_in_other_ways_is_accepted(raw):
    """Whole numbers in any spelling are fine and need no note."""
    assert parse_lab({"d": raw}) == (LabParams(d=64), [])


def test_repeated_keys_use_the_last_value():
    """?d=1&d=768: the last wins, as Streamlit's own query params do."""
    params, _ = parse_lab({"d": ["1", "768"]})
    assert params.d == 768


@pytest.mark.parametrize(
    ("key", "raw", "field", "used"),
    [
        ("seed", "-1", "seed", 0),
        ("seed", "1e400", "seed", 0),
        ("seed", str(2**40), "seed", 2**31 - 1),
        ("mask", "future", "mask", "none"),
        ("mask", "<b>causal</b>", "mask", "none"),
        ("special", "maybe", "special", True),
        ("scale", "2", "scale", True),
        ("row", "-3", "row", 0),
        ("row", "two", "row", 2),
    ],
)
def test_other_bad_values_are_replaced_with_a_note(key, raw, field, used):
    """Every key falls back to a sane value and says so."""
    params, notes = parse_lab({key: raw})
    assert getattr(params, field) == used
    assert len(notes) == 1 and notes[0].key == key


def test_case_and_spacing_of_ids_do_not_matter():
    """mask=CAUSAL and scale=False are understood."""
    params, notes = parse_lab({"mask": " CAUSAL ", "scale": "False", "special": "0"})
    assert (params.mask, params.scale, params.special, notes) == ("causal", False, False, [])


def test_long_text_is_cut_with_a_note():
    """A 10,000-character sentence keeps its first MAX_TEXT_CHARS characters."""
    params, notes = parse_lab({"text": "字" * 10_000})
    assert params.text == "字" * MAX_TEXT_CHARS
    assert notes == [Note("text", str(MAX_TEXT_CHARS))]


def test_text_is_taken_literally():
    """Markup in the text is kept as characters: escaping is the page's job, not the parser's."""
    payload = "![x](http://e.com/x.png) <script>alert(1)</script> :red[x] $x$"
    assert parse_lab({"text": payload})[0].text == payload


@pytest.mark.parametrize(
    ("query", "default", "lang", "noted"),
    [
        ({}, "en", "en", False),
        ({"lang": "zh"}, "en", "zh", False),
        ({"lang": "EN"}, "zh", "en", False),
        ({"lang": "fr"}, "zh", "zh", True),
        ({"lang": ["en", "xx"]}, "zh", "zh", True),
    ],
)
def test_language(query, default, lang, noted):
    """?lang= wins when it is zh or en; anything else falls back with a note."""
    value, notes = parse_lang(query, default)
    assert value == lang
    assert bool(notes) is noted


@pytest.mark.parametrize(
    ("locale", "lang"),
    [("en-US", "en"), ("en", "en"), ("zh-CN", "zh"), ("fr-FR", "zh"), (None, "zh")],
)
def test_browser_locale(locale, lang):
    """English browsers get English; everyone else Chinese, the articles' language."""
    assert locale_to_lang(locale) == lang
