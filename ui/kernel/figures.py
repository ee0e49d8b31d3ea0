"""The kernel page's figures: arrays in, figure dicts out, never ``st.*``. The score grid and
the decode weights are drawn by ``ui.kit.heatmap``, the page's own axes beside them.
"""

from collections.abc import Sequence
from typing import Any

import numpy as np

from ui.kernel.compute import human_bytes
from ui.kernel.settings import TILE
from ui.kit.figures import escape, figure, format_value, parts, side_ticks
from ui.kit.heatmap import (
    Matrix,
    beside_domain,
    cell_rects,
    column_ticks,
    frame,
    heatmap,
)
from ui.kit.text import t
from ui.kit.typography import LAPTOP, Screen
from viz_core import CacheShape, FlashRun, OnlineSoftmax

M_COLOUR = "#2563eb"  # running max: blue
L_COLOUR = "#d97706"  # running sum: amber (apart from blue for colour-blind eyes too)
RESCALE_COLOUR = "#374151"
REFERENCE_COLOUR = "#6b7280"  # the ordinary softmax: grey, visible on a light or dark theme
DONE_COLOUR = "#bfdbfe"  # tiles already computed and dropped
ALIGNED_UP_TO = 10  # tokens: more, and a row is too low for its line of m and ℓ beside it
SHARE = 0.62  # the figure's column beside the controls, of the main area
Trace = dict[str, Any]

ROOM = 360  # px of the blocks' panel beside the weights': the labels' room is shared out of it


def _numbers(values: Sequence[float | None], digits: int = 3) -> list[str]:
    return ["" if v is None else format_value(v, digits) for v in values]


def online_softmax_steps(
    run: OnlineSoftmax,
    reference: np.ndarray,
    tokens: tuple[str, ...],
    *,
    lang: str,
    screen: Screen = LAPTOP,
) -> dict[str, Any]:
    """Left (on a phone, above): the running max m, sum ℓ and rescale factor after each block
    (m labelled where it rises; the rescale factor's value on hover). Right (below): the final
    weights (bars) with the ordinary softmax as a dash on each bar."""
    blocks = run.trace
    steps = list(range(len(blocks)))
    ell = [float(b.l) for b in blocks]
    m = [float(b.m) for b in blocks]
    rises = [i == 0 or m[i] > m[i - 1] for i in steps]
    rescale: list[float | None] = [None, *(float(b.rescale) for b in blocks[1:])]
    font = {"size": screen.number_font}
    left = [
        {**_bar(steps, ell, L_COLOUR, t("kn_trace_l", lang), _numbers(ell), font), **INSIDE_TOP},
        _line(steps, m, M_COLOUR, t("kn_trace_m", lang), _numbers(m), font, rises),
        {
            # No label: "×0.397" is wider than a bar, among ℓ's numbers; the text beside says it.
            **_line(steps, rescale, RESCALE_COLOUR, t("kn_trace_rescale", lang), [], font, []),
            "mode": "markers",
            "hovertemplate": "×%{y:.3f}<extra></extra>",
            "marker": {"symbol": "diamond", "size": 12, "color": RESCALE_COLOUR},
        },
    ]
    return figure(
        left + _final_weights(run, reference, font),
        _online_layout(run, tokens, lang, screen),
    )


# ℓ's numbers inside the top of its bars, dark on amber: above them, m's line ran through them.
INSIDE_TOP = {
    "textposition": "inside",
    "insidetextanchor": "end",
    "textangle": 0,
    "constraintext": "none",
    "insidetextfont": {"color": "#111827"},
}


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
    y: Sequence[float | None],
    colour: str,
    name: str,
    text: list[str],
    font: Any,
    labelled: list[bool],
) -> Trace:
    """A line with markers; labelled points carry their value above them, or below them where
    the line climbs on to the next point (above, it would run through the label)."""
    shown = [label if keep else "" for label, keep in zip(text, labelled, strict=False)]
    climbs = [
        a is not None and b is not None and b > a for a, b in zip(y, [*y[1:], None], strict=True)
    ]
    return {
        "type": "scatter",
        "x": x,
        "y": y,
        "mode": "lines+markers+text" if text else "lines+markers",
        "line": {"color": colour, "width": 3},
        "marker": {"size": 9},
        "name": name,
        "text": shown,
        "textposition": ["bottom center" if up else "top center" for up in climbs],
        "textfont": {**font, "color": colour},
        "cliponaxis": False,
    }


