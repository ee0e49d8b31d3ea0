"""The lab at a projector: the selected row's weights are printed at
16 px or more beside the heatmap, on the first screen with the row's verdict; in compare mode a
change of B closes B's settings, which open narrow. Sizes in real Chromium; the weights are
numpy's softmax of the row, from the Q and K the app's core draws."""

import math
from urllib.parse import parse_qs, urlparse

import numpy as np
import pytest
from browser_support import boxes, wait_idle
from conftest import figure, open_app

from ui.kit.typography import LAPTOP, PHONE, PROJECTOR
from ui.lab import figures
from viz_core import make_qkv

TEXT = "我喜欢人工智能"  # the app's default sentence: 9 tokens with [CLS] and [SEP]
ROW = 2  # the lab's first row: 喜
RAW = "d=1536&scale=false"  # the "why √d" lesson's unscaled row: nearly one-hot
B_OPEN = "_lab_b_open"  # the session key of whether B's settings popover is open


def numpy_row(d, scale, temperature=1.0, row=ROW):
    """The row's softmax weights by numpy, from the app's seeded Q and K."""
    q, k, _ = make_qkv(["[CLS]", *TEXT, "[SEP]"], d)
    scores = q[row] @ k.T / (math.sqrt(d) if scale else 1.0) / temperature
    weights = np.exp(scores - scores.max())
    return weights / weights.sum()


# --- the figure, without a browser -----------------------------------------------------------


@pytest.mark.parametrize("screen", [PHONE, LAPTOP, PROJECTOR], ids=["phone", "laptop", "proj"])
def test_the_row_s_keys_and_weights_are_set_in_the_screen_s_row_font(screen):
    """The bars' tick labels (the keys and the weights under them) and the legend are in the
    screen's ``row_font``: 16 px on a projector, a laptop's and a phone's as they were (12)."""
    weights = numpy_row(64, True)
    fig = figures.row_bars(
        weights, weights, ("[CLS]", *TEXT, "[SEP]"), scaled=True, lang="en", screen=screen
    )
    assert fig["layout"]["xaxis"]["tickfont"]["size"] == screen.row_font
    assert fig["layout"]["legend"]["font"]["size"] == screen.row_font
    assert PROJECTOR.row_font >= 16 and LAPTOP.row_font == PHONE.row_font == 12


def test_the_row_s_name_heads_the_legend_as_text():
    """The row's name stands before the legend, its token escaped: a token is user text."""
    at = open_app(lang="en", text="<b>", row="1")
    legend = figure(at, "row_bars")["layout"]["legend"]
    assert legend["title"]["text"] == "The “&lt;” row:"


def b_popover(at):
    """B's settings popover in an AppTest tree (its label starts with B's name)."""
    (found,) = [
        block
        for block in blocks(at._tree)
        if getattr(block, "type", None) == "popover" and block.proto.popover.label.startswith("B ·")
    ]
    return found.proto.popover


def blocks(node):
    """Every block below ``node`` in an AppTest tree."""
    for child in getattr(node, "children", {}).values():
        yield child
        yield from blocks(child)


def test_a_change_of_b_closes_its_settings_and_b_keeps_it():
    """The teacher opens B's settings and sets B's d: the run that follows draws them closed,
    the link and B's heatmap have the new d, and opened again they show it."""
    at = open_app(lang="en", compare="true", b_d="6144", b_scale="false")
    assert b_popover(at).id and not b_popover(at).open  # it knows whether it is open
    at.session_state[B_OPEN] = True
    at.run()
    assert b_popover(at).open
    at.number_input(key="lab_b_d").set_value(768).run()
    assert not b_popover(at).open and "d = 768" in b_popover(at).label
    assert at.query_params["b_d"] == "768" and at.query_params["b_scale"] == "false"
    at.session_state[B_OPEN] = True
    at.run()
    assert at.number_input(key="lab_b_d").value == 768 and not at.exception


# --- real Chromium at 1280 × 720 with ?present=true -------------------------------------------

TICKS = """(selector) => [...document.querySelectorAll(selector)].map(e => {
  const r = e.getBoundingClientRect();
  return {lines: [...e.querySelectorAll('tspan.line')].map(t => t.textContent),
          size: parseFloat(getComputedStyle(e).fontSize), y1: r.bottom};
})"""


def drawn_box(tab, selector):
    """The bounding box of ``selector`` once it is drawn (a rerun may be redrawing it)."""
    for _ in range(50):
        box = tab.locator(selector).first.bounding_box()
        if box is not None:
            return box
        tab.wait_for_timeout(100)
    raise AssertionError(f"{selector} was not drawn")


