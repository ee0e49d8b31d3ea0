"""Figure builders: arrays and labels in, figures out, user text escaped, no NaN shown; every
matrix drawn by the one heatmap, every chart sent as an ordinary Plotly figure built once."""

import html
import json
import math

import numpy as np
import plotly.graph_objects as go
import pytest
from conftest import decode
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

from ui.kit import figures
from ui.kit.heatmap import (
    Matrix,
    column_ticks,
    heatmap,
    is_cjk,
    numbers_fit,
    shorten,
)
from ui.kit.pages import PAGES as REGISTERED
from ui.kit.typography import LAPTOP, PHONE, PROJECTOR
from ui.lab import figures as lab_figures
from viz_core import run_lab


def heatmap_trace(fig):
    (trace,) = [tr for tr in fig["data"] if tr["type"] == "heatmap"]
    return trace


def draw(z, rows, cols=None, **options):
    """One matrix as the app draws it, in English."""
    spec = {k: options.pop(k) for k in list(options) if k not in ("screen", "share", "per_row")}
    return heatmap(Matrix(z, tuple(rows), tuple(cols or rows), **spec), lang="en", **options)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (float("nan"), "—"),
        (float("-inf"), "−∞"),
        (float("inf"), "+∞"),
        (-1.23456, "−1.235"),
        (0.1, "0.1"),
    ],
)
def test_format_value_never_shows_nan_or_inf(value, text):
    """Hover values: 4 significant digits, a real minus sign, symbols for the infinities."""
    assert figures.format_value(value) == text


def test_cells_are_short():
    """Cells: weights with 2 decimals, scores with 1 below 10 and none from 10 on."""
    assert figures.format_cell(0.4567, "weights") == "0.46"
    assert figures.format_cell(-3.14159, "scores") == "−3.1"
    assert figures.format_cell(20.7, "scores") == "21"
    assert figures.format_cell(float("-inf"), "scores") == "−∞"
    assert figures.format_cell(-0.04, "scores") == "0.0"  # no "−0.0"
    assert figures.format_cell(-0.0001, "fine") == "0.000"


def test_heatmap_uses_positions_and_escaped_token_ticks():
    """x and y are 0 … n−1, tick text the escaped tokens; row 0 on top."""
    tokens = ("<", "我", "&", "我")
    fig = draw(np.eye(4), tokens, scale="weights")
    trace = heatmap_trace(fig)
    assert_array_equal(trace["x"], np.arange(4))
    assert fig["layout"]["yaxis"]["ticktext"] == ["&lt;", "我", "&amp;", "我"]
    assert fig["layout"]["yaxis"]["range"][0] > fig["layout"]["yaxis"]["range"][1]


def test_weights_heatmap_z_is_the_matrix_itself():
    """scale="weights": z is the array passed in, unchanged (the page's contract)."""
    weights = run_lab("我喜欢人工智能", mask="causal").steps.weights
    fig = draw(weights, tuple("abcdefghi"), scale="weights")
    assert heatmap_trace(fig)["z"] is weights


def test_masked_cells_are_greyed_gaps_and_hover_says_masked():
    """−∞ cells become NaN gaps under one grey rectangle per run; hover says masked."""
    steps = run_lab("我喜欢", mask="causal").steps
    tokens = ("[CLS]", "我", "喜", "欢", "[SEP]")
    fig = draw(steps.masked, tokens, masked=~steps.allowed)
    z = np.asarray(heatmap_trace(fig)["z"], dtype=float)
    assert np.isnan(z[~steps.allowed]).all() and np.isfinite(z[steps.allowed]).all()
    grey = [(s["y0"] + 0.5, s["x0"] + 0.5, s["x1"] + 0.5) for s in fig["layout"]["shapes"]]
    assert grey == [(0, 1, 5), (1, 2, 5), (2, 3, 5), (3, 4, 5)]  # row, first, stop
    hover = heatmap_trace(fig)["customdata"]  # [row][column] = (query, key, value)
    assert hover[0][1][2] == "masked (−∞)"
    assert hover[1][0][2] == figures.format_value(steps.masked[1, 0])
    assert len(fig["data"]) == 1  # no click layer unless asked for


