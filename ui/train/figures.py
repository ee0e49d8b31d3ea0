"""The training page's figures: runs in, ``go.Figure`` out, never ``st.*``.

Built from plain dicts (``ui.kit.figures.figure``) and float32 arrays: what is only displayed
need not travel as float64. Curves leave out x, so Plotly numbers the points 0, 1, 2 … which
are the steps.
"""

from typing import Any

import numpy as np
import plotly.graph_objects as go

from ui.kit.figures import BLUES, RAW_COLOUR, SCALED_COLOUR, SELECT_COLOUR, figure
from ui.kit.text import t
from ui.train.compute import TrainPair
from viz_core import NEVER, Sweep, TrainRun

Trace = dict[str, Any]
LEGEND = {"orientation": "h", "x": 0, "y": 1.02, "yanchor": "bottom"}


def _names(lang: str) -> tuple[tuple[str, str], tuple[str, str]]:
    """(name, colour) of the scaled and the unscaled run."""
    return (t("tr_scaled", lang), SCALED_COLOUR), (t("tr_unscaled", lang), RAW_COLOUR)


def _curve(values: np.ndarray, name: str, colour: str) -> Trace:
    """One run's curve against the step (x is the point's index)."""
    return {
        "type": "scatter",
        "mode": "lines",
        "y": values.astype(np.float32),
        "name": name,
        "line": {"color": colour, "width": 1.6},
        "hovertemplate": "%{x}: %{y:.3g}<extra>" + name + "</extra>",
    }


def _curves_layout(y_title: str, height: int, lang: str, large: bool) -> dict[str, Any]:
    size = 18 if large else 14
    return {
        "height": height,
        "margin": {"l": 10, "r": 10, "t": 30, "b": 10},
        "legend": {**LEGEND, "font": {"size": size}},
        "xaxis": {"title": {"text": t("tr_axis_step", lang)}, "tickfont": {"size": size}},
        "yaxis": {
            "type": "log",
            "title": {"text": y_title},
            "tickfont": {"size": size},
            "exponentformat": "power",  # 10⁻⁴, not Plotly's SI "100µ"
            "minorloglabels": "none",
        },
    }


def _reached_marks(pair: TrainPair, lang: str, large: bool) -> tuple[list[Trace], list[Trace]]:
    """A dotted line and a label at the step each run first reaches 90 % held-out accuracy."""
    shapes, notes = [], []
    runs = zip((pair.scaled, pair.unscaled), _names(lang), strict=True)
    for k, (run, (_, colour)) in enumerate(runs):
        step = run.steps_to()
        if step == NEVER:
            continue
        line = {"color": colour, "dash": "dot", "width": 2}
        shapes.append({"type": "line", "x0": step, "x1": step, "yref": "paper", "y0": 0, "y1": 1})
        shapes[-1]["line"] = line
        label = t("tr_reached", lang, step=step)
        notes.append(
            {"x": step, "y": 0.97 - 0.1 * k, "yref": "paper", "text": label, "showarrow": False}
        )
        notes[-1] |= {"xanchor": "left", "font": {"color": colour, "size": 17 if large else 14}}
    return shapes, notes


def loss_curves(pair: TrainPair, *, title: str, lang: str, large: bool = False) -> go.Figure:
    """Loss at every step, scaled and unscaled, with the steps where each reached 90 %."""
    (s_name, s_colour), (u_name, u_colour) = _names(lang)
    data = [
        _curve(pair.scaled.loss, s_name, s_colour),
        _curve(pair.unscaled.loss, u_name, u_colour),
    ]
    layout = _curves_layout(t("tr_axis_loss", lang), 380 if large else 340, lang, large)
    layout["shapes"], layout["annotations"] = _reached_marks(pair, lang, large)
    layout["title"] = {
        "text": title,
        "x": 0,
        "xanchor": "left",
        "font": {"size": 22 if large else 18},
    }
    layout["margin"]["t"] = 80
    layout["legend"]["y"] = 1.0
    return figure(data, layout)


DECADES = 8  # of the gradient chart's log axis


def grad_curves(pair: TrainPair, *, lang: str, large: bool = False) -> go.Figure:
    """The size of the gradient on W_q and W_k at every step, scaled and unscaled."""
    (s_name, s_colour), (u_name, u_colour) = _names(lang)
    data = [
        _curve(pair.scaled.grad_norm, s_name, s_colour),
        _curve(pair.unscaled.grad_norm, u_name, u_colour),
    ]
    layout = _curves_layout(t("tr_axis_grad", lang), 320, lang, large)
    norms = np.concatenate([pair.scaled.grad_norm, pair.unscaled.grad_norm])
    positive = norms[np.isfinite(norms) & (norms > 0)]
    if positive.size:  # at most 8 decades: a vanished gradient runs off the bottom
        top = float(np.log10(positive.max()))
        bottom = max(float(np.log10(positive.min())), top - DECADES)
        layout["yaxis"]["range"] = [bottom - 0.2, top + 0.2]
    return figure(data, layout)


