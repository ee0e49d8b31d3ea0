"""Lesson screens in real Chromium: the projector shows the lab's and /steps' matrices at least as
large as a laptop does, with the raw scores' numbers, all on the first screen with the lab's row
numbers and d's label; a phone prints the articles' 9 × 9 weights and selects a row in one tap."""

import math

import numpy as np
import pytest
from browser_support import wait_idle

from viz_core import run_lab

pytestmark = pytest.mark.browser
RAW = "d=1536&scale=false"  # the "why √d" lesson's raw scores: about ±100
TEXT = "我喜欢人工智能"  # the app's default sentence: 9 tokens with [CLS] and [SEP]


def plot_box(tab, key):
    """The matrix's own box (the plot area, without its labels) of the chart keyed ``key``, once
    it is drawn (a rerun may be redrawing it)."""
    plot = tab.locator(f".st-key-{key} .nsewdrag").first
    for _ in range(50):
        box = plot.bounding_box()
        if box is not None:
            return box
        tab.wait_for_timeout(100)
    raise AssertionError(f"{key} was not drawn")


def cell_numbers(tab, key):
    return tab.locator(f".st-key-{key} g.heatmaplayer text").all_text_contents()


def as_float(text):
    return float(text.replace("\u2212", "-"))


RAW_VIEWS = [  # (path, chart key): the raw stages a "why √d" lesson points at
    (f"?lang=zh&{RAW}&stage=scores", "scores_heatmap"),
    (f"?lang=en&{RAW}&stage=scaled", "scaled_heatmap"),
    (f"steps?lang=zh&{RAW}&step=2", "step_scores"),
    (f"steps?lang=en&{RAW}&step=3", "step_scaled"),
    ("steps?lang=en&d=1536&scale=true&step=3", "step_scaled"),
]


@pytest.mark.parametrize(("path", "key"), RAW_VIEWS, ids=[key for _, key in RAW_VIEWS])
def test_the_projector_shows_the_raw_scores_as_large_as_a_laptop_with_their_numbers(
    opened, path, key
):
    """At 1280 × 720 with presenter mode the matrix is at least the laptop's size, all of it on
    the first screen, and every cell prints the score numpy computes (rounded as drawn)."""
    laptop = plot_box(opened("laptop", path, f".st-key-{key} .nsewdrag"), key)
    projector_tab = opened("projector", path, f".st-key-{key} .nsewdrag")
    projector = plot_box(projector_tab, key)
    assert projector["width"] >= laptop["width"] - 1, (projector, laptop)
    assert projector["y"] + projector["height"] <= 720, projector
    drawn = [as_float(text) for text in cell_numbers(projector_tab, key)]
    scale = "scale=true" in path
    steps = run_lab(TEXT, d=1536, scale=scale).steps
    scores = steps.q @ steps.k.T  # numpy's QKᵀ of the app's Q and K, then its own ÷√d
    stage = scores / math.sqrt(1536) if scale and key.endswith("scaled") else scores
    assert len(drawn) == stage.size
    # each printed number is its cell's score to the digits it shows (1 decimal under 10)
    expected = sorted(stage.ravel().tolist())
    assert all(
        math.isclose(d, e, abs_tol=0.051 if abs(e) < 9.95 else 0.51)
        for d, e in zip(sorted(drawn), expected, strict=True)
    )