def test_notes_replace_a_cells_value_in_the_hover():
    """A cell with a note hovers its note; the others their value."""
    notes = np.array([["", "not yet"], ["", ""]])
    fig = draw(np.array([[1.0, np.nan], [2.0, 3.0]]), "ab", notes=notes)
    hover = heatmap_trace(fig)["customdata"]
    assert (hover[0][1][2], hover[0][0][2]) == ("not yet", "1")


def test_masked_runs():
    """Runs of masked cells, row by row: a random mask gives one run per contiguous block."""
    masked = np.array([[1, 1, 0, 1], [0, 0, 0, 0], [1, 1, 1, 1]], dtype=bool)
    assert figures.masked_runs(masked) == [(0, 0, 2), (0, 3, 4), (2, 0, 4)]


def test_click_layer_covers_every_cell():
    """The transparent click squares sit on every cell centre and carry the hover."""
    fig = draw(np.zeros((3, 3)), "abc", clickable=True)
    picker = fig["data"][1]
    assert sorted(zip(picker["x"], picker["y"], strict=True)) == [
        (x, y) for x in range(3) for y in range(3)
    ]
    assert picker["marker"]["opacity"] == 0.01 and len(picker["customdata"]) == 9
    assert fig["data"][0]["hoverinfo"] == "skip"


@pytest.mark.parametrize("screen", [LAPTOP, PROJECTOR], ids=["laptop", "projector"])
def test_cell_numbers_are_at_least_12_px_and_only_where_they_fit(screen):
    """The lab's 9 × 9 prints its numbers at ≥ 12 px in square cells wider than the widest
    number; 32 × 32 in the same room leaves them to the hover."""
    tokens = tuple("我喜欢人工智能能能")
    nine = draw(np.full((9, 9), 0.11), tokens, scale="weights", screen=screen, share=0.58)
    trace = heatmap_trace(nine)
    assert trace["textfont"]["size"] == screen.cell_font >= 12
    layout = nine["layout"]
    cell = (layout["height"] - layout["margin"]["t"] - layout["margin"]["b"]) / 9
    assert figures.text_width("0.11", trace["textfont"]["size"]) + 4 <= cell
    tokens = ("[CLS]", *("字" * 30), "[SEP]")
    many = draw(np.zeros((32, 32)), tokens, screen=screen, share=0.58)
    assert "text" not in heatmap_trace(many) and heatmap_trace(many)["customdata"]


def test_one_rule_decides_cell_numbers():
    """Numbers print at the cell font when the widest, with a gap, fits the cell; else none."""
    assert numbers_fit([["0.11", "0.5"]], 13, 30)
    assert not numbers_fit([["0.11"]], 13, 28)  # 0.11 is about 25 px: no gap left
    assert not numbers_fit([["1"]], 11, 40)  # below 12 px nothing is printed


def test_single_cjk_column_labels_stay_upright_and_long_ones_are_shortened():
    """Beside CJK columns too narrow for "[CLS]", the axis stays upright: CJK characters whole,
    the special tokens without their brackets (or cut, marked …), none wider than its room."""
    tokens = ("[CLS]", *"注意力机制让每个字看见整个句子", "[SEP]")
    fig = draw(np.zeros((17, 17)), tokens, share=0.58)
    axis = fig["layout"]["xaxis"]
    assert axis["tickangle"] == 0
    shown = dict(zip(axis["tickvals"], axis["ticktext"], strict=True))
    assert "CLS".startswith(shown[0].rstrip("…"))  # "CLS", "C…" or "C": the hover has it whole
    assert all(shown[i] == tokens[i] for i in shown if 0 < i < 16)
    ticks = column_ticks(tokens, 13, 26)  # "[CLS]" is about 31 px, "CLS" 23
    assert ticks.axis["ticktext"][0] == "CLS" and ticks.axis["tickangle"] == 0


def test_latin_column_labels_too_wide_turn_on_their_side():
    """No CJK label on the axis and one too wide for its cell: the labels turn, whole."""
    words = ("[CLS]", "attention", "is", "all", "you", "need", "[SEP]")
    ticks = column_ticks(words, 13, 20)
    assert ticks.axis["tickangle"] == -90 and ticks.axis["ticktext"] == list(words)
    assert ticks.extent >= figures.text_width("attention", 13)
    assert column_ticks(words, 13, 80).axis["tickangle"] == 0  # room enough: upright


