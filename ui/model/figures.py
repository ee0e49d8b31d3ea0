"""The model page's own figures: its heatmaps are the kit's; the guesses and the loss are bars
and a line."""

from typing import Any

import numpy as np
import plotly.graph_objects as go

from ui.kit.figures import FONT, SCALED_COLOUR, TEMPLATE, escape
from ui.kit.heatmap import Matrix
from ui.kit.text import t
from viz_core import HeadReport, ModelRun


def head_panels(run: ModelRun, lang: str) -> list[Matrix]:
    """Every head's weights on the sentence, layer by layer, as the kit's matrices."""
    return [
        Matrix(
            z=steps.weights,
            rows=run.tokens,
            cols=run.tokens,
            scale="weights",
            clickable=True,
            title=t("md_head_panel", lang, layer=layer + 1, head=head + 1),
        )
        for layer, heads in enumerate(run.layers)
        for head, steps in enumerate(heads)
    ]


def roles_matrix(report: HeadReport, lang: str) -> Matrix:
    """(heads, roles): the mean weight each head puts on each role."""
    layers, heads, _ = report.role_weights.shape
    rows = tuple(
        t("md_head_panel", lang, layer=layer + 1, head=head + 1)
        for layer in range(layers)
        for head in range(heads)
    )
    cols = tuple(t(f"md_role_col_{role}", lang) for role in report.roles)  # short: one cell wide
    z = report.role_weights.reshape(layers * heads, len(report.roles))
    return Matrix(z=z, rows=rows, cols=cols, scale="weights", row_axis="", col_axis="")


def guesses_bars(guesses: list[tuple[str, float]], lang: str, answer: str) -> go.Figure:
    """The model's first guesses as bars, the right answer in the accent colour."""
    chars = [escape(ch) for ch, _ in guesses]
    colours = [SCALED_COLOUR if ch == answer else "#94a3b8" for ch, _ in guesses]
    bars = go.Bar(
        x=chars,
        y=[p for _, p in guesses],
        marker_color=colours,
        text=[f"{p:.2f}" for _, p in guesses],
        textposition="outside",
        hovertemplate="%{x}: %{y:.4f}<extra></extra>",
    )
    fig = go.Figure(bars)
    return _layout(fig, 300, t("md_axis_char", lang), t("md_axis_prob", lang), [0, 1.1])


def loss_curve(epochs: list[dict[str, Any]], lang: str) -> go.Figure:
    """The training loss of each epoch, from the training record."""
    x = np.array([row["epoch"] for row in epochs])
    y = np.array([row["loss"] for row in epochs])
    line = go.Scatter(x=x, y=y, mode="lines+markers", line_color=SCALED_COLOUR)
    fig = go.Figure(line)
    fig = _layout(fig, 260, t("md_loss_epoch", lang), t("md_loss_loss", lang), None)
    return fig.update_xaxes(type="linear", tickformat="d")  # Plotly thins the ticks to fit


def _layout(
    fig: go.Figure, height: int, x_title: str, y_title: str, y_range: list[float] | None
) -> go.Figure:
    fig.update_layout(
        font=FONT,
        template=TEMPLATE,
        height=height,
        margin={"l": 60, "r": 10, "t": 20, "b": 50},
        xaxis={"title": x_title, "type": "category"},
        yaxis={"title": y_title, "range": y_range},
        showlegend=False,
    )
    return fig
