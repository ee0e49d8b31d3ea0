"""One strings table, complete in Chinese and English."""

import importlib
import re
import string

import pytest
from conftest import ROOT

from ui.kit.text import STRINGS, t

# Each page adds its strings when its package is imported: import every page folder.
for _folder in sorted((ROOT / "ui").glob("*/__init__.py")):
    importlib.import_module(f"ui.{_folder.parent.name}")


def fields(text):
    """The {placeholders} of a format string."""
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


@pytest.mark.parametrize("key", sorted(STRINGS))
def test_every_string_exists_in_both_languages_with_the_same_fields(key):
    """zh and en are present, non-empty, and take the same placeholders."""
    entry = STRINGS[key]
    assert set(entry) == {"zh", "en"}
    assert entry["zh"].strip() and entry["en"].strip()
    assert fields(entry["zh"]) == fields(entry["en"])


def test_every_key_the_code_uses_exists():
    """Each literal t("…") in the UI code names a string of the table."""
    used = set()
    for path in [ROOT / "dashboard.py", *(ROOT / "ui").rglob("*.py")]:
        used |= set(re.findall(r'\bt\(\s*"([a-z0-9_]+)"', path.read_text(encoding="utf-8")))
    assert used, "no t() calls found: the pattern is out of date"
    assert sorted(used - set(STRINGS)) == []


def test_chinese_strings_are_chinese():
    """The zh text of a sentence-like string holds Chinese characters (not an English copy)."""
    same_on_purpose = {"matrix_q", "matrix_k", "matrix_v"}
    for key, entry in STRINGS.items():
        if key not in same_on_purpose and len(entry["en"]) > 12:
            assert re.search(r"[\u4e00-\u9fff]", entry["zh"]), key


def test_unknown_language_falls_back_to_chinese():
    """t() never raises for a language it does not know."""
    assert t("app_title", "fr") == STRINGS["app_title"]["zh"]


def test_no_english_string_hedges_a_plural():
    """ "m rose 1 time(s)": each English string is phrased to read right for any count."""
    assert {key: text["en"] for key, text in STRINGS.items() if "(s)" in text["en"]} == {}
