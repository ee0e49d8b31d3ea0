"""The lab's figures: arrays and labels in, figure dicts out, never ``st.*``."""

import itertools
import math
from typing import Any

import numpy as np
import numpy.typing as npt

from ui.kit.figures import (
    RAW_COLOUR,
    SCALED_COLOUR,
    axis_title,
    escape,
    figure,
    grid,
    held_margin,
    label_room,
    text_width,
    tick_labels,
)
from ui.kit.heatmap import Matrix, heatmap
from ui.kit.text import t
from ui.kit.typography import LAPTOP, Screen, crowded

NUMBERED_UP_TO = 12  # keys: more, and their weights no longer fit under them

# Compare mode's two settings: colours that say neither "scaled" (blue) nor "unscaled" (red).
A_COLOUR = "#0f766e"
B_COLOUR = "#9333ea"


def row_bars(
    weights_row: npt.NDArray[np.float64],
    contrast_row: npt.NDArray[np.float64],
    tokens: tuple[str, ...],
    *,
    scaled: bool,
    lang: str,
    title: str = "",
    screen: Screen = LAPTOP,
) -> dict[str, Any]:
    """One query's weights as bars, as chosen (first trace) beside the other scaling; ``title``
    (the row's name) before the legend, in one line above the bars."""
    labels = tick_labels(tokens)
    runs = [("trace_scaled", SCALED_COLOUR), ("trace_unscaled", RAW_COLOUR)]
    chosen, other = runs if scaled else runs[::-1]
    bars = [
        _bars(weights_row, t(chosen[0], lang), chosen[1], labels),
        _bars(contrast_row, t(other[0], lang), other[1], labels),
    ]
    # The chosen run's weights under their keys, while there are few: tick text, which Plotly
    # places without measuring each as it does text above bars.
    numbers = [f"{w:.2f}" for w in weights_row] if len(labels) <= NUMBERED_UP_TO else []
    return figure(bars, _row_layout(tokens, labels, numbers, lang, screen, title))


def pair_bars(
    a_row: npt.NDArray[np.float64],
    b_row: npt.NDArray[np.float64],
    tokens: tuple[str, ...],
    *,
    lang: str,
    screen: Screen = LAPTOP,
) -> dict[str, Any]:
    """One query's weights under A's settings beside B's (compare mode: the same tokens)."""
    labels = tick_labels(tokens)
    bars = [
        _bars(a_row, t("compare_a", lang), A_COLOUR, labels),
        _bars(b_row, t("compare_b", lang), B_COLOUR, labels),
    ]
    return figure(bars, _row_layout(tokens, labels, [], lang, screen))


def _row_layout(
    tokens: tuple[str, ...],
    labels: list[str],
    numbers: list[str],
    lang: str,
    screen: Screen,
    title: str = "",
) -> dict[str, Any]:
    """The bars' axes and margins: each key labelled with its number beneath it while the
    neighbours' labels do not touch; else the keys alone, upright, or turned when even they
    touch; the legend above, in the labels' size; and margins that hold them (see
    ``held_margin``)."""
    font = screen.row_font  # the bars' own labels, and the weights under them
    width, height = screen.bars_width, screen.row_height
    margin = held_margin(text_width("0.8", font), 0, font, right=20, bottom=0)
    step = (width - margin["l"] - margin["r"]) / len(tokens)  # px per key
    widths = [text_width(token, font) for token in tokens]
    upright = _apart(widths, step)
    lines = 2 if numbers and upright and _apart([text_width(n, font) for n in numbers], step) else 1
    if lines == 2:
        labels = [f"{label}<br>{number}" for label, number in zip(labels, numbers, strict=True)]
    below = font * 1.3 * lines if upright else max(widths)  # the keys' labels
    # Above: the legend's line, its title a size up, and Plotly's gaps around it (measured).
    margin["t"], margin["b"] = int(1.5 * (font + 4)) + 22, int(label_room(font)) + int(below)
    ticks = {"tickfont": {"size": font}}  # figure()'s template lets Plotly skip measuring them
    return {
        "barmode": "group",
        "height": height,
        "margin": margin,
        "legend": _legend(title, font),
        "xaxis": {
            "title": axis_title(t("axis_key", lang), font),
            "tickvals": list(range(len(labels))),
            "ticktext": labels,
            "tickangle": 0 if upright else -90,
            **ticks,
        },
        "yaxis": {"title": axis_title(t("axis_weight", lang), font), "range": [0, 1.12], **ticks},
    }


def _legend(title: str, font: int) -> dict[str, Any]:
    """The legend in one line above the bars, ``title`` (the row's name) before it, a size up."""
    heading = {"text": escape(title), "side": "left", "font": {"size": font + 4, "weight": "bold"}}
    return {"orientation": "h", "x": 0, "y": 1, "yanchor": "bottom", "font": {"size": font},
            "title": heading}  # fmt: skip


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
) -> dict[str, Any]:
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
    screen: Screen = LAPTOP,
) -> dict[str, Any]:
    """What each key adds to the selected row's output, A_ij · v_j over the first ``dims``
    dimensions (rows 0 … m − 1, exactly those columns of the contributions), and their sum, the
    output row, outlined below them."""
    stacked = np.vstack([contributions[:, :dims], output_row[None, :dims]])  # (m + 1, dims)
    rows = (*tokens, t("output_sum_label", lang))
    columns = tuple(str(j) for j in range(dims))
    matrix = Matrix(
        stacked, rows, columns, selected_row=len(tokens), row_axis="axis_term",
        col_axis="axis_dimension",
    )  # fmt: skip
    return heatmap(matrix, lang=lang, screen=screen, share=0.58)


def stages_overview(
    matrices: list[npt.NDArray[np.float64]],
    titles: list[str],
    tokens: tuple[str, ...],
    allowed: npt.NDArray[np.bool_],
    *,
    lang: str,
    screen: Screen = LAPTOP,
) -> dict[str, Any]:
    """QKᵀ, ÷√d, mask and softmax as small multiples, two to a row: scores each on its own
    diverging scale, weights on 0 … 1, masked cells grey."""
    last = len(matrices) - 1
    panels = [
        Matrix(
            matrix.astype(np.float32),  # display only
            tokens,
            tokens,
            scale="weights" if i == last else "scores",
            masked=~allowed if i >= 2 else None,
            title=title,
        )
        for i, (matrix, title) in enumerate(zip(matrices, titles, strict=True))
    ]
    return heatmap(panels, lang=lang, screen=screen, share=0.58, per_row=2)


GRID_HEADS = 16  # heads drawn at once: 64 would be too many bytes per rerun, and too small


def heads_group(heads: int, selected: int) -> range:
    """The heads drawn in the grid: the group of up to 16 that holds the selected head."""
    first = selected // GRID_HEADS * GRID_HEADS
    return range(first, min(first + GRID_HEADS, heads))


def heads_grid(
    weights: list[npt.NDArray[np.float64]],
    tokens: tuple[str, ...],
    *,
    lang: str,
    selected: int,
    screen: Screen = LAPTOP,
) -> dict[str, Any]:
    """The weights of the selected head's group of heads, four to a row, on one colour bar,
    sized as a crowded figure is on this screen (a projector's heights would leave their
    cells no room for numbers)."""
    panels = [
        Matrix(
            weights[h].astype(np.float32),  # display only: half the bytes
            tokens,
            tokens,
            scale="weights",
            title=("► " if h == selected else "") + t("head_title", lang, head=h),
        )
        for h in heads_group(len(weights), selected)
    ]
    return heatmap(panels, lang=lang, per_row=4, screen=crowded(screen))
