"""/softmax at a lesson: the articles' examples are one pick away and a pick closes
their list, which fits the first screen of a laptop, a projector and a phone; on a phone the
tables and formulas fit the width. Settings under AppTest, sizes in real Chromium."""

import re
from urllib.parse import parse_qs, urlparse

import numpy as np
import pytest
from browser_support import count_runs, overlapping
from browser_support import wait_idle as wait_run
from conftest import open_app

# Every example a teacher picks, written from the articles: (the numbers, the divisor).
EXAMPLES = {
    "basic": ("2.0, 1.0, 0.1", "1"),
    "winner": ("20, 10, 1", "1"),
    "flat": ("0.02, 0.01, 0.01", "1"),
    "mild": ("10, 11, 9", "1"),
    "sharp": ("40, 44, 36", "1"),
    "xi_raw": ("15.3, 22.7, 18.2, 2.1, 1.8, 3.2, 2.9, 5.6, 4.1", "1"),
    "xi_8": ("15.3, 22.7, 18.2, 2.1, 1.8, 3.2, 2.9, 5.6, 4.1", "8"),
    "five_raw": ("15.3, 22.7, 18.2, 2.1, 1.8", "1"),
    "five_8": ("15.3, 22.7, 18.2, 2.1, 1.8", "8"),
    "grad_raw": ("20, -10, 5", "1"),
    "grad_8": ("20, -10, 5", "8"),
    "overflow": ("1000, 999", "1"),
}


def softmax(x, c=1.0):
    """softmax(x / c), written out: e^(s − max s) / Σ e^(s − max s)."""
    s = np.asarray(x, dtype=float) / c
    e = np.exp(s - s.max())
    return e / e.sum()


# --- AppTest: what a pick sets --------------------------------------------------------------


def blocks(node):
    """Every block below ``node`` in an AppTest tree."""
    for child in getattr(node, "children", {}).values():
        yield child
        yield from blocks(child)


def examples_list(at):
    """The popover that holds the articles' examples (the one whose buttons are theirs)."""
    (found,) = [
        block
        for block in blocks(at._tree)
        if getattr(block, "type", None) == "popover"
        and any(key_of(node) == "softmax_basic" for node in blocks(block))
    ]
    return found


def key_of(node):
    """A widget's own key: its id is ``$$ID-<hash>-<key>``."""
    widget_id = getattr(getattr(node, "proto", None), "id", "") or ""
    return widget_id.split("-", 2)[2] if widget_id.count("-") >= 2 else None


def is_open(at):
    return examples_list(at).proto.popover.open


@pytest.mark.parametrize("name", list(EXAMPLES))
def test_each_example_is_one_pick_that_sets_its_numbers_and_closes_the_list(name):
    """The list is opened (one click), an example picked (a second): the link's numbers and
    divisor are the example's, the gradient's target goes back to the largest entry, the
    section shown stays, and the list is closed, no longer over the chart."""
    at = open_app("softmax", lang="en", values="3, 1, 0.2", target="2", section="gradient")
    popover = examples_list(at).proto
    assert popover.popover.id, "a list that nothing can close: it must know whether it is open"
    at.session_state[popover.popover.id.split("-", 2)[2]] = True  # the teacher opens it
    at.run()
    assert is_open(at)
    keys = {key_of(node) for node in blocks(examples_list(at))} - {None}
    assert {f"softmax_{example}" for example in EXAMPLES} <= keys  # every example is in it
    at.button(key=f"softmax_{name}").click().run()
    values, divisor = EXAMPLES[name]
    assert dict(at.query_params) == {
        "values": values, "divisor": divisor, "target": "-1", "section": "gradient", "lang": "en"
    }  # fmt: skip
    assert not is_open(at)
    assert not at.exception


