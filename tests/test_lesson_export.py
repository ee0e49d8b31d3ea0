"""A lesson as one offline file (ui/lesson/export.py): every shipped lesson in both languages fits
6 MB with Plotly inlined once and nothing to fetch; its figures are the app's own numbers; a
teacher's title cannot break out of the file's script; the command line writes it; in a real
browser with the network off it draws each step's figures and steps with a clicker's keys."""

import json
import re
import subprocess
import sys
from functools import cache

import numpy as np
import pytest
from conftest import ROOT, decode, figure, open_app

from ui.kit.figures import format_value
from ui.kit.lessons import custom_lesson, lessons, steps_token
from ui.lesson import export
from viz_core import make_qkv

SHIPPED = [(lesson_id, lang) for lesson_id in lessons() for lang in ("zh", "en")]
PAYLOAD = re.compile(r'<script type="application/json" id="lesson">(.*?)</script>', re.S)
EVIL = "</script><script>alert(1)</script>"
# What would make a browser fetch something: a script, a style sheet, an image or a frame from
# elsewhere, a CSS url() or @import.
FETCHES = re.compile(r"<(script|img|iframe|link)\b[^>]*\b(src|href)\s*=|url\(|@import", re.I)


@cache
def exported(lesson_id: str, lang: str) -> str:
    """The lesson's file, exported once per test process."""
    return export.lesson_html(lessons()[lesson_id], lang)


def payload(html: str) -> dict:
    """The lesson's data as the file's script reads it."""
    found = PAYLOAD.findall(html)
    assert len(found) == 1
    return json.loads(found[0])


def markup(html: str) -> str:
    """The file without Plotly's JavaScript (which names map servers it never calls here)."""
    plotly = export.plotly_js()
    assert html.count(plotly) == 1
    return html.replace(plotly, "")


@pytest.mark.parametrize(("lesson_id", "lang"), SHIPPED)
def test_a_shipped_lesson_is_one_file_of_at_most_6_mb_with_plotly_once(lesson_id, lang):
    """UTF-8, at most 6 MB, Plotly's JavaScript inlined exactly once, in the page's language."""
    html = exported(lesson_id, lang)
    assert len(html.encode("utf-8")) <= export.MAX_BYTES == 6 * 1024 * 1024
    assert html.count(export.plotly_js()) == 1
    assert markup(html).count("plotly.js v") == 0  # no second copy, not even a part of one
    assert f'<html lang="{export.HTML_LANG[lang]}">' in html
    assert '<meta charset="utf-8">' in html


@pytest.mark.parametrize(("lesson_id", "lang"), SHIPPED)
def test_a_shipped_lesson_has_a_section_per_step_with_its_title_and_notes(lesson_id, lang):
    """One section per step; the data holds each step's title and notes in the language, and
    figures for every step whose page draws one (the quiz's article section draws none)."""
    lesson = lessons()[lesson_id]
    html = exported(lesson_id, lang)
    data = payload(html)
    assert markup(html).count('<section class="step"') == len(lesson.steps)
    assert data["title"] == lesson.title[lang]
    assert [step["title"] for step in data["steps"]] == [s.title[lang] for s in lesson.steps]
    assert [step["notes"] for step in data["steps"]] == [s.notes[lang] for s in lesson.steps]
    for step, shown in zip(lesson.steps, data["steps"], strict=True):
        assert bool(shown["wide"]) == (step.page != "quiz"), step.view
        assert len(shown["phone"]) == len(shown["wide"])


@pytest.mark.parametrize(("lesson_id", "lang"), SHIPPED)
def test_a_shipped_lesson_fetches_nothing(lesson_id, lang):
    """No script, style sheet, image or frame from elsewhere, no CSS url(); an address only as
    plain text (the Tatoeba credit); no LaTeX for MathJax; no Plotly logo or cloud links."""
    html = markup(exported(lesson_id, lang))
    assert FETCHES.findall(html) == []
    data = payload(html)
    figures = json.dumps([step["wide"] + step["phone"] for step in data["steps"]])
    assert "http" not in figures and not re.search(r"\$[^$]+\$", figures)
    steps = [{key: text for key, text in step.items() if key not in ("wide", "phone")}
             for step in data["steps"]]  # fmt: skip
    texts = json.dumps(data | {"steps": steps}, ensure_ascii=False)
    assert re.findall(r"https?://[^\s)），]+", texts) == ["https://tatoeba.org"]
    config = data["config"]
    assert config["displaylogo"] is False and config["typesetMath"] is False
    assert config["showLink"] is False and config["showEditInChartStudio"] is False


