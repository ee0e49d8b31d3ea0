"""The variants page's figures: views in, figure dicts out, never ``st.*``; every matrix is
drawn by ``ui.kit.heatmap``."""

import math
from typing import Any

import numpy as np

from ui.kit.figures import (
    FONT_SIZE,
    PAD,
    SLACK,
    axis_title,
    escape,
    figure,
    label_room,
    text_width,
)
from ui.kit.heatmap import (
    Matrix,
    cell_rects,
    column_ticks,
    heatmap,
    panel,
    row_ticks,
)
from ui.kit.text import t
from ui.kit.typography import LAPTOP, Screen
from ui.variants.compute import AlignView, CrossView, GqaView, RopeView, WindowView

SHARE = 0.62  # the figure's column beside the controls, of the main area
LABELLED_GROUPS = 16  # key/value heads: more, and the lines between groups would be a texture
LOST_COLOUR = "#f59e0b"  # amber: pairs the causal mask allows and the window cuts
ROPE_COLOUR = "#2563eb"
ABSOLUTE_COLOUR = "#dc2626"
Trace = dict[str, Any]


# --- GQA -------------------------------------------------------------------------------------


def gqa_heads(
    view: GqaView, tokens: tuple[str, ...], row: int, *, lang: str, screen: Screen = LAPTOP
) -> dict[str, Any]:
    """Left: the selected token's key in every query head (heads of one group: equal rows).
    Right: its weights in every head (each head still has its own)."""
    group = view.q_heads // view.kv_heads
    heads = tuple(f"h{h} → kv{h // group}" for h in range(view.q_heads))
    dims = tuple(str(j) for j in range(view.keys.shape[1]))
    token = escape(tokens[row])
    panels = [
        Matrix(
            view.keys, heads, dims, row_axis="", col_axis="axis_dimension", name="keys",
            title=t("vr_gqa_panel_keys", lang, token=token),
        ),
        Matrix(
            view.weights, heads, tokens, "weights", row_axis="", name="weights",
            title=t("vr_gqa_panel_weights", lang, token=token),
        ),
    ]  # fmt: skip
    fig = heatmap(panels, lang=lang, share=SHARE, screen=screen)
    fig["layout"]["shapes"] += _group_lines(view.kv_heads, group)
    return fig


def _group_lines(kv_heads: int, group: int) -> list[dict[str, Any]]:
    """A line between groups on both panels (while there are few enough groups to see)."""
    return [
        {
            "type": "line",
            "xref": f"x{suffix} domain",
            "yref": f"y{suffix}",
            "x0": 0,
            "x1": 1,
            "y0": g * group - 0.5,
            "y1": g * group - 0.5,
            "line": {"color": "#6b7280", "width": 3},
        }
        for g in range(1, kv_heads if kv_heads <= LABELLED_GROUPS else 0)
        for suffix in ("", "2")
    ]


# --- sliding window --------------------------------------------------------------------------


def window_heatmap(
    view: WindowView, tokens: tuple[str, ...], row: int, *, lang: str, screen: Screen = LAPTOP
) -> dict[str, Any]:
    """Causal weights (left) next to the window's (right): grey = the future, amber = seen under
    the causal mask but outside the window (weight exactly 0)."""
    n = len(tokens)
    future = ~np.tri(n, dtype=bool)
    lost = ~view.allowed & ~future
    panels = [
        Matrix(
            view.causal, tokens, tokens, "weights", masked=future, selected_row=row,
            title=t("vr_window_panel_causal", lang), name="causal",
        ),
        Matrix(
            view.weights, tokens, tokens, "weights", masked=~view.allowed, selected_row=row,
            title=t("vr_window_panel_window", lang, window=view.window), name="window",
        ),
    ]  # fmt: skip
    fig = heatmap(panels, lang=lang, share=SHARE, screen=screen)
    fig["layout"]["shapes"] += cell_rects(lost, LOST_COLOUR, 0.85, axes="2")
    return fig


# --- RoPE ------------------------------------------------------------------------------------

DEMO = [0.66, 1.0]  # the demo matrix's part of the figure's width, right of the scores


