"""The √d lesson's figures: arrays in, ``go.Figure`` out, never ``st.*``."""

import math
from typing import Any

import numpy as np
import numpy.typing as npt
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ui.kit.figures import LINE_GAP, RAW_COLOUR, SCALED_COLOUR, lesson_layout, line_note
from ui.kit.text import t
from ui.kit.typography import LAPTOP, Screen
from viz_core import Saturation, Sharpening, VarianceExperiment

# Articles' figures: std of q·k for d = 64 (BERT-base head), 1,536 and 6,144.
ARTICLE_STD = {64: "8", 1536: "39.2", 6144: "78.4"}


def variance_chart(experiment: VarianceExperiment, *, lang: str, height: int = 440) -> go.Figure:
    """Measured Var(q·k) and Var(q·k/√d) against d, log–log, with the theory lines."""
    ds = np.asarray(experiment.ds, dtype=float)
    unit = experiment.entry_variance**2
    raw_theory, scaled_theory = ("Var = d", "Var = 1") if unit == 1 else ("Var = d/9", "Var = 1/9")
    traces = [
        _points(
            ds,
            experiment.theory_raw,
            RAW_COLOUR,
            t("sc_trace_theory_raw", lang, theory=raw_theory),
            line=True,
        ),
        _points(ds, experiment.var_raw, RAW_COLOUR, t("sc_trace_raw", lang)),
        _points(
            ds,
            np.full(len(ds), unit),
            SCALED_COLOUR,
            t("sc_trace_theory_scaled", lang, theory=scaled_theory),
            line=True,
        ),
        _points(
            ds, experiment.var_scaled, SCALED_COLOUR, t("sc_trace_scaled", lang), symbol="diamond"
        ),
    ]
    return lesson_layout(
        go.Figure(traces),
        height,
        legend={"orientation": "h", "y": 1.12, "x": 0},
        xaxis={"type": "log", "title": t("sc_axis_d", lang)},
        yaxis={"type": "log", "title": t("sc_axis_variance", lang), "exponentformat": "power"},
    )


def _points(
    x: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    colour: str,
    name: str,
    line: bool = False,
    symbol: str = "circle",
) -> go.Scatter:
    """Measured values as markers, or a theory as a dashed line."""
    if line:
        return go.Scatter(x=x, y=y, mode="lines", line={"color": colour, "dash": "dash"}, name=name)
    marker = {"color": colour, "size": 10, "symbol": symbol}
    return go.Scatter(x=x, y=y, mode="markers", marker=marker, name=name)


def dot_histogram(
    dots: npt.NDArray[np.float64],
    d: int,
    theory_std: float,
    *,
    lang: str,
    height: int = 360,
    screen: Screen = LAPTOP,
) -> go.Figure:
    """q·k before and after ÷√d, with ± the theory's std marked on both (√d and 1 for normal
    entries, √(d/9) and 1/3 for uniform ones), and the article's figure for the normal case
    (on a phone under the panels: its narrow panel has no room for it)."""
    sqrt_d = math.sqrt(d)
    fig = make_subplots(
        rows=1,
        cols=2,
        subplot_titles=[t("sc_raw", lang), t("sc_scaled", lang)],
        horizontal_spacing=0.08,
    )
    for col, values, colour in [(1, dots, RAW_COLOUR), (2, dots / sqrt_d, SCALED_COLOUR)]:
        histogram = go.Histogram(
            x=values.astype(np.float32), nbinsx=50, marker_color=colour, showlegend=False
        )
        fig.add_trace(histogram, row=1, col=col)
    for sign in (-1, 1):
        dotted = {"color": "#111827", "dash": "dot"}
        fig.add_vline(x=sign * theory_std, line=dotted, row=1, col=1)
        fig.add_vline(x=sign * theory_std / sqrt_d, line=dotted, row=1, col=2)
    label = "√d" if math.isclose(theory_std, sqrt_d) else "√(d/9)"
    text = f"{label} = {theory_std:.3g}"
    fig.add_annotation(x=theory_std, y=1, yref="y domain", text=text, **BESIDE_LINE)
    where, margin_b = line_note(screen, -theory_std)  # on a phone, under the panels
    if d in ARTICLE_STD and math.isclose(theory_std, sqrt_d):
        _article_marker(fig, where, ARTICLE_STD[d], lang)
    fig.update_yaxes(title_text=t("sc_count", lang), row=1, col=1)
    return lesson_layout(fig, height, bargap=0.02, margin_b=margin_b)


