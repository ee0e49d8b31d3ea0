"""The variants page's figures: arrays in, ``go.Figure`` out, never ``st.*``.

Built from plain dicts (no Plotly validation); matrices use integer positions with escaped tokens
as tick text, so repeated characters (我爱我家) keep their own rows and columns.
"""

from typing import Any

import numpy as np
import plotly.graph_objects as go

from ui.kit.figures import (
    BLUES,
    DIVERGING,
    FONT,
    MASK_COLOUR,
    PAD,
    SELECT_COLOUR,
    SLACK,
    axis_title,
    escape,
    figure,
    format_cell,
    label_room,
    masked_runs,
    matrix_heatmap,
    numbers_fit,
    panel_title,
    text_width,
    tick_angle,
    tick_labels,
)
from ui.kit.text import t
from ui.variants.compute import CrossView, GqaView, RopeView, WindowView

LOWEST_LABEL = 16  # px below the plot for the last row's label when cells are low (measured 13)
FIGURE_WIDTH = {False: 520, True: 730}  # px: the figure's column, 2/3 of the main area
NUMBER_FONT = 12  # px: cell numbers, readable from the back of a classroom
TEXT_UP_TO = 10  # rows or columns: above this a cell is too small for its number
LABELLED_HEADS = 16  # heads: above this, one row label per group (or every few heads)
LOST_COLOUR = "#f59e0b"  # amber: pairs the causal mask allows and the window cuts
ROPE_COLOUR = "#2563eb"
ABSOLUTE_COLOUR = "#dc2626"
Trace = dict[str, Any]


def _heat(
    z: np.ndarray,
    kind: str,
    axes: tuple[str, str],
    name: str,
    hidden: np.ndarray | None = None,
    blank: np.ndarray | None = None,
) -> Trace:
    """A heatmap trace on axes (x, y): weights on 0 … 1 in blues, other values diverging; cells
    ``hidden`` (masked) are gaps, small matrices print their numbers except in ``blank`` cells."""
    n, m = z.shape
    trace: Trace = {
        "type": "heatmap",
        "z": np.where(hidden, np.nan, z) if hidden is not None else z,
        "x": np.arange(m),
        "y": np.arange(n),
        "xaxis": axes[0],
        "yaxis": axes[1],
        "xgap": 1,
        "ygap": 1,
        "name": name,
        "showscale": False,
        "hovertemplate": "%{y}, %{x}: %{z:.3f}<extra></extra>",
    }
    if kind == "weights":
        trace |= {"colorscale": BLUES, "zmin": 0.0, "zmax": 1.0}
    else:
        limit = float(np.abs(z).max()) or 1.0
        trace |= {"colorscale": DIVERGING, "zmin": -limit, "zmax": limit}
    if max(n, m) <= TEXT_UP_TO:
        quiet = np.zeros((n, m), dtype=bool)
        for cells in (hidden, blank):
            if cells is not None:
                quiet |= cells
        trace |= _cell_text(z, kind, quiet)
    return trace


def _axes(
    rows: list[str],
    cols: list[str],
    suffix: str,
    domain: list[float],
    large: bool,
    row_labels: bool = True,
) -> dict[str, Any]:
    """Token ticks (columns on top, row 0 on top) and square cells for one panel; a panel to
    the right of another with the same rows hides its row labels."""
    small = max(len(rows), len(cols)) > TEXT_UP_TO
    font = {"size": 10 if small else (15 if large else 13)}
    common = {"showgrid": False, "zeroline": False, "tickfont": font}
    if not small:
        common["tickangle"] = 0
    return {
        f"xaxis{suffix}": {
            **common,
            "tickvals": list(range(len(cols))),
            "ticktext": cols,
            "side": "top",
            "range": [-0.5, len(cols) - 0.5],
            "domain": domain,
            "anchor": f"y{suffix}",
        },
        f"yaxis{suffix}": {
            **common,
            "tickvals": list(range(len(rows))),
            "ticktext": rows,
            "range": [len(rows) - 0.5, -0.5],
            "scaleanchor": f"x{suffix}",
            "constrain": "domain",
            "anchor": f"x{suffix}",
            "showticklabels": row_labels,
        },
    }


