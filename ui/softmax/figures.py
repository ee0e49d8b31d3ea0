"""The softmax lesson's figures: arrays in, figures out, never ``st.*``."""

from typing import Any

import numpy as np
import numpy.typing as npt
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ui.kit.figures import SCALED_COLOUR, lesson_layout
from ui.kit.heatmap import Matrix, heatmap
from ui.kit.text import t
from ui.kit.typography import LAPTOP, Screen

JACOBIAN_LIMIT = 0.25  # |p_i(δ_ij − p_j)| ≤ 1/4: a fixed scale, so near zero looks near zero


def softmax_bars(
    scaled: npt.NDArray[np.float64],
    probs: npt.NDArray[np.float64],
    labels: list[str],
    *,
    lang: str,
    height: int = 360,
) -> go.Figure:
    """What goes into softmax (left) and what comes out (right), bar for bar."""
    fig = make_subplots(
        rows=1,
        cols=2,
        subplot_titles=[t("sm_axis_input", lang), t("sm_axis_prob", lang)],
        horizontal_spacing=0.08,
    )
    sides = [(scaled, "#64748b", "{:.4g}", ".6g"), (probs, SCALED_COLOUR, "{:.3f}", ".6f")]
    for col, (values, colour, text, hover) in enumerate(sides, start=1):
        bars = go.Bar(
            x=list(range(len(values))),
            y=values,
            marker_color=colour,
            showlegend=False,
            text=[text.format(v) for v in values],
            textposition="outside",
            customdata=labels,
            hovertemplate=f"%{{customdata}}: %{{y:{hover}}}<extra></extra>",
        )
        fig.add_trace(bars, row=1, col=col)
    ticks = {"tickvals": list(range(len(labels))), "ticktext": labels}
    fig.update_xaxes(**ticks)
    fig.update_yaxes(range=[0, 1.15], row=1, col=2)
    # Room for the numbers outside the bars on each side that has bars, and above 0 when every
    # input is negative: there the bars' tops met the panel's title.
    low, high = min(0.0, float(scaled.min())), max(0.0, float(scaled.max()))
    pad = 0.15 * ((high - low) or 1.0)
    fig.update_yaxes(range=[low - pad if low < 0 else 0.0, high + pad], row=1, col=1)
    return lesson_layout(fig, height)


def gradient_bars(gradient: npt.NDArray[np.float64], labels: list[str], *, lang: str) -> go.Figure:
    """The cross-entropy gradient p − one-hot, one bar per input."""
    fig = go.Figure(
        go.Bar(
            x=list(range(len(gradient))),
            y=gradient,
            marker_color="#7c3aed",
            text=[f"{v:.4f}" for v in gradient],
            textposition="outside",
            customdata=labels,
            hovertemplate="%{customdata}: %{y:.6g}<extra></extra>",
        )
    )
    xaxis = {"tickvals": list(range(len(labels))), "ticktext": labels}
    yaxis = {"title": t("sm_axis_gradient", lang), "range": [-1.1, 1.1]}
    return lesson_layout(fig, 340, xaxis=xaxis, yaxis=yaxis)


def jacobian_heatmap(
    jacobian: npt.NDArray[np.float64],
    labels: list[str],
    *,
    lang: str,
    screen: Screen = LAPTOP,
    share: float = 1.0,
) -> dict[str, Any]:
    """∂p_i/∂x_j with three decimals, on a scale fixed at ±1/4."""
    names = tuple(labels)
    matrix = Matrix(
        jacobian, names, names, "fine", JACOBIAN_LIMIT, row_axis="axis_output",
        col_axis="axis_input",
    )  # fmt: skip
    return heatmap(matrix, lang=lang, screen=screen, share=share)