def test_the_step_table_shows_the_articles_precision_and_the_exact_sum():
    """The 喜 row ÷ 8: x ÷ c exact (1.9125, as the article), e^(x/c − m) to 4 significant
    digits (the article's 6.77 has 3), p to 5 decimals (the article's 0.99998), all computed
    here by hand; each column is headed by a short name with its words as a tooltip."""
    values, divisor = EXAMPLES["xi_8"]
    at = open_app("softmax", lang="en", values=values, divisor=divisor, section="table")
    table = at.dataframe[0].value
    x = np.array([15.3, 22.7, 18.2, 2.1, 1.8, 3.2, 2.9, 5.6, 4.1])
    assert list(table.columns) == ["entry", "x", "x ÷ c", "− max", "exp", "p"]
    assert list(table["x ÷ c"])[:2] == ["1.9125", "2.8375"]
    assert list(table["exp"]) == [f"{v:.4g}" for v in np.exp(x / 8 - (x / 8).max())]
    assert list(table["p"]) == [f"{v:.5f}" for v in softmax(x, 8)]


# --- real Chromium: sizes, fit, taps ---------------------------------------------------------

PHONE_AGENT = (
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/131.0.0.0 Mobile Safari/537.36"
)
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 2, "user_agent": PHONE_AGENT}  # fmt: skip
SCREENS = {  # name: (context options, query)
    "phone": (PHONE, ""),
    "laptop": ({"viewport": {"width": 1280, "height": 720}}, ""),
    "laptop-wide": ({"viewport": {"width": 1366, "height": 768}}, ""),
    "projector": ({"viewport": {"width": 1280, "height": 720}}, "&present=true"),
}
LIST = "[data-testid=stPopoverBody]:has(.st-key-softmax_basic)"
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"


def open_softmax(browser, screen, query):
    """A fresh window of ``screen`` on /softmax?``query``, drawn."""
    base, chromium = browser
    options, extra = SCREENS[screen]
    context = count_runs(chromium.new_context(**options))
    tab = context.new_page()
    tab.goto(f"{base}/softmax?{query}{extra}")
    wait_run(tab, settle_ms=800)
    tab.wait_for_selector(".st-key-softmax_bars .main-svg", timeout=30_000)
    return context, tab


def open_list(tab):
    """Click the examples' button; wait until the list is shown and any run it made is over."""
    tab.locator("[data-testid=stPopoverButton]").first.click()
    tab.wait_for_selector(LIST, timeout=10_000)
    tab.wait_for_timeout(300)
    tab.wait_for_selector(IDLE, state="attached", timeout=30_000)
    tab.wait_for_timeout(500)


LIST_BOXES = """(selector) => {
  const body = document.querySelector(selector);
  const box = e => { const r = e.getBoundingClientRect();
    return {x0: r.left, x1: r.right, y0: r.top, y1: r.bottom}; };
  return {
    window: [innerWidth, innerHeight],
    scrolls: body.scrollHeight - body.clientHeight,
    buttons: [...body.querySelectorAll('button')].map(b => ({...box(b), text: b.textContent,
      cut: [...b.querySelectorAll('p')].some(p => p.scrollWidth > p.clientWidth + 1)})),
  };
}"""


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("screen", list(SCREENS))
def test_the_whole_examples_list_fits_the_first_screen(browser, screen, lang):
    """Opened, the list shows all twelve examples inside the window, none scrolled to, none
    on another, none with its label cut, each big enough to tap (40 px tall)."""
    context, tab = open_softmax(browser, screen, f"lang={lang}")
    try:
        open_list(tab)
        found = tab.evaluate(LIST_BOXES, LIST)
        width, height = found["window"]
        buttons = found["buttons"]
        assert len(buttons) == len(EXAMPLES)
        assert found["scrolls"] <= 1, found["scrolls"]
        outside = [b["text"] for b in buttons if b["y1"] > height or b["x1"] > width]
        assert outside == [], (outside, height)
        assert [b["text"] for b in buttons if b["y0"] < 0 or b["x0"] < 0] == []
        assert overlapping(buttons) == []
        assert [b["text"] for b in buttons if b["cut"]] == []
        assert min(b["y1"] - b["y0"] for b in buttons) >= 40
    finally:
        context.close()


