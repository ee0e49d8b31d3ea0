"""Plotly figure builders: arrays and labels in, ``go.Figure`` out. They never call ``st.*``.

Axes use integer positions with the tokens as tick text, so repeated characters (我爱我家) keep
their own rows and columns; every piece of user text is escaped, since Plotly labels are HTML-like.
"""

import html
import math

import numpy as np
import numpy.typing as npt
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ui.strings import t

FONT = {"family": "Noto Sans CJK SC, PingFang SC, Microsoft YaHei, sans-serif", "size": 15}
SELECT_COLOUR = "#f97316"  # orange: distinct from both colour scales, also in grayscale
# Plotly's default template adds 3.7 kB to every figure's JSON on every rerun; Streamlit's theme
# styles the charts anyway, so send none.
TEMPLATE = "none"
MASK_COLOUR = "#6b7280"  # masked cells are greyed out: not a colour of either scale
SHOW_CELL_TEXT_UP_TO = 12  # tokens; above this the numbers no longer fit in a cell
CONFIG = {
    "displaylogo": False,
    "modeBarButtonsToRemove": ["select2d", "lasso2d", "autoScale2d"],
    "toImageButtonOptions": {"format": "png", "scale": 2},
}


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
) -> go.Figure:
    """A labelled heatmap of one stage: ``kind`` "scores" (diverging), "fine" (diverging, three
    decimals) or "weights" (0 … 1). ``large`` is for a projector: bigger cells and numbers.

    Cells where ``allowed`` is False are greyed out (−∞ becomes a gap), and hover says "masked".
    A transparent square over each cell centre carries the hover and makes a click on any cell
    report its (x, y): Streamlit 1.67 returns no selection for clicks on heatmap cells.
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
        colour = {"colorscale": "Blues", "zmin": 0.0, "zmax": 1.0}
    else:
        finite = np.abs(z[np.isfinite(z)])
        limit = float(finite.max()) if finite.size else 1.0
        colour = {"colorscale": "RdBu_r", "zmin": -limit, "zmax": limit}
    heatmap = go.Heatmap(
        z=show if kind != "weights" else z,
        x=np.arange(m),
        y=np.arange(n),
        text=texts if max(n, m) <= SHOW_CELL_TEXT_UP_TO else None,
        texttemplate="%{text}" if max(n, m) <= SHOW_CELL_TEXT_UP_TO else None,
        textfont={"size": 18 if large else 13},
        hoverinfo="skip",
        colorbar={"thickness": 14, "len": 0.9},
        xgap=1,
        ygap=1,
        **colour,
    )
    masked_word = t("masked_cell", lang)
    hover = [
        [
            [rows[i], cols[j], masked_word if masked[i, j] else format_value(float(z[i, j]))]
            for j in range(m)
        ]
        for i in range(n)
    ]
    grid_y, grid_x = np.mgrid[0:n, 0:m]
    picker = go.Scatter(
        x=grid_x.ravel(),
        y=grid_y.ravel(),
        mode="markers",
        marker={"symbol": "square", "size": size, "opacity": 0.01, "color": "#000"},
        selected={"marker": {"opacity": 0.01}},
        unselected={"marker": {"opacity": 0.01}},
        customdata=[cell for row in hover for cell in row],
        hovertemplate=(
            f"{t('hover_query', lang)}: %{{customdata[0]}}<br>"
            f"{t('hover_key', lang)}: %{{customdata[1]}}<br>"
            f"{t('hover_value', lang)}: %{{customdata[2]}}<extra></extra>"
        ),
        showlegend=False,
    )
    fig = go.Figure([heatmap, picker])
    for i, start, stop in masked_runs(masked):
        fig.add_shape(
            type="rect",
            x0=start - 0.5,
            x1=stop - 0.5,
            y0=i - 0.5,
            y1=i + 0.5,
            fillcolor=MASK_COLOUR,
            opacity=0.55,
            line={"width": 0},
            layer="above",
        )
    if selected_row is not None and 0 <= selected_row < n:
        fig.add_shape(
            type="rect",
            x0=-0.5,
            x1=m - 0.5,
            y0=selected_row - 0.5,
            y1=selected_row + 0.5,
            line={"color": SELECT_COLOUR, "width": 3},
        )
    fig.update_layout(
        font=FONT,
        template=TEMPLATE,
        height=size * n + 110,
        margin={"l": 10, "r": 10, "t": 10, "b": 10},
        plot_bgcolor="rgba(128, 128, 128, 0.22)",  # the gaps, on a light or a dark theme
        clickmode="event+select",
        dragmode=False,
        xaxis={
            "title": t(col_axis, lang),
            "tickvals": list(range(m)),
            "ticktext": cols,
            "side": "top",
            "showgrid": False,
            "zeroline": False,
            "tickangle": 0,
            "range": [-0.5, m - 0.5],
        },
        yaxis={
            "title": t(row_axis, lang),
            "tickvals": list(range(n)),
            "ticktext": rows,
            "range": [n - 0.5, -0.5],
            "showgrid": False,
            "zeroline": False,  # row 0 on top
        },
    )
    if large:
        fig.update_xaxes(tickfont_size=20)
        fig.update_yaxes(tickfont_size=20)
    return fig


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
    fig = go.Figure()
    for values, name, colour in [
        (weights_row, chosen, "#2563eb" if scaled else "#dc2626"),
        (contrast_row, other, "#dc2626" if scaled else "#2563eb"),
    ]:
        fig.add_trace(
            go.Bar(
                x=positions,
                y=values,
                name=t(name, lang),
                marker_color=colour,
                text=[f"{value:.2f}" for value in values],
                textposition="outside",
                customdata=labels,
                hovertemplate="%{customdata}: %{y:.4f}<extra>" + t(name, lang) + "</extra>",
            )
        )
    fig.update_layout(
        font=FONT,
        template=TEMPLATE,
        barmode="group",
        height=380,
        margin={"l": 10, "r": 10, "t": 40, "b": 10},
        legend={"orientation": "h", "y": 1.12, "x": 0},
        xaxis={"title": t("axis_key", lang), "tickvals": positions.tolist(), "ticktext": labels},
        yaxis={"title": t("axis_weight", lang), "range": [0, 1.12]},
    )
    return fig


def row_multiples(
    weights: npt.NDArray[np.float64], tokens: tuple[str, ...], *, lang: str
) -> go.Figure:
    """Every row's weights as small bar charts, one per query, in reading order."""
    n = len(tokens)
    cols = max(1, math.ceil(math.sqrt(n)))
    rows = math.ceil(n / cols)
    labels = tick_labels(tokens)
    fig = make_subplots(
        rows=rows,
        cols=cols,
        subplot_titles=[f"{i} · {label}" for i, label in enumerate(labels)],
        shared_yaxes=True,
        vertical_spacing=min(0.12, 0.5 / rows),
        horizontal_spacing=0.02,
    )
    positions = np.arange(n)
    for i in range(n):
        fig.add_trace(
            go.Bar(
                x=positions,
                y=weights[i],
                marker_color="#2563eb",
                customdata=labels,
                hovertemplate="%{customdata}: %{y:.4f}<extra>" + labels[i] + "</extra>",
                showlegend=False,
            ),
            row=i // cols + 1,
            col=i % cols + 1,
        )
    fig.update_xaxes(tickvals=positions.tolist(), ticktext=labels, showticklabels=n <= 12)
    fig.update_yaxes(range=[0, 1], showticklabels=False)
    fig.update_layout(
        font=FONT,
        template=TEMPLATE,
        height=150 * rows + 40,
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        yaxis={"showticklabels": True},
        title=None,
    )
    fig.update_annotations(font_size=14)
    del lang  # the subplot titles are the tokens themselves
    return fig


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
    size = cell_size(rows)
    texts = [[format_cell(float(value), "scores") for value in row] for row in z]
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=np.arange(dims),
            y=np.arange(rows),
            colorscale="RdBu_r",
            zmin=-limit,
            zmax=limit,
            text=texts if rows <= SHOW_CELL_TEXT_UP_TO + 1 else None,
            texttemplate="%{text}" if rows <= SHOW_CELL_TEXT_UP_TO + 1 else None,
            customdata=[[label] * dims for label in labels],
            hovertemplate="%{customdata}, "
            + t("axis_dimension", lang)
            + " %{x}: %{z:.4f}<extra></extra>",
            xgap=1,
            ygap=1,
            colorbar={"thickness": 14},
        )
    )
    fig.add_shape(
        type="rect",
        x0=-0.5,
        x1=dims - 0.5,
        y0=rows - 1.5,
        y1=rows - 0.5,
        line={"color": SELECT_COLOUR, "width": 3},
    )
    fig.update_layout(
        font=FONT,
        template=TEMPLATE,
        height=size * rows + 90,
        margin={"l": 10, "r": 10, "t": 10, "b": 10},
        xaxis={"title": t("axis_dimension", lang), "tickvals": list(range(dims)), "side": "top"},
        yaxis={"tickvals": list(range(rows)), "ticktext": labels, "autorange": "reversed"},
    )
    return fig


