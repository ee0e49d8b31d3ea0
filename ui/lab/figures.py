"""The lab's figures: arrays and labels in, ``go.Figure`` out, never ``st.*``."""

import itertools
import math
from typing import Any

import numpy as np
import numpy.typing as npt
import plotly.graph_objects as go

from ui.kit.figures import (
    BLUES,
    CELL_FONT,
    DIVERGING,
    FONT,
    PAD,
    RAW_COLOUR,
    SCALED_COLOUR,
    SHOW_CELL_TEXT_UP_TO,
    SLACK,
    axis_title,
    figure,
    grid,
    held_margin,
    label_room,
    matrix_heatmap,
    text_width,
    tick_labels,
)
from ui.kit.text import t

ROW_PANEL = {False: (312, 380), True: (422, 320)}  # px: the row panel's width, the bars' height


def row_bars(
    weights_row: npt.NDArray[np.float64],
    contrast_row: npt.NDArray[np.float64],
    tokens: tuple[str, ...],
    *,
    scaled: bool,
    lang: str,
    large: bool = False,
) -> go.Figure:
    """One query's weights as bars, as chosen (first trace) beside the other scaling."""
    labels = tick_labels(tokens)
    runs = [("trace_scaled", SCALED_COLOUR), ("trace_unscaled", RAW_COLOUR)]
    chosen, other = runs if scaled else runs[::-1]
    bars = [
        _bars(weights_row, t(chosen[0], lang), chosen[1], labels),
        _bars(contrast_row, t(other[0], lang), other[1], labels),
    ]
    # The chosen run's weights under their keys, while there are few keys: tick text costs
    # Plotly nothing to place, where numbers above the bars were measured one by one.
    numbers = [f"{w:.2f}" for w in weights_row] if len(labels) <= SHOW_CELL_TEXT_UP_TO else []
    return figure(bars, _row_layout(tokens, labels, numbers, lang, large))


def _row_layout(
    tokens: tuple[str, ...], labels: list[str], numbers: list[str], lang: str, large: bool
) -> dict[str, Any]:
    """The bars' axes and margins: each key labelled with its number beneath it while the
    neighbours' labels do not touch; else the keys alone, upright, or turned when even they
    touch; and margins that hold them (see ``held_margin``)."""
    font = CELL_FONT[large] - 1  # the bars' own labels, 12 px or more
    width, height = ROW_PANEL[large]
    margin = held_margin(text_width("0.8", font), 0, font, right=20, bottom=0)
    step = (width - margin["l"] - margin["r"]) / len(tokens)  # px per key
    widths = [text_width(token, font) for token in tokens]
    upright = _apart(widths, step)
    lines = 2 if numbers and upright and _apart([text_width(n, font) for n in numbers], step) else 1
    if lines == 2:
        labels = [f"{label}<br>{number}" for label, number in zip(labels, numbers, strict=True)]
    below = font * 1.3 * lines if upright else max(widths)  # the keys' labels
    margin["t"], margin["b"] = 50, int(label_room(font)) + int(below)
    ticks = {"tickfont": {"size": font}}  # figure()'s template lets Plotly skip measuring them
    return {
        "barmode": "group",
        "height": height,
        "margin": margin,
        "legend": {"orientation": "h", "x": 0, "y": 1.02, "yanchor": "bottom"},
        "xaxis": {
            "title": axis_title(t("axis_key", lang), font),
            "tickvals": list(range(len(labels))),
            "ticktext": labels,
            "tickangle": 0 if upright else -90,
            **ticks,
        },
        "yaxis": {"title": axis_title(t("axis_weight", lang), font), "range": [0, 1.12], **ticks},
    }


def _apart(widths: list[float], step: float) -> bool:
    """Whether labels this wide, ``step`` px apart, leave a gap between neighbours."""
    return all((a + b) / 2 + 3 <= step for a, b in itertools.pairwise(widths))


def _bars(
    values: npt.NDArray[np.float64], name: str, colour: str, labels: list[str]
) -> dict[str, object]:
    """One bar per key; hover gives its key and weight."""
    return {
        "type": "bar",
        "x": np.arange(len(values)),
        "y": values,
        "name": name,
        "marker": {"color": colour},
        "customdata": labels,
        "hovertemplate": "%{customdata}: %{y:.4f}<extra>" + name + "</extra>",
    }


