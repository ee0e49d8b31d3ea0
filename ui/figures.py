"""Plotly figure builders: arrays and labels in, ``go.Figure`` out. They never call ``st.*``.

Axes use integer positions with the tokens as tick text, so repeated characters (我爱我家) keep
their own rows and columns; every piece of user text is escaped, since Plotly labels are HTML-like.
The lab's figures are built from plain dicts without Plotly's property validation, which costs
ten times more than everything else in a rerun; the tests check what the builders produce.
"""

import html
import math
from typing import Any

import numpy as np
import numpy.typing as npt
import plotly.graph_objects as go
from plotly.colors import get_colorscale

from ui.strings import t

FONT = {"family": "Noto Sans CJK SC, PingFang SC, Microsoft YaHei, sans-serif", "size": 15}
SELECT_COLOUR = "#f97316"  # orange: distinct from both colour scales, also in grayscale
# Plotly's default template adds 3.7 kB to every figure's JSON on every rerun; Streamlit's theme
# styles the charts anyway, so send none.
TEMPLATE = "none"
MASK_COLOUR = "#6b7280"  # masked cells are greyed out: not a colour of either scale
SHOW_CELL_TEXT_UP_TO = 12  # tokens; above this the numbers no longer fit in a cell
# Resolved once: unvalidated figures pass colour scales to plotly.js as they are.
BLUES = get_colorscale("Blues")
DIVERGING = get_colorscale("RdBu_r")  # blue negative, red positive; readable by colour-blind eyes
CONFIG = {
    "displaylogo": False,
    "modeBarButtonsToRemove": ["select2d", "lasso2d", "autoScale2d"],
    "toImageButtonOptions": {"format": "png", "scale": 2},
}
Trace = dict[str, Any]


def figure(data: list[Trace], layout: dict[str, Any]) -> go.Figure:
    """A figure from plain dicts, skipping Plotly's validation (the slow part of a rerun)."""
    layout = {"font": FONT, "template": {}, **layout}
    return go.Figure(data=data, layout=layout, _validate=False)


def grid(
    panels: int, cols: int, titles: list[str], hgap: float = 0.03, vgap: float = 0.1
) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """Axes for small multiples in a grid, with a title above each: (layout, axis refs)."""
    rows = math.ceil(panels / cols)
    width = (1 - hgap * (cols - 1)) / cols
    height = (1 - vgap * (rows - 1)) / rows
    layout: dict[str, Any] = {"annotations": []}
    refs = []
    for i in range(panels):
        row, col = divmod(i, cols)
        x0 = col * (width + hgap)
        y1 = 1 - row * (height + vgap)
        suffix = "" if i == 0 else str(i + 1)
        x_domain = [max(0.0, x0), min(1.0, x0 + width)]  # rounding may step past 0 or 1
        y_domain = [max(0.0, y1 - height), min(1.0, y1)]
        layout[f"xaxis{suffix}"] = {"domain": x_domain, "anchor": f"y{suffix}"}
        layout[f"yaxis{suffix}"] = {"domain": y_domain, "anchor": f"x{suffix}"}
        layout["annotations"].append(
            {
                "text": titles[i],
                "x": x0 + width / 2,
                "y": y1,
                "xref": "paper",
                "yref": "paper",
                "xanchor": "center",
                "yanchor": "bottom",
                "showarrow": False,
                "font": {"size": 14},
            }
        )
        refs.append((f"x{suffix}", f"y{suffix}"))
    return layout, refs


def escape(text: str) -> str:
    """User text → safe Plotly label: <, > and & are shown, never interpreted."""
    return html.escape(text, quote=False)


def tick_labels(tokens: tuple[str, ...] | list[str]) -> list[str]:
    """Escaped tokens for tick text."""
    return [escape(token) for token in tokens]