def heads_grid(
    weights: list[npt.NDArray[np.float64]], tokens: tuple[str, ...], *, lang: str, selected: int
) -> go.Figure:
    """Every head's weights as small heatmaps, one heatmap trace per head, on one colour scale."""
    heads = len(weights)
    cols = min(heads, 4 if heads <= 16 else 8)
    rows = math.ceil(heads / cols)
    labels = tick_labels(tokens)
    positions = list(range(len(tokens)))
    titles = [("▶ " if h == selected else "") + t("head_title", lang, head=h) for h in range(heads)]
    fig = make_subplots(
        rows=rows,
        cols=cols,
        subplot_titles=titles,
        horizontal_spacing=0.02,
        vertical_spacing=min(0.08, 0.4 / rows),
    )
    for h, matrix in enumerate(weights):
        fig.add_trace(
            go.Heatmap(
                z=matrix.astype(np.float32),  # display only: half the bytes
                x=positions,
                y=positions,
                coloraxis="coloraxis",
                xgap=1,
                ygap=1,
                customdata=[[[labels[i], labels[j]] for j in positions] for i in positions],
                hovertemplate=f"{t('head_title', lang, head=h)}<br>"
                f"{t('hover_query', lang)}: %{{customdata[0]}}<br>"
                f"{t('hover_key', lang)}: %{{customdata[1]}}<br>"
                f"{t('hover_value', lang)}: %{{z:.3f}}<extra></extra>",
            ),
            row=h // cols + 1,
            col=h % cols + 1,
        )
    fig.update_xaxes(showticklabels=False)
    fig.update_yaxes(
        tickvals=positions, ticktext=labels, showticklabels=False, autorange="reversed"
    )
    for r in range(1, rows + 1):  # token labels down the first column only
        fig.update_yaxes(showticklabels=len(tokens) <= 16, row=r, col=1)
    fig.update_layout(
        font=FONT,
        template=TEMPLATE,
        height=rows * (260 if cols <= 4 else 150) + 40,
        margin={"l": 10, "r": 10, "t": 40, "b": 10},
        coloraxis={"colorscale": "Blues", "cmin": 0.0, "cmax": 1.0, "colorbar": {"thickness": 14}},
    )
    fig.update_annotations(font_size=14)
    return fig