def drawn_columns(fig, axis="x"):
    """Each labelled column of a figure's axis as drawn: {column: (text, angle)}, from its tick
    text (at the axis's angle) and from the labels set above it upright (annotations)."""
    layout = fig["layout"]
    ticks = layout[f"{axis}axis"]
    drawn = {
        at: (text, ticks["tickangle"])
        for at, text in zip(ticks["tickvals"], ticks["ticktext"], strict=True)
        if text
    }
    for note in layout.get("annotations", []):
        if note.get("xref") == axis and note.get("yref") == "y domain":
            assert note["x"] not in drawn, f"column {note['x']} labelled twice"
            drawn[note["x"]] = (note["text"], note.get("textangle", 0))
    return drawn


WORDS = ("i", "like", "artificial", "intelligence", ".", "[EOS]")  # the translator's key words


@pytest.mark.parametrize("screen", [PHONE, LAPTOP, PROJECTOR], ids=lambda s: s.name)
def test_short_column_labels_beside_turned_ones_stay_upright(screen):
    """A Latin axis turned because "intelligence" is wider than its cell: each label that fits
    its cell upright ("i", ".") is drawn upright (angle 0) above its column, once; only the
    labels too wide are turned, whole. Turned, a one-character label reads as a dot."""
    fig = draw(np.full((8, 6), 1 / 6), "我喜欢人工智能。", WORDS, scale="weights",
               screen=screen, share=0.58)  # fmt: skip
    layout = fig["layout"]
    plot = layout["width"] - layout["margin"]["l"] - layout["margin"]["r"]
    domain = layout["xaxis"]["domain"]
    size = (domain[1] - domain[0]) * plot / len(WORDS)  # px per column, from the figure
    font = layout["xaxis"]["tickfont"]["size"]
    assert figures.text_width("intelligence", font) > size - 2  # what is checked: a turned axis
    drawn = drawn_columns(fig)
    assert sorted(drawn) == list(range(len(WORDS)))
    for at, word in enumerate(WORDS):
        text, angle = drawn[at]
        assert html.unescape(text) == word
        fits = figures.text_width(word, font) <= size - 2
        assert angle == (0 if fits else -90), (word, angle)
    assert drawn[0][1] == 0 and drawn[4][1] == 0  # "i" and "." upright on every screen


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.text(min_size=1, max_size=8), min_size=1, max_size=40),
    st.integers(4, 48),
    st.sampled_from([13, 14]),
)
def test_no_two_upright_column_labels_touch(labels, size, font):
    """Any labels, any cell: CJK on the axis keeps it upright, and neighbouring upright labels
    (centred on their columns) leave a gap between them."""
    ticks = column_ticks(labels, font, size)
    if any(is_cjk(label) for label in labels):
        assert ticks.axis["tickangle"] == 0
    if ticks.axis["tickangle"] == 0:
        widths = [figures.text_width(html.unescape(text), font) for text in ticks.axis["ticktext"]]
        places = ticks.axis["tickvals"]
        for i in range(1, len(places)):
            apart = (places[i] - places[i - 1]) * size
            assert (widths[i - 1] + widths[i]) / 2 + 2 <= apart


def test_shorten_keeps_what_fits():
    """Whole when it fits, then without brackets, then cut with …"""
    assert shorten("[PAD]", 13, 40) == "[PAD]"
    assert shorten("[PAD]", 13, 24) == "PAD"
    assert shorten("family", 13, 30).endswith("…")


def test_selected_row_is_outlined():
    """The selected row gets one outline rectangle spanning the row."""
    fig = draw(np.zeros((4, 4)), "abcd", scale="weights", selected_row=2)
    (shape,) = fig["layout"]["shapes"]
    assert (shape["y0"], shape["y1"], shape["x0"], shape["x1"]) == (1.5, 2.5, -0.5, 3.5)


