"""The √d lesson's figures: arrays in, a ``go.Figure`` or a figure dict out, never ``st.*``."""

import math
from typing import Any

import numpy as np
import numpy.typing as npt
import plotly.graph_objects as go

from ui.kit.figures import (
    FONT_SIZE,
    RAW_COLOUR,
    SCALED_COLOUR,
    Trace,
    figure,
    grid,
    lesson_layout,
    line_note,
)
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
    reach: tuple[float, float] = (0.0, 0.0),
    lang: str,
    height: int = 360,
    screen: Screen = LAPTOP,
) -> dict[str, Any]:
    """q·k before and after ÷√d, each panel titled with its measured std in large type, with ±
    the theory's std marked on both (√d and 1 for normal entries, √(d/9) and 1/3 for uniform
    ones), named in one note with the article's figure under it for the normal case (on a
    phone under the panels: its narrow panel has no room for it). ``reach``: how far each x
    axis (raw, ÷√d) reaches at least, the same at every d, so that the raw panel widens as d
    grows while the scaled one stays put; an axis reaches farther only where its samples do
    (``binned``). A plain dict: make_subplots and add_vline took 50 ms of every new d."""
    sqrt_d = math.sqrt(d)
    panels = [
        (dots, theory_std, RAW_COLOUR, "sc_raw"),
        (dots / sqrt_d, theory_std / sqrt_d, SCALED_COLOUR, "sc_scaled"),
    ]
    big = round(screen.tick_font * BIG_NUMBER)
    titles = [
        _std_title(values, colour, t(name, lang), big, lang) for values, _, colour, name in panels
    ]
    # The titles' font sets their line height: that of their large second line.
    layout, refs = grid(2, 2, titles, hgap=0.08, title_font=big)
    data, shapes = [], []
    for (values, std, colour, _), fixed, (x, y) in zip(panels, reach, refs, strict=True):
        trace, x_range, lines = _histogram_panel(values, std, colour, fixed, (x, y))
        data.append(trace)
        shapes += lines
        layout[x.replace("x", "xaxis")] |= {"range": x_range}
    layout["yaxis"] |= {"title": {"text": t("sc_count", lang)}}
    note, margin_b = _line_note(d, theory_std, lang, screen)
    margin = {"l": 10, "r": 10, "t": round(2 * TITLE_LINE * big), "b": margin_b}  # titles: 2 lines
    layout |= {"annotations": [*layout["annotations"], note], "shapes": shapes}
    size = {"height": height, "margin": margin, "bargap": 0.02}
    return figure(data, _ticked(layout, screen) | size)


def _ticked(layout: dict[str, Any], screen: Screen) -> dict[str, Any]:
    """Every axis of ``layout`` with the screen's tick size."""
    ticks = {"tickfont": {"size": screen.tick_font}}
    return {key: value | ticks if "axis" in key else value for key, value in layout.items()}


def _line_note(d: int, theory_std: float, lang: str, screen: Screen) -> tuple[dict[str, Any], int]:
    """The note on the dotted lines (``line_note`` places it: on a phone under the panels), and
    the figure's bottom margin, which holds its lines there."""
    where, margin_b = line_note(screen, -theory_std)
    text, lines = _line_note_text(d, theory_std, lang)
    note = {**where, "showarrow": False, "text": text, "font": {"size": screen.text_font}}
    return note, margin_b + NOTE_LINE * (lines - 1)


NOTE_LINE = 20  # px a second line of the note takes (under a phone's panels)
ARTICLE_COLOUR = "#b45309"
BIG_NUMBER = 1.6  # a panel's measured std, in tick sizes: legible from the back of a room
TITLE_LINE = 1.3  # Plotly's line height, in font sizes


def _histogram_panel(
    values: npt.NDArray[np.float64],
    std: float,
    colour: str,
    fixed: float,
    axes: tuple[str, str],
) -> tuple[Trace, list[float], list[dict[str, Any]]]:
    """One panel on ``axes``: the histogram of ``values``, its x range (``binned``), and its
    ±``std`` dotted lines."""
    shown = values.astype(np.float32)
    bins, x_range = binned(shown, std, fixed)
    x, y = axes
    histogram: Trace = {"type": "histogram", "x": shown, "xbins": bins, "xaxis": x, "yaxis": y}
    histogram |= {"marker": {"color": colour}, "showlegend": False}
    line = {"type": "line", "xref": x, "yref": f"{y} domain", "y0": 0, "y1": 1}
    line |= {"line": {"color": "#111827", "dash": "dot"}}
    lines = [line | {"x0": sign * std, "x1": sign * std} for sign in (-1, 1)]
    return histogram, x_range, lines


def _std_title(values: npt.NDArray[np.float64], colour: str, name: str, big: int, lang: str) -> str:
    """A panel's title: its name in small type, and under it the std measured from
    ``values`` in large type, in the panel's colour."""
    std = t("sc_std_big", lang, std=f"{values.std():.3g}")
    small = f'<span style="font-size:{round(big / BIG_NUMBER)}px">{name}</span>'
    return f'{small}<br><span style="color:{colour}"><b>{std}</b></span>'


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


def binned(
    values: npt.NDArray[np.float32], line: float, fixed: float = 0.0
) -> tuple[dict[str, float], list[float]]:
    """BINS bins across ± the farthest sample (or the ±``line`` marks, if farther out), and an
    x range to ± the farthest of those and ``fixed``, plus half a bin of that range: with
    ``fixed`` 0 the axis ends where the data ends (Plotly's own range made room for the notes,
    to 300 where the samples ended at 130); with one ``fixed`` for every d it stays put."""
    reach = max(float(np.abs(values).max()), line)
    size = 2 * reach * (1 + 1e-6) / BINS  # the last bin's edge just past the farthest sample
    bins = {"start": -reach, "end": -reach + BINS * size, "size": size}
    end = max(reach, fixed) * (1 + 1 / BINS)
    return bins, [-end, end]


def saturation_chart(
    curve: Saturation,
    field: str,
    *,
    title: str,
    lang: str,
    y_range: list[float] | None = None,
    height: int = 320,
    screen: Screen = LAPTOP,
) -> go.Figure:
    """One statistic of the softmax rows against d: unscaled (red) and scaled (blue)."""
    ds = list(curve.ds)
    lines = [
        ("raw", RAW_COLOUR, "circle", "trace_unscaled"),
        ("scaled", SCALED_COLOUR, "diamond", "trace_scaled"),
    ]
    fig = go.Figure(
        [
            go.Scatter(
                x=ds, y=getattr(curve, f"{field}_{which}"), mode="lines+markers",
                line={"color": colour}, marker={"symbol": symbol}, name=t(name, lang),
            )
            for which, colour, symbol, name in lines
        ]
    )  # fmt: skip
    ticks = {"size": screen.tick_font}
    # the legend at the figure's foot, under the ticks and the axis title, each a line of text
    legend = {"orientation": "h", "x": 0, "y": 0, "yref": "container", "yanchor": "bottom"}
    return lesson_layout(
        fig,
        height,
        title={"text": title, "font": {"size": screen.text_font}},
        legend=legend | {"font": ticks},
        xaxis={"type": "log", "title": "d", "tickfont": ticks},
        yaxis={"range": y_range, "tickfont": ticks},
        margin_b=round(TITLE_LINE * (2 * screen.tick_font + FONT_SIZE)),
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
