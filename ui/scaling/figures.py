"""The √d lesson's figures: arrays in, ``go.Figure`` out, never ``st.*``."""

import math

import numpy as np
import numpy.typing as npt
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ui.kit.figures import RAW_COLOUR, SCALED_COLOUR, lesson_layout, line_note
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
    entries, √(d/9) and 1/3 for uniform ones), named in one note with the article's figure
    under it for the normal case (on a phone under the panels: its narrow panel has no room for
    it). Each x axis ends where its samples end (``binned``)."""
    sqrt_d = math.sqrt(d)
    fig = make_subplots(
        rows=1,
        cols=2,
        subplot_titles=[t("sc_raw", lang), t("sc_scaled", lang)],
        horizontal_spacing=0.08,
    )
    panels = [
        (1, dots, theory_std, RAW_COLOUR),
        (2, dots / sqrt_d, theory_std / sqrt_d, SCALED_COLOUR),
    ]
    for col, values, std, colour in panels:
        shown = values.astype(np.float32)
        bins, x_range = binned(shown, std)
        histogram = go.Histogram(x=shown, xbins=bins, marker_color=colour, showlegend=False)
        fig.add_trace(histogram, row=1, col=col)
        fig.update_xaxes(range=x_range, row=1, col=col)
        for sign in (-1, 1):
            fig.add_vline(x=sign * std, line={"color": "#111827", "dash": "dot"}, row=1, col=col)
    where, margin_b = line_note(screen, -theory_std)  # on a phone, under the panels
    text, lines = _line_note_text(d, theory_std, lang)
    fig.add_annotation(**where, showarrow=False, text=text)
    fig.update_yaxes(title_text=t("sc_count", lang), row=1, col=1)
    return lesson_layout(fig, height, bargap=0.02, margin_b=margin_b + NOTE_LINE * (lines - 1))


NOTE_LINE = 20  # px a second line of the note takes (under a phone's panels)
ARTICLE_COLOUR = "#b45309"


def _line_note_text(d: int, theory_std: float, lang: str) -> tuple[str, int]:
    """What the dotted lines of the unscaled panel are: ±√d (±√(d/9) for uniform entries), and
    under it the article's printed std for this d where it prints one (normal entries); and
    how many lines that is. One note where ``line_note`` puts it, beside the −std line or under
    a phone's panels: beside the +std line it ran off a phone's narrow panel."""
    normal = math.isclose(theory_std, math.sqrt(d))
    label = "√d" if normal else "√(d/9)"
    text = f"±{label} = ±{theory_std:.3g}"
    if d in ARTICLE_STD and normal:
        article = t("sc_article_marker", lang, std=ARTICLE_STD[d])
        return f'{text}<br><span style="color:{ARTICLE_COLOUR}">{article}</span>', 2
    return text, 1


BINS = 50  # bars per panel


def binned(values: npt.NDArray[np.float32], line: float) -> tuple[dict[str, float], list[float]]:
    """BINS bins across ± the farthest sample (or the ±``line`` marks, if farther out), and an
    x range half a bin past them: the axis ends where the data ends, at every d. Plotly's own
    range made room for the notes too (to 300 where the samples ended at 130)."""
    reach = max(float(np.abs(values).max()), line)
    size = 2 * reach * (1 + 1e-6) / BINS  # the last bin's edge just past the farthest sample
    bins = {"start": -reach, "end": -reach + BINS * size, "size": size}
    return bins, [-reach - size / 2, reach + size / 2]


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


def sharpening_animation(rows: Sharpening, *, lang: str, height: int = 420) -> go.Figure:
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
        height,
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
