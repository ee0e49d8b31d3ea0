"""/scaling at a lesson: one section at a time, picked like /kernel's and kept in
the link; each section's figure on the first screen of a phone, two laptops and a projector; the
histogram's x axes fixed across the presets (so the unscaled panel widens with d and the scaled one
stays put), ending where the farthest sample ends, its measured std in large type and its ticks
legible on a projector; the saturation section's answer for training on a projector's first
screen; the formulas fit a phone's width."""

import math

import numpy as np
import pytest
from browser_support import (
    screenshot,
)
from conftest import chart_keys, decode, figure, open_app
from numpy.testing import assert_array_equal
from test_screens import MEASURE, SCREENS, crowded

from ui.kit.typography import LAPTOP, PHONE, PROJECTOR
from ui.scaling import figures
from ui.scaling.body import PRESETS, SAMPLES
from ui.scaling.settings import SECTIONS
from ui.train.compute import need_parts, sentences_text
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
    whether training needs ÷√d is to go."""
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
    assert_ends_at_the_samples(fig["layout"]["xaxis"]["range"], raw, std)
    assert_ends_at_the_samples(fig["layout"]["xaxis2"]["range"], scaled, entry_std(distribution))


def test_the_axis_rule_holds_at_every_d_the_page_allows():
    """For every d from D_MIN to D_MAX (samples of the right spread, drawn here): the bins cover
    every sample and the range ends within 5 % of the farthest one."""
    rng = np.random.default_rng(0)
    for d in range(D_MIN, D_MAX + 1):
        values = (rng.standard_normal(64) * math.sqrt(d)).astype(np.float32)
        bins, x_range = figures.binned(values, math.sqrt(d))
        assert bins["start"] <= values.min() and values.max() < bins["end"], d
        assert_ends_at_the_samples(x_range, values, math.sqrt(d))


def preset_samples(distribution="normal"):
    """The presets' samples as the page draws them, raw and ÷√d, each all presets' together."""
    drawn = [(sample_dot_products(d, SAMPLES, distribution, seed=d), d) for d in PRESETS]
    raw = np.concatenate([dots.astype(np.float32) for dots, _ in drawn])
    scaled = np.concatenate([(dots / math.sqrt(d)).astype(np.float32) for dots, d in drawn])
    return raw, scaled


@pytest.mark.parametrize("distribution", ["normal", "uniform"])
def test_the_page_s_histogram_axes_are_one_range_across_the_presets(distribution):
    """At every preset d each panel has the same x range: it holds every preset's samples and
    ends within 5 % of the farthest of them (the presets' samples drawn here)."""
    raw, scaled = preset_samples(distribution)
    ranges = []
    for d in PRESETS:
        spec = figure(
            open_app("scaling", lang="en", d=str(d), distribution=distribution), "dot_histogram"
        )
        ranges.append((spec["layout"]["xaxis"]["range"], spec["layout"]["xaxis2"]["range"]))
    assert all(r == ranges[0] for r in ranges), ranges
    raw_range, scaled_range = ranges[0]
    assert_ends_at_the_samples(raw_range, raw, math.sqrt(PRESETS[-1]) * entry_std(distribution))
    assert_ends_at_the_samples(scaled_range, scaled, entry_std(distribution))


@pytest.mark.parametrize("d", [D_MIN, 3, 100, D_MAX])
def test_another_d_s_axes_hold_its_samples_and_the_presets_range(d):
    """Off the presets the axes reach at least as far as the presets' and farther only where
    this d's samples do (d = 1 and 3: heavy tails ÷√d; D_MAX: a wider raw spread)."""
    raw, scaled = preset_samples()
    spec = figure(open_app("scaling", lang="en", d=str(d)), "dot_histogram")
    dots = sample_dot_products(d, SAMPLES, "normal", seed=d)
    here = (dots.astype(np.float32), (dots / math.sqrt(d)).astype(np.float32))
    for axis, presets, values in zip(("xaxis", "xaxis2"), (raw, scaled), here, strict=True):
        x_range = spec["layout"][axis]["range"]
        assert x_range[1] >= np.abs(presets).max() and x_range[1] >= np.abs(values).max()
        reach = max(np.abs(presets).max(), np.abs(values).max())
        assert x_range[1] - x_range[0] <= 2 * reach * 1.05, (axis, x_range, reach)


def test_each_panel_s_title_gives_its_measured_std():
    """The panels' titles: the std of the samples drawn under them, computed here with numpy
    from the figure's own samples, as the sentence under the figure gives it."""
    spec = figure(open_app("scaling", lang="en", d="6144"), "dot_histogram")
    titles = [a["text"] for a in spec["layout"]["annotations"][:2]]
    dots = sample_dot_products(6144, SAMPLES, "normal", seed=6144)
    for title, values in zip(titles, (dots, dots / math.sqrt(6144)), strict=True):
        assert f"std {np.std(values):.3g}</b>" in title, title


# --- real screens (Chromium) -----------------------------------------------------------------

FOUR = ["phone", "laptop", "laptop-wide", "projector"]  # test_screens' names


def chart(key):
    """The selector of chart ``key`` once Plotly has drawn it."""
    return f".st-key-{key} .main-svg"


BOTTOM = "(key) => document.querySelector(`.st-key-${key}`).getBoundingClientRect().bottom"


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("section", SECTIONS)
@pytest.mark.parametrize("screen", FOUR)
def test_each_section_s_figure_is_on_the_first_screen(opened, screen, section, lang):
    """Each section's main figure on the first screen: whole on the laptops and the projector,
    its top on a phone; nothing scrolls sideways, no formula is cut, nothing overlaps."""
    key = SECTION_CHARTS[section][0]
    tab = opened(screen, f"scaling?lang={lang}&section={section}", chart(key))
    found = tab.evaluate(MEASURE, key)
    bottom = tab.evaluate(BOTTOM, key)
    screenshot(tab, f"scaling-{screen}-{section}-{lang}")
    height = SCREENS[screen][0]["viewport"]["height"]
    assert found["top"] is not None and found["top"] < height, found["top"]
    if screen != "phone":
        assert bottom <= height, bottom
    assert found["overflow"] <= 1 and found["formulas"] == [] and found["rotated"] == []
    assert crowded(found) == []


KATEX = """() => [...document.querySelectorAll('.katex-display')].map(e => ({
  text: e.textContent, scroll: e.scrollWidth, client: e.clientWidth,
  right: e.querySelector('.katex').getBoundingClientRect().right, width: innerWidth}))"""


@pytest.mark.browser
@pytest.mark.parametrize("distribution", ["normal", "uniform"])
def test_the_formulas_fit_a_phone_s_width(opened, distribution):
    """On a 390 × 844 phone every formula is whole inside the screen: none wider than its box
    (not even one that scrolls), none past the right edge; the longer ones wrap in pieces."""
    query = f"lang=en&section=variance&distribution={distribution}"
    tab = opened("phone", f"scaling?{query}", chart("variance_chart"))
    formulas = tab.evaluate(KATEX)
    assert formulas, "the variance section shows its formula"
    cut = [f for f in formulas if f["scroll"] > f["client"] + 1 or f["right"] > f["width"]]
    assert cut == []


AXES = """() => { const plot = document.querySelector('.st-key-dot_histogram .js-plotly-plot');
  return [plot._fullLayout.xaxis.range, plot._fullLayout.xaxis2.range]; }"""


@pytest.mark.browser
@pytest.mark.parametrize("d", [64, 1536, 8192])
def test_a_phone_s_histogram_axes_end_where_the_samples_end(opened, d):
    """On a phone the drawn axes (Plotly's, after every note is placed) end at the farthest
    of the presets' samples and this d's: Plotly's own once ran to 300 at d = 1,536."""
    tab = opened("phone", f"scaling?lang=en&d={d}", chart("dot_histogram"))
    raw_range, scaled_range = tab.evaluate(AXES)
    raw, scaled = preset_samples()
    dots = sample_dot_products(d, SAMPLES, "normal", seed=d)
    raw = np.concatenate([raw, dots.astype(np.float32)])
    scaled = np.concatenate([scaled, (dots / math.sqrt(d)).astype(np.float32)])
    assert_ends_at_the_samples(raw_range, raw, math.sqrt(d))
    assert_ends_at_the_samples(scaled_range, scaled, 1.0)


# What a projector shows of the histogram: each panel's drawn x range and its bars' extent in px,
# the titles' text with the size of their std line, and the ticks' sizes.
DRAWN = """() => {
  const chart = '.st-key-dot_histogram ', plot = document.querySelector(chart + '.js-plotly-plot');
  const spans = [...document.querySelectorAll(chart + 'g.trace.bars')].map(trace => {
    const bars = [...trace.querySelectorAll('path')].map(p => p.getBoundingClientRect())
      .filter(r => r.width > 0 && r.height > 0);
    return Math.max(...bars.map(r => r.right)) - Math.min(...bars.map(r => r.left)); });
  const titles = [...document.querySelectorAll(chart + 'g.annotation text')].slice(0, 2)
    .map(text => { const std = [...text.querySelectorAll('tspan')]
        .find(s => /std/.test(s.textContent) && !s.querySelector('tspan'));
      return {text: text.textContent, size: parseFloat(getComputedStyle(std).fontSize)}; });
  const ticks = [...document.querySelectorAll(chart + '.xtick text, ' + chart + '.ytick text')]
    .map(t => parseFloat(getComputedStyle(t).fontSize));
  return {ranges: [plot._fullLayout.xaxis.range, plot._fullLayout.xaxis2.range], spans, titles,
          ticks, samples: Array.from(plot._fullData[0].x)}; }"""


def drawn(opened, screen, d):
    """The histogram at ``d`` as ``screen`` draws it (``DRAWN``)."""
    tab = opened(screen, f"scaling?lang=en&d={d}", chart("dot_histogram"))
    return tab.evaluate(DRAWN)


@pytest.mark.browser
def test_on_a_projector_the_unscaled_histogram_widens_and_the_scaled_stays_put(opened):
    """From d = 64 to 6,144 (the presets) both axes keep one range; the unscaled bars then
    spread over more than four times the width (√96 ≈ 9.8 times the std), the scaled bars over
    about the same (within a factor 1.5: their farthest samples differ)."""
    small, large = drawn(opened, "projector", 64), drawn(opened, "projector", 6144)
    assert small["ranges"] == large["ranges"]
    assert large["spans"][0] > 4 * small["spans"][0], (small["spans"], large["spans"])
    assert 1 / 1.5 < large["spans"][1] / small["spans"][1] < 1.5, (small["spans"], large["spans"])


@pytest.mark.browser
@pytest.mark.parametrize("d", [64, 6144])
def test_on_a_projector_the_measured_std_is_large_and_the_ticks_legible(opened, d):
    """Each panel's title gives the std of the samples it draws, computed here by numpy from
    the drawn samples, in type ≥ 24 px; every tick label is ≥ 16 px."""
    found = drawn(opened, "projector", d)
    samples = np.asarray(found["samples"], dtype=np.float64)
    for title, values in zip(found["titles"], (samples, samples / math.sqrt(d)), strict=True):
        assert title["text"].endswith(f"std {np.std(values):.3g}"), title
        assert title["size"] >= 24, title
    assert found["ticks"] and min(found["ticks"]) >= 16, found["ticks"]


VERDICT = """(claims) => { const p = [...document.querySelectorAll('p.safe')]
  .find(e => e.textContent === claims); return p && p.getBoundingClientRect().bottom; }"""


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_on_a_projector_the_training_answer_is_on_the_first_screen(opened, lang):
    """The saturation section's computed answer on ÷√d in training (/train's and /model's
    words): its sentence ends within a 1280 × 720 projector's first screen."""
    claims, _ = need_parts(lang)
    query = f"lang={lang}&section=saturation"
    tab = opened("projector", f"scaling?{query}", chart("saturation_max"))
    bottom = tab.evaluate(VERDICT, sentences_text(claims, lang))
    screenshot(tab, f"scaling-projector-verdict-{lang}")
    assert bottom is not None and bottom <= 720, bottom
