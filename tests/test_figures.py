"""Figure builders: arrays and labels in, figures out, user text escaped, no NaN shown."""

import html
import json
import math

import numpy as np
import pytest
from conftest import decode
from numpy.testing import assert_allclose, assert_array_equal

from ui.kit import figures
from ui.lab import figures as lab_figures
from viz_core import run_lab


def heatmap_trace(fig):
    (trace,) = [tr for tr in fig.data if tr.type == "heatmap"]
    return trace


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


def test_heatmap_uses_positions_and_escaped_token_ticks():
    """x and y are 0 … n−1, tick text the escaped tokens; row 0 on top."""
    tokens = ("<", "我", "&", "我")
    fig = figures.matrix_heatmap(np.eye(4), tokens, tokens, lang="en", kind="weights")
    trace = heatmap_trace(fig)
    assert_array_equal(decode(trace.x) if isinstance(trace.x, dict) else trace.x, np.arange(4))
    assert list(fig.layout.yaxis.ticktext) == ["&lt;", "我", "&amp;", "我"]
    assert fig.layout.yaxis.range[0] > fig.layout.yaxis.range[1]


def test_weights_heatmap_z_is_the_matrix_itself():
    """kind="weights": z is the array passed in, unchanged (the page's contract)."""
    weights = run_lab("我喜欢人工智能", mask="causal").steps.weights
    tokens = tuple("abcdefghi")
    fig = figures.matrix_heatmap(weights, tokens, tokens, lang="zh", kind="weights")
    assert_array_equal(heatmap_trace(fig).z, weights)


def test_masked_cells_are_greyed_gaps_and_hover_says_masked():
    """−∞ cells become NaN gaps under one grey rectangle per run; hover says masked."""
    steps = run_lab("我喜欢", mask="causal").steps
    tokens = ("[CLS]", "我", "喜", "欢", "[SEP]")
    fig = figures.matrix_heatmap(
        steps.masked, tokens, tokens, lang="en", kind="scores", allowed=steps.allowed
    )
    z = np.asarray(heatmap_trace(fig).z, dtype=float)
    assert np.isnan(z[~steps.allowed]).all() and np.isfinite(z[steps.allowed]).all()
    grey = [(shape.y0 + 0.5, shape.x0 + 0.5, shape.x1 + 0.5) for shape in fig.layout.shapes]
    assert grey == [(0, 1, 5), (1, 2, 5), (2, 3, 5), (3, 4, 5)]  # row, first, stop
    hover = heatmap_trace(fig).customdata  # [row][column] = (query, key, value)
    assert hover[0][1][2] == "masked (−∞)"
    assert hover[1][0][2] == figures.format_value(steps.masked[1, 0])
    assert len(fig.data) == 1  # no click layer unless asked for


def test_masked_runs():
    """Runs of masked cells, row by row: a random mask gives one run per contiguous block."""
    masked = np.array([[1, 1, 0, 1], [0, 0, 0, 0], [1, 1, 1, 1]], dtype=bool)
    assert figures.masked_runs(masked) == [(0, 0, 2), (0, 3, 4), (2, 0, 4)]


def test_click_layer_covers_every_cell():
    """The transparent click squares sit on every cell centre."""
    tokens = tuple("abc")
    fig = figures.matrix_heatmap(
        np.zeros((3, 3)), tokens, tokens, lang="en", kind="scores", clickable=True
    )
    picker = fig.data[1]
    assert sorted(zip(picker.x, picker.y, strict=True)) == [
        (x, y) for x in range(3) for y in range(3)
    ]
    assert picker.marker.opacity == 0.01