def rope_scores(view: RopeView, *, lang: str, screen: Screen = LAPTOP) -> dict[str, Any]:
    """Left: the score of one q, k pair against their distance m − n, with RoPE (one value per
    distance) and with added positions (spread). Right: the two 我 of 我爱我家, without
    positions (equal rows) and with RoPE."""
    jitter = {"size": screen.dot_size, "opacity": 0.75}
    absolute = t("vr_trace_absolute", lang)
    traces = [
        _points(view.distance, view.absolute, ABSOLUTE_COLOUR, absolute, jitter),
        _points(view.distance, view.rope, ROPE_COLOUR, t("vr_trace_rope", lang), jitter),
    ]
    height, font = screen.beside_height, screen.cell_font
    demo = _demo(view, lang)
    margin = _rope_margin(view, FONT_SIZE)
    size = _demo_cell(margin, height, demo, screen)
    margin["r"] += math.ceil(column_ticks(demo.cols, font, size).overhang)
    part = panel(demo, lang=lang, font=font, size=size, axes="2", titled=False)
    x2, y2 = part.axes.values()
    line = {"type": "line", "xref": "x2 domain", "x0": 0, "x1": 1, "yref": "y2", "y0": 1.5}
    labels = row_ticks(demo.rows, font, size).extent + PAD + SLACK  # left of the demo
    width = screen.main_width * SHARE - margin["l"] - margin["r"]
    layout = {
        **_score_axes(lang, DEMO[0] - labels / width),
        "xaxis2": x2 | {"domain": DEMO},
        "yaxis2": y2 | {"scaleanchor": "x2", "constrain": "domain"},  # square cells
        "shapes": [*part.shapes, {**line, "y1": 1.5, "line": {"color": "#6b7280", "width": 3}}],
        "legend": {"orientation": "h", "x": 0, "y": 1.02, "yanchor": "bottom"},
        "height": height,
        "margin": margin,
        "dragmode": False,
    }
    return figure(traces + part.traces, layout)


def _demo(view: RopeView, lang: str) -> Matrix:
    """The two 我's scores over 我爱我家, without positions (rows 0, 1) and with RoPE (2, 3)."""
    first, second = view.demo_rows
    rows = tuple(
        t(key, lang, i=i)
        for key in ("vr_demo_row_plain", "vr_demo_row_rope")
        for i in (first, second)
    )
    demo = np.vstack([view.demo_plain, view.demo_rope])  # (4, n_demo)
    return Matrix(demo, rows, view.demo_tokens, row_axis="", col_axis="", name="demo")


def _demo_cell(margin: dict[str, int], height: int, demo: Matrix, screen: Screen) -> int:
    """The demo's cells: square, across its part of the figure's width and down its height."""
    n, m = demo.z.shape
    width = screen.main_width * SHARE - margin["l"] - margin["r"]
    across = width * (DEMO[1] - DEMO[0]) / m
    return int(min(across, (height - margin["t"] - margin["b"]) / n))


def _score_axes(lang: str, end: float) -> dict[str, Any]:
    """The scores against the distance, on the left up to paper ``end``."""
    font = FONT_SIZE
    return {
        "xaxis": {"domain": [0, end], "title": axis_title(t("vr_axis_distance", lang), font)},
        "yaxis": {"title": axis_title(t("vr_axis_score", lang), font), "zeroline": False},
    }


def _rope_margin(view: RopeView, font: int) -> dict[str, int]:
    """Held margins (Plotly draws once): the scores and their title on the left, the distances
    and theirs below, the legend's line above."""
    scores = np.concatenate([view.absolute, view.rope])
    # The extremes with two decimals: at least as wide as the tick labels Plotly picks.
    extremes = (f"{value:.2f}".replace("-", "\u2212") for value in (scores.min(), scores.max()))
    widest = max(text_width(label, font) for label in extremes)
    room = label_room(font)
    edges = {"l": widest + room, "r": PAD + SLACK, "t": 2 * font + room, "b": 2 * font + room}
    return {side: int(px) for side, px in edges.items()} | {"pad": PAD}


def _points(x: np.ndarray, y: np.ndarray, colour: str, name: str, marker: dict[str, Any]) -> Trace:
    """One score per q, k pair against their distance."""
    return {
        "type": "scatter",
        "x": x,
        "y": y.astype(np.float32),
        "mode": "markers",
        "marker": {**marker, "color": colour},
        "name": name,
        "hovertemplate": "m − n = %{x}: %{y:.3f}<extra></extra>",
    }


# --- cross-attention -------------------------------------------------------------------------


def cross_heatmap(
    view: CrossView, tokens: tuple[str, ...], row: int, *, lang: str, screen: Screen = LAPTOP
) -> dict[str, Any]:
    """The n × m weights: queries of the lab's sentence (rows) over sentence B's keys."""
    matrix = Matrix(
        view.weights, tokens, view.tokens_b, "weights", selected_row=row, col_axis="vr_axis_key_b"
    )
    return heatmap(matrix, lang=lang, share=SHARE, screen=screen)


def alignment_heatmap(
    view: AlignView,
    row: int | None,
    shown: int | None = None,
    *,
    lang: str,
    screen: Screen = LAPTOP,
) -> dict[str, Any]:
    """The translator's cross-attention: a row per character it produces (the first ``shown``
    of them), a column per English word it reads; ``row`` outlined (None: none)."""
    rows = len(view.target) if shown is None else shown
    matrix = Matrix(
        view.weights[:rows],
        view.target[:rows],
        view.source,
        "weights",
        selected_row=row if row is not None and row < rows else None,
        row_axis="vr_axis_produces",
        col_axis="vr_axis_english",
    )
    return heatmap(matrix, lang=lang, share=SHARE, screen=screen)
