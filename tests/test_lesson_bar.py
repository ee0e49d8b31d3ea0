"""A lesson on any page: ?lesson=ID&step=N opens that step's view exactly, with a bar (titles,
N / total, ← →, notes); ← and → open the steps before and after exactly, the address keeps the
lesson, the step and the view's settings; a link's own settings win over values carried from
the page before; the keys ←/→ and PageUp/PageDown step through it in a browser."""

import html
import re

import pytest
from browser_support import wait_idle
from conftest import open_app

from ui.kit.lessons import lessons

LESSON = "why_sqrt_d"


def bar_text(at):
    """The bar's title line: "<lesson> · N / total · <step>", or None when there is no bar."""
    bodies = [html.unescape(re.sub(r"<[^>]+>", "", e.proto.body)) for e in at.get("html")]
    return next((body for body in bodies if " / " in body and " · " in body), None)


def assert_on_step(at, number, lang="en"):
    """The bar names step ``number`` and the address holds the lesson, the step and every
    setting of the step's view, as the view writes it."""
    lesson = lessons()[LESSON]
    step = lesson.steps[number - 1]
    total = len(lesson.steps)
    assert bar_text(at) == f"{lesson.title[lang]} · {number} / {total} · {step.title[lang]}"
    assert at.query_params["lesson"] == LESSON and at.query_params["step"] == str(number)
    for key, value in step.query.items():
        assert at.query_params[key] == value, (number, key)


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("number", [1, 2, 7])
def test_a_step_s_link_opens_that_step_for_anyone(number, lang):
    """Opened fresh from the default page, ?lesson=why_sqrt_d&step=N shows step N's page with
    its view's settings and the bar."""
    at = open_app("lab", lang=lang, lesson=LESSON, step=str(number))
    assert_on_step(at, number, lang)


def test_the_arrows_step_through_the_lesson_each_view_exactly():
    """→ through every step and ← back to the first: each step's view exactly, whatever the
    step before set (step 6's d = 1,536 in the lab does not follow to /train's d = 64); the
    first step has no ← and the last no →."""
    at = open_app("lab", lang="en", lesson=LESSON, step="1")
    assert at.button(key="lesson_prev").disabled
    total = len(lessons()[LESSON].steps)
    for number in range(2, total + 1):
        at.button(key="lesson_next").click().run()
        assert not at.exception
        assert_on_step(at, number)
    assert at.button(key="lesson_next").disabled
    for number in range(total - 1, 0, -1):
        at.button(key="lesson_prev").click().run()
        assert_on_step(at, number)


def test_a_step_shows_its_notes_and_the_bar_can_be_left():
    at = open_app("lab", lang="zh", lesson=LESSON, step="2")
    bodies = [html.unescape(e.proto.body) for e in at.get("html")]
    assert any(lessons()[LESSON].steps[1].notes["zh"] in body for body in bodies)
    at.button(key="lesson_leave").click().run()
    assert bar_text(at) is None and "lesson" not in at.query_params


@pytest.mark.parametrize(
    ("query", "step"), [({"lesson": "nope"}, None), ({"lesson": LESSON, "step": "99"}, 1),
                        ({"lesson": LESSON, "step": "<b>"}, 1)]
)  # fmt: skip
def test_a_bad_lesson_link_gets_a_note_and_the_page_still_works(query, step):
    """An unknown lesson opens the page without a bar; a step past the end or not a number
    opens step 1; each with a note, never a traceback."""
    at = open_app("lab", lang="en", **query)
    assert at.info, "a note says the link's value was not used"
    if step is None:
        assert bar_text(at) is None
    else:
        assert_on_step(at, step)


def test_a_link_s_own_settings_win_over_values_carried_from_the_page_before():
    """/train?d=1024 reached from the lab at d = 64 in the same session shows 1,024 (the link's),
    not the carried 64."""
    at = open_app("lab", lang="en", d="64")
    for key in list(at.query_params):
        del at.query_params[key]
    at.query_params["d"] = "1024"
    at.switch_page("ui/train/page.py").run()
    assert at.query_params["d"] == "1024"


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_keys_step_through_the_lesson_on_a_projector(opened, lang):
    """At 1280 × 720 in presenter mode: →, PageDown, ← and PageUp (what a clicker sends) move
    one step each, the address and the bar follow; a key typed in a text box does not."""
    tab = opened("projector", f"?lang={lang}&lesson={LESSON}&step=1", ".st-key-lesson_bar")
    tab.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']")
    tab.wait_for_timeout(1500)
    lesson = lessons()[LESSON]

    def on(number):
        # the address as the page wrote it (history.replaceState: Playwright's url lags it)
        step = "n => new URLSearchParams(location.search).get('step') === String(n)"
        tab.wait_for_function(step, arg=number, timeout=30_000)
        title = f"{number} / {len(lesson.steps)} · {lesson.steps[number - 1].title[lang]}"
        tab.wait_for_function(
            "t => document.querySelector('.st-key-lesson_bar').textContent.includes(t)",
            arg=title, timeout=30_000,
        )  # fmt: skip

    for key, number in (("ArrowRight", 2), ("PageDown", 3), ("ArrowLeft", 2), ("PageUp", 1)):
        tab.keyboard.press(key)
        on(number)
        wait_idle(tab, settle_ms=800)  # a page reruns itself as it draws: a click amid is lost
    box = tab.locator("textarea, input[type=text]").first
    box.focus()
    tab.keyboard.press("ArrowRight")
    tab.wait_for_timeout(1500)
    assert tab.evaluate("new URLSearchParams(location.search).get('step')") == "1"


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("number", [1, 6])
def test_a_lab_step_fits_a_projector_below_the_bar(opened, lang, number):
    """why_sqrt_d's lab steps at 1280 × 720 in presenter mode, the bar above them: the weights
    heatmap, the row's table and its verdict all end inside 720 px (the bar and the hidden
    title and "about" take no room of theirs)."""
    tab = opened("projector", f"?lang={lang}&lesson={LESSON}&step={number}",
                 ".st-key-lab_row_numbers table")  # fmt: skip
    tab.wait_for_selector(".st-key-weights_heatmap .nsewdrag", timeout=30_000)
    bottoms = tab.evaluate(
        """() => Object.fromEntries(['.st-key-lesson_bar', '.st-key-weights_heatmap .nsewdrag',
             '.st-key-lab_row_numbers table', '.st-key-lab_row_verdict p'].map(s => {
             const e = document.querySelector(s);
             return [s, e ? e.getBoundingClientRect().bottom : null]; }))"""
    )
    assert all(bottom is not None and bottom <= 720 for bottom in bottoms.values()), bottoms
