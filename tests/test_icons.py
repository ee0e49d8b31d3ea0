"""Icons that always draw: nothing the app itself draws needs an emoji font.

Without ``fonts-noto-color-emoji`` an emoji draws as an empty box, so every icon is one of
Streamlit's bundled Material icons and every label is plain text. User text may hold emoji; the
app's own navigation, buttons, links and alerts may not.
"""

import ast
import json
import re

import pytest
import regex
from conftest import ROOT, open_app
from streamlit.material_icon_names import ALL_MATERIAL_ICONS

from ui.kit.pages import PAGES
from ui.kit.text import load, t
from viz_core.settings import LANGUAGES

EMOJI = regex.compile(r"[\p{Extended_Pictographic}\uFE0F]")  # U+FE0F: "draw as emoji"
MATERIAL = re.compile(r":material/([a-z0-9_]+):")
UI_CODE = sorted((ROOT / "ui").rglob("*.py"))
UI_STRINGS = sorted((ROOT / "ui").rglob("strings.toml"))


def emoji_in(texts):
    """The texts that hold an emoji code point, each with the code points found."""
    return {
        text: [f"U+{ord(c):04X}" for c in EMOJI.findall(text)]
        for text in texts
        if EMOJI.search(text)
    }


def is_material(icon: str) -> bool:
    """Whether ``icon`` is exactly one Material icon that Streamlit 1.67 bundles."""
    match = MATERIAL.fullmatch(icon)
    return bool(match) and match.group(1) in ALL_MATERIAL_ICONS


def shown_texts(at):
    """Every label and icon of the page's buttons, popovers, page links and Plotly play buttons,
    and the icon and body of every alert (info, warning, success, error)."""
    texts = []
    for button in at.get("button"):
        texts += [button.proto.label, button.proto.icon]
    for popover in at.get("popover"):
        texts += [popover.proto.popover.label, popover.proto.popover.icon]
    for link in at.get("page_link"):
        texts += [link.proto.label, link.proto.icon]
    for kind in ("info", "warning", "success", "error"):
        for alert in at.get(kind):
            texts += [alert.proto.body, alert.proto.icon]
    for chart in at.get("plotly_chart"):
        for menu in json.loads(chart.proto.spec).get("layout", {}).get("updatemenus", []):
            texts += [button.get("label", "") for button in menu.get("buttons", [])]
    return texts


def test_the_page_icons_are_bundled_material_icons():
    """Each page's navigation icon is a Material icon Streamlit bundles, not an emoji."""
    assert [page.path for page in PAGES if not is_material(page.icon)] == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_navigation_titles_hold_no_emoji(lang):
    """The navigation's page titles (the nav_* strings) are plain text in both languages."""
    titles = [t(page.title_key, lang) for page in PAGES]
    assert all(titles) and emoji_in(titles) == {}


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("page", [page.path for page in PAGES])
def test_what_a_page_draws_holds_no_emoji(page, lang):
    """Opened in either language, a page's buttons, popovers, page links, play buttons and alerts
    carry no emoji, in their labels, icons or bodies; every icon they have is a Material one."""
    at = open_app(page, lang=lang)
    texts = shown_texts(at)
    assert any(texts), "the page shows no button, link or alert at all"  # the share popover
    assert emoji_in(texts) == {}
    icons = [text for text in texts if text.startswith(":material")]
    assert icons and [icon for icon in icons if not is_material(icon)] == []


def nodes(path):
    """Every node of a Python file's syntax tree."""
    return ast.walk(ast.parse(path.read_text(encoding="utf-8")))


def test_every_icon_argument_in_the_ui_is_a_material_icon():
    """Every ``icon=`` the UI's code passes to Streamlit is a literal bundled Material icon, also
    for alerts only an unusual link or sentence shows, or a page's own icon from PAGES."""
    wrong = [
        f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(keyword.value)}"
        for path in UI_CODE
        for node in nodes(path)
        if isinstance(node, ast.Call)
        for keyword in node.keywords
        if keyword.arg == "icon"
        and not (isinstance(keyword.value, ast.Constant) and is_material(str(keyword.value.value)))
        and ast.unparse(keyword.value) != "page.icon"  # a page's, from PAGES: checked above
    ]
    assert wrong == []


def test_no_string_in_the_ui_code_holds_an_emoji():
    """No string literal in ui/**/*.py (button labels, figure titles) holds an emoji."""
    found = [
        f"{path.relative_to(ROOT)}:{node.lineno}: {emoji_in([node.value])}"
        for path in UI_CODE
        for node in nodes(path)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and EMOJI.search(node.value)
    ]
    assert found == []


def test_no_string_in_the_strings_files_holds_an_emoji():
    """Every zh and en value of every ui/**/strings.toml (labels, alert bodies, play buttons,
    navigation titles) is plain text: whatever the app shows of its own draws without emoji."""
    found = {}
    for path in UI_STRINGS:
        for key, table in load(path).items():
            for lang in LANGUAGES:
                if hits := emoji_in([table[lang]]):
                    found[f"{path.relative_to(ROOT)} {key}.{lang}"] = list(hits.values())
    assert UI_STRINGS
    assert found == {}