def row_multiples(
    weights: npt.NDArray[np.float64], tokens: tuple[str, ...], *, lang: str
) -> go.Figure:
    """Every row's weights as small bar charts, one per query, in reading order."""
    n = len(tokens)
    cols = max(1, math.ceil(math.sqrt(n)))
    rows = math.ceil(n / cols)
    labels = tick_labels(tokens)
    layout, refs = grid(
        n, cols, [f"{i} · {label}" for i, label in enumerate(labels)], vgap=min(0.12, 0.5 / rows)
    )
    positions = np.arange(n)
    bars = [
        {
            "type": "bar",
            "x": positions,
            "y": weights[i],
            "xaxis": x,
            "yaxis": y,
            "marker": {"color": "#2563eb"},
            "customdata": labels,
            "showlegend": False,
            "hovertemplate": "%{customdata}: %{y:.4f}<extra>" + labels[i] + "</extra>",
        }
        for i, (x, y) in enumerate(refs)
    ]
    for i, (x, y) in enumerate(refs):
        layout[f"xaxis{x[1:]}"].update(
            tickvals=positions.tolist(), ticktext=labels, showticklabels=n <= 12
        )
        layout[f"yaxis{y[1:]}"].update(range=[0, 1], showticklabels=i % cols == 0)
    del lang  # the panel titles are the tokens themselves
    return figure(
        bars, {**layout, "height": 150 * rows + 40, "margin": {"l": 10, "r": 10, "t": 30, "b": 10}}
    )


def output_heatmap(
    contributions: npt.NDArray[np.float64],
    output_row: npt.NDArray[np.float64],
    tokens: tuple[str, ...],
    *,
    lang: str,
    dims: int,
    large: bool = False,
) -> go.Figure:
    """What each key adds to the selected row's output, A_ij · v_j over the first ``dims``
    dimensions — the first heatmap trace, exactly those columns of the contributions — and their
    sum, the output row, as a second trace below, outlined."""
    m = contributions.shape[0]
    stacked = np.vstack([contributions[:, :dims], output_row[None, :dims]])  # (m + 1, dims)
    rows = (*tokens, t("output_sum_label", lang))
    columns = tuple(str(j) for j in range(dims))
    axes = {"row_axis": "axis_term", "col_axis": "axis_dimension"}
    fig = matrix_heatmap(
        stacked, rows, columns, lang=lang, kind="scores", selected_row=m, large=large, share=0.58,
        **axes,
    )  # fmt: skip
    heatmap = fig.data[0].to_plotly_json()
    traces = [_rows_of(heatmap, slice(0, m)), _rows_of(heatmap, slice(m, m + 1), scale=False)]
    return figure(traces, fig.layout.to_plotly_json())


def _rows_of(heatmap: dict[str, Any], rows: slice, scale: bool = True) -> dict[str, Any]:
    """The heatmap trace restricted to some of its rows (z, y, hover and cell text alike)."""
    part = {**heatmap, "z": np.asarray(heatmap["z"])[rows], "y": np.asarray(heatmap["y"])[rows]}
    for key in ("customdata", "text"):
        if key in heatmap:
            part[key] = heatmap[key][rows]
    return part if scale else {**part, "showscale": False}


def stages_overview(
    matrices: list[npt.NDArray[np.float64]],
    titles: list[str],
    tokens: tuple[str, ...],
    allowed: npt.NDArray[np.bool_],
) -> go.Figure:
    """QKᵀ, ÷√d, mask and softmax as small multiples in one figure: one heatmap trace each,
    scores on one diverging scale, weights on 0 … 1, masked cells as gaps."""
    labels = tick_labels(tokens)
    layout, refs = grid(len(matrices), len(matrices), titles, hgap=0.04)
    traces = []
    for i, (matrix, (x, y)) in enumerate(zip(matrices, refs, strict=True)):
        weights = i == len(matrices) - 1
        shown = np.where(allowed, matrix, np.nan) if i >= 2 else matrix
        finite = np.abs(matrix[np.isfinite(matrix)])
        limit = float(finite.max()) if finite.size else 1.0  # each panel on its own scale
        scale = (BLUES, 0.0, 1.0) if weights else (DIVERGING, -limit, limit)
        traces.append(_panel(shown, x, y, titles[i], scale))
        layout[f"xaxis{x[1:]}"].update(showticklabels=False)
        layout[f"yaxis{y[1:]}"].update(
            autorange="reversed",
            tickvals=list(range(len(labels))),
            ticktext=labels,
            showticklabels=i == 0 and len(labels) <= 16,
        )
    margin = grid_margin(labels, len(labels) <= 16, right=10)
    return figure(traces, {**layout, "height": 320, "margin": margin})


