"""The kernel page's figures: arrays in, ``go.Figure`` out, never ``st.*``.

Built from plain dicts (no Plotly validation, as the lab's are); matrices use integer positions
with escaped tokens as tick text, so repeated characters keep their own rows.
"""

from typing import Any

import numpy as np
import plotly.graph_objects as go

from ui.kernel.compute import human_bytes
from ui.kernel.settings import TILE
from ui.kit.figures import (
    BLUES,
    DIVERGING,
    SELECT_COLOUR,
    escape,
    figure,
    format_cell,
    format_value,
    mask_shapes,
    tick_labels,
)
from ui.kit.text import t
from viz_core import CacheShape, FlashRun, OnlineSoftmax

M_COLOUR = "#2563eb"  # running max: blue
L_COLOUR = "#d97706"  # running sum: amber (apart from blue for colour-blind eyes too)
RESCALE_COLOUR = "#374151"
REFERENCE_COLOUR = "#6b7280"  # the ordinary softmax: grey, visible on a light or dark theme
DONE_COLOUR = "#bfdbfe"  # tiles already computed and dropped
EMPTY_COLOUR = "#eef0f3"  # cells not computed yet
CELL_TEXT_UP_TO = 10  # tokens: above this a cell (about 22 px beside the text) is too small
Trace = dict[str, Any]


def _numbers(values: list[float | None], digits: int = 3) -> list[str]:
    return ["" if v is None else format_value(v, digits) for v in values]


def online_softmax_steps(
    run: OnlineSoftmax,
    reference: np.ndarray,
    tokens: tuple[str, ...],
    *,
    lang: str,
    large: bool = False,
) -> go.Figure:
    """Left: the running max m, sum ℓ and rescale factor after each block (m labelled where it
    rises). Right: the final weights (bars) with the ordinary softmax as a dash on each bar."""
    blocks = run.trace
    steps = list(range(len(blocks)))
    ell = [float(b.l) for b in blocks]
    m = [float(b.m) for b in blocks]
    rises = [i == 0 or m[i] > m[i - 1] for i in steps]
    rescale: list[float | None] = [None, *(float(b.rescale) for b in blocks[1:])]
    font = {"size": 16 if large else 12}
    left = [
        _bar(steps, ell, L_COLOUR, t("kn_trace_l", lang), _numbers(ell), font),
        _line(steps, m, M_COLOUR, t("kn_trace_m", lang), _numbers(m), font, rises),
        {
            **_line(steps, rescale, RESCALE_COLOUR, t("kn_trace_rescale", lang), [], font, []),
            "mode": "markers+text",
            "text": ["" if r is None or r == 1 else f"×{r:.3f}" for r in rescale],
            "textposition": "top center",
            "marker": {"symbol": "diamond", "size": 12, "color": RESCALE_COLOUR},
        },
    ]
    return figure(
        left + _final_weights(run, reference, font), _online_layout(run, tokens, lang, large)
    )


def _bar(x: list[int], y: list[float], colour: str, name: str, text: list[str], font: Any) -> Trace:
    return {
        "type": "bar",
        "x": x,
        "y": y,
        "name": name,
        "marker": {"color": colour},
        "text": text,
        "textposition": "outside",
        "textfont": font,
        "cliponaxis": False,
    }


def _line(
    x: list[int],
    y: list[float | None],
    colour: str,
    name: str,
    text: list[str],
    font: Any,
    labelled: list[bool],
) -> Trace:
    """A line with markers; labelled points carry their value above them."""
    shown = [label if keep else "" for label, keep in zip(text, labelled, strict=False)]
    return {
        "type": "scatter",
        "x": x,
        "y": y,
        "mode": "lines+markers+text" if text else "lines+markers",
        "line": {"color": colour, "width": 3},
        "marker": {"size": 9},
        "name": name,
        "text": shown,
        "textposition": "top center",
        "textfont": {**font, "color": colour},
        "cliponaxis": False,
    }


