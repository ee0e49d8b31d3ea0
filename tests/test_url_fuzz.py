"""URL fuzzing of every page: whatever a link carries, no exception and no rendered user text."""

import pytest
from conftest import markdown_texts, open_app

from ui.kit.pages import PAGES, url_keys

# Every URL key of every page, read from PAGES and the settings declarations: a new page or key
# is fuzzed without an edit here.
PAGE_KEYS = {page.path: list(url_keys(page)) for page in PAGES}
HOSTILE = {
    "garbage": "x7#q%",
    "negative": "-5",
    "zero": "0",
    "huge": "9" * 400,
    "1e400": "1e400",
    "nan": "nan",
    "inf": "inf",
    "empty": "",
    "long": "字" * 10_000,
    "markdown": "![x](http://e.com/x.png) **b** :red[x] $x$ [link](javascript:alert(1))",
    "html": "<script>alert(1)</script><img src=x onerror=alert(1)><b>bold</b>",
    "control": "a\x00b\x07\u202eRTL\u200f\u2066c\ufeff",
}
# Keys for which "2" is a valid value whatever the other keys say (with text "2" and d = 2).
TAKES_TWO = {"text", "d", "seed", "row", "heads", "temperature", "values", "divisor", "step"}
TAKES_TWO |= {"quiz_seed", "fill_temperature", "block", "window", "q_heads", "kv_heads"}
TOO_SMALL = {"train": {"d"}}  # a trained head's d_k starts at 4
RENDERED = ["![x]", "**b**", ":red[", "$x$", "<script", "<img", "<b>", "javascript:"]


@pytest.mark.parametrize("page", list(PAGE_KEYS))
@pytest.mark.parametrize("value", list(HOSTILE), ids=list(HOSTILE))
def test_hostile_value_in_every_key_of_a_page(page, value):
    """Every key of the page gets the same hostile value: the page runs and escapes it."""
    at = open_app(page, **dict.fromkeys(PAGE_KEYS[page], HOSTILE[value]))
    for text in markdown_texts(at):
        for piece in RENDERED:
            assert piece not in text, (piece, text[:200])
    for element in at.get("html"):
        assert "<script" not in element.value and "<img" not in element.value
        assert "<b>bold" not in element.value


@pytest.mark.parametrize("page", list(PAGE_KEYS))
def test_repeated_keys(page):
    """?key=a&key=b for every key: the last value is used (a readable first value is ignored, an
    unreadable first value gives no note), nothing breaks."""
    query = {key: ["1e400", "2"] for key in PAGE_KEYS[page]}
    at = open_app(page, **query)
    for key in (TAKES_TWO & set(PAGE_KEYS[page])) - TOO_SMALL.get(page, set()):
        assert at.query_params[key] == "2", key  # the first value would have given the default


def test_unknown_keys_are_ignored():
    """Keys the app does not know do nothing."""
    open_app(evil="<script>", utm_source="x", **{"": "y"})