def test_small_multiples_share_one_cell_size_row_labels_and_titles():
    """Panels side by side: square cells of one size (domains in proportion to their columns),
    row labels on the first only, titles under them."""
    weights = [
        Matrix(np.eye(3), tuple("abc"), tuple("abc"), "weights", title=f"h{i}") for i in (0, 1)
    ]
    wide = Matrix(np.ones((3, 6)), tuple("abc"), tuple("uvwxyz"), name="scores")
    layout = heatmap([weights[0], wide], lang="en")["layout"]
    x, x2 = layout["xaxis"]["domain"], layout["xaxis2"]["domain"]
    assert math.isclose(2 * (x[1] - x[0]), x2[1] - x2[0]) and x[1] < x2[0]
    assert layout["yaxis"]["showticklabels"] and not layout["yaxis2"]["showticklabels"]
    assert [a["text"] for a in heatmap(weights, lang="en")["layout"]["annotations"]] == ["h0", "h1"]


def test_a_colour_bar_stands_in_for_the_numbers_when_the_panels_share_a_scale():
    """Cells that print their numbers need no colour bar; cells too small for them get one bar
    for the whole figure, on its last panel, when every panel has the same scale, none when
    their scales differ (each reads its own in the hover)."""
    small = [Matrix(np.eye(3), tuple("abc"), tuple("abc"), "weights") for _ in (0, 1)]
    assert not any(trace["showscale"] for trace in heatmap(small, lang="en")["data"])
    labels = tuple(f"t{i}" for i in range(30))
    big = [Matrix(np.eye(30), labels, labels, "weights") for _ in (0, 1)]
    fig = heatmap(big, lang="en")
    assert "text" not in fig["data"][0]
    assert [trace["showscale"] for trace in fig["data"]] == [False, True]
    mixed = heatmap([big[0], Matrix(np.eye(30), labels, labels)], lang="en")
    assert not any(trace["showscale"] for trace in mixed["data"])
    (one,) = heatmap(big[0], lang="en")["data"]
    assert one["showscale"] and one["colorbar"]["x"] == 1.0


def test_a_grid_of_panels_labels_the_first_column_and_the_first_row():
    """Four per row: row labels on each row's first panel, column labels over the first row."""
    panels = [Matrix(np.eye(2), ("a", "b"), ("c", "d"), "weights") for _ in range(6)]
    layout = heatmap(panels, lang="en", per_row=4)["layout"]
    rows = [layout[f"yaxis{s}"]["showticklabels"] for s in ("", "2", "3", "4", "5", "6")]
    cols = [layout[f"xaxis{s}"]["showticklabels"] for s in ("", "2", "3", "4", "5", "6")]
    assert rows == [True, False, False, False, True, False]
    assert cols == [True, True, True, True, False, False]
    assert layout["yaxis5"]["domain"][1] < layout["yaxis"]["domain"][0]


def test_row_bars_first_trace_is_the_chosen_setting():
    """row_bars: trace 0 is the chosen scaling's row, trace 1 the other, names in the language."""
    result = run_lab("我喜欢", scale=False)
    fig = lab_figures.row_bars(
        result.steps.weights[1], result.contrast.weights[1], result.tokens, scaled=False, lang="zh"
    )
    assert_array_equal(fig["data"][0]["y"], result.steps.weights[1])
    assert fig["data"][0]["name"] == "不缩放" and fig["data"][1]["name"] == "缩放 ÷√d"


@pytest.mark.parametrize("screen", [LAPTOP, PROJECTOR], ids=["laptop", "projector"])
def test_row_bars_put_the_chosen_weights_under_their_keys_only_where_they_fit(screen):
    """The chosen run's weights, to two decimals, under each key while numbers and keys leave a
    gap between neighbours (the projector's wider panel); else the keys alone; never above the
    bars (Plotly measures each of those on every redraw)."""
    result = run_lab("我喜欢人工智能")
    row = result.steps.weights[2]
    fig = lab_figures.row_bars(
        row, result.contrast.weights[2], result.tokens, scaled=True, lang="en", screen=screen
    )
    ticks = fig["layout"]["xaxis"]["ticktext"]
    if screen is PROJECTOR:  # 422 px for 9 keys: 37 px each, "0.30" is about 24
        assert ticks == [f"{token}<br>{w:.2f}" for token, w in zip(result.tokens, row, strict=True)]
    else:  # 312 px: 25 px each, too close for numbers
        assert ticks == [html.escape(token) for token in result.tokens]
    assert all("text" not in trace for trace in fig["data"])
    many = run_lab("注意力机制让每个字看见整个句子")
    fig = lab_figures.row_bars(
        many.steps.weights[0], many.contrast.weights[0], many.tokens, scaled=True, lang="en"
    )
    assert "<br>" not in "".join(fig["layout"]["xaxis"]["ticktext"])