def format_value(value: float, digits: int = 4) -> str:
    """A number with ``digits`` significant digits; never 'nan' or 'inf' shown as a number."""
    if math.isnan(value):
        return "—"
    if math.isinf(value):
        return "\u2212∞" if value < 0 else "+∞"
    return f"{value:.{digits}g}".replace("-", "\u2212")


def format_cell(value: float, kind: str) -> str:
    """A number short enough for a heatmap cell: weights with 2 decimals, scores with 1 or 0."""
    if not math.isfinite(value):
        return format_value(value)
    if kind == "weights":
        return f"{value:.2f}"
    if kind == "fine":  # small signed values, such as a softmax Jacobian
        return "0.000" if f"{value:.3f}" == "-0.000" else f"{value:.3f}".replace("-", "\u2212")
    text = f"{value:.0f}" if abs(value) >= 9.95 else f"{value:.1f}"
    return "0.0" if text == "-0.0" else text.replace("-", "\u2212")


def masked_runs(masked: npt.NDArray[np.bool_]) -> list[tuple[int, int, int]]:
    """(row, start, stop) of each run of masked cells: one grey rectangle per run, not per cell."""
    runs = []
    for i, row in enumerate(masked):
        edges = np.flatnonzero(np.diff(np.concatenate([[0], row.astype(np.int8), [0]])))
        runs += [
            (i, int(start), int(stop)) for start, stop in zip(edges[::2], edges[1::2], strict=True)
        ]
    return runs