def test_the_projector_keeps_the_lab_s_row_numbers_and_d_s_name_on_the_first_screen(opened):
    """The selected row's table of numbers ends inside 720 px, and d's box is labelled beside
    it at the projector (a bare "1536" says nothing to the back of the room)."""
    tab = opened("projector", f"?lang=zh&{RAW}", ".st-key-weights_heatmap .nsewdrag")
    table = tab.locator(".st-key-lab_row_numbers table").bounding_box()
    assert table is not None and table["y"] + table["height"] <= 720, table
    # Plotly's toolbar, shown while the pointer is over a chart, covered its column title
    tab.locator(".st-key-weights_heatmap .nsewdrag").first.hover()
    assert not tab.locator(".st-key-weights_heatmap .modebar-container").is_visible()
    label = tab.locator(".st-key-lab_d [data-testid=stWidgetLabel]")
    box, field = label.bounding_box(), tab.locator(".st-key-lab_d input").bounding_box()
    assert label.is_visible() and "d" in label.inner_text()
    assert box["x"] + box["width"] <= field["x"] + 1  # beside it, not above it
    assert box["y"] < field["y"] + field["height"] and field["y"] < box["y"] + box["height"]


def test_a_phone_prints_the_articles_weights_at_12_px_or_more(opened):
    """On a 390-px phone the 9 × 9 softmax weights print their numbers, at 12 px or more, and
    they are numpy's weights to two decimals."""
    tab = opened("phone", "?lang=zh", ".st-key-weights_heatmap .nsewdrag")
    texts = cell_numbers(tab, "weights_heatmap")
    steps = run_lab(TEXT, d=64).steps
    scaled = steps.q @ steps.k.T / 8  # ÷√64, then numpy's softmax
    weights = np.exp(scaled - scaled.max(axis=1, keepdims=True))
    weights /= weights.sum(axis=1, keepdims=True)
    assert sorted(texts) == sorted(f"{w:.2f}" for w in weights.ravel())
    sizes = tab.eval_on_selector_all(
        ".st-key-weights_heatmap g.heatmaplayer text",
        "texts => texts.map(e => parseFloat(getComputedStyle(e).fontSize))",
    )
    assert min(sizes) >= 12, min(sizes)


def test_one_tap_on_a_phone_selects_the_row_tapped(opened):
    """A phone's first tap on a row selects it (Plotly's own first tap only hovered, and the
    next tap selected the row hovered before); each tap after selects its own row."""
    tab = opened("phone", "?lang=en", ".st-key-weights_heatmap .nsewdrag")
    for row in (5, 7, 3):
        plot = tab.locator(".st-key-weights_heatmap .nsewdrag").first
        plot.scroll_into_view_if_needed()
        box = plot.bounding_box()
        x, y = box["x"] + 3.5 * box["width"] / 9, box["y"] + (row + 0.5) * box["height"] / 9
        tab.touchscreen.tap(x, y)
        wait_idle(tab)
        tab.wait_for_function(
            "row => document.querySelector('.st-key-lab_row input').value.startsWith(row + ' ')",
            arg=row,
            timeout=10_000,
        )
        assert f"row={row}" in tab.url


COMPARE = "?lang=zh&compare=true&b_d=6144&b_scale=false"


def test_a_and_b_fit_a_projector_side_by_side_and_stack_on_a_phone(opened):
    """Compare mode: at 1280 × 720 with presenter mode both heatmaps, with their numbers, are on
    the first screen side by side (as large as a laptop's at least); a phone stacks them."""
    drawn = ".st-key-compare_heatmap_b .nsewdrag"
    laptop = plot_box(opened("laptop", COMPARE, drawn), "compare_heatmap")
    tab = opened("projector", COMPARE, ".st-key-compare_heatmap_b .nsewdrag")
    a, b = plot_box(tab, "compare_heatmap"), plot_box(tab, "compare_heatmap_b")
    assert a["x"] + a["width"] < b["x"] and abs(a["y"] - b["y"]) < 1
    assert max(a["y"] + a["height"], b["y"] + b["height"]) <= 720, (a, b)
    assert a["width"] >= laptop["width"] - 1
    assert len(cell_numbers(tab, "compare_heatmap_b")) == 81
    phone = opened("phone", COMPARE, ".st-key-compare_heatmap_b .nsewdrag")
    a, b = plot_box(phone, "compare_heatmap"), plot_box(phone, "compare_heatmap_b")
    assert a["y"] < 844 and b["y"] > a["y"] + a["height"]