def test_output_heatmap_is_the_contributions_and_their_sum():
    """output_heatmap: rows 0 … m − 1 of its one heatmap are exactly contributions(row)'s first
    8 columns; the last row, outlined, is their sum, the output row."""
    result = run_lab("我喜欢人工智能")
    steps = result.steps
    fig = lab_figures.output_heatmap(
        steps.contributions(2), steps.output[2], result.tokens, lang="en", dims=8
    )
    z = heatmap_trace(fig)["z"]
    assert_array_equal(z[:-1], steps.contributions(2)[:, :8])
    assert_allclose(z[:-1].sum(axis=0), z[-1], atol=1e-12)
    assert fig["layout"]["yaxis"]["ticktext"][-1] == "= output"
    (outline,) = fig["layout"]["shapes"]
    assert outline["y0"] == len(result.tokens) - 0.5


def test_small_multiples_have_one_panel_per_row():
    """row_multiples: n bar traces, each a row of the weights."""
    weights = run_lab("我爱我家").steps.weights
    fig = lab_figures.row_multiples(weights, ("[CLS]", "我", "爱", "我", "家", "[SEP]"), lang="en")
    assert len(fig["data"]) == 6
    for i, trace in enumerate(fig["data"]):
        assert_array_equal(trace["y"], weights[i])
    assert math.isclose(sum(fig["data"][0]["y"]), 1.0)


# Every page as a link opens it (from PAGES: a new page is swept without an edit here), then
# the settings that draw other figures.
PAGES = [(page.path, {}) for page in REGISTERED] + [
    ("lab", {"stage": "all", "heads": "4", "d": "64", "mask": "causal"}),
    ("lab", {"stage": "output", "source": "embedding"}),
    ("lab", {"text": "".join(chr(0x4E00 + 7 * i) for i in range(40)), "mask": "padding"}),
    ("steps", {"step": "4"}),
    ("train", {"steps": "50"}),
    ("kernel", {"section": "flash"}),
    ("kernel", {"section": "cache"}),
    ("variants", {"variant": "rope"}),
    ("variants", {"variant": "cross"}),
    ("model", {"mask_at": "0"}),
]


@pytest.mark.parametrize(("page", "query"), PAGES)
def test_every_chart_is_an_ordinary_plotly_figure(page, query, monkeypatch):
    """Every chart reaches Streamlit as a plain ``go.Figure`` (Streamlit validates a dict on
    every run, a figure never): update_layout on a copy works, and what was sent is the
    figure's own JSON."""
    import plotly.io as pio
    import streamlit as st
    from conftest import open_app

    sent = []
    real = st.plotly_chart

    def record(fig, *args, **kwargs):
        sent.append(fig)
        return real(fig, *args, **kwargs)

    monkeypatch.setattr(st, "plotly_chart", record)
    at = open_app(page, lang="en", **query)
    assert sent and all(type(fig) is go.Figure for fig in sent)
    charts = at.get("plotly_chart")  # the page's; a link to another page first ran the lab
    for fig, shown in zip(sent[len(sent) - len(charts) :], charts, strict=True):
        copy = go.Figure(fig).update_layout(title_text="changed", height=123)
        assert copy.layout.height == 123
        assert json.loads(shown.proto.spec) == json.loads(pio.to_json(fig, validate=False))