def _rects(cells: np.ndarray, axes: tuple[str, str], colour: str, opacity: float) -> list[Any]:
    """One filled rectangle per run of ``cells`` in a row, on the given axes."""
    return [
        {
            "type": "rect",
            "xref": axes[0],
            "yref": axes[1],
            "x0": start - 0.5,
            "x1": stop - 0.5,
            "y0": i - 0.5,
            "y1": i + 0.5,
            "fillcolor": colour,
            "opacity": opacity,
            "line": {"width": 0},
            "layer": "above",
        }
        for i, start, stop in masked_runs(cells)
    ]


def _outline(row: int, width: int, axes: tuple[str, str]) -> dict[str, Any]:
    """An orange frame round one row of a panel."""
    return {
        "type": "rect",
        "xref": axes[0],
        "yref": axes[1],
        "x0": -0.5,
        "x1": width - 0.5,
        "y0": row - 0.5,
        "y1": row + 0.5,
        "line": {"color": SELECT_COLOUR, "width": 3},
    }


# --- GQA -------------------------------------------------------------------------------------


def gqa_heads(
    view: GqaView, tokens: tuple[str, ...], row: int, *, lang: str, large: bool = False
) -> go.Figure:
    """Left: the selected token's key in every query head (heads of one group: equal rows).
    Right: its weights in every head (each head still has its own)."""
    group = view.q_heads // view.kv_heads
    heads = [f"h{h} → kv{h // group}" for h in range(view.q_heads)]
    dims = [str(j) for j in range(view.keys.shape[1])]
    traces = [
        _heat(view.keys, "scores", ("x", "y"), "keys"),
        _heat(view.weights, "weights", ("x2", "y2"), "weights"),
    ]
    # Panel widths in proportion to their columns: square cells of one size, rows aligned.
    split = 0.94 * len(dims) / (len(dims) + len(tokens))
    keys_title = t("vr_gqa_panel_keys", lang, token=escape(tokens[row]))
    weights_title = t("vr_gqa_panel_weights", lang, token=escape(tokens[row]))
    layout = {
        **_axes(heads, dims, "", [0, split], large),
        **_axes(heads, tick_labels(tokens), "2", [split + 0.06, 1], large, row_labels=False),
        "shapes": _group_lines(view.kv_heads, group),
        "annotations": [
            panel_title(keys_title, split / 2, above=False),
            panel_title(weights_title, (split + 1.06) / 2, above=False),
        ],
    }
    if view.q_heads > LABELLED_HEADS:  # one label per group, or every few heads
        layout["yaxis"] |= _head_ticks(view.q_heads, view.kv_heads)
    cols = view.keys.shape[1] + len(tokens)
    return _sized(traces, layout, view.q_heads, cols, large)


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
        for g in range(1, kv_heads if kv_heads <= LABELLED_HEADS else 0)
        for suffix in ("", "2")
    ]