def test_a_step_that_shows_a_trained_model_credits_tatoeba():
    """The steps of the trained models say where their sentences come from; the others not."""
    data = payload(exported("what_attention_learns", "en"))
    assert [step["trained"] for step in data["steps"]] == [True, True, True, False, True, False]
    assert data["texts"]["tatoeba"] == (
        "Sentences from Tatoeba (https://tatoeba.org), CC-BY 2.0 FR"
    )


# --- the figures are the app's -----------------------------------------------------------------


def step_figures(view: str, lang: str = "en") -> list[dict]:
    """The wide figures of a one-step lesson of ``view``."""
    lesson = custom_lesson(steps_token([[view, "step"]]))
    return export.step_data(lesson.steps[0], lang)["wide"]


def numpy_weights(d: int, scale: bool) -> np.ndarray:
    """The sentence's softmax weights by numpy, from the app's seeded Q and K."""
    q, k, _ = make_qkv(["[CLS]", *"我喜欢人工智能", "[SEP]"], d)
    scores = q @ k.T / (np.sqrt(d) if scale else 1.0)
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    return weights / weights.sum(axis=1, keepdims=True)


def test_the_lab_step_s_weights_are_numpys_softmax_of_the_apps_q_and_k():
    """/lab?d=1536&scale=false&stage=weights: the heatmap's cells are numpy's softmax of the
    seeded Q Kᵀ, its printed numbers and hover values the ones the app shows, and the row's
    bars are 喜's row (row 2) of it."""
    heatmap, bars = step_figures("/lab?d=1536&scale=false&stage=weights")
    expected = numpy_weights(1536, scale=False)
    cells = heatmap["data"][0]
    np.testing.assert_allclose(decode(cells["z"]), expected, rtol=0, atol=1e-12)
    assert cells["text"] == [[f"{w:.2f}" for w in row] for row in expected]
    hover = [cell[2] for cell in heatmap["data"][1]["customdata"]]  # the click layer's, by row
    assert hover == [format_value(w) for w in expected.ravel()]
    np.testing.assert_allclose(decode(bars["data"][0]["y"]), expected[2], rtol=0, atol=1e-12)
    np.testing.assert_allclose(
        decode(bars["data"][1]["y"]), numpy_weights(1536, scale=True)[2], rtol=0, atol=1e-12
    )


def test_the_scaling_histogram_step_draws_what_the_page_draws():
    """/scaling?d=1536&section=histogram: the same traces (samples, bins, colours, names) as the
    page's own chart of that link, under the app."""
    view = {"d": "1536", "section": "histogram"}
    app = figure(open_app("scaling", **view), "dot_histogram")
    (ours,) = step_figures("/scaling?d=1536&section=histogram")
    assert len(ours["data"]) == len(app["data"]) == 2
    for mine, theirs in zip(ours["data"], app["data"], strict=True):
        np.testing.assert_array_equal(decode(mine["x"]), decode(theirs["x"]))
        rest = {key for key in theirs if key != "x"}
        assert {key: mine[key] for key in rest} == {key: theirs[key] for key in rest}


def test_a_page_without_a_figure_shows_its_text_only():
    """The quiz's article section has no figure: the step keeps its title, and no figure."""
    lesson = custom_lesson(steps_token([["/quiz?section=article", "Q1"]]))
    data = payload(export.lesson_html(lesson, "zh"))
    assert data["steps"][0]["title"] == "Q1" and data["steps"][0]["wide"] == []


# --- a teacher's own lesson: user text ---------------------------------------------------------


def test_a_title_cannot_end_the_files_script():
    """A custom lesson titled ``</script><script>alert(1)</script>``: the file holds no such
    tag (<, > and & are escaped inside the JSON), its data gives the title back exactly, and
    the script puts every text in with textContent, never innerHTML."""
    token = steps_token([["/lab?stage=weights", EVIL], [f"/lab?text={EVIL}", "&amp; <b>"]])
    html = export.lesson_html(custom_lesson(token), "en")
    page = markup(html)
    assert "alert(1)</script>" not in page and "<script>alert" not in page
    assert page.count("<script") == 3  # the data, Plotly, the page's own
    data = payload(html)
    assert [step["title"] for step in data["steps"]] == [EVIL, "&amp; <b>"]
    assert "innerHTML" not in export.TEMPLATE.read_text(encoding="utf-8")