def grid_margin(labels: list[str], labelled: bool, right: int) -> dict[str, int]:
    """Margins of small multiples that already hold the first column's token labels (so that
    Plotly draws them once; see ``held_margin``)."""
    font = FONT["size"]  # the panels' ticks keep the figure's font
    widest = max(text_width(label, font) for label in labels)
    left = widest + PAD + SLACK + 8 if labelled else 20  # measured: 4 px more than the labels
    return {"l": int(left), "r": right, "t": 40, "b": 20, "pad": PAD}


def _panel(
    z: npt.NDArray[np.float64], x: str, y: str, title: str, scale: tuple[Any, float, float]
) -> dict[str, Any]:
    """One small heatmap of the overview, on its own colour scale (no colour bar)."""
    colorscale, zmin, zmax = scale
    return {
        "type": "heatmap",
        "z": z.astype(np.float32),  # display only
        "xaxis": x,
        "yaxis": y,
        "showscale": False,
        "xgap": 1,
        "ygap": 1,
        "colorscale": colorscale,
        "zmin": zmin,
        "zmax": zmax,
        "hovertemplate": f"%{{y}} → %{{x}}: %{{z:.3f}}<extra>{title}</extra>",
    }


GRID_HEADS = 16  # heads drawn at once: 64 would send 1.5 MB per rerun and be 120 px each


def heads_group(heads: int, selected: int) -> range:
    """The heads drawn in the grid: the group of up to 16 that holds the selected head."""
    first = selected // GRID_HEADS * GRID_HEADS
    return range(first, min(first + GRID_HEADS, heads))


def heads_grid(
    weights: list[npt.NDArray[np.float64]], tokens: tuple[str, ...], *, lang: str, selected: int
) -> go.Figure:
    """The weights of the selected head's group of heads, one heatmap trace per head."""
    group = heads_group(len(weights), selected)
    cols = min(len(group), 4)
    rows = math.ceil(len(group) / cols)
    labels = tick_labels(tokens)
    titles = [("► " if h == selected else "") + t("head_title", lang, head=h) for h in group]
    layout, refs = grid(len(group), cols, titles, hgap=0.02, vgap=min(0.08, 0.4 / rows))
    traces = [
        _head_trace(weights[h], labels, h, x, y, lang)
        for h, (x, y) in zip(group, refs, strict=True)
    ]
    for i, (x, y) in enumerate(refs):
        layout[f"xaxis{x[1:]}"].update(showticklabels=False)
        layout[f"yaxis{y[1:]}"].update(
            tickvals=list(range(len(labels))),
            ticktext=labels,
            autorange="reversed",
            showticklabels=i % cols == 0 and len(labels) <= 16,  # labels down the first column
        )
    layout["coloraxis"] = {
        "colorscale": BLUES,
        "cmin": 0.0,
        "cmax": 1.0,
        "colorbar": {"thickness": 14},
    }
    margin = grid_margin(labels, len(labels) <= 16, right=132)  # Streamlit's colour bar: 110-126 px
    return figure(traces, {**layout, "height": rows * 260 + 40, "margin": margin})


def _head_trace(
    weights: npt.NDArray[np.float64], labels: list[str], head: int, x: str, y: str, lang: str
) -> dict[str, object]:
    """One head's weights on the grid's shared colour axis; token names in the hover while the
    matrix is small, positions otherwise (the names of every cell would cost kilobytes)."""
    positions = list(range(len(labels)))
    small = len(labels) <= SHOW_CELL_TEXT_UP_TO
    query, key = ("%{customdata[0]}", "%{customdata[1]}") if small else ("%{y}", "%{x}")
    where = f"{t('hover_query', lang)}: {query}<br>{t('hover_key', lang)}: {key}"
    hover = [[[labels[i], labels[j]] for j in positions] for i in positions] if small else None
    return {
        "type": "heatmap",
        "z": weights.astype(np.float32),  # display only: half the bytes
        "x": positions,
        "y": positions,
        "xaxis": x,
        "yaxis": y,
        "coloraxis": "coloraxis",
        "xgap": 1,
        "ygap": 1,
        **({"customdata": hover} if hover else {}),
        "hovertemplate": f"{t('head_title', lang, head=head)}<br>{where}<br>"
        f"{t('hover_value', lang)}: %{{z:.3f}}<extra></extra>",
    }