def test_a_figure_is_built_once_per_arguments_and_shared():
    """``shown`` keys a figure by its builder and arguments (arrays by their content,
    dataclasses by their fields): equal arguments get the one figure, other numbers, labels,
    keywords or builders a new one, each kept in the byte-bounded figure cache."""
    from ui.kit import cache
    from ui.kit.display import FIGURES, shown

    cache.clear_all()
    calls = []

    def build(z, label, *, kind):
        calls.append(kind)
        return figures.figure([{"type": "heatmap", "z": z}], {"title": {"text": label}})

    def build_too(z, label, *, kind):
        return build(z, label, kind=kind)

    first_key, first = shown(build, np.eye(3), "x", kind="w")
    again_key, again = shown(build, np.eye(3).copy(), "x", kind="w")  # the same numbers
    assert len(calls) == 1 and first is again and isinstance(first, go.Figure)
    assert first_key == again_key and FIGURES.get(first_key, lambda: None) is first
    others = [
        shown(build, np.eye(3) * 2, "x", kind="w"),  # other numbers
        shown(build, np.zeros((2, 3)), "x", kind="w"),  # same bytes as (3, 2)
        shown(build, np.zeros((3, 2)), "x", kind="w"),
        shown(build, np.eye(3), "y", kind="w"),  # another label
        shown(build, np.eye(3), "x", kind="s"),  # another keyword
        shown(build_too, np.eye(3), "x", kind="w"),  # another builder
        shown(heatmap, Matrix(np.eye(2), ("a", "b"), ("a", "b")), lang="en"),  # a dataclass
    ]
    assert len(calls) == 1 + 6
    assert len({id(fig) for _, fig in others} | {id(first)}) == 8
    assert len({key for key, _ in others} | {first_key}) == 8  # each shows something else
    dataclass_key, dataclass_fig = others[-1]
    matrix = Matrix(np.eye(2), ("a", "b"), ("a", "b"))
    key, fig = shown(heatmap, matrix, lang="en")
    assert key == dataclass_key and fig is dataclass_fig
    assert decode(first.to_dict()["data"][0]["z"]).tolist() == np.eye(3).tolist()
    assert FIGURES in cache.CACHES and FIGURES.total > 0


PHONE_TOKENS = ("[CLS]", "我", "喜", "欢", "人", "工", "智", "能", "[SEP]")


def _cell_px(fig, axis="xaxis"):
    """A cell's drawn side in px, from the figure's own width, margins and domain."""
    layout = fig["layout"]
    plot = layout["width"] - layout["margin"]["l"] - layout["margin"]["r"]
    x0, x1 = layout[axis]["domain"]
    return plot * (x1 - x0) / len(fig["data"][0]["z"][0])


def test_a_phone_gets_a_figure_as_wide_as_its_screen_with_numbers_only_where_they_fit():
    """Streamlit squeezes a figure wider than the screen, but not its text: on a phone the
    heatmap is sized to the phone and prints its numbers only if they fit the cells it has.
    The articles' 9 × 9 weights fit at 12 px once the rows' title gives its room to the cells;
    16 tokens do not, and leave them to the hover."""
    for n, phone_numbered in ((9, True), (16, False)):
        tokens = (PHONE_TOKENS * 2)[:n]
        weights = np.random.default_rng(0).dirichlet(np.ones(n), n)
        matrix = Matrix(weights, tokens, tokens, "weights")
        laptop = heatmap(matrix, lang="en", share=0.58)
        phone = heatmap(matrix, lang="en", share=0.58, screen=PHONE)
        assert laptop["layout"]["width"] > 390 >= phone["layout"]["width"]
        for fig, font in ((laptop, LAPTOP.cell_font), (phone, PHONE.cell_font)):
            numbered = "text" in fig["data"][0]
            widest = 0.56 * 3 * font + 0.3 * font  # "0.00" at the cell font
            assert numbered == (_cell_px(fig) >= widest + 4), _cell_px(fig)
            assert not numbered or fig["data"][0]["textfont"]["size"] >= 12
        assert ("text" in laptop["data"][0]) == (n == 9)  # 16 do not fit a laptop either
        assert ("text" in phone["data"][0]) == phone_numbered
        # the rows' name stays in the hover when the phone leaves out its title
        assert "title" not in phone["layout"]["yaxis"]
        assert "query (rows of Q)" in phone["data"][0]["hovertemplate"]


