"""The training page's figures: runs in, figure dicts out, never ``st.*``.

Float32 arrays: what is only displayed need not travel as float64. Curves leave out x, so
Plotly numbers the points 0, 1, 2 … which are the steps.
"""

from collections.abc import Sequence
from typing import Any

import numpy as np

from ui.kit.figures import LINE_GAP, RAW_COLOUR, SCALED_COLOUR, figure, slider_place
from ui.kit.heatmap import Matrix, cell_numbers, frame, heatmap
from ui.kit.text import t
from ui.kit.typography import LAPTOP, Screen
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


def _curves_layout(y_title: str, height: int, lang: str, screen: Screen) -> dict[str, Any]:
    size = screen.tick_font
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


def _reached_marks(
    runs: Sequence[TrainRun], steps: int, lang: str, screen: Screen
) -> tuple[list[Trace], list[Trace]]:
    """A dotted line and a label at the step each run first reaches 90 % held-out accuracy: the
    label right of its line in the axis's first half, left of it in the second, so that it
    never runs off the chart."""
    shapes, notes = [], []
    for k, (run, (_, colour)) in enumerate(zip(runs, _names(lang), strict=False)):
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
        side = "left" if step <= steps / 2 else "right"
        notes[-1] |= {"xanchor": side, "xshift": LINE_GAP if side == "left" else -LINE_GAP}
        notes[-1] |= {"font": {"color": colour, "size": screen.text_font}}
    return shapes, notes


def loss_curves(
    runs: Sequence[TrainRun],
    *,
    steps: int,
    title: str,
    setting: str = "",
    lang: str,
    screen: Screen = LAPTOP,
) -> dict[str, Any]:
    """Loss at every step of the scaled run and, once trained, the unscaled one, with the steps
    where each reached 90 %; the x axis spans all ``steps``, so a curve so far grows into it.
    The ``setting`` is the title's subtitle: on one line the two are wider than a phone."""
    named = zip(runs, _names(lang), strict=False)  # the unscaled run may not be trained yet
    data = [_curve(run.loss, name, colour) for run, (name, colour) in named]
    second = round(1.4 * screen.text_font)  # px of the subtitle's line
    height = screen.chart_height + second
    layout = _curves_layout(t("tr_axis_loss", lang), height, lang, screen)
    layout["shapes"], layout["annotations"] = _reached_marks(runs, steps, lang, screen)
    layout["title"] = {
        "text": title,
        "subtitle": {"text": setting, "font": {"size": screen.text_font}},
        "x": 0,
        "xanchor": "left",
        "y": 1,
        "yref": "container",
        "yanchor": "top",
        "pad": {"t": 4},
        "font": {"size": screen.title_font},
    }
    # above the plot: the title and its subtitle, their gaps, then the legend
    layout["margin"]["t"] = round(20 + 1.4 * screen.title_font + second + 1.9 * screen.tick_font)
    layout["legend"]["y"] = 1.0
    layout["xaxis"]["range"] = [0, steps]
    return figure(data, layout)


DECADES = 8  # of the gradient chart's log axis
GRAD_HEIGHT = 320  # px of the gradient chart, on every screen


def grad_curves(pair: TrainPair, *, lang: str, screen: Screen = LAPTOP) -> dict[str, Any]:
    """The size of the gradient on W_q and W_k at every step, scaled and unscaled."""
    (s_name, s_colour), (u_name, u_colour) = _names(lang)
    data = [
        _curve(pair.scaled.grad_norm, s_name, s_colour),
        _curve(pair.unscaled.grad_norm, u_name, u_colour),
    ]
    layout = _curves_layout(t("tr_axis_grad", lang), GRAD_HEIGHT, lang, screen)
    norms = np.concatenate([pair.scaled.grad_norm, pair.unscaled.grad_norm])
    positive = norms[np.isfinite(norms) & (norms > 0)]
    if positive.size:  # at most 8 decades: a vanished gradient runs off the bottom
        top = float(np.log10(positive.max()))
        bottom = max(float(np.log10(positive.min())), top - DECADES)
        layout["yaxis"]["range"] = [bottom - 0.2, top + 0.2]
    return figure(data, layout)


# --- the learned attention ------------------------------------------------------------------


