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
SHORTER = 70  # px less for each chart of a reveal: three side by side under a sentence
LABEL_PX = 22  # px a lying bar's label needs at least, so that ten bins' labels never touch


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


def _height(screen: Screen, short: bool) -> int:
    """A chart's height: a reveal's are shorter."""
    return screen.bars_height - (SHORTER if short else 0)


def _layout(
    labels: list[str], y_title: str, top: float, screen: Screen, short: bool = False
) -> dict[str, Any]:
    """Axes for a bar chart: the labels under the bars, a y range with room for the numbers."""
    ticks = {"size": screen.bar_font}
    return {
        "height": _height(screen, short),
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
    short: bool = False,
) -> dict[str, Any]:
    """How many students gave each answer, a bar to the right of each (lying bars: ten bins'
    labels read on a phone too); with ``right`` (once revealed) that bar is the truth's colour
    and says so; ``short`` beside a reveal's figures."""
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
        "height": max(_height(screen, short), 56 + LABEL_PX * len(shown)),
        "margin": MARGIN | {"b": 48} | ({"t": 8} if short else {}),  # lying bars: no top text
        "showlegend": False,
        "yaxis": {"tickvals": list(range(len(shown))), "ticktext": shown, "tickfont": ticks,
                  "autorange": "reversed", "automargin": True},
        "xaxis": {"range": [0, most * 1.25 or 1], "dtick": 1 if most <= 10 else None,
                  "title": axis_title(t("cl_axis_students", lang), screen.bar_font),
                  "tickfont": ticks},
    }  # fmt: skip
    return figure([bars], layout)


def truth_chart(
    chart: dict[str, Any],
    *,
    lang: str,
    screen: Screen = LAPTOP,
    top: float | None = None,
    short: bool = False,
) -> dict[str, Any]:
    """The app's own figure behind a question's truth, from the description stored with it:
    a row of weights or probabilities, a histogram of q·k, or a statistic without and with
    ÷√d against d. ``top``: the y axis's top (a row beside its contrast shares one)."""
    kind = chart.get("kind")
    if kind == "histogram":
        return _histogram(chart, lang, screen, short)
    if kind == "compare":
        return _compare(chart, lang, screen, short)
    labels = [escape(str(label)) for label in chart["labels"]]
    values = [float(value) for value in chart["values"]]
    best = int(chart["highlight"])
    colours = [SELECT_COLOUR if i == best else SCALED_COLOUR for i in range(len(values))]
    text = [format_value(value, 2) for value in values]
    bars = _bars(labels, values, colours, text, screen)
    highest = max(values) if top is None else top
    return figure([bars], _layout(labels, t("cl_axis_weight", lang), highest, screen, short))


def _histogram(chart: dict[str, Any], lang: str, screen: Screen, short: bool) -> dict[str, Any]:
    """Sampled q·k as a histogram, its measured σ marked on both sides of 0 and, when stored,
    the theory's σ (√d; 1 once ÷√d) dotted beside it."""
    edges = [float(edge) for edge in chart["edges"]]
    centres = [(low + high) / 2 for low, high in itertools.pairwise(edges)]
    counts = [float(count) for count in chart["counts"]]
    sigma = float(chart["mark"])
    axis = str(chart.get("axis", "q·k"))
    bars = {
        "type": "bar",
        "x": centres,
        "y": counts,
        "width": edges[1] - edges[0],
        "marker": {"color": SCALED_COLOUR},
        "hovertemplate": f"{escape(axis)} ≈ %{{x:.2f}}: %{{y}}<extra></extra>",
    }
    lines, annotation = _sigma_marks(chart, sigma, lang, screen)
    ticks = {"size": screen.bar_font}
    layout = {
        "height": _height(screen, short),
        "margin": MARGIN,
        "shapes": lines,
        "annotations": [annotation],
        "bargap": 0,
        "xaxis": {"title": axis_title(escape(axis), screen.bar_font), "tickfont": ticks},
        "yaxis": {
            "title": axis_title(t("cl_axis_samples", lang), screen.bar_font),
            "tickfont": ticks,
            "range": [0, max(counts, default=0) * 1.4 or 1],  # room for the note above the bars
        },
    }
    return figure([bars], layout)


def _sigma_marks(
    chart: dict[str, Any], sigma: float, lang: str, screen: Screen
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The measured σ dashed at ±σ and, when stored, the theory's dotted at ±its σ; the note
    that says both, in the top left corner over a white ground (the lines pass under it)."""
    note = t("cl_sigma_measured", lang, sigma=format_value(sigma, 3))
    lines = _sigma_lines(sigma, "dash", 3)
    if "theory" in chart:
        lines += _sigma_lines(float(chart["theory"]), "dot", 2)
        theory = escape(str(chart.get("theory_text", chart["theory"])))
        note += "<br>" + t("cl_sigma_theory", lang, theory=theory)
    annotation = {
        "x": 0, "y": 1, "xref": "paper", "yref": "paper", "xanchor": "left", "yanchor": "top",
        "text": note, "showarrow": False, "align": "left", "bgcolor": "rgba(255,255,255,0.85)",
        "font": {"size": screen.text_font, "color": SELECT_COLOUR},
    }  # fmt: skip
    return lines, annotation


def _sigma_lines(sigma: float, dash: str, width: int) -> list[dict[str, Any]]:
    """Vertical lines at −σ and +σ."""
    return [
        {"type": "line", "x0": x, "x1": x, "y0": 0, "y1": 1, "yref": "paper",
         "line": {"color": SELECT_COLOUR, "width": width, "dash": dash}}
        for x in (-sigma, sigma)
    ]  # fmt: skip


def _compare(chart: dict[str, Any], lang: str, screen: Screen, short: bool) -> dict[str, Any]:
    """A statistic against d, without ÷√d (red) and with it (blue)."""
    labels = [escape(str(label)) for label in chart["labels"]]
    traces = []
    for name, colour in (("raw", RAW_COLOUR), ("scaled", SCALED_COLOUR)):
        values = [float(value) for value in chart[name]]
        bars = _bars(labels, values, [colour] * len(values), [f"{v:.2f}" for v in values], screen)
        traces.append(bars | {"name": t(f"cl_series_{name}", lang)})
    top = max(float(value) for value in [*chart["raw"], *chart["scaled"]])
    layout = _layout(labels, t("cl_axis_top_weight", lang), top, screen, short)
    legend = {"orientation": "h", "y": 1.12, "x": 0, "font": {"size": screen.bar_font}}
    return figure(traces, layout | {"showlegend": True, "legend": legend, "barmode": "group"})