# --- the learned attention ------------------------------------------------------------------


def _z(run: TrainRun, c: int) -> Trace:
    """One run's attention on the probe at checkpoint c (float32: the page shows 3 decimals)."""
    return {"type": "heatmap", "z": run.weights[c].astype(np.float32)}


def _map(run: TrainRun, c: int, axes: str, size: int) -> Trace:
    """One run's attention on the probe at checkpoint c, with its numbers in the cells."""
    return {
        "type": "heatmap",
        **_z(run, c),
        "xaxis": f"x{axes}",
        "yaxis": f"y{axes}",
        "colorscale": BLUES,
        "zmin": 0.0,
        "zmax": 1.0,
        "xgap": 1,
        "ygap": 1,
        "showscale": axes == "2",
        "colorbar": {"thickness": 12, "len": 0.9},
        "texttemplate": "%{z:.2f}",
        "textfont": {"size": size},
        "hovertemplate": "%{y} → %{x}: %{z:.3f}<extra></extra>",
    }


def _frame_data(pair: TrainPair, c: int, large: bool) -> list[Trace]:
    size = 15 if large else 12  # cell numbers at least 12 px, larger on a projector
    return [_map(pair.scaled, c, "", size), _map(pair.unscaled, c, "2", size)]


def _boxes(ideal: list[int], axes: str) -> list[Trace]:
    """An orange outline round the cell each query should read."""
    ref = {"xref": f"x{axes}", "yref": f"y{axes}", "line": {"color": SELECT_COLOUR, "width": 3}}
    return [
        {"type": "rect", "x0": j - 0.5, "x1": j + 0.5, "y0": i - 0.5, "y1": i + 0.5, **ref}
        for i, j in enumerate(ideal)
    ]


def _map_axes(tokens: list[str], large: bool, lang: str) -> dict[str, Any]:
    """Two square panels side by side, the probe's digits on both axes, query 0 on top."""
    n = len(tokens)
    ticks = {"tickvals": list(range(n)), "ticktext": tokens, "showgrid": False, "zeroline": False}
    ticks["tickfont"] = {"size": 20 if large else 15}
    x = {
        **ticks,
        "side": "top",
        "range": [-0.5, n - 0.5],
        "title": {"text": t("tr_axis_key", lang)},
    }
    y = {**ticks, "range": [n - 0.5, -0.5], "title": {"text": t("tr_axis_query", lang)}}
    return {
        "xaxis": {**x, "domain": [0, 0.45], "anchor": "y"},
        "yaxis": {**y, "anchor": "x", "scaleanchor": "x"},
        "xaxis2": {**x, "domain": [0.52, 0.97], "anchor": "y2"},
        "yaxis2": {**y, "anchor": "x2", "scaleanchor": "x2", "title": None},
    }


def _titles(lang: str) -> list[dict[str, Any]]:
    (s_name, s_colour), (u_name, u_colour) = _names(lang)
    return [
        {"text": f"<b>{name}</b>", "x": x, "y": -0.02, "xref": "paper", "yref": "paper"}
        | {"showarrow": False, "yanchor": "top", "font": {"color": colour, "size": 16}}
        for name, colour, x in [(s_name, s_colour, 0.225), (u_name, u_colour, 0.745)]
    ]


def learned_weights(
    pair: TrainPair, ideal: list[int], *, lang: str, large: bool = False
) -> go.Figure:
    """Attention on the probe, scaled beside unscaled, one frame per checkpoint, ending trained."""
    steps = pair.scaled.checkpoint_steps.tolist()
    last = len(steps) - 1
    # A frame carries only what changes, the two maps' z; Plotly keeps the rest of each trace.
    frames = [
        {"name": str(step), "data": [_z(pair.scaled, c), _z(pair.unscaled, c)], "traces": [0, 1]}
        for c, step in enumerate(steps)
    ]
    layout = _map_axes([str(token) for token in pair.scaled.probe], large, lang)
    layout |= {
        "height": 560 if large else 470,
        "margin": {"l": 10, "r": 10, "t": 30, "b": 110},
        "plot_bgcolor": "rgba(128, 128, 128, 0.22)",
        "shapes": _boxes(ideal, "") + _boxes(ideal, "2"),
        "annotations": _titles(lang),
        "updatemenus": [_play_buttons(lang)],
        "sliders": [_step_slider(steps, last, lang, large)],
    }
    return figure(_frame_data(pair, last, large), layout, frames)