BARS_TEXT = """() => [...document.querySelectorAll('.st-key-softmax_bars text.bartext')]
  .map(e => e.textContent)"""


@pytest.mark.browser
@pytest.mark.parametrize("screen", ["phone", "projector"])
def test_a_pick_closes_the_list_and_draws_the_example(browser, screen):
    """Picking [20, −10, 5] ÷ 8, then the basic example: each pick closes the list (nothing left
    over the chart), puts the example's numbers in the link and draws its probabilities."""
    context, tab = open_softmax(browser, screen, "lang=en")
    try:
        for name in ["grad_8", "basic"]:
            open_list(tab)
            tab.locator(f".st-key-softmax_{name} button").click()
            wait_run(tab, settle_ms=800)
            assert tab.locator(LIST).count() == 0, f"the list stayed open after {name}"
            values, divisor = EXAMPLES[name]
            query = parse_qs(urlparse(tab.url).query)
            assert (query["values"], query["divisor"]) == ([values], [divisor])
            numbers = [float(n) for n in re.findall(r"[-\d.]+", values)]
            expected = [f"{p:.3f}" for p in softmax(numbers, float(divisor))]
            assert tab.evaluate(BARS_TEXT)[-len(expected) :] == expected
    finally:
        context.close()


TABLES = """() => [...document.querySelectorAll('[data-testid=stDataFrame]')].map(frame => {
  const r = frame.getBoundingClientRect(), grid = frame.querySelector('.dvn-scroller');
  return {x0: r.left, x1: r.right, hidden: grid.scrollWidth - grid.clientWidth};
})"""


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize(
    "query",
    [
        "values=15.3,22.7,18.2,2.1,1.8,3.2,2.9,5.6,4.1&divisor=8&section=table",
        "values=20,10,1&section=table",
        "values=1000,999&section=stability",
        "values=-1000,-1001&section=stability",
    ],
    ids=["xi-row-table", "winner-table", "overflow-stability", "underflow-stability"],
)
def test_on_a_phone_the_tables_fit_the_width(browser, lang, query):
    """The articles' widest rows on a 390 px phone: every column, the probabilities last,
    lies inside the screen; nothing is left to scroll to."""
    context, tab = open_softmax(browser, "phone", f"lang={lang}&{query}")
    try:
        tab.wait_for_selector("[data-testid=stDataFrame] .dvn-scroller", timeout=30_000)
        tab.wait_for_timeout(500)
        (table,) = tab.evaluate(TABLES)
        assert table["x0"] >= 0 and table["x1"] <= 390, table
        assert table["hidden"] <= 0, f"{table['hidden']} px of the table are off to the right"
    finally:
        context.close()


FORMULAS = """() => [...document.querySelectorAll('.katex-display')].map(display => {
  const ink = display.querySelector('.katex-html').getBoundingClientRect();
  const r = display.getBoundingClientRect();
  return {text: display.textContent.slice(0, 30), x0: ink.left, x1: ink.right,
          shown: r.right, hidden: display.scrollWidth - display.clientWidth};
})"""


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("section", ["table", "jacobian", "gradient"])
def test_on_a_phone_every_formula_fits_the_width(browser, lang, section):
    """Each formula of each section lies inside a 390 px screen, none scrolled sideways (a
    formula a student has to scroll through is cut off for the class)."""
    context, tab = open_softmax(browser, "phone", f"lang={lang}&values=20,-10,5&divisor=8"
                                f"&section={section}")  # fmt: skip
    try:
        tab.wait_for_selector(".katex-display", timeout=30_000)
        formulas = tab.evaluate(FORMULAS)
        assert formulas
        for formula in formulas:
            assert formula["x0"] >= 0 and formula["x1"] <= min(390, formula["shown"] + 3), formula
            assert formula["hidden"] <= 3, formula  # KaTeX's italic correction, at most
    finally:
        context.close()
