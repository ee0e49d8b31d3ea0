"""Figure builders of the lesson pages: arrays in, ``go.Figure`` out, never ``st.*``."""

import math

import numpy as np
import numpy.typing as npt
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ui.figures import FONT, TEMPLATE
from ui.strings import t
from viz_core import Saturation, Sharpening, VarianceExperiment

RAW_COLOUR = "#dc2626"  # unscaled: red
SCALED_COLOUR = "#2563eb"  # scaled: blue
# Articles' figures: std of q·k for d = 64 (BERT-base head), 1,536 and 6,144.
ARTICLE_STD = {64: "8", 1536: "39.2", 6144: "78.4"}


def _layout(fig: go.Figure, height: int, **layout: object) -> go.Figure:
    fig.update_layout(
        font=FONT,
        template=TEMPLATE,
        height=height,
        margin={"l": 10, "r": 10, "t": 40, "b": 10},
        **layout,
    )
    return fig


def positions(n: int) -> list[str]:
    """Position labels x₀ … for numbers that are not tokens."""
    return [f"x{i}" for i in range(n)]


def softmax_bars(
    scaled: npt.NDArray[np.float64], probs: npt.NDArray[np.float64], *, lang: str
) -> go.Figure:
    """What goes into softmax (left) and what comes out (right), bar for bar."""
    labels = positions(len(probs))
    fig = make_subplots(
        rows=1,
        cols=2,
        subplot_titles=[t("sm_axis_input", lang), t("sm_axis_prob", lang)],
        horizontal_spacing=0.08,
    )
    fig.add_trace(
        go.Bar(
            x=labels,
            y=scaled,
            marker_color="#64748b",
            showlegend=False,
            text=[f"{v:.4g}" for v in scaled],
            textposition="outside",
            hovertemplate="%{x}: %{y:.6g}<extra></extra>",
        ),
        row=1,
        col=1,
    )
    fig.add_trace(
        go.Bar(
            x=labels,
            y=probs,
            marker_color=SCALED_COLOUR,
            showlegend=False,
            text=[f"{v:.3f}" for v in probs],
            textposition="outside",
            hovertemplate="%{x}: %{y:.6f}<extra></extra>",
        ),
        row=1,
        col=2,
    )
    fig.update_yaxes(range=[0, 1.15], row=1, col=2)
    return _layout(fig, 360)


def gradient_bars(gradient: npt.NDArray[np.float64], *, lang: str) -> go.Figure:
    """The cross-entropy gradient p − one-hot, one bar per input."""
    fig = go.Figure(
        go.Bar(
            x=positions(len(gradient)),
            y=gradient,
            marker_color="#7c3aed",
            text=[f"{v:.4f}" for v in gradient],
            textposition="outside",
            hovertemplate="%{x}: %{y:.6g}<extra></extra>",
        )
    )
    return _layout(fig, 340, yaxis={"title": t("sm_axis_gradient", lang), "range": [-1.1, 1.1]})


def variance_chart(experiment: VarianceExperiment, *, lang: str) -> go.Figure:
    """Measured Var(q·k) and Var(q·k/√d) against d, log–log, with the theory lines."""
    ds = np.asarray(experiment.ds, dtype=float)
    unit = experiment.entry_variance**2
    raw_theory = "Var = d" if unit == 1 else "Var = d/9"
    scaled_theory = "Var = 1" if unit == 1 else "Var = 1/9"
    fig = go.Figure(
        [
            go.Scatter(
                x=ds,
                y=experiment.theory_raw,
                mode="lines",
                line={"color": RAW_COLOUR, "dash": "dash"},
                name=t("sc_trace_theory_raw", lang, theory=raw_theory),
            ),
            go.Scatter(
                x=ds,
                y=experiment.var_raw,
                mode="markers",
                marker={"color": RAW_COLOUR, "size": 10},
                name=t("sc_trace_raw", lang),
            ),
            go.Scatter(
                x=ds,
                y=np.full(len(ds), unit),
                mode="lines",
                line={"color": SCALED_COLOUR, "dash": "dash"},
                name=t("sc_trace_theory_scaled", lang, theory=scaled_theory),
            ),
            go.Scatter(
                x=ds,
                y=experiment.var_scaled,
                mode="markers",
                marker={"color": SCALED_COLOUR, "size": 10, "symbol": "diamond"},
                name=t("sc_trace_scaled", lang),
            ),
        ]
    )
    return _layout(
        fig,
        440,
        legend={"orientation": "h", "y": 1.12, "x": 0},
        xaxis={"type": "log", "title": t("sc_axis_d", lang)},
        yaxis={"type": "log", "title": t("sc_axis_variance", lang), "exponentformat": "power"},
    )