def _online_layout(
    run: OnlineSoftmax, tokens: tuple[str, ...], lang: str, large: bool
) -> dict[str, Any]:
    """Blocks on the left axis, tokens on the right; room above for the labels."""
    ticks = {"size": 17 if large else 14}
    labels = [escape(" ".join(tokens[b.columns])) for b in run.trace]
    top = max(3.0, float(run.l), float(run.m))
    return {
        "height": 340 if large else 360,
        "margin": {"l": 10, "r": 10, "t": 10, "b": 10},
        "barmode": "overlay",
        "legend": {"orientation": "h", "x": 0, "y": 1.02, "yanchor": "bottom", "font": ticks},
        "xaxis": {
            "domain": [0, 0.52],
            "tickvals": list(range(len(labels))),
            "ticktext": labels,
            "tickfont": {"size": 14 if large else 12},
            "tickangle": 0 if run.block > 1 or large else -45,  # "[CLS] [SEP]" need the room
            "title": {"text": t("kn_axis_block", lang)},
        },
        "yaxis": {"range": [0, top * 1.25], "zeroline": True},
        "xaxis2": {
            "domain": [0.6, 1],
            "anchor": "y2",
            "tickvals": list(range(len(tokens))),
            "ticktext": tick_labels(tokens),
            "tickfont": {"size": 13 if large else 12},
            "tickangle": -45,  # nine tokens in 40 % of the width: [CLS] and [SEP] would touch
            "title": {"text": t("kn_panel_weights", lang)},
        },
        "yaxis2": {"anchor": "x2", "range": [0, 0.5]},
    }


# --- FlashAttention --------------------------------------------------------------------------


def flash_tiles(
    run: FlashRun,
    masked: np.ndarray,
    index: int,
    tokens: tuple[str, ...],
    *,
    lang: str,
    large: bool = False,
) -> go.Figure:
    """The n × m grid of scores: tiles already done (pale, dropped), the current tile with its
    scores (outlined), masked cells grey. Right: the running m and ℓ of the current query rows."""
    tile = run.tiles[index]
    allowed = np.isfinite(masked)
    done = np.zeros(masked.shape, dtype=bool)
    for earlier in run.tiles[:index]:
        done[earlier.rows, earlier.cols] = not earlier.skipped
    current = np.zeros(masked.shape, dtype=bool)
    current[tile.rows, tile.cols] = True
    traces = [
        _flat_trace(np.zeros(masked.shape), EMPTY_COLOUR, t("kn_hover_empty", lang), "grid"),
        _flat_trace(
            np.where(done & allowed, 1.0, np.nan), DONE_COLOUR, t("kn_hover_done", lang), "done"
        ),
        _tile_trace(masked, current & allowed, tokens, lang, large),
        *_running_bars(run, index, tokens, lang, large),
    ]
    layout = _grid_layout(tokens, large, lang)
    layout["shapes"] = _grid_shapes(~allowed, tile.rows, tile.cols)
    return figure(traces, layout)


def _flat_trace(z: np.ndarray, colour: str, hover: str, name: str) -> Trace:
    """Cells in one colour, no scale: the empty grid, or the tiles already done."""
    n, m = z.shape
    return {
        "type": "heatmap",
        "z": z,
        "x": np.arange(m),
        "y": np.arange(n),
        "xgap": 1,
        "ygap": 1,
        "colorscale": [[0, colour], [1, colour]],
        "showscale": False,
        "hovertemplate": f"{escape(hover)}<extra></extra>",
        "name": name,
    }


def _cell_hover(labels: list[str], n: int, m: int, row_axis: str, col_axis: str) -> Trace:
    """Hover for an n × m heatmap over the same tokens: its row and column under the axes'
    names, and the cell's value."""
    return {
        "customdata": [[[labels[i], labels[j]] for j in range(m)] for i in range(n)],
        "hovertemplate": (
            f"{escape(row_axis)}: %{{customdata[0]}}<br>"
            f"{escape(col_axis)}: %{{customdata[1]}}<br>= %{{z:.3f}}<extra></extra>"
        ),
    }


def _tile_trace(
    masked: np.ndarray, shown: np.ndarray, tokens: tuple[str, ...], lang: str, large: bool
) -> Trace:
    """The current tile's scaled scores on a diverging scale; every other cell is a gap."""
    n, m = masked.shape
    finite = np.abs(masked[np.isfinite(masked)])
    limit = float(finite.max()) if finite.size else 1.0
    z = np.where(shown, masked, np.nan)
    labels = tick_labels(tokens)
    trace: Trace = {
        "type": "heatmap",
        "z": z.astype(np.float32),
        "x": np.arange(m),
        "y": np.arange(n),
        "xgap": 1,
        "ygap": 1,
        "colorscale": DIVERGING,
        "zmin": -limit,
        "zmax": limit,
        "showscale": max(n, m) > CELL_TEXT_UP_TO,  # else every shown cell prints its number
        "colorbar": {"thickness": 12, "len": 0.8, "x": 0.61},
        **_cell_hover(labels, n, m, t("axis_query", lang), t("axis_key", lang)),
        "name": "tile",
    }
    if max(n, m) <= CELL_TEXT_UP_TO:
        trace["text"] = [
            [format_cell(float(masked[i, j]), "scores") if shown[i, j] else "" for j in range(m)]
            for i in range(n)
        ]
        trace["texttemplate"] = "%{text}"
        trace["textfont"] = {"size": 14 if large else 12}
    return trace