def cell_size(n: int) -> int:
    """Pixels per cell: 40 for the 9×9 example, smaller as the matrix grows."""
    return max(14, min(40, 400 // max(n, 1)))


def matrix_heatmap(
    z: npt.NDArray[np.float64],
    row_tokens: tuple[str, ...],
    col_tokens: tuple[str, ...],
    *,
    lang: str,
    kind: str,
    allowed: npt.NDArray[np.bool_] | None = None,
    selected_row: int | None = None,
    row_axis: str = "axis_query",
    col_axis: str = "axis_key",
    large: bool = False,
    clickable: bool = False,
) -> go.Figure:
    """A labelled heatmap of one stage: ``kind`` "scores" (diverging), "fine" (diverging, three
    decimals) or "weights" (0 … 1). ``large`` is for a projector: bigger cells and numbers.

    Cells where ``allowed`` is False are greyed out (−∞ becomes a gap), and hover says "masked".
    With ``clickable``, a transparent square over each cell centre carries the hover and makes a
    click on any cell report its (x, y): Streamlit 1.67 returns no selection for clicks on
    heatmap cells. Without it the heatmap carries its own hover, which is lighter to draw.
    """
    n, m = z.shape
    masked = np.zeros((n, m), dtype=bool) if allowed is None else ~allowed
    show = np.where(masked & ~np.isfinite(z), np.nan, z)  # -inf becomes a gap, not a colour
    texts = [
        [
            "" if kind == "weights" and masked[i, j] else format_cell(float(z[i, j]), kind)
            for j in range(m)
        ]
        for i in range(n)
    ]
    rows = tick_labels(row_tokens)
    cols = tick_labels(col_tokens)
    size = cell_size(max(n, m)) * (3 if large else 2) // 2
    if kind == "weights":
        colour = {"colorscale": BLUES, "zmin": 0.0, "zmax": 1.0}
    else:
        finite = np.abs(z[np.isfinite(z)])
        limit = float(finite.max()) if finite.size else 1.0
        colour = {"colorscale": DIVERGING, "zmin": -limit, "zmax": limit}
    show_text = max(n, m) <= SHOW_CELL_TEXT_UP_TO
    masked_word = t("masked_cell", lang)
    hover = [
        [
            [rows[i], cols[j], masked_word if masked[i, j] else format_value(float(z[i, j]))]
            for j in range(m)
        ]
        for i in range(n)
    ]
    hovertemplate = (
        f"{t('hover_query', lang)}: %{{customdata[0]}}<br>"
        f"{t('hover_key', lang)}: %{{customdata[1]}}<br>"
        f"{t('hover_value', lang)}: %{{customdata[2]}}<extra></extra>"
    )
    heatmap = {
        "type": "heatmap",
        "z": show if kind != "weights" else z,
        "x": np.arange(m),
        "y": np.arange(n),
        "xgap": 1,
        "ygap": 1,
        "colorbar": {"thickness": 14, "len": 0.9},
        **colour,
        **(
            {"hoverinfo": "skip"}
            if clickable
            else {"customdata": hover, "hovertemplate": hovertemplate, "hoverongaps": True}
        ),
        **(
            {"text": texts, "texttemplate": "%{text}", "textfont": {"size": 18 if large else 13}}
            if show_text
            else {}
        ),
    }
    traces = [heatmap]
    if clickable:
        grid_y, grid_x = np.mgrid[0:n, 0:m]
        traces.append(
            {
                "type": "scatter",
                "x": grid_x.ravel(),
                "y": grid_y.ravel(),
                "mode": "markers",
                "marker": {"symbol": "square", "size": size, "opacity": 0.01, "color": "#000"},
                "selected": {"marker": {"opacity": 0.01}},
                "unselected": {"marker": {"opacity": 0.01}},
                "customdata": [cell for row in hover for cell in row],
                "showlegend": False,
                "hovertemplate": hovertemplate,
            }
        )
    shapes = [
        {
            "type": "rect",
            "x0": start - 0.5,
            "x1": stop - 0.5,
            "y0": i - 0.5,
            "y1": i + 0.5,
            "fillcolor": MASK_COLOUR,
            "opacity": 0.55,
            "line": {"width": 0},
            "layer": "above",
        }
        for i, start, stop in masked_runs(masked)
    ]
    if selected_row is not None and 0 <= selected_row < n:
        shapes.append(
            {
                "type": "rect",
                "x0": -0.5,
                "x1": m - 0.5,
                "y0": selected_row - 0.5,
                "y1": selected_row + 0.5,
                "line": {"color": SELECT_COLOUR, "width": 3},
            }
        )
    ticks = {"showgrid": False, "zeroline": False, **({"tickfont": {"size": 20}} if large else {})}
    return figure(
        traces,
        {
            "height": size * n + 110,
            "margin": {"l": 10, "r": 10, "t": 10, "b": 10},
            "plot_bgcolor": "rgba(128, 128, 128, 0.22)",  # the gaps, on a light or dark theme
            "clickmode": "event+select",
            "dragmode": False,
            "shapes": shapes,
            "xaxis": {
                "title": {"text": t(col_axis, lang)},
                "tickvals": list(range(m)),
                "ticktext": cols,
                "side": "top",
                "tickangle": 0,
                "range": [-0.5, m - 0.5],
                **ticks,
            },
            "yaxis": {
                "title": {"text": t(row_axis, lang)},
                "tickvals": list(range(n)),
                "ticktext": rows,
                "range": [n - 0.5, -0.5],
                **ticks,
            },  # row 0 on top
        },
    )


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
    positions = np.arange(len(tokens))
    chosen, other = (
        ("trace_scaled", "trace_unscaled") if scaled else ("trace_unscaled", "trace_scaled")
    )
    colours = ("#2563eb", "#dc2626") if scaled else ("#dc2626", "#2563eb")
    bars = [
        {
            "type": "bar",
            "x": positions,
            "y": values,
            "name": t(name, lang),
            "marker": {"color": colour},
            "text": [f"{value:.2f}" for value in values],
            "textposition": "outside",
            "customdata": labels,
            "hovertemplate": "%{customdata}: %{y:.4f}<extra>" + t(name, lang) + "</extra>",
        }
        for values, name, colour in [
            (weights_row, chosen, colours[0]),
            (contrast_row, other, colours[1]),
        ]
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
                "tickvals": positions.tolist(),
                "ticktext": labels,
            },
            "yaxis": {"title": {"text": t("axis_weight", lang)}, "range": [0, 1.12]},
        },
    )


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
) -> go.Figure:
    """Rows w_j·V(token_j) over the first ``dims`` dimensions, and their sum, the output."""
    z = np.vstack([contributions[:, :dims], output_row[None, :dims]])
    labels = [
        f"{w:.2f}·V({label})" for w, label in zip(weights_row, tick_labels(tokens), strict=True)
    ]
    labels.append(t("output_sum_label", lang))
    limit = float(np.abs(z).max()) or 1.0
    rows = len(labels)
    show_text = rows <= SHOW_CELL_TEXT_UP_TO + 1
    heatmap = {
        "type": "heatmap",
        "z": z,
        "x": np.arange(dims),
        "y": np.arange(rows),
        "colorscale": DIVERGING,
        "zmin": -limit,
        "zmax": limit,
        "xgap": 1,
        "ygap": 1,
        "colorbar": {"thickness": 14},
        "customdata": [[label] * dims for label in labels],
        "hovertemplate": "%{customdata}, "
        + t("axis_dimension", lang)
        + " %{x}: %{z:.4f}<extra></extra>",
        **(
            {
                "text": [[format_cell(float(v), "scores") for v in row] for row in z],
                "texttemplate": "%{text}",
            }
            if show_text
            else {}
        ),
    }
    outline = {
        "type": "rect",
        "x0": -0.5,
        "x1": dims - 0.5,
        "y0": rows - 1.5,
        "y1": rows - 0.5,
        "line": {"color": SELECT_COLOUR, "width": 3},
    }
    return figure(
        [heatmap],
        {
            "height": cell_size(rows) * rows + 90,
            "shapes": [outline],
            "margin": {"l": 10, "r": 10, "t": 10, "b": 10},
            "xaxis": {
                "title": {"text": t("axis_dimension", lang)},
                "tickvals": list(range(dims)),
                "side": "top",
            },
            "yaxis": {
                "tickvals": list(range(rows)),
                "ticktext": labels,
                "range": [rows - 0.5, -0.5],
            },
        },
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
    positions = list(range(len(tokens)))
    titles = [("▶ " if h == selected else "") + t("head_title", lang, head=h) for h in group]
    layout, refs = grid(len(group), cols, titles, hgap=0.02, vgap=min(0.08, 0.4 / rows))
    small = len(tokens) <= SHOW_CELL_TEXT_UP_TO  # token names in the hover only while light
    query, key = ("%{customdata[0]}", "%{customdata[1]}") if small else ("%{y}", "%{x}")
    where = f"{t('hover_query', lang)}: {query}<br>{t('hover_key', lang)}: {key}"
    hover = [[[labels[i], labels[j]] for j in positions] for i in positions] if small else None
    traces = [
        {
            "type": "heatmap",
            "z": weights[h].astype(np.float32),  # display only: half the bytes
            "x": positions,
            "y": positions,
            "xaxis": x,
            "yaxis": y,
            "coloraxis": "coloraxis",
            "xgap": 1,
            "ygap": 1,
            **({"customdata": hover} if hover else {}),
            "hovertemplate": f"{t('head_title', lang, head=h)}<br>{where}<br>"
            f"{t('hover_value', lang)}: %{{z:.3f}}<extra></extra>",
        }
        for h, (x, y) in zip(group, refs, strict=True)
    ]
    for i, (x, y) in enumerate(refs):
        layout[f"xaxis{x[1:]}"].update(showticklabels=False)
        layout[f"yaxis{y[1:]}"].update(
            tickvals=positions,
            ticktext=labels,
            autorange="reversed",
            showticklabels=i % cols == 0 and len(tokens) <= 16,  # labels down the first column
        )
    return figure(
        traces,
        {
            **layout,
            "height": rows * 260 + 40,
            "margin": {"l": 10, "r": 10, "t": 40, "b": 10},
            "coloraxis": {
                "colorscale": BLUES,
                "cmin": 0.0,
                "cmax": 1.0,
                "colorbar": {"thickness": 14},
            },
        },
    )
