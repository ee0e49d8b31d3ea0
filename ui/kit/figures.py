"""What every figure shares: the app's font and colours, label text, number formats, margins.

Builders take arrays and labels and return a plain figure dict (``figure``) or an ordinary
``go.Figure``; they never call ``st.*``. ``ui.kit.display.chart`` sends and caches them, and
``ui.kit.heatmap`` draws every matrix. User text is escaped: Plotly labels are HTML-like.
"""

import html
import math
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt
import plotly.graph_objects as go
from plotly.colors import get_colorscale

from ui.kit.typography import Screen

FONT_SIZE = 15  # px: the app's text in every figure, on every screen
FONT = {"family": "Noto Sans CJK SC, PingFang SC, Microsoft YaHei, sans-serif", "size": FONT_SIZE}
SELECT_COLOUR = "#f97316"  # orange: distinct from both colour scales, also in grayscale
# Streamlit's theme styles the charts: Plotly's template would only add bytes to every figure.
TEMPLATE = "none"
MASK_COLOUR = "#6b7280"  # masked cells are greyed out: not a colour of either scale
BLUES = get_colorscale("Blues")
DIVERGING = get_colorscale("RdBu_r")  # blue negative, red positive; readable by colour-blind eyes
RAW_COLOUR = "#dc2626"  # unscaled: red
SCALED_COLOUR = "#2563eb"  # scaled: blue
CONFIG = {
    "displaylogo": False,
    "modeBarButtonsToRemove": ["select2d", "lasso2d", "autoScale2d"],
    "toImageButtonOptions": {"format": "png", "scale": 2},
}
Trace = dict[str, Any]
# The builders size each figure to hold its labels: Plotly need not measure each for overflow.
QUIET_AXIS = {"ticklabeloverflow": "allow"}
QUIET_TEMPLATE = {"layout": {"xaxis": QUIET_AXIS, "yaxis": QUIET_AXIS}}