def _running_bars(
    run: FlashRun, index: int, tokens: tuple[str, ...], lang: str, large: bool
) -> list[Trace]:
    """m and ℓ of the current query rows after this tile, beside their rows of the grid (or,
    when rows are too thin for text, one line per query under its token); the numbers are also
    the trace's customdata (m, ℓ), None where nothing is allowed yet."""
    tile = run.tiles[index]
    rows = list(range(tile.rows.start, tile.rows.stop))
    aligned = len(tokens) <= CELL_TEXT_UP_TO
    pairs = [
        [float(m) if np.isfinite(m) else None, float(ell)]
        for m, ell in zip(tile.m, tile.l, strict=True)
    ]
    text = [
        ("" if aligned else f"{escape(tokens[i])}:  ")
        + f"m = {'−∞' if m is None else format_value(m, 3)}   ℓ = {format_value(ell, 3)}"
        for i, (m, ell) in zip(rows, pairs, strict=True)
    ]
    return [
        {
            "type": "scatter",
            "x": [0] * len(rows),
            "y": rows if aligned else list(range(len(rows))),
            "mode": "text",
            "text": text,
            "textposition": "middle right",
            "textfont": {"size": 17 if large else 14, "color": M_COLOUR},
            "customdata": pairs,
            "hoverinfo": "skip",
            "showlegend": False,
            "name": t("kn_axis_running", lang),
            "xaxis": "x2",
            "yaxis": "y2",
        }
    ]


def _grid_layout(tokens: tuple[str, ...], large: bool, lang: str) -> dict[str, Any]:
    """The grid on the left (keys on top, row 0 on top), m and ℓ on the right: beside their
    rows while rows are tall enough for text, else one line per query of the tile."""
    hidden = {"visible": False, "fixedrange": True}
    aligned = len(tokens) <= CELL_TEXT_UP_TO
    rows = {"matches": "y"} if aligned else {"range": [TILE + 1, -2]}
    return {
        "height": 330 if large else 420,
        "margin": {"l": 10, "r": 10, "t": 10, "b": 10},
        "plot_bgcolor": "rgba(0, 0, 0, 0)",
        "dragmode": False,
        **_square_axes(tokens, large, domain=[0, 0.6]),
        "xaxis2": {**hidden, "domain": [0.7, 1], "anchor": "y2", "range": [0, 1]},
        "yaxis2": {**hidden, "anchor": "x2", **rows},
    }


def _grid_shapes(masked: np.ndarray, rows: slice, cols: slice) -> list[dict[str, Any]]:
    """Grey over masked cells, an orange frame round the current tile."""
    shapes = mask_shapes(masked)
    frame = {"x0": cols.start - 0.5, "x1": cols.stop - 0.5, "y0": rows.start - 0.5}
    frame |= {"y1": rows.stop - 0.5}
    shapes.append({"type": "rect", **frame, "line": {"color": SELECT_COLOUR, "width": 4}})
    return shapes


# --- KV cache --------------------------------------------------------------------------------


def kv_cache(
    weights: np.ndarray,
    tokens: tuple[str, ...],
    models: tuple[CacheShape, ...],
    *,
    lang: str,
    large: bool = False,
) -> go.Figure:
    """Left: step i's weights over the i + 1 cached keys (grey: not generated yet). Right: the
    cache of real models growing with the tokens it holds."""
    n = len(tokens)
    future = ~np.tri(n, dtype=bool)
    traces = [_weights_trace(weights, future, tokens, lang, large)]
    top_tokens = max(model.tokens for model in models)
    for model in models:
        gib = model.total_bytes / 2**30
        traces.append(
            {
                "type": "scatter",
                "x": [0, model.tokens],
                "y": [0.0, gib],
                "mode": "lines+markers+text",
                "name": model.name,
                "text": ["", human_bytes(model.total_bytes)],
                "textposition": "top left" if 2 * model.tokens > top_tokens else "top right",
                "textfont": {"size": 15 if large else 12},
                "xaxis": "x2",
                "yaxis": "y2",
            }
        )
    layout = _cache_layout(tokens, models, large, lang)
    layout["shapes"] = _grid_shapes(future, slice(0, 0), slice(0, 0))[:-1]
    return figure(traces, layout)


