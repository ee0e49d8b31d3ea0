"""/scaling ready for a lesson (issue 37): one section at a time, picked like /kernel's and kept in
the link; each section's figure on the first screen of a phone, two laptops and a projector; the
histogram's x axes end where its samples end, at every d; the formulas fit a phone's width."""

import math

import numpy as np
import pytest
from browser_support import (
    count_runs,
    screenshot,
    wait_idle,
)
from conftest import chart_keys, decode, figure, open_app
from numpy.testing import assert_array_equal
from test_screens import MEASURE, SCREENS, crowded

from ui.kit.typography import LAPTOP, PHONE, PROJECTOR
from ui.scaling import figures
from ui.scaling.body import SAMPLES
from ui.scaling.settings import SECTIONS
from viz_core import D_MAX, D_MIN, sample_dot_products

# Each section's charts, its main one first (the one a first screen must show).
SECTION_CHARTS = {
    "histogram": ["dot_histogram"],
    "variance": ["variance_chart"],
    "saturation": ["saturation_max", "saturation_entropy", "saturation_gradient"],
    "animation": ["sharpening_animation"],
}


def entry_std(distribution):
    """The std of one entry: 1 for standard normal, 1/3 for uniform on [−1, 1] (variance 1/3,
    so Var(q_i k_i) = 1/9)."""
    return 1.0 if distribution == "normal" else 1 / 3


# --- sections (AppTest) ----------------------------------------------------------------------


def test_the_sections_are_the_four_parts_of_the_lesson():
    assert tuple(SECTION_CHARTS) == SECTIONS


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("section", SECTIONS)
def test_each_section_draws_only_its_own_charts(section, lang):
    """?section=… opens that section alone: its charts and no other, and the link keeps it."""
    at = open_app("scaling", lang=lang, section=section)
    assert chart_keys(at) == SECTION_CHARTS[section]
    assert at.query_params["section"] == section and at.query_params["lang"] == lang


def test_the_picker_opens_a_section_and_d_waits_hidden_in_the_link():
    """The picker (segmented, keyed scaling_section) opens a section and writes it into the URL
    and the share link; d, hidden while another section is open, stays in both and comes back."""
    at = open_app("scaling", lang="en", d="64")
    assert at.segmented_control(key="scaling_section").value == "histogram"
    at.segmented_control(key="scaling_section").set_value("saturation").run()
    assert chart_keys(at) == SECTION_CHARTS["saturation"]
    assert at.query_params["section"] == "saturation" and at.query_params["d"] == "64"
    assert any("section=saturation" in code.value and "d=64" in code.value for code in at.code)
    at.segmented_control(key="scaling_section").set_value("histogram").run()
    assert chart_keys(at) == ["dot_histogram"]
    assert at.number_input(key="scaling_d").value == 64


def test_a_link_from_before_the_sections_shows_the_same_numbers():
    """A link with only the old keys (d, distribution) opens the histogram of those numbers: the
    page's samples for that d, drawn as they are, and the theory's lines at ±√(d/9) and ±1/3."""
    at = open_app("scaling", lang="en", d="6144", distribution="uniform")
    assert chart_keys(at) == ["dot_histogram"] and at.query_params["section"] == "histogram"
    spec = figure(at, "dot_histogram")
    dots = sample_dot_products(6144, SAMPLES, "uniform", seed=6144)
    assert_array_equal(decode(spec["data"][0]["x"]), dots.astype(np.float32))
    std = math.sqrt(6144) / 3
    lines = sorted(shape["x0"] for shape in spec["layout"]["shapes"])
    np.testing.assert_allclose(lines, [-std, -1 / 3, 1 / 3, std])


def test_a_bad_section_in_a_link_opens_the_first_with_a_note():
    at = open_app("scaling", lang="en", section="nope")
    notes = [box.value for kind in ("info", "warning") for box in at.get(kind)]
    assert any("`section`" in text and "using histogram instead" in text for text in notes)
    assert chart_keys(at) == ["dot_histogram"]


def test_the_training_question_has_its_spot_beside_the_link_to_train():
    """The saturation section ends with its why and the way to /train, where the sentence on
    whether training needs ÷√d is to go (issue 37)."""
    at = open_app("scaling", lang="en", section="saturation")
    assert any("weights hardly respond" in caption.value for caption in at.caption)
    assert at.get("page_link")


# --- the histogram's x axes ------------------------------------------------------------------


def assert_ends_at_the_samples(x_range, values, lines):
    """The axis holds every sample and both marks, and ends within 5 % of the farthest sample:
    Plotly's own range once ran to 300 where the samples ended near 130."""
    low, high = x_range
    reach = max(np.abs(values).max(), lines)
    assert low <= values.min() and values.max() <= high
    assert low <= -lines and lines <= high
    assert high - low <= 2 * reach * 1.05, (x_range, reach)


@pytest.mark.parametrize("screen", [PHONE, LAPTOP, PROJECTOR], ids=lambda s: s.name)
@pytest.mark.parametrize("distribution", ["normal", "uniform"])
@pytest.mark.parametrize("d", [D_MIN, 2, 3, 7, 64, 100, 1536, 6144, D_MAX])
def test_the_histogram_axes_end_where_the_samples_end(d, distribution, screen):
    """Each panel's x axis, raw and ÷√d, from the page's own samples for this d."""
    dots = sample_dot_products(d, SAMPLES, distribution, seed=d)
    std = math.sqrt(d) * entry_std(distribution)
    fig = figures.dot_histogram(dots, d, std, lang="en", screen=screen)
    raw, scaled = dots.astype(np.float32), (dots / math.sqrt(d)).astype(np.float32)
    assert_ends_at_the_samples(fig.layout.xaxis.range, raw, std)
    assert_ends_at_the_samples(fig.layout.xaxis2.range, scaled, entry_std(distribution))