def _head_ticks(q_heads: int, kv_heads: int) -> dict[str, Any]:
    """Row labels for many heads: "h0–h15 → kv0" per group, or every few heads."""
    group = q_heads // kv_heads
    if kv_heads <= LABELLED_HEADS:
        values = [g * group + (group - 1) / 2 for g in range(kv_heads)]
        text = [f"h{g * group}–h{(g + 1) * group - 1} → kv{g}" for g in range(kv_heads)]
    else:
        step = -(-q_heads // LABELLED_HEADS)
        values = list(range(0, q_heads, step))
        text = [f"h{h} → kv{h // group}" for h in values]
    return {"tickvals": values, "ticktext": text, "tickfont": {"size": 11}}


def _sized(
    traces: list[Trace], layout: dict[str, Any], rows: int, cols: int, large: bool
) -> go.Figure:
    """Square cells for ``rows`` × ``cols`` (all panels side by side) in the figure's column, or
    within about 270 px of height on a projector (the figure must fit a 1280 × 720 screen); the
    margins hold the labels, and the cells' numbers are shown where they fit."""
    cell = _cell(_held(layout), rows, cols, large)
    for name, axis in layout.items():  # labels wider than a cell lie on their side, as the kit's
        if name.startswith("xaxis") and axis.get("tickangle") == 0:
            angle = tick_angle(axis["ticktext"], axis["tickfont"]["size"], cell)
            layout[name] = axis | {"tickangle": angle}
    margin = _held(layout)  # turned labels take other margins, and so another cell size
    cell = _cell(margin, rows, cols, large)
    sized = {
        "height": cell * rows + margin["t"] + margin["b"],
        "margin": margin,
        "plot_bgcolor": "rgba(0, 0, 0, 0)",
        "dragmode": False,
        **layout,
    }
    return figure(_numbers_that_fit(traces, cell), sized)


def _cell(margin: dict[str, int], rows: int, cols: int, large: bool) -> int:
    """The cells' side in px: the figure's column across, a height that fits the screen."""
    across = (FIGURE_WIDTH[large] - margin["l"] - margin["r"]) * 0.94 / cols  # panels' gaps
    tall = min(30, 270 // rows) if large else min(34, 600 // rows)
    return max(4 if large else 8, int(min(across, tall)))


def _numbers_that_fit(traces: list[Trace], cell: float) -> list[Trace]:
    """Cell numbers at a readable size where they fit in ``cell`` px, else left to the hover."""
    fitted = []
    for trace in traces:
        if "text" in trace:
            if numbers_fit(trace["text"], NUMBER_FONT, cell):
                trace = trace | {"textfont": {"size": NUMBER_FONT}}
            else:
                trace = {key: value for key, value in trace.items() if not key.startswith("text")}
        fitted.append(trace)
    return fitted


def _held(layout: dict[str, Any]) -> dict[str, int]:
    """Margins that hold the panels' tick labels, so that Plotly draws the figure once (see
    ``held_margin`` in the kit): the widest row label on the left; above, the column labels,
    upright or turned on their side, and the half of the last one that overhangs on the right."""
    left = top = right = 0.0
    for name, axis in layout.items():
        if not name.startswith(("xaxis", "yaxis")) or not axis.get("showticklabels", True):
            continue
        font = axis["tickfont"]["size"]
        widths = [text_width(str(label), font) for label in axis["ticktext"]]
        if name.startswith("yaxis"):  # and the labels' own standoff, measured 9-11 px
            left = max(left, max(widths) + SLACK)
        elif axis.get("tickangle") == 0:  # a line of CJK text: up to 1.9 × the font
            top, right = max(top, 2 * font), max(right, widths[-1] / 2)
        else:  # turned: the longest label, and Plotly's turn takes about two lines more
            top, right = max(top, max(widths) + 2 * font), max(right, font)
    room = PAD + SLACK
    return {
        "l": int(left + room),
        "r": int(right + room),
        "t": int(top + room),
        "b": 40,
        "pad": PAD,
    }


# --- sliding window --------------------------------------------------------------------------


def window_heatmap(
    view: WindowView, tokens: tuple[str, ...], row: int, *, lang: str, large: bool = False
) -> go.Figure:
    """Causal weights (left) next to the window's (right): grey = the future, amber = seen under
    the causal mask but outside the window (weight exactly 0)."""
    n = len(tokens)
    future = ~np.tri(n, dtype=bool)
    lost = ~view.allowed & ~future
    labels = tick_labels(tokens)
    traces = [
        _heat(view.causal, "weights", ("x", "y"), "causal", hidden=future),
        _heat(view.weights, "weights", ("x2", "y2"), "window", blank=~view.allowed),
    ]
    shapes = [
        *_rects(future, ("x", "y"), MASK_COLOUR, 0.55),
        *_rects(future, ("x2", "y2"), MASK_COLOUR, 0.55),
        *_rects(lost, ("x2", "y2"), LOST_COLOUR, 0.45),
        _outline(row, n, ("x", "y")),
        _outline(row, n, ("x2", "y2")),
    ]
    layout = {
        **_axes(labels, labels, "", [0, 0.47], large),
        **_axes(labels, labels, "2", [0.52, 1], large, row_labels=False),
        "shapes": shapes,
        "annotations": [
            panel_title(t("vr_window_panel_causal", lang), 0.235, above=False),
            panel_title(t("vr_window_panel_window", lang, window=view.window), 0.76, above=False),
        ],
    }
    return _sized(traces, layout, n, 2 * n, large)


# --- RoPE ------------------------------------------------------------------------------------


def rope_scores(view: RopeView, *, lang: str, large: bool = False) -> go.Figure:
    """Left: the score of one q, k pair against their distance m − n, with RoPE (one value per
    distance) and with added positions (spread). Right: the two 我 of 我爱我家, without
    positions (equal rows) and with RoPE."""
    jitter = {"size": 9 if large else 7, "opacity": 0.75}
    traces: list[Trace] = [
        _points(
            view.distance, view.absolute, ABSOLUTE_COLOUR, t("vr_trace_absolute", lang), jitter
        ),
        _points(view.distance, view.rope, ROPE_COLOUR, t("vr_trace_rope", lang), jitter),
    ]
    first, second = view.demo_rows
    rows = [
        t("vr_demo_row_plain", lang, i=first),
        t("vr_demo_row_plain", lang, i=second),
        t("vr_demo_row_rope", lang, i=first),
        t("vr_demo_row_rope", lang, i=second),
    ]
    demo = np.vstack([view.demo_plain, view.demo_rope])  # (4, n_demo)
    traces.append(_heat(demo, "scores", ("x2", "y2"), "demo"))
    line = {"type": "line", "xref": "x2 domain", "x0": 0, "x1": 1, "yref": "y2", "y0": 1.5}
    font = FONT["size"]
    heatmap = _axes(rows, tick_labels(view.demo_tokens), "2", [0.7, 1], large)
    layout = {
        "xaxis": {"domain": [0, 0.48], "title": axis_title(t("vr_axis_distance", lang), font)},
        "yaxis": {"title": axis_title(t("vr_axis_score", lang), font), "zeroline": False},
        **heatmap,
        "shapes": [{**line, "y1": 1.5, "line": {"color": "#6b7280", "width": 3}}],
        "legend": {"orientation": "h", "x": 0, "y": 1.02, "yanchor": "bottom"},
        "height": 340 if large else 380,
        "margin": _rope_margin(view, heatmap, font),
        "dragmode": False,
    }
    margin, n_demo = layout["margin"], len(view.demo_tokens)
    across = (FIGURE_WIDTH[large] - margin["l"] - margin["r"]) * 0.3 / n_demo
    tall = (layout["height"] - margin["t"] - margin["b"]) / len(rows)
    return figure(_numbers_that_fit(traces, min(across, tall)), layout)


def _rope_margin(view: RopeView, heatmap: dict[str, Any], font: int) -> dict[str, int]:
    """Held margins (Plotly draws once): the scores and their title on the left, the distances
    and theirs below, the legend's line above, and the demo tokens' overhang on the right."""
    scores = np.concatenate([view.absolute, view.rope])
    # The extremes with two decimals: at least as wide as the tick labels Plotly picks.
    extremes = (f"{value:.2f}".replace("-", "\u2212") for value in (scores.min(), scores.max()))
    widest = max(text_width(label, font) for label in extremes)
    return {
        "l": int(widest + label_room(font)),
        "r": _held(heatmap)["r"],
        "t": int(2 * font + label_room(font)),
        "b": int(2 * font + label_room(font)),
        "pad": PAD,
    }


def _points(x: np.ndarray, y: np.ndarray, colour: str, name: str, marker: dict[str, Any]) -> Trace:
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
    view: CrossView, tokens: tuple[str, ...], row: int, *, lang: str, large: bool = False
) -> go.Figure:
    """The n × m weights: queries of the lab's sentence (rows) over sentence B's keys."""
    fig = matrix_heatmap(
        view.weights,
        tokens,
        view.tokens_b,
        lang=lang,
        kind="weights",
        selected_row=row,
        col_axis="vr_axis_key_b",
        large=large,
        share=0.62,  # the figure's column beside the controls
    )
    # Many queries on a projector: cells lower than a label, whose last one reaches below (the
    # figure grows by as much, so that the cells keep their size).
    extra = max(0, LOWEST_LABEL - fig.layout.margin.b)
    fig.layout.margin.b += extra
    fig.layout.height += extra
    return fig


def _cell_text(z: np.ndarray, kind: str, quiet: np.ndarray) -> Trace:
    """Each cell's number, except in the ``quiet`` cells."""
    n, m = z.shape
    text = [
        ["" if quiet[i, j] else format_cell(float(z[i, j]), kind) for j in range(m)]
        for i in range(n)
    ]
    return {"text": text, "texttemplate": "%{text}"}