def _maps(pair: TrainPair, c: int, lang: str) -> list[Matrix]:
    """Both runs' attention on the probe at checkpoint c, titled by their run in its colour."""
    probe = tuple(str(token) for token in pair.scaled.probe)
    runs = zip((pair.scaled, pair.unscaled), _names(lang), strict=True)
    return [
        Matrix(
            run.weights[c].astype(np.float32),  # the page shows 3 decimals
            probe, probe, "weights", row_axis="tr_axis_query", col_axis="tr_axis_key",
            title=f'<b><span style="color:{colour}">{name}</span></b>',
        )
        for run, (name, colour) in runs
    ]  # fmt: skip


def _frame(matrices: list[Matrix], step: int, numbered: bool) -> dict[str, Any]:
    """One checkpoint as an animation frame: only what changes, the maps' z (and numbers)."""
    data = [
        {"type": "heatmap", "z": matrix.z} | ({"text": cell_numbers(matrix)} if numbered else {})
        for matrix in matrices
    ]
    return {"name": str(step), "data": data, "traces": [0, 1]}


def learned_weights(
    pair: TrainPair, ideal: list[int], *, lang: str, screen: Screen = LAPTOP
) -> dict[str, Any]:
    """Attention on the probe, scaled beside unscaled, one frame per checkpoint, ending trained;
    the cell each query should read framed."""
    steps = pair.scaled.checkpoint_steps.tolist()
    fig = heatmap(_maps(pair, len(steps) - 1, lang), lang=lang, screen=screen, share=1.0)
    numbered = "text" in fig["data"][0]
    fig["frames"] = [_frame(_maps(pair, c, lang), step, numbered) for c, step in enumerate(steps)]
    layout = fig["layout"]
    layout["shapes"] += [
        frame(slice(i, i + 1), slice(j, j + 1), axes)
        for axes in ("", "2")
        for i, j in enumerate(ideal)
    ]
    plot_h = layout["height"] - layout["margin"]["t"] - layout["margin"]["b"]
    below = -(layout["margin"]["b"] + 8) / plot_h  # the controls, under the panels' titles
    # Beside the play and pause buttons, which sit at the left; on a phone they take half the
    # width, and the slider goes under them.
    at, under = slider_place(screen, (0.3, below), BUTTONS, plot_h)
    layout["margin"]["b"] += CONTROLS + under
    layout["height"] += CONTROLS + under
    layout["updatemenus"] = [_play_buttons(lang, below)]
    layout["sliders"] = [_step_slider(steps, len(steps) - 1, lang, screen, at)]
    return fig


CONTROLS = 90  # px under the maps for the play buttons and the step slider
BUTTONS = 44  # px of the play and pause buttons' row


def _play_buttons(lang: str, y: float) -> dict[str, Any]:
    """Play every checkpoint from the first; pause (at paper ``y``)."""
    play = {"frame": {"duration": 250, "redraw": True}, "transition": {"duration": 0}}
    pause = {"frame": {"duration": 0, "redraw": False}, "mode": "immediate"}
    return {
        "type": "buttons",
        "direction": "left",
        "x": 0,
        "y": y,
        "xanchor": "left",
        "yanchor": "top",
        "buttons": [
            {"label": t("tr_play", lang), "method": "animate", "args": [None, play]},
            {"label": t("tr_pause", lang), "method": "animate", "args": [[None], pause]},
        ],
    }


def _step_slider(
    steps: list[int], active: int, lang: str, screen: Screen, at: tuple[float, float]
) -> dict[str, Any]:
    """One stop per checkpoint, labelled by its step, from paper ``at`` = (x, y) to the right
    edge; starts at the trained head."""
    jump = {"frame": {"duration": 0, "redraw": True}, "mode": "immediate"}
    x, y = at
    return {
        "active": active,
        "x": x,
        "y": y,
        "len": 1 - x,
        "yanchor": "top",
        "currentvalue": {
            "prefix": t("tr_slider_prefix", lang),
            "font": {"size": screen.control_font, "color": "#6b7280"},
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


def sweep_steps(result: Sweep, *, lang: str, screen: Screen = LAPTOP) -> dict[str, Any]:
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
        marker = {"color": colour, "size": screen.marker_size, "symbol": symbols, "opacity": 0.7}
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
    return figure(data, _sweep_layout(result, top, lang, screen))


SWEEP_TALLER = 20  # px the sweep is taller than a chart of curves


def _sweep_layout(result: Sweep, top: float, lang: str, screen: Screen) -> dict[str, Any]:
    size = screen.tick_font
    never = t("tr_never_line", lang, max_steps=result.max_steps)
    return {
        "height": screen.chart_height + SWEEP_TALLER,
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