# --- the command line --------------------------------------------------------------------------


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ui.lesson.export", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


@pytest.mark.slow  # starts Python
def test_the_command_writes_the_file_and_says_where(tmp_path):
    """``python -m ui.lesson.export ID --lang en -o FILE`` writes the file, prints its path and
    size, and exits 0."""
    path = tmp_path / "lesson.html"
    result = run_cli("softmax_two_steps", "--lang", "en", "-o", str(path))
    assert result.returncode == 0, result.stderr
    assert path.read_text(encoding="utf-8").startswith("<!doctype html>")
    assert str(path) in result.stdout and f"{path.stat().st_size:,}" in result.stdout


@pytest.mark.slow  # starts Python
def test_the_command_refuses_an_unknown_lesson_with_exit_code_2(tmp_path):
    """An id that is no shipped lesson: a message naming it and the lessons there are, exit 2,
    and no file."""
    path = tmp_path / "lesson.html"
    result = run_cli("no_such_lesson", "--lang", "en", "-o", str(path))
    assert result.returncode == 2
    assert "no_such_lesson" in result.stderr and "why_sqrt_d" in result.stderr
    assert not path.exists()


# --- in a real browser, offline ----------------------------------------------------------------

VISIBLE = "main > section.step:not([hidden])"


def visible_step(tab) -> int:
    """The number (from 1) of the one visible step; fails unless exactly one is visible."""
    shown = tab.evaluate(
        """() => [...document.querySelectorAll('main > section.step')]
                 .map((s, i) => s.hidden ? -1 : i + 1).filter(i => i > 0)"""
    )
    assert len(shown) == 1, shown
    return shown[0]


def drawn(tab, step: int) -> int:
    """How many figures of step ``step`` Plotly has drawn."""
    return tab.locator(f"main > section.step:nth-of-type({step}) .main-svg").count()


@pytest.mark.browser
def test_the_file_works_offline_in_chromium_with_a_clickers_keys(tmp_path):
    """why_sqrt_d from a file:// path with the network off: nothing is requested from elsewhere;
    step 1's figures are drawn, step 2's only once it is shown; →, PageDown, ← and PageUp move
    one step each; a teacher's title shows as text and runs nothing; no console errors."""
    from browser_support import launch, require_browser

    require_browser()
    from playwright.sync_api import sync_playwright

    path = tmp_path / "why_sqrt_d.html"
    path.write_text(exported("why_sqrt_d", "zh"), encoding="utf-8")
    evil = tmp_path / "evil.html"
    token = steps_token([["/softmax", EVIL]])
    evil.write_text(export.lesson_html(custom_lesson(token), "en"), encoding="utf-8")
    with sync_playwright() as playwright:
        chromium = launch(playwright)
        context = chromium.new_context(viewport={"width": 1280, "height": 720})
        context.set_offline(True)
        outside, problems = [], []

        def refuse(route):
            if route.request.url.startswith("file://"):
                route.continue_()
            else:
                outside.append(route.request.url)
                route.abort()

        context.route("**/*", refuse)
        tab = context.new_page()
        tab.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        tab.on("pageerror", lambda error: problems.append(str(error)))
        tab.on("dialog", lambda dialog: (problems.append(dialog.message), dialog.dismiss()))
        tab.goto(path.as_uri())
        tab.wait_for_selector(f"{VISIBLE} .main-svg")
        assert visible_step(tab) == 1 and drawn(tab, 1) >= 2  # the heatmap and the row's bars
        assert drawn(tab, 2) == 0  # drawn when shown
        for key, expected in [("ArrowRight", 2), ("PageDown", 3), ("ArrowLeft", 2), ("PageUp", 1)]:
            tab.keyboard.press(key)
            tab.wait_for_selector(f"main > section.step:nth-of-type({expected}) .main-svg")
            assert visible_step(tab) == expected, key
        assert drawn(tab, 2) >= 1 and drawn(tab, 3) >= 1
        tab.goto(evil.as_uri())
        tab.wait_for_selector(f"{VISIBLE} .main-svg")
        assert tab.locator(f"{VISIBLE} h2").text_content() == EVIL
        chromium.close()
    assert outside == [] and problems == []