def _weights_trace(
    weights: np.ndarray, future: np.ndarray, tokens: tuple[str, ...], lang: str, large: bool
) -> Trace:
    n = len(tokens)
    labels = tick_labels(tokens)
    trace: Trace = {
        "type": "heatmap",
        "z": np.where(future, np.nan, weights),
        "x": np.arange(n),
        "y": np.arange(n),
        "xgap": 1,
        "ygap": 1,
        "colorscale": BLUES,
        "zmin": 0.0,
        "zmax": 1.0,
        "showscale": n > CELL_TEXT_UP_TO,  # else every cell prints its weight
        "colorbar": {"thickness": 12, "len": 0.8, "x": 0.47},
        **_cell_hover(labels, n, n, t("kn_axis_step", lang), t("axis_key", lang)),
        "name": "weights",
    }
    if n <= CELL_TEXT_UP_TO:
        trace["text"] = [
            ["" if future[i, j] else f"{weights[i, j]:.2f}" for j in range(n)] for i in range(n)
        ]
        trace["texttemplate"] = "%{text}"
        trace["textfont"] = {"size": 12}
    return trace


def _cache_layout(
    tokens: tuple[str, ...], models: tuple[CacheShape, ...], large: bool, lang: str
) -> dict[str, Any]:
    """The decode weights on the left, the real caches' growth on the right."""
    top = max(model.total_bytes for model in models) / 2**30
    return {
        "height": 330 if large else 420,
        "margin": {"l": 10, "r": 10, "t": 10, "b": 10},
        "plot_bgcolor": "rgba(0, 0, 0, 0)",
        "dragmode": False,
        "legend": {
            "x": 1.0,
            "y": 1.0,
            "xanchor": "right",
            "yanchor": "top",
            "bgcolor": "rgba(255, 255, 255, 0.6)",
            "font": {"size": 14 if large else 12},
        },
        **_square_axes(tokens, large, domain=[0, 0.46]),
        "xaxis2": {
            "domain": [0.74, 1],
            "anchor": "y2",
            "title": {"text": t("kn_axis_tokens", lang)},
            "rangemode": "tozero",
            "automargin": False,  # its title sits inside the figure: the grid keeps its height
        },
        "yaxis2": {
            "anchor": "x2",
            "domain": [0.22, 1],
            "title": {"text": "GiB"},
            "range": [0, top * 1.8],
        },
    }


def _square_axes(tokens: tuple[str, ...], large: bool, domain: list[float]) -> dict[str, Any]:
    """Token ticks on both axes (keys on top, row 0 on top), square cells."""
    n = len(tokens)
    small = n > CELL_TEXT_UP_TO
    ticks = {
        "tickvals": list(range(n)),
        "ticktext": tick_labels(tokens),
        "showgrid": False,
        "zeroline": False,
        "tickfont": {"size": 10 if small else (15 if large else 13)},
        **({} if small else {"tickangle": 0}),  # many tokens: Plotly turns them to fit
    }
    return {
        "xaxis": {**ticks, "side": "top", "range": [-0.5, n - 0.5], "domain": domain},
        "yaxis": {**ticks, "range": [n - 0.5, -0.5], "scaleanchor": "x", "constrain": "domain"},
    }


def _final_weights(run: OnlineSoftmax, reference: np.ndarray, font: Any) -> list[Trace]:
    """The online weights as bars and the ordinary softmax as a black dash on each."""
    positions = list(range(len(run.weights)))
    weights = [float(w) for w in run.weights]
    dash = {"symbol": "line-ew-open", "size": 26, "color": REFERENCE_COLOUR}
    return [
        {
            **_bar(
                positions,
                weights,
                M_COLOUR,
                "",
                [f"{w:.2f}" if w >= 0.1 else "" for w in weights],
                font,
            ),
            "textfont": {"size": 13},
            "constraintext": "none",
            "showlegend": False,
            "xaxis": "x2",
            "yaxis": "y2",
        },
        {
            "type": "scatter",
            "x": positions,
            "y": [float(p) for p in reference],
            "mode": "markers",
            "marker": {**dash, "line": {"width": 3, "color": REFERENCE_COLOUR}},
            "showlegend": False,
            "hovertemplate": "softmax = %{y:.4f}<extra></extra>",
            "xaxis": "x2",
            "yaxis": "y2",
        },
    ]