@pytest.mark.parametrize("large", [False, True])
def test_cell_numbers_are_at_least_12_px_and_only_where_they_fit(large):
    """The lab's 9 × 9 prints its numbers at ≥ 12 px in square cells wider than the widest
    number; 32 × 32 in the same room hides them (hover keeps them); column labels wider than a
    cell are turned upright, so they never overlap."""
    weights = np.full((9, 9), 0.11)
    tokens = tuple("我喜欢人工智能能能")
    options = {"lang": "en", "kind": "weights", "large": large, "share": 0.58}
    nine = figures.matrix_heatmap(weights, tokens, tokens, **options)
    trace = heatmap_trace(nine)
    assert trace.text is not None and trace.textfont.size >= 12
    cell = (nine.layout.height - 20) / 9  # an upper bound on the cell height
    assert figures.text_width("0.11", trace.textfont.size) < cell
    assert nine.layout.xaxis.tickangle == 0  # one character per label: they fit side by side
    tokens = ("[CLS]", *("字" * 30), "[SEP]")
    many = figures.matrix_heatmap(
        np.zeros((32, 32)), tokens, tokens, lang="en", kind="scores", large=large, share=0.58
    )
    assert heatmap_trace(many).text is None and heatmap_trace(many).customdata is not None
    assert many.layout.xaxis.tickangle == -90


def test_selected_row_is_outlined():
    """The selected row gets one outline rectangle spanning the row."""
    fig = figures.matrix_heatmap(
        np.zeros((4, 4)), tuple("abcd"), tuple("abcd"), lang="en", kind="weights", selected_row=2
    )
    (shape,) = fig.layout.shapes
    assert (shape.y0, shape.y1) == (1.5, 2.5)


def test_row_bars_first_trace_is_the_chosen_setting():
    """row_bars: trace 0 is the chosen scaling's row, trace 1 the other, names in the language."""
    result = run_lab("我喜欢", scale=False)
    fig = lab_figures.row_bars(
        result.steps.weights[1], result.contrast.weights[1], result.tokens, scaled=False, lang="zh"
    )
    assert_array_equal(fig.data[0].y, result.steps.weights[1])
    assert fig.data[0].name == "不缩放" and fig.data[1].name == "缩放 ÷√d"


@pytest.mark.parametrize("large", [False, True])
def test_row_bars_put_the_chosen_weights_under_their_keys_only_where_they_fit(large):
    """The chosen run's weights, to two decimals, under each key while numbers and keys leave a
    gap between neighbours (the projector's wider panel); else the keys alone; never above the
    bars (Plotly measured each of those on every redraw)."""
    result = run_lab("我喜欢人工智能")
    row = result.steps.weights[2]
    fig = lab_figures.row_bars(
        row, result.contrast.weights[2], result.tokens, scaled=True, lang="en", large=large
    )
    ticks = list(fig.layout.xaxis.ticktext)
    if large:  # 422 px for 9 keys: 37 px each, "0.30" is about 24
        assert ticks == [f"{token}<br>{w:.2f}" for token, w in zip(result.tokens, row, strict=True)]
    else:  # 312 px: 25 px each, too close for numbers
        assert ticks == [html.escape(token) for token in result.tokens]
    assert all(trace.text is None for trace in fig.data)
    many = run_lab("注意力机制让每个字看见整个句子")
    fig = lab_figures.row_bars(
        many.steps.weights[0], many.contrast.weights[0], many.tokens, scaled=True, lang="en"
    )
    assert "<br>" not in "".join(fig.layout.xaxis.ticktext)


def test_output_heatmap_is_the_contributions_and_their_sum():
    """output_heatmap: the first heatmap trace is exactly contributions(row)'s first 8 columns;
    the second, outlined, is their sum, the output row."""
    result = run_lab("我喜欢人工智能")
    steps = result.steps
    fig = lab_figures.output_heatmap(
        steps.contributions(2), steps.output[2], result.tokens, lang="en", dims=8
    )
    parts = [np.asarray(trace.z) for trace in fig.data if trace.type == "heatmap"]
    assert_array_equal(parts[0], steps.contributions(2)[:, :8])
    assert_allclose(parts[0].sum(axis=0), parts[1][0], atol=1e-12)
    assert list(fig.layout.yaxis.ticktext)[-1] == "= output"


def test_small_multiples_have_one_panel_per_row():
    """row_multiples: n bar traces, each a row of the weights."""
    weights = run_lab("我爱我家").steps.weights
    fig = lab_figures.row_multiples(weights, ("[CLS]", "我", "爱", "我", "家", "[SEP]"), lang="en")
    assert len(fig.data) == 6
    for i, trace in enumerate(fig.data):
        assert_array_equal(trace.y, weights[i])
    assert math.isclose(sum(fig.data[0].y), 1.0)