@pytest.mark.browser
@pytest.mark.parametrize(("lang", "query", "d", "scale"), [
    ("zh", RAW, 1536, False), ("en", "", 64, True),
])  # fmt: skip
def test_the_projector_prints_the_row_s_weights_large_beside_the_heatmap(
    opened, lang, query, d, scale
):
    """Under each key of the selected row its weight, at 16 px or more, inside the first screen,
    numpy's softmax of the row to two decimals; the bars stand beside the heatmap, not under it,
    and their plot is tall enough to compare them (the old one was 88 px)."""
    tab = opened("projector", f"?lang={lang}&{query}", ".st-key-row_bars .nsewdrag")
    ticks = tab.evaluate(TICKS, ".st-key-row_bars g.xtick text")
    expected = numpy_row(d, scale)
    assert [tick["lines"][1] for tick in ticks] == [f"{w:.2f}" for w in expected]
    assert min(tick["size"] for tick in ticks) >= 16, ticks
    assert max(tick["y1"] for tick in ticks) <= 720, ticks
    bars = drawn_box(tab, ".st-key-row_bars .nsewdrag")
    heatmap = drawn_box(tab, ".st-key-weights_heatmap .nsewdrag")
    assert bars["x"] >= heatmap["x"] + heatmap["width"]  # beside it
    assert bars["y"] < heatmap["y"] + heatmap["height"] and heatmap["y"] < bars["y"] + 50
    assert bars["height"] >= 140, bars


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize(("query", "d", "temperature"), [
    (RAW, 1536, 1.0), ("", 64, 1.0), ("d=768&temperature=0.5", 768, 0.5),
])  # fmt: skip
def test_the_projector_shows_the_row_s_verdict_and_table_on_the_first_screen(
    opened, lang, query, d, temperature
):
    """The sentence that judges the row (beside the heatmap, quoting the row's largest weight
    unscaled, as numpy has it) ends inside 720 px, and so does the row's table."""
    tab = opened("projector", f"?lang={lang}&{query}", ".st-key-row_bars .nsewdrag")
    heatmap = drawn_box(tab, ".st-key-weights_heatmap .nsewdrag")
    largest = f"{numpy_row(d, False, temperature).max():.3f}"
    (verdict,) = [
        box
        for box in boxes(tab, "p.safe")
        if largest in box["text"] and box["x0"] >= heatmap["x"] + heatmap["width"]
    ]
    assert verdict["y1"] <= 720, verdict
    table = drawn_box(tab, ".st-key-lab_row_numbers table")
    assert table["y"] + table["height"] <= 720, table


COMPARE = "?lang=en&compare=true&b_d=6144&b_scale=false"
B_BODY = "[data-testid=stPopoverBody]:has(.st-key-lab_b_d)"
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"


def open_b(tab):
    """Click B's settings button and wait until they are drawn, with any run opening them
    makes (their widgets are built while they are open)."""
    tab.locator("[data-testid=stPopover]", has_text="B ·").locator("button").first.click()
    tab.wait_for_selector(B_BODY, timeout=10_000)
    tab.wait_for_timeout(500)
    tab.wait_for_selector(IDLE, state="attached", timeout=30_000)
    tab.wait_for_timeout(500)
    tab.runs_seen = tab.runs_ended  # the next wait is for the next run


@pytest.mark.browser
@pytest.mark.parametrize("screen", ["projector", "laptop"])
def test_a_change_of_b_closes_b_s_settings(opened, screen):
    """Picking d = 768 for B closes B's settings, and B's heatmap and the link follow the pick;
    opened again, they show B's new d, narrow and clear of A's heatmap."""
    tab = opened(screen, COMPARE, ".st-key-compare_heatmap_b .nsewdrag")
    open_b(tab)
    tab.locator(f"{B_BODY} .st-key-lab_b_d_preset button", has_text="768").click()
    wait_idle(tab, settle_ms=800)
    assert tab.locator(B_BODY).count() == 0, "B's settings stayed open after a change of B"
    assert parse_qs(urlparse(tab.url).query)["b_d"] == ["768"]
    label = tab.locator("[data-testid=stPopover]", has_text="B ·").inner_text()
    assert "d = 768" in label
    open_b(tab)  # they open again, for the next change, with B's new d (not the old one back)
    assert tab.locator(f"{B_BODY} .st-key-lab_b_d input").input_value() == "768"
    assert parse_qs(urlparse(tab.url).query)["b_d"] == ["768"]
    body = drawn_box(tab, B_BODY)
    a = drawn_box(tab, ".st-key-compare_heatmap .nsewdrag")
    assert body["width"] <= 0.4 * 1280, body
    assert body["x"] >= a["x"] + a["width"], (body, a)
