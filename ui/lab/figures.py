"""The lab's figures: arrays and labels in, ``go.Figure`` out, never ``st.*``."""

import math

import numpy as np
import numpy.typing as npt
import plotly.graph_objects as go

from ui.kit.figures import (
    BLUES,
    RAW_COLOUR,
    SCALED_COLOUR,
    SHOW_CELL_TEXT_UP_TO,
    figure,
    grid,
    matrix_heatmap,
    tick_labels,
)
from ui.kit.text import t


def row_bars(
    weights_row: npt.NDArray[np.float64],
    contrast_row: npt.NDArray[np.float64],
    tokens: tuple[str, ...],
    *,
    scaled: bool,
    lang: str,
) -> go.Figure:
    """One query's weights as bars, as chosen (first trace) beside the other scaling."""
    labels = tick_labels(tokens)
    runs = [("trace_scaled", SCALED_COLOUR), ("trace_unscaled", RAW_COLOUR)]
    chosen, other = runs if scaled else runs[::-1]
    bars = [
        _bars(weights_row, t(chosen[0], lang), chosen[1], labels),
        _bars(contrast_row, t(other[0], lang), other[1], labels),
    ]
    return figure(
        bars,
        {
            "barmode": "group",
            "height": 380,
            "margin": {"l": 10, "r": 10, "t": 40, "b": 10},
            "legend": {"orientation": "h", "y": 1.12, "x": 0},
            "xaxis": {
                "title": {"text": t("axis_key", lang)},
                "tickvals": list(range(len(labels))),
                "ticktext": labels,
            },
            "yaxis": {"title": {"text": t("axis_weight", lang)}, "range": [0, 1.12]},
        },
    )


def _bars(
    values: npt.NDArray[np.float64], name: str, colour: str, labels: list[str]
) -> dict[str, object]:
    """One bar per key, its weight printed above it."""
    return {
        "type": "bar",
        "x": np.arange(len(values)),
        "y": values,
        "name": name,
        "marker": {"color": colour},
        "text": [f"{value:.2f}" for value in values],
        "textposition": "outside",
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


def contributions_heatmap(
    contributions: npt.NDArray[np.float64],
    output_row: npt.NDArray[np.float64],
    weights_row: npt.NDArray[np.float64],
    tokens: tuple[str, ...],
    *,
    lang: str,
    dims: int,
    large: bool = False,
) -> go.Figure:
    """Rows w_j·V(token_j) over the first ``dims`` dimensions, and their sum, the output,
    outlined as the last row."""
    z = np.vstack([contributions[:, :dims], output_row[None, :dims]])  # (m + 1, dims)
    terms = [f"{w:.2f}·V({token})" for w, token in zip(weights_row, tokens, strict=True)]
    rows = (*terms, t("output_sum_label", lang))
    columns = tuple(str(j) for j in range(dims))
    axes = {"row_axis": "axis_term", "col_axis": "axis_dimension"}
    return matrix_heatmap(
        z, rows, columns, lang=lang, kind="scores", selected_row=len(rows) - 1, large=large, **axes
    )


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
    titles = [("▶ " if h == selected else "") + t("head_title", lang, head=h) for h in group]
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
    margin = {"l": 10, "r": 10, "t": 40, "b": 10}
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