def test_the_axis_rule_holds_at_every_d_the_page_allows():
    """For every d from D_MIN to D_MAX (samples of the right spread, drawn here): the bins cover
    every sample and the range ends within 5 % of the farthest one."""
    rng = np.random.default_rng(0)
    for d in range(D_MIN, D_MAX + 1):
        values = (rng.standard_normal(64) * math.sqrt(d)).astype(np.float32)
        bins, x_range = figures.binned(values, math.sqrt(d))
        assert bins["start"] <= values.min() and values.max() < bins["end"], d
        assert_ends_at_the_samples(x_range, values, math.sqrt(d))


def test_the_page_s_histogram_has_its_range_from_its_samples():
    at = open_app("scaling", lang="en", d="1536")
    spec = figure(at, "dot_histogram")
    raw, scaled = (decode(trace["x"]) for trace in spec["data"])
    assert_ends_at_the_samples(spec["layout"]["xaxis"]["range"], raw, math.sqrt(1536))
    assert_ends_at_the_samples(spec["layout"]["xaxis2"]["range"], scaled, 1.0)


# --- real screens (Chromium) -----------------------------------------------------------------

FOUR = ["phone", "laptop", "laptop-wide", "projector"]  # test_screens' names


def opened(browser, screen, query, key):
    """A fresh tab on ``screen`` at /scaling?``query``, the chart ``key`` drawn."""
    base, chromium = browser
    options, extra = SCREENS[screen]
    context = count_runs(chromium.new_context(**options))
    tab = context.new_page()
    tab.goto(f"{base}/scaling?{query}{extra}")
    wait_idle(tab, settle_ms=800)
    tab.wait_for_selector(f".st-key-{key} .main-svg", timeout=30_000)
    return context, tab


BOTTOM = "(key) => document.querySelector(`.st-key-${key}`).getBoundingClientRect().bottom"


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("section", SECTIONS)
@pytest.mark.parametrize("screen", FOUR)
def test_each_section_s_figure_is_on_the_first_screen(browser, screen, section, lang):
    """Each section's main figure on the first screen: whole on the laptops and the projector,
    its top on a phone; nothing scrolls sideways, no formula is cut, nothing overlaps."""
    key = SECTION_CHARTS[section][0]
    context, tab = opened(browser, screen, f"lang={lang}&section={section}", key)
    try:
        found = tab.evaluate(MEASURE, key)
        bottom = tab.evaluate(BOTTOM, key)
        screenshot(tab, f"scaling-{screen}-{section}-{lang}")
        height = SCREENS[screen][0]["viewport"]["height"]
        assert found["top"] is not None and found["top"] < height, found["top"]
        if screen != "phone":
            assert bottom <= height, bottom
        assert found["overflow"] <= 1 and found["formulas"] == [] and found["rotated"] == []
        assert crowded(found) == []
    finally:
        context.close()


KATEX = """() => [...document.querySelectorAll('.katex-display')].map(e => ({
  text: e.textContent, scroll: e.scrollWidth, client: e.clientWidth,
  right: e.querySelector('.katex').getBoundingClientRect().right, width: innerWidth}))"""


@pytest.mark.browser
@pytest.mark.parametrize("distribution", ["normal", "uniform"])
def test_the_formulas_fit_a_phone_s_width(browser, distribution):
    """On a 390 × 844 phone every formula is whole inside the screen: none wider than its box
    (not even one that scrolls), none past the right edge; the longer ones wrap in pieces."""
    query = f"lang=en&section=variance&distribution={distribution}"
    context, tab = opened(browser, "phone", query, "variance_chart")
    try:
        formulas = tab.evaluate(KATEX)
        assert formulas, "the variance section shows its formula"
        cut = [f for f in formulas if f["scroll"] > f["client"] + 1 or f["right"] > f["width"]]
        assert cut == []
    finally:
        context.close()


AXES = """() => { const plot = document.querySelector('.st-key-dot_histogram .js-plotly-plot');
  return [plot._fullLayout.xaxis.range, plot._fullLayout.xaxis2.range]; }"""


@pytest.mark.browser
@pytest.mark.parametrize("d", [64, 1536, 8192])
def test_a_phone_s_histogram_axes_end_where_the_samples_end(browser, d):
    """On a phone the drawn axes (Plotly's, after every note is placed) end at the samples:
    the unscaled one once ran to 300 at d = 1,536, where the samples end near 130."""
    context, tab = opened(browser, "phone", f"lang=en&d={d}", "dot_histogram")
    try:
        raw_range, scaled_range = tab.evaluate(AXES)
        dots = sample_dot_products(d, SAMPLES, "normal", seed=d)
        assert_ends_at_the_samples(raw_range, dots.astype(np.float32), math.sqrt(d))
        scaled = (dots / math.sqrt(d)).astype(np.float32)
        assert_ends_at_the_samples(scaled_range, scaled, 1.0)
    finally:
        context.close()