def _online_layout(
    run: OnlineSoftmax, tokens: tuple[str, ...], lang: str, screen: Screen
) -> dict[str, Any]:
    """Blocks on the left axis, tokens on the right (on a phone, one panel above the other);
    room above for the labels. Long labels are shortened where they would touch."""
    blocks, weights = parts(
        screen, across=[(0, 0.52), (0.6, 1)], down=[(0.58, 1), (0, 0.4)], px=[ROOM, ROOM * 3 // 4]
    )
    fonts = (screen.small_font, screen.bar_font)  # the blocks' labels, the tokens'
    labels = [" ".join(tokens[b.columns]) for b in run.trace]
    top = max(3.0, float(run.l), float(run.m))
    legend = {"orientation": "h", "x": 0, "y": 1.02, "yanchor": "bottom"}
    return {
        "height": screen.panels_height,
        "margin": {"l": 10, "r": 10, "t": 10, "b": 10},
        "barmode": "overlay",
        "legend": legend | {"font": {"size": screen.text_font}},
        "xaxis": {
            "domain": blocks.x,
            **column_ticks(labels, fonts[0], blocks.px // len(labels) - 4).axis,
            "tickfont": {"size": fonts[0]},
            "title": {"text": t("kn_axis_block", lang)},
        },
        "yaxis": {"range": [0, top * 1.25], "zeroline": True, "domain": blocks.y},
        "xaxis2": {
            "domain": weights.x,
            "anchor": "y2",
            **column_ticks(tokens, fonts[1], weights.px // len(tokens) - 4).axis,
            "tickfont": {"size": fonts[1]},
            "title": {"text": t("kn_panel_weights", lang)},
        },
        "yaxis2": {"anchor": "x2", "range": [0, 0.5], "domain": weights.y},
    }


# --- FlashAttention --------------------------------------------------------------------------

FLASH_ROOM = 0.4  # of the plot's width, right of the grid: the running m and ℓ


def flash_tiles(
    run: FlashRun,
    masked: np.ndarray,
    index: int,
    tokens: tuple[str, ...],
    *,
    lang: str,
    screen: Screen = LAPTOP,
) -> dict[str, Any]:
    """The n × m grid of scores: tiles already done (pale, dropped), the current tile with its
    scores (framed), masked cells grey. Right: the running m and ℓ of the current query rows."""
    tile = run.tiles[index]
    allowed = np.isfinite(masked)
    done = np.zeros(masked.shape, dtype=bool)
    for earlier in run.tiles[:index]:
        done[earlier.rows, earlier.cols] = not earlier.skipped
    current = np.zeros(masked.shape, dtype=bool)
    current[tile.rows, tile.cols] = True
    grid = _tile_grid(masked, current, done, tokens, lang)
    fig = heatmap(grid, lang=lang, screen=screen, share=SHARE, beside=FLASH_ROOM)
    fig["data"] += _running_bars(run, index, tokens, lang, screen)
    fig["layout"] |= _running_axes(fig, len(tokens))
    fig["layout"]["shapes"] = [
        *cell_rects(done & allowed, DONE_COLOUR, 1.0, layer="below"),
        *fig["layout"]["shapes"],
        frame(tile.rows, tile.cols, width=4),
    ]
    return fig


def _tile_grid(
    masked: np.ndarray, current: np.ndarray, done: np.ndarray, tokens: tuple[str, ...], lang: str
) -> Matrix:
    """The scores of the current tile alone (the rest are gaps) on the scale of all of them;
    hover says which cells are not computed yet and which were computed and dropped."""
    finite = np.abs(masked[np.isfinite(masked)])
    empty = np.where(current, "", t("kn_hover_empty", lang))
    return Matrix(
        np.where(current, masked, np.nan).astype(np.float32),  # display only
        tokens,
        tokens,
        limit=float(finite.max()) if finite.size else 1.0,
        masked=~np.isfinite(masked),
        notes=np.where(done, t("kn_hover_done", lang), empty),
        name="tile",
    )


def _running_bars(
    run: FlashRun, index: int, tokens: tuple[str, ...], lang: str, screen: Screen
) -> list[Trace]:
    """m and ℓ of the current query rows after this tile, beside their rows of the grid (or,
    when rows are too thin for text, one line per query under its token); the numbers are also
    the trace's customdata (m, ℓ), None where nothing is allowed yet."""
    tile = run.tiles[index]
    rows = list(range(tile.rows.start, tile.rows.stop))
    aligned = len(tokens) <= ALIGNED_UP_TO
    maxima = [float(m) if np.isfinite(m) else None for m in tile.m]
    sums = [float(ell) for ell in tile.l]
    pairs = [[m, ell] for m, ell in zip(maxima, sums, strict=True)]
    text = [
        ("" if aligned else f"{escape(tokens[i])}:  ")
        + f"m = {'−∞' if m is None else format_value(m, 3)}   ℓ = {format_value(ell, 3)}"
        for i, m, ell in zip(rows, maxima, sums, strict=True)
    ]
    return [
        {
            "type": "scatter",
            "x": [0] * len(rows),
            "y": rows if aligned else list(range(len(rows))),
            "mode": "text",
            "text": text,
            "textposition": "middle right",
            "textfont": {"size": screen.text_font, "color": M_COLOUR},
            "customdata": pairs,
            "hoverinfo": "skip",
            "showlegend": False,
            "name": t("kn_axis_running", lang),
            "xaxis": "x2",
            "yaxis": "y2",
        }
    ]


def _running_axes(fig: dict[str, Any], n: int) -> dict[str, Any]:
    """Hidden axes beside the grid for m and ℓ: on their rows of the grid while rows are tall
    enough for text, else one line per query of the tile."""
    hidden = {"visible": False, "fixedrange": True}
    rows = {"matches": "y"} if n <= ALIGNED_UP_TO else {"range": [TILE + 1, -2]}
    x = {**hidden, "domain": beside_domain(fig, FLASH_ROOM, gap=12), "range": [0, 1]}
    return {"xaxis2": x | {"anchor": "y2"}, "yaxis2": {**hidden, "anchor": "x2", **rows}}


# --- KV cache --------------------------------------------------------------------------------

CACHE_ROOM = 0.5  # of the plot's width, right of the weights: the real caches' growth


def kv_cache(
    weights: np.ndarray,
    tokens: tuple[str, ...],
    models: tuple[CacheShape, ...],
    *,
    lang: str,
    screen: Screen = LAPTOP,
) -> dict[str, Any]:
    """Left: step i's weights over the i + 1 cached keys (grey: not generated yet). Right: the
    cache of real models growing with the tokens it holds."""
    future = ~np.tri(len(tokens), dtype=bool)
    decode = Matrix(
        np.where(future, np.nan, weights), tokens, tokens, "weights", masked=future,
        row_axis="kn_axis_step", name="weights",
    )  # fmt: skip
    fig = heatmap(decode, lang=lang, screen=screen, share=SHARE, beside=CACHE_ROOM)
    top_tokens = max(model.tokens for model in models)
    for model in models:
        # Each model's full cache in its name, not beside its line: BERT's short line ends
        # under Llama-3's, and its label sat on that line.
        words = {"name": model.name, "size": human_bytes(model.total_bytes)}
        fig["data"].append(
            {
                "type": "scatter",
                "x": [0, model.tokens],
                "y": [0.0, model.total_bytes / 2**30],
                "mode": "lines+markers",
                "name": t("kn_cache_model", lang, tokens=f"{model.tokens:,}", **words),
                "xaxis": "x2",
                "yaxis": "y2",
            }
        )
    fig["layout"] |= _cache_axes(fig, models, screen, lang)
    fig["layout"]["xaxis2"] |= side_ticks(screen, top_tokens)  # a phone's: the far end only
    return fig


def _cache_axes(
    fig: dict[str, Any], models: tuple[CacheShape, ...], screen: Screen, lang: str
) -> dict[str, Any]:
    """The real caches' growth beside the weights: GiB against the tokens held, the models'
    names under the figure (the margin grows by their lines)."""
    layout = fig["layout"]
    plot_h = layout["height"] - layout["margin"]["t"] - layout["margin"]["b"]
    below = LEGEND_LINES * 20 + 50  # the tokens' ticks and title, then the names
    layout["margin"]["b"] += below
    layout["height"] += below
    top = max(model.total_bytes for model in models) / 2**30
    legend = {
        "orientation": "v",
        "x": 0,
        "y": -(layout["margin"]["b"] - LEGEND_LINES * 20) / plot_h,
    }
    legend |= {"yanchor": "top", "font": {"size": screen.small_font}}
    return {
        "legend": legend,
        "xaxis2": {
            "domain": beside_domain(fig, CACHE_ROOM, gap=72),  # the GiB labels and title
            "anchor": "y2",
            "title": {"text": t("kn_axis_tokens", lang)},
            "rangemode": "tozero",
            "tickformat": "~s",  # 1k, 2k: upright where 1000, 2000 turned in the narrow panel
            "tickfont": {"size": screen.small_font},
        },
        "yaxis2": {"anchor": "x2", "title": {"text": "GiB"}, "range": [0, top * 1.15]},
    }


LEGEND_LINES = 3  # the models' names and full caches, under the figure, one a line


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