SENT_PAGES = [
    ("lab", {"stage": "all", "heads": "4", "d": "64", "mask": "causal"}),
    ("lab", {"stage": "output", "source": "embedding"}),
    ("lab", {"text": "".join(chr(0x4E00 + 7 * i) for i in range(40)), "mask": "padding"}),
    ("softmax", {}),
    ("scaling", {}),
    ("steps", {"step": "4"}),
    ("train", {"steps": "50"}),
    ("kernel", {"section": "flash"}),
    ("variants", {"variant": "gqa"}),
]


@pytest.mark.parametrize(("page", "query"), SENT_PAGES)
def test_every_chart_is_sent_exactly_as_plotly_would_send_it(page, query, monkeypatch):
    """The app's figures convert themselves for sending without building Plotly's objects or
    copying them; the JSON must say exactly what Plotly's own to_dict says (keys may come in
    another order), for every chart drawn."""
    import plotly.graph_objects as go
    import plotly.io as pio
    import streamlit as st
    from conftest import open_app

    from ui.kit import cache, figures

    sent, built = [], []
    real, real_sendable = st.plotly_chart, figures.sendable

    def record(fig, *args, **kwargs):
        sent.append(fig)
        return real(fig, *args, **kwargs)

    def record_shared(fig):  # a shared figure is converted once, when built
        built.append((fig, real_sendable(fig)))
        return built[-1][1]

    monkeypatch.setattr(st, "plotly_chart", record)
    monkeypatch.setattr(figures, "sendable", record_shared)
    cache.clear_all()
    open_app(page, lang="en", **query)
    assert sent
    shared = [fig for fig in sent if isinstance(fig, figures.Sent)]
    built_dicts = [id(converted) for _, converted in built]
    assert all(id(fig.to_dict()) in built_dicts for fig in shared)  # sent as built, unchanged
    unshared = [fig for fig in sent if not isinstance(fig, figures.Sent)]
    for fig in unshared + [fig for fig, _ in built]:
        ours = json.loads(pio.to_json(fig.to_dict(), validate=False))
        plotly = json.loads(pio.to_json(go.Figure.to_dict(fig), validate=False))
        assert ours == plotly


def test_a_shared_figure_is_built_once_per_arguments_and_sent_as_built():
    """shared_figure keys a figure by its builder and arguments, arrays by their content: equal
    arguments get the one converted figure, other numbers a new one; it is never turned back
    into Plotly's objects, which every session shares."""
    from ui.kit import cache, figures

    cache.clear_all()
    calls = []

    def build(z, label, *, kind):
        calls.append(kind)
        return figures.figure([{"type": "heatmap", "z": z}], {"title": {"text": label}})

    def build_too(z, label, *, kind):
        calls.append(kind)
        return build(z, label, kind=kind)

    first = figures.shared_figure(build, np.eye(3), "x", kind="w")
    again = figures.shared_figure(build, np.eye(3).copy(), "x", kind="w")  # another array
    assert len(calls) == 1 and first.to_dict() is again.to_dict()
    others = [
        figures.shared_figure(build, np.eye(3) * 2, "x", kind="w"),  # other numbers
        figures.shared_figure(build, np.zeros((2, 3)), "x", kind="w"),  # same bytes as (3, 2)
        figures.shared_figure(build, np.zeros((3, 2)), "x", kind="w"),
        figures.shared_figure(build, np.eye(3), "y", kind="w"),  # another label
        figures.shared_figure(build, np.eye(3), "x", kind="s"),  # another keyword
        figures.shared_figure(build_too, np.eye(3), "x", kind="w"),  # another builder
    ]
    assert len(calls) == 1 + 6 + 1  # build_too also calls build
    assert len({id(fig.to_dict()) for fig in [first, *others]}) == 7
    assert first.to_dict() == build(np.eye(3), "x", kind="w").to_dict()
    assert figures.FIGURES in cache.CACHES and figures.FIGURES.total > 0
    with pytest.raises(AttributeError):
        first.layout  # noqa: B018