def figure(
    data: list[Trace], layout: dict[str, Any], frames: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """A plain figure dict (and its animation frames) in the app's font and quiet template."""
    fig = {"data": data, "layout": {"font": FONT, "template": QUIET_TEMPLATE, **layout}}
    return fig | ({"frames": frames} if frames else {})


def grid(
    panels: int,
    cols: int,
    titles: list[str],
    hgap: float = 0.03,
    vgap: float = 0.1,
    title_font: int = 14,
) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """Axes for small multiples in a grid, with a title above each: (layout, axis refs)."""
    rows = math.ceil(panels / cols)
    width = (1 - hgap * (cols - 1)) / cols
    height = (1 - vgap * (rows - 1)) / rows
    layout: dict[str, Any] = {"annotations": []}
    refs = []
    for i in range(panels):
        row, col = divmod(i, cols)
        x0 = col * (width + hgap)
        y1 = 1 - row * (height + vgap)
        suffix = "" if i == 0 else str(i + 1)
        x_domain = [max(0.0, x0), min(1.0, x0 + width)]  # rounding may step past 0 or 1
        y_domain = [max(0.0, y1 - height), min(1.0, y1)]
        layout[f"xaxis{suffix}"] = {"domain": x_domain, "anchor": f"y{suffix}"}
        layout[f"yaxis{suffix}"] = {"domain": y_domain, "anchor": f"x{suffix}"}
        layout["annotations"].append(
            {
                "text": titles[i],
                "x": x0 + width / 2,
                "y": y1,
                "xref": "paper",
                "yref": "paper",
                "xanchor": "center",
                "yanchor": "bottom",
                "showarrow": False,
                "font": {"size": title_font},
            }
        )
        refs.append((f"x{suffix}", f"y{suffix}"))
    return layout, refs


def escape(text: str) -> str:
    """User text → safe Plotly label: <, > and & are shown, never interpreted."""
    return html.escape(text, quote=False)


def tick_labels(tokens: tuple[str, ...] | list[str]) -> list[str]:
    """Escaped tokens for tick text."""
    return [escape(token) for token in tokens]


def format_value(value: float, digits: int = 4) -> str:
    """A number with ``digits`` significant digits; never 'nan' or 'inf' shown as a number."""
    value = float(value)
    if math.isnan(value):
        return "—"
    if math.isinf(value):
        return "\u2212∞" if value < 0 else "+∞"
    return f"{value:.{digits}g}".replace("-", "\u2212")


def format_small(value: float) -> str:
    """A rounding error such as max |Σ − 1|: 0 when exactly 0, else like 2.2 × 10⁻¹⁶."""
    if value == 0:
        return "0"
    return scientific(value, 1)


SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def scientific(value: float, decimals: int) -> str:
    """``value`` as a mantissa with ``decimals`` decimals times a power of ten: 4.23 × 10⁻⁵."""
    mantissa, exponent = f"{value:.{decimals}e}".split("e")
    return f"{mantissa} × 10{str(int(exponent)).translate(SUPERSCRIPT)}"


def format_cell(value: float, kind: str) -> str:
    """A number short enough for a heatmap cell: weights with 2 decimals, scores with 1 or 0."""
    if not math.isfinite(value):
        return format_value(value)
    if kind == "weights":
        return f"{value:.2f}"
    if kind == "fine":  # small signed values, such as a softmax Jacobian
        return "0.000" if f"{value:.3f}" == "-0.000" else f"{value:.3f}".replace("-", "\u2212")
    text = f"{value:.0f}" if abs(value) >= 9.95 else f"{value:.1f}"
    return "0.0" if text == "-0.0" else text.replace("-", "\u2212")


def masked_runs(masked: npt.NDArray[np.bool_]) -> list[tuple[int, int, int]]:
    """(row, start, stop) of each run of masked cells: one grey rectangle per run, not per cell."""
    n, m = masked.shape
    padded = np.zeros((n, m + 2), dtype=np.int8)
    padded[:, 1:-1] = masked
    rows, edges = np.nonzero(np.diff(padded, axis=1))  # row by row: a start, then its stop
    return list(zip(rows[::2].tolist(), edges[::2].tolist(), edges[1::2].tolist(), strict=True))


# em of signs that are not 0.6 em wide in a sans font ("…" is square in CJK fonts)
NARROW = {".": 0.3, ",": 0.3, " ": 0.3, "−": 0.6, "-": 0.35, "[": 0.3, "]": 0.3, "…": 1.0}


@lru_cache(maxsize=4096)  # labels and numbers recur on every run; each entry is a few bytes
def text_width(text: str, font: int) -> float:
    """About how many pixels ``text`` takes: CJK characters are square, digits and Latin letters
    0.6 em, points and commas less (a little generous, so that numbers never touch)."""
    wide = {"W", "F"}
    return font * sum(
        1.0
        if unicodedata.east_asian_width(ch) in wide
        else NARROW.get(ch, 0.56 if ch.isdigit() else 0.6)
        for ch in text
    )


# Margins that hold every label let Plotly draw a chart once, not again with pushed margins.
# Axis titles get their gap and size here, not from Streamlit's theme, so the room is known.
PAD = 4  # px between the plot and its tick labels
TITLE_GAP = 12  # px between the tick labels and the axis title
SLACK = 12  # px for Plotly's own offsets (tick label standoff, rounding)


def title_room(font: int) -> float:
    """Pixels an axis title one size above the tick labels takes across, with its gap."""
    return TITLE_GAP + 1.5 * (font + 1)


def label_room(font: int, titled: bool = True) -> float:
    """Pixels a margin needs beyond its tick labels: the pad, Plotly's own, and the axis title
    (or, untitled, the labels' own standoff)."""
    return PAD + SLACK + (title_room(font) if titled else SLACK)


def axis_title(text: str, font: int) -> dict[str, Any]:
    """An axis title with the gap and size ``title_room`` counts on."""
    return {"text": text, "standoff": TITLE_GAP, "font": {"size": font + 1}}


def held_margin(
    left: float, top: float, font: int, right: float, bottom: float = 10
) -> dict[str, int]:
    """Margins that hold tick labels ``left``/``top`` px wide plus their axis titles."""
    room = label_room(font)
    edges = {"l": left + room, "r": right, "t": top + room, "b": bottom}
    return {side: int(px) for side, px in edges.items()} | {"pad": PAD}


def bar_label(zmin: float, zmax: float) -> str:
    """About the widest tick label Plotly gives a colour bar from ``zmin`` to ``zmax``, in
    eights (the widest digit): its sign, whole digits (Plotly writes 10,000 as 10k) and the
    decimals its steps need."""
    limit = max(abs(zmin), abs(zmax))
    sign = "\u2212" if zmin < 0 else ""
    digits = min(len(f"{limit:.0f}"), 4)
    decimals = 0 if limit >= 5 else 1 if limit >= 0.5 else 2
    return sign + "8" * digits + ("." + "8" * decimals if decimals else "")


def colour_bar_room(label: str) -> float:
    """Pixels right of the plot for the colour bar: its gap and thickness, and its widest tick
    label."""
    return 56 + text_width(label, FONT_SIZE)


def lesson_layout(fig: go.Figure, height: int, **layout: object) -> go.Figure:
    """Validated Plotly figures of the lessons: the app's font, no template, a fixed height."""
    fig.update_layout(
        font=FONT,
        template=TEMPLATE,
        height=height,
        margin={"l": 10, "r": 10, "t": 40, "b": 10},
        **layout,
    )
    return fig


# --- what differs on a phone: computed from the screen here, so that no page branches on it ---


@dataclass(frozen=True)
class Part:
    """Where one chart panel of a figure goes: its x and y domains, and the px across it has."""

    x: list[float]
    y: list[float]
    px: int


def parts(
    screen: Screen,
    *,
    across: Sequence[tuple[float, float]],
    down: Sequence[tuple[float, float]],
    px: Sequence[int],
) -> list[Part]:
    """A figure's chart panels side by side, at the x domains ``across``, ``px`` wide each;
    or, where the screen holds fewer to a row (a phone: one), one above another at the y
    domains ``down`` (top first), each the screen's full width."""
    if screen.across >= len(across):
        return [Part(list(x), [0, 1], width) for x, width in zip(across, px, strict=True)]
    return [Part([0, 1], list(y), screen.width) for y in down]


def slider_place(
    screen: Screen, at: tuple[float, float], buttons: int, plot_h: float
) -> tuple[tuple[float, float], int]:
    """Where an animation's slider goes, as paper (x, y), and the px the figure grows by for
    it: beside its play and pause buttons, at ``at``, where two parts fit a row; on a phone,
    where the buttons take half the width, from the left edge on a row of its own under them
    (``buttons`` px high)."""
    if screen.across > 1:
        return at, 0
    return (0.0, at[1] - buttons / plot_h), buttons


LINE_GAP = 6  # px between a vertical line and the note beside it, on its outer side
NOTE_BELOW = 50  # px under a phone's panels: the x tick labels, then a note moved there


def line_note(screen: Screen, x: float) -> tuple[dict[str, Any], int]:
    """Where a note about the vertical line at ``x`` of a figure's first panel (axes x, y) goes,
    as an annotation's place: left of the line near its top; on a phone, whose narrow panel has
    no room for it, under the panels at the left. Also the figure's bottom margin."""
    if screen.across > 1:
        where = {"x": x, "y": 0.9, "xref": "x", "yref": "y domain", "xanchor": "right"}
        return where | {"xshift": -LINE_GAP}, 10
    where = {"x": 0, "y": 0, "xref": "paper", "yref": "paper", "xanchor": "left"}
    return where | {"yanchor": "top", "yshift": -24}, NOTE_BELOW


def side_ticks(screen: Screen, end: int) -> dict[str, Any]:
    """A count axis's ticks in a panel beside a heatmap: Plotly's own; on a phone, where the
    panel is some 40 px wide, its far end only, upright."""
    if screen.across > 1:
        return {}
    return {"tickvals": [end], "ticktext": [f"{end:,}"], "tickangle": 0}