def _play_buttons(lang: str) -> dict[str, Any]:
    """Play every checkpoint from the first; pause."""
    play = {"frame": {"duration": 250, "redraw": True}, "transition": {"duration": 0}}
    pause = {"frame": {"duration": 0, "redraw": False}, "mode": "immediate"}
    return {
        "type": "buttons",
        "direction": "left",
        "x": 0,
        "y": -0.12,
        "xanchor": "left",
        "yanchor": "top",
        "buttons": [
            {"label": t("tr_play", lang), "method": "animate", "args": [None, play]},
            {"label": t("tr_pause", lang), "method": "animate", "args": [[None], pause]},
        ],
    }


def _step_slider(steps: list[int], active: int, lang: str, large: bool) -> dict[str, Any]:
    """One stop per checkpoint, labelled by its step; starts at the trained head."""
    jump = {"frame": {"duration": 0, "redraw": True}, "mode": "immediate"}
    return {
        "active": active,
        "x": 0.3,  # right of the play and pause buttons, which sit at the left
        "y": -0.1,
        "len": 0.7,
        "yanchor": "top",
        "currentvalue": {
            "prefix": t("tr_slider_prefix", lang),
            "font": {"size": 18 if large else 15, "color": "#6b7280"},
        },
        "font": {"color": "rgba(0,0,0,0)"},  # 64 tick labels would overlap: the value says it
        "steps": [
            {"label": str(step), "method": "animate", "args": [[str(step)], jump]} for step in steps
        ],
    }


# --- the sweep ------------------------------------------------------------------------------


def never_height(result: Sweep) -> float:
    """Where runs that never reached 90 % are drawn: above every step that could have."""
    return result.max_steps * 1.15


def sweep_steps(result: Sweep, *, lang: str, large: bool = False) -> go.Figure:
    """Steps to 90 % against d_k: each seed as a point, the median as a line; never on top."""
    ds = np.asarray(result.d_ks, dtype=np.float64)
    top = never_height(result)
    data: list[Trace] = []
    runs = [(result.scaled, True, 0.93), (result.unscaled, False, 1.07)]
    for (steps, scale, shift), (name, colour) in zip(runs, _names(lang), strict=True):
        reached = steps != NEVER
        y = np.where(reached, steps, top).astype(np.float32)
        x = np.repeat(ds * shift, steps.shape[1]).astype(np.float32)
        symbols = np.where(reached, "circle" if scale else "diamond", "x").ravel().tolist()
        marker = {"color": colour, "size": 11 if large else 9, "symbol": symbols, "opacity": 0.7}
        data.append(
            {"type": "scatter", "mode": "markers", "x": x, "y": y.ravel(), "name": name}
            | {"marker": marker, "hovertemplate": "d_k %{x:.0f}: %{y:.0f}<extra></extra>"}
        )
        median = t("tr_trace_median", lang, name=name)
        line = {"color": colour, "width": 3, "dash": "solid" if scale else "dash"}
        data.append(
            {
                "type": "scatter",
                "mode": "lines",
                "x": ds,
                "y": result.median_steps(scale).astype(np.float32),
            }
            | {"name": median, "line": line}
        )
    return figure(data, _sweep_layout(result, top, lang, large))


def _sweep_layout(result: Sweep, top: float, lang: str, large: bool) -> dict[str, Any]:
    size = 18 if large else 14
    never = t("tr_never_line", lang, max_steps=result.max_steps)
    return {
        "height": 400 if large else 360,
        "margin": {"l": 10, "r": 10, "t": 30, "b": 10},
        "legend": {**LEGEND, "font": {"size": size}},
        "xaxis": {"type": "log", "tickvals": list(result.d_ks), "tickfont": {"size": size}}
        | {"title": {"text": t("tr_axis_d_k", lang)}},
        "yaxis": {"range": [0, top * 1.08], "title": {"text": t("tr_axis_steps_to", lang)}}
        | {"tickfont": {"size": size}, "rangemode": "tozero"},
        "shapes": [
            {"type": "line", "xref": "paper", "x0": 0, "x1": 1, "y0": result.max_steps}
            | {"y1": result.max_steps, "line": {"color": "#6b7280", "dash": "dot", "width": 1}}
        ],
        "annotations": [
            {"text": never, "xref": "paper", "x": 0, "y": top, "xanchor": "left"}
            | {"yanchor": "bottom", "showarrow": False, "font": {"color": "#6b7280"}}
        ],
    }