def test_a_phone_wraps_a_figure_of_many_panels_two_to_a_row():
    weights = np.full((9, 9), 1 / 9)
    panels = [Matrix(weights, PHONE_TOKENS, PHONE_TOKENS, "weights") for _ in range(8)]
    for screen, across in ((LAPTOP, 4), (PHONE, 2)):
        layout = heatmap(panels, lang="en", per_row=4, screen=screen)["layout"]
        domains = {tuple(layout[key]["domain"]) for key in layout if key.startswith("xaxis")}
        assert len(domains) == across


def test_a_panel_title_wider_than_its_panel_is_broken_in_two_and_given_the_room():
    """On a phone the heads' panels are 5 cells wide: "layer 1 · head 2" would run into its
    neighbour's title, so it takes two lines, and the rows of panels move apart by one more
    line; on a laptop's wider panels it stays on one line."""
    from ui.kit.figures import text_width
    from ui.kit.heatmap import GAP

    weights = np.full((5, 5), 1 / 5)
    tokens = PHONE_TOKENS[:5]
    panels = [
        Matrix(weights, tokens, tokens, "weights", title=f"layer {i // 4 + 1} · head {i % 4 + 1}")
        for i in range(8)
    ]
    for screen, broken in ((PHONE, True), (LAPTOP, False)):
        fig = heatmap(panels, lang="en", per_row=4, screen=screen)
        layout = fig["layout"]
        titles = [note["text"] for note in layout["annotations"]]
        expected = [m.title.replace(" · ", "<br>") if broken else m.title for m in panels]
        assert titles == expected
        cell = _cell_px(fig)
        font = layout["annotations"][0]["font"]["size"]
        assert (text_width(panels[0].title, font) > 5 * cell + GAP) is broken
        tops = sorted({layout[key]["domain"][1] for key in layout if key.startswith("yaxis")})
        plot_h = layout["height"] - layout["margin"]["t"] - layout["margin"]["b"]
        between = (tops[-1] - tops[-2]) * plot_h - 5 * cell  # px from one row to the next
        lines = 2 if broken else 1
        assert between >= GAP + lines * 1.6 * font


def test_the_phone_hint_is_the_browsers_word_and_reaches_every_builder_that_takes_it(
    monkeypatch,
):
    from types import SimpleNamespace

    from ui.kit import display, screen

    for agent, expected in (("Mozilla/5.0 (iPhone) Mobile/15E148", True), ("X11; Linux", False)):
        monkeypatch.setattr(screen.st, "context", SimpleNamespace(headers={"User-Agent": agent}))
        monkeypatch.setattr(screen.st, "session_state", {})
        assert screen.phone() is expected
        # once the browser has told its width, the width wins; what else it sends is not trusted
        for told, phone in (({"phone": True}, True), ({"phone": False}, False)):
            monkeypatch.setattr(screen.st, "session_state", {"_screen": told})
            assert screen.phone() is phone
        for junk in ({"phone": "yes"}, {"phone": 1}, {}, "phone", None):
            monkeypatch.setattr(screen.st, "session_state", {"_screen": junk})
            assert screen.phone() is expected
    assert display.takes_screen(heatmap)
    assert not display.takes_screen(figures.lesson_layout)


@pytest.mark.parametrize(
    "values", [[-1000.0, -1001.0], [2.0, 1.0, 0.1], [20.0, -10.0, 5.0]], ids=["neg", "pos", "mixed"]
)
def test_softmax_input_bars_leave_room_for_their_numbers_and_the_title(values):
    """The input panel's range reaches past every bar by some of the span, on each side that
    has bars (numbers sit outside them), and above 0 when all are negative (the title)."""
    from ui.softmax.figures import softmax_bars

    x = np.array(values)
    p = np.exp(x - x.max()) / np.exp(x - x.max()).sum()
    low, high = softmax_bars(x, p, [str(i) for i in range(len(x))], lang="en").layout.yaxis.range
    span = max(x.max(), 0) - min(x.min(), 0)
    assert high >= max(x.max(), 0) + 0.1 * span
    assert low <= min(x.min(), 0) - (0.1 * span if x.min() < 0 else 0) and low <= 0
