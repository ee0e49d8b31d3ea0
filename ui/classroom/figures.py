"""The class page's figures: the class's answers, and the app's own figure for the truth.

Arrays and labels in, a plain figure dict out; every label a student typed (a character, a
nickname) is escaped, as Plotly labels are HTML-like.
"""

import itertools
from typing import Any

from ui.kit.figures import (
    RAW_COLOUR,
    SCALED_COLOUR,
    SELECT_COLOUR,
    axis_title,
    escape,
    figure,
    format_value,
)
from ui.kit.text import t
from ui.kit.typography import LAPTOP, Screen

OTHER_COLOUR = "#94a3b8"  # slate: the answers that are not the truth
MARGIN = {"l": 56, "r": 12, "t": 36, "b": 64}


def _bars(
    labels: list[str], values: list[float], colours: list[str], text: list[str], screen: Screen
) -> dict[str, Any]:
    """One bar per label at integer positions (repeated labels keep their own bars)."""
    return {
        "type": "bar",
        "x": list(range(len(labels))),
        "y": values,
        "marker": {"color": colours},
        "text": text,
        "textposition": "outside",
        "cliponaxis": False,
        "textfont": {"size": screen.number_font},
        "hovertemplate": "%{customdata}: %{y}<extra></extra>",
        "customdata": labels,
    }


def _layout(labels: list[str], y_title: str, top: float, screen: Screen) -> dict[str, Any]:
    """Axes for a bar chart: the labels under the bars, a y range with room for the numbers."""
    ticks = {"size": screen.bar_font}
    return {
        "height": screen.bars_height,
        "margin": MARGIN,
        "showlegend": False,
        "xaxis": {  # labels turn where they would collide (a number's bins on a phone)
            "tickvals": list(range(len(labels))),
            "ticktext": labels,
            "tickfont": ticks,
            "automargin": True,
        },
        "yaxis": {
            "range": [0, top * 1.2 or 1],
            "title": axis_title(y_title, screen.bar_font),
            "tickfont": ticks,
        },
    }


def answers_histogram(
    labels: tuple[str, ...],
    counts: tuple[int, ...],
    right: int | None,
    *,
    lang: str,
    screen: Screen = LAPTOP,
) -> dict[str, Any]:
    """How many students gave each answer, a bar to the right of each (lying bars: ten bins'
    labels read on a phone too); with ``right`` (once revealed) that bar is the truth's colour
    and says so."""
    shown = [escape(label) for label in labels]
    colours = [SELECT_COLOUR if i == right else OTHER_COLOUR for i in range(len(labels))]
    if right is None:
        colours = [SCALED_COLOUR] * len(labels)
    text = [str(count) if count else "" for count in counts]
    if right is not None:
        text[right] = f"{counts[right]} ✓"
    bars = _bars(shown, [float(count) for count in counts], colours, text, screen)
    bars |= {"orientation": "h", "x": bars["y"], "y": bars["x"]}
    bars["hovertemplate"] = "%{customdata}: %{x}<extra></extra>"
    most = max(counts, default=0)
    ticks = {"size": screen.bar_font}
    layout = {
        "height": screen.bars_height,
        "margin": MARGIN | {"b": 48},
        "showlegend": False,
        "yaxis": {"tickvals": list(range(len(shown))), "ticktext": shown, "tickfont": ticks,
                  "autorange": "reversed", "automargin": True},
        "xaxis": {"range": [0, most * 1.25 or 1], "dtick": 1 if most <= 10 else None,
                  "title": axis_title(t("cl_axis_students", lang), screen.bar_font),
                  "tickfont": ticks},
    }  # fmt: skip
    return figure([bars], layout)


def truth_chart(chart: dict[str, Any], *, lang: str, screen: Screen = LAPTOP) -> dict[str, Any]:
    """The app's own figure behind a question's truth, from the description stored with it:
    a row of weights or probabilities, a histogram of q·k, or a statistic without and with
    ÷√d against d."""
    kind = chart.get("kind")
    if kind == "histogram":
        return _histogram(chart, lang, screen)
    if kind == "compare":
        return _compare(chart, lang, screen)
    labels = [escape(str(label)) for label in chart["labels"]]
    values = [float(value) for value in chart["values"]]
    best = int(chart["highlight"])
    colours = [SELECT_COLOUR if i == best else SCALED_COLOUR for i in range(len(values))]
    text = [format_value(value, 2) for value in values]
    bars = _bars(labels, values, colours, text, screen)
    return figure([bars], _layout(labels, t("cl_axis_weight", lang), max(values), screen))


def _histogram(chart: dict[str, Any], lang: str, screen: Screen) -> dict[str, Any]:
    """Sampled q·k as a histogram, and its σ marked on both sides of 0."""
    edges = [float(edge) for edge in chart["edges"]]
    centres = [(low + high) / 2 for low, high in itertools.pairwise(edges)]
    counts = [float(count) for count in chart["counts"]]
    sigma = float(chart["mark"])
    bars = {
        "type": "bar",
        "x": centres,
        "y": counts,
        "width": edges[1] - edges[0],
        "marker": {"color": SCALED_COLOUR},
        "hovertemplate": "q·k ≈ %{x:.1f}: %{y}<extra></extra>",
    }
    lines = [
        {"type": "line", "x0": x, "x1": x, "y0": 0, "y1": 1, "yref": "paper",
         "line": {"color": SELECT_COLOUR, "width": 3, "dash": "dash"}}
        for x in (-sigma, sigma)
    ]  # fmt: skip
    note = {
        "x": sigma, "y": 1, "yref": "paper", "xanchor": "left", "yanchor": "top",
        "text": f" σ = {format_value(sigma, 3)}", "showarrow": False,
        "font": {"size": screen.text_font, "color": SELECT_COLOUR},
    }  # fmt: skip
    ticks = {"size": screen.bar_font}
    layout = {
        "height": screen.bars_height,
        "margin": MARGIN,
        "shapes": lines,
        "annotations": [note],
        "bargap": 0,
        "xaxis": {"title": axis_title("q·k", screen.bar_font), "tickfont": ticks},
        "yaxis": {
            "title": axis_title(t("cl_axis_samples", lang), screen.bar_font),
            "tickfont": ticks,
        },
    }
    return figure([bars], layout)


def _compare(chart: dict[str, Any], lang: str, screen: Screen) -> dict[str, Any]:
    """A statistic against d, without ÷√d (red) and with it (blue)."""
    labels = [escape(str(label)) for label in chart["labels"]]
    traces = []
    for name, colour in (("raw", RAW_COLOUR), ("scaled", SCALED_COLOUR)):
        values = [float(value) for value in chart[name]]
        bars = _bars(labels, values, [colour] * len(values), [f"{v:.2f}" for v in values], screen)
        traces.append(bars | {"name": t(f"cl_series_{name}", lang)})
    top = max(float(value) for value in [*chart["raw"], *chart["scaled"]])
    layout = _layout(labels, t("cl_axis_top_weight", lang), top, screen)
    legend = {"orientation": "h", "y": 1.12, "x": 0, "font": {"size": screen.bar_font}}
    return figure(traces, layout | {"showlegend": True, "legend": legend, "barmode": "group"})