# Off the dotted line, on its outer side: the text's edge sat on the line itself.
BESIDE_LINE = {"showarrow": False, "xanchor": "left", "xshift": LINE_GAP, "row": 1, "col": 1}


def _article_marker(fig: go.Figure, where: dict[str, Any], std: str, lang: str) -> None:
    """The article's printed std for this d (normal entries), ``where`` ``line_note`` puts it:
    beside the −std line, or under a phone's panels."""
    text = t("sc_article_marker", lang, std=std)
    fig.add_annotation(**where, showarrow=False, text=text, font={"color": "#b45309"})


def saturation_chart(
    curve: Saturation, field: str, *, title: str, lang: str, y_range: list[float] | None = None
) -> go.Figure:
    """One statistic of the softmax rows against d: unscaled (red) and scaled (blue)."""
    ds = list(curve.ds)
    fig = go.Figure(
        [
            go.Scatter(
                x=ds,
                y=getattr(curve, f"{field}_raw"),
                mode="lines+markers",
                line={"color": RAW_COLOUR},
                name=t("trace_unscaled", lang),
            ),
            go.Scatter(
                x=ds,
                y=getattr(curve, f"{field}_scaled"),
                mode="lines+markers",
                line={"color": SCALED_COLOUR},
                marker={"symbol": "diamond"},
                name=t("trace_scaled", lang),
            ),
        ]
    )
    return lesson_layout(
        fig,
        320,
        title={"text": title, "font": {"size": 15}},
        legend={"orientation": "h", "y": -0.3, "x": 0},
        xaxis={"type": "log", "title": "d"},
        yaxis={"range": y_range},
    )


def sharpening_animation(rows: Sharpening, *, lang: str) -> go.Figure:
    """One softmax row as d grows, as Plotly frames with a play button and a d slider."""
    labels = [f"k{j}" for j in range(rows.raw.shape[1])]

    def bars(i: int) -> list[go.Bar]:
        return [
            go.Bar(x=labels, y=y, name=t(name, lang), marker_color=colour)
            for y, name, colour in [
                (rows.raw[i], "trace_unscaled", RAW_COLOUR),
                (rows.scaled[i], "trace_scaled", SCALED_COLOUR),
            ]
        ]

    frames = [go.Frame(data=bars(i), name=str(d)) for i, d in enumerate(rows.ds)]
    return lesson_layout(
        go.Figure(data=bars(0), frames=frames),
        420,
        barmode="group",
        yaxis={"range": [0, 1.05], "title": t("axis_weight", lang)},
        legend={"orientation": "h", "y": 1.15, "x": 0},
        updatemenus=[_play_buttons(lang)],
        sliders=[_d_slider(rows.ds)],
    )


def _play_buttons(lang: str) -> dict[str, object]:
    """Play and pause buttons for the animation."""
    play = {
        "frame": {"duration": 700, "redraw": True},
        "transition": {"duration": 250},
        "mode": "immediate",
    }
    pause = {"frame": {"duration": 0}, "mode": "immediate"}
    return {
        "type": "buttons",
        "direction": "left",
        "x": 0,
        "y": -0.15,
        "xanchor": "left",
        "buttons": [
            {"label": t("sc_play", lang), "method": "animate", "args": [None, play]},
            {"label": t("sc_pause", lang), "method": "animate", "args": [[None], pause]},
        ],
    }


def _d_slider(ds: tuple[int, ...]) -> dict[str, object]:
    """A slider with one stop per d."""
    jump = {"frame": {"duration": 0, "redraw": True}, "mode": "immediate"}
    return {
        "x": 0.2,
        "y": -0.1,
        "len": 0.8,
        "currentvalue": {"prefix": "d = "},
        "steps": [{"label": str(d), "method": "animate", "args": [[str(d)], jump]} for d in ds],
    }