def dot_histogram(dots: npt.NDArray[np.float64], d: int, *, lang: str) -> go.Figure:
    """q·k before and after ÷√d, with ±√d (and the article's figure when it has one) marked."""
    sqrt_d = math.sqrt(d)
    fig = make_subplots(
        rows=1,
        cols=2,
        subplot_titles=[t("sc_raw", lang), t("sc_scaled", lang)],
        horizontal_spacing=0.08,
    )
    fig.add_trace(
        go.Histogram(
            x=dots.astype(np.float32), nbinsx=50, marker_color=RAW_COLOUR, showlegend=False
        ),
        row=1,
        col=1,
    )
    scaled = (dots / sqrt_d).astype(np.float32)
    fig.add_trace(
        go.Histogram(x=scaled, nbinsx=50, marker_color=SCALED_COLOUR, showlegend=False),
        row=1,
        col=2,
    )
    for sign in (-1, 1):
        fig.add_vline(x=sign * sqrt_d, line={"color": "#111827", "dash": "dot"}, row=1, col=1)
        fig.add_vline(x=sign * 1.0, line={"color": "#111827", "dash": "dot"}, row=1, col=2)
    fig.add_annotation(
        x=sqrt_d,
        y=1,
        yref="y domain",
        text=f"√d = {sqrt_d:.3g}",
        showarrow=False,
        xanchor="left",
        row=1,
        col=1,
    )
    if d in ARTICLE_STD:
        fig.add_annotation(
            x=-sqrt_d,
            y=0.9,
            yref="y domain",
            xanchor="right",
            showarrow=False,
            text=t("sc_article_marker", lang, std=ARTICLE_STD[d]),
            row=1,
            col=1,
            font={"color": "#b45309"},
        )
    fig.update_yaxes(title_text=t("sc_count", lang), row=1, col=1)
    return _layout(fig, 360, bargap=0.02)


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
    return _layout(
        fig,
        320,
        title={"text": title, "font": {"size": 15}},
        legend={"orientation": "h", "y": -0.3, "x": 0},
        xaxis={"type": "log", "title": "d"},
        yaxis={"range": y_range},
    )


def sharpening_animation(rows: Sharpening, *, lang: str) -> go.Figure:
    """One softmax row as d grows, as Plotly frames with a play button."""
    labels = [f"k{j}" for j in range(rows.raw.shape[1])]

    def bars(i: int) -> list[go.Bar]:
        return [
            go.Bar(
                x=labels, y=rows.raw[i], name=t("trace_unscaled", lang), marker_color=RAW_COLOUR
            ),
            go.Bar(
                x=labels, y=rows.scaled[i], name=t("trace_scaled", lang), marker_color=SCALED_COLOUR
            ),
        ]

    frames = [go.Frame(data=bars(i), name=str(d)) for i, d in enumerate(rows.ds)]
    step_args = {
        "frame": {"duration": 700, "redraw": True},
        "transition": {"duration": 250},
        "mode": "immediate",
    }
    fig = go.Figure(data=bars(0), frames=frames)
    return _layout(
        fig,
        420,
        barmode="group",
        yaxis={"range": [0, 1.05], "title": t("axis_weight", lang)},
        legend={"orientation": "h", "y": 1.15, "x": 0},
        updatemenus=[
            {
                "type": "buttons",
                "direction": "left",
                "x": 0,
                "y": -0.15,
                "xanchor": "left",
                "buttons": [
                    {"label": t("sc_play", lang), "method": "animate", "args": [None, step_args]},
                    {
                        "label": t("sc_pause", lang),
                        "method": "animate",
                        "args": [[None], {"frame": {"duration": 0}, "mode": "immediate"}],
                    },
                ],
            }
        ],
        sliders=[
            {
                "x": 0.2,
                "y": -0.1,
                "len": 0.8,
                "currentvalue": {"prefix": "d = "},
                "steps": [
                    {
                        "label": str(d),
                        "method": "animate",
                        "args": [
                            [str(d)],
                            {"frame": {"duration": 0, "redraw": True}, "mode": "immediate"},
                        ],
                    }
                    for d in rows.ds
                ],
            }
        ],
    )
