"""The one heatmap: every matrix on every page is a ``Matrix`` drawn by ``heatmap``.

Axes use integer positions with the labels as tick text, so that repeated characters (我爱我家)
keep their own rows and columns; every label is escaped. Cells are square and sized to the room
the figure gets. The rules a reader sees are here, once: which cells print their numbers, which
tick labels show and how, the margins that hold them, and when there is a colour bar.
"""

from __future__ import annotations

import html
import math
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from ui.kit.figures import (
    BLUES,
    DIVERGING,
    MASK_COLOUR,
    PAD,
    QUIET_AXIS,
    SELECT_COLOUR,
    SLACK,
    Trace,
    axis_title,
    bar_label,
    colour_bar_room,
    escape,
    figure,
    format_cell,
    format_value,
    label_room,
    masked_runs,
    text_width,
)
from ui.kit.text import t
from ui.kit.typography import LAPTOP, Screen, room

# The room a figure has, its largest cells and the panels to a phone's row: ui.kit.typography.
MIN_CELL = 4  # px: a matrix too large for its room becomes a texture that still hovers
GAP = 16  # px between panels
LINE = 1.3  # em: the height of a line of tick text
UPRIGHT_SHIFT = 4  # px above the plot: past the ticks, where turned labels start (screenshots)
NAMED_UP_TO = 2500  # cells: hover names larger figures' cells by position (labels cost bytes)


@dataclass(frozen=True)
class Matrix:
    """One matrix as every page draws it, the argument of ``heatmap``.

    ``scale``: "weights" (0 … 1 in blues, two decimals), "scores" (diverging about 0, one
    decimal or none) or "fine" (diverging, three decimals); a diverging scale spans ±``limit``,
    else the largest |z|. ``masked`` cells are grey, and hover says "masked"; ``notes`` (text per
    cell, "" for none) replace a cell's value in the hover.
    """

    z: npt.NDArray[Any]  # (n, m) what is drawn
    rows: tuple[str, ...]  # n labels, as the reader reads them
    cols: tuple[str, ...]  # m labels
    scale: str = "scores"
    limit: float | None = None
    masked: npt.NDArray[np.bool_] | None = None  # (n, m)
    notes: npt.NDArray[np.str_] | None = None  # (n, m)
    selected_row: int | None = None  # outlined in orange
    clickable: bool = False  # a click layer reports the cell: Streamlit reports no heatmap clicks
    row_axis: str = "axis_query"  # string key naming the rows ("" for none)
    col_axis: str = "axis_key"
    title: str = ""  # under the panel: the app's own text (Plotly HTML), user text escaped
    name: str = ""  # the trace's name


def heatmap(
    panels: Matrix | Sequence[Matrix],
    *,
    lang: str,
    screen: Screen = LAPTOP,
    share: float = 1.0,
    per_row: int | None = None,
    beside: float = 0.0,
    min_height: int = 0,
) -> dict[str, Any]:
    """Matrices as one figure: ``per_row`` panels to a row (all in one by default), square cells
    of one size within ``share`` of the main area of the ``screen`` (on a phone all of its width,
    and a wrapped figure at most ``screen.per_row`` panels to a row); row labels on the first
    panel of each row, column labels over the first row, axis titles on the first panel, a
    colour bar where the cells print no numbers. ``beside`` keeps that fraction of the
    plot's width, right of the matrices, for a page's own axes; ``min_height`` px at least."""
    panels = tuple([panels] if isinstance(panels, Matrix) else panels)
    if per_row and screen.per_row:
        per_row = min(per_row, screen.per_row)
    grid = Grid(panels, screen.cell_font, per_row, screen.row_title)
    numbers = [cell_numbers(matrix) for matrix in grid.panels]
    bar, size = bar_and_size(grid, numbers, room(screen, share), screen, beside)
    grid = fitted_titles(grid, size)
    margin = grid_margin(grid, size, bar)
    plot_w = math.ceil(grid.span(size, across=True) / (1 - beside))
    plot_h = max(grid.span(size, across=False), min_height - margin["t"] - margin["b"])
    traces, layout = _assemble(grid, numbers, size, bar, (plot_w, plot_h), lang)
    return figure(traces, _frame(margin, plot_w, plot_h) | layout)


def _assemble(
    grid: Grid,
    numbers: list[list[list[str]]],
    size: int,
    bar: str,
    plot: tuple[int, int],
    lang: str,
) -> tuple[list[Trace], dict[str, Any]]:
    """Every panel in its place: the traces, and the axes, shapes and titles of the layout."""
    named = sum(matrix.z.size for matrix in grid.panels) <= NAMED_UP_TO
    traces: list[Trace] = []
    layout: dict[str, Any] = {"shapes": [], "annotations": []}
    for i, matrix in enumerate(grid.panels):
        row, col = grid.place(i)
        part = panel(
            matrix, lang=lang, font=grid.font, size=size, axes=axis_suffix(i),
            labels=(col == 0, row == 0), titled=i == 0, row_title=grid.row_title, named=named,
            numbers=numbers[i],
            bar=bool(bar) and i == len(grid.panels) - 1,
        )  # fmt: skip
        traces += part.traces
        x, y = grid.domain(i, size, *plot)
        (x_name, x_axis), (y_name, y_axis) = part.axes.items()
        layout |= {x_name: x_axis | {"domain": x}, y_name: y_axis | {"domain": y}}
        layout["shapes"] += part.shapes
        layout["annotations"] += part.notes
        if matrix.title:
            layout["annotations"].append(panel_title(matrix.title, sum(x) / 2, y[0], grid.font))
    return traces, layout


def beside_domain(fig: dict[str, Any], beside: float, gap: float = 0.0) -> list[float]:
    """The x domain of a page's own axes in the room ``heatmap(..., beside=…)`` kept for them,
    ``gap`` px right of the matrices."""
    layout = fig["layout"]
    plot_w = layout["width"] - layout["margin"]["l"] - layout["margin"]["r"]
    return [min(1.0, 1 - beside + gap / plot_w), 1.0]


def axis_suffix(i: int) -> str:
    """Panel ``i``'s axes are x<suffix>, y<suffix>: x, x2, x3 …"""
    return "" if i == 0 else str(i + 1)


def _frame(margin: dict[str, int], plot_w: int, plot_h: int) -> dict[str, Any]:
    """The figure's size, margins and background, and what a click does."""
    return {
        "width": margin["l"] + plot_w + margin["r"],
        "height": margin["t"] + plot_h + margin["b"],
        "margin": margin,
        "plot_bgcolor": "rgba(128, 128, 128, 0.22)",  # the gaps, on a light or dark theme
        "clickmode": "event+select",
        "dragmode": False,
    }


@dataclass(frozen=True)
class Grid:
    """Where each panel of a figure goes: grid rows of ``per_row`` panels, ticks at ``font``."""

    panels: tuple[Matrix, ...]
    font: int
    per_row: int | None = None
    row_title: bool = True  # the rows' name beside them (else in the hover only)

    def place(self, i: int) -> tuple[int, int]:
        """The grid row and column of panel ``i``."""
        return divmod(i, self.per_row or len(self.panels))

    def cells(self, across: bool) -> list[int]:
        """Cells across each grid column, or down each grid row: its largest panel's."""
        spans: dict[int, int] = {}
        for i, matrix in enumerate(self.panels):
            at = self.place(i)[across]
            spans[at] = max(spans.get(at, 0), matrix.z.shape[across])
        return [spans[at] for at in sorted(spans)]

    def gap(self, across: bool) -> float:
        """Pixels between neighbouring panels; down, each one's title under it too."""
        return GAP + (0 if across else titles_height(self.panels, self.font))

    def span(self, size: int, across: bool) -> int:
        """Pixels the matrices take across (or down), gaps included."""
        cells = self.cells(across)
        return math.ceil(sum(cells) * size + self.gap(across) * (len(cells) - 1))

    def domain(self, i: int, size: int, plot_w: int, plot_h: int) -> tuple[list[float], ...]:
        """Panel ``i``'s x and y domains, as fractions of the plot area."""
        row, col = self.place(i)
        n, m = self.panels[i].z.shape
        x0 = (sum(self.cells(True)[:col]) * size + col * self.gap(True)) / plot_w
        top = (sum(self.cells(False)[:row]) * size + row * self.gap(False)) / plot_h
        x = [max(0.0, x0), min(1.0, x0 + m * size / plot_w)]  # rounding may step past 0 or 1
        return x, [max(0.0, 1 - top - n * size / plot_h), min(1.0, 1 - top)]


def title_line(font: int) -> float:
    """Pixels a panel's title takes under it."""
    return 1.6 * (font + 1) + 4


def titles_height(panels: Sequence[Matrix], font: int) -> float:
    """Pixels the panels' titles take under them: their longest, on one line or broken in two."""
    lines = [matrix.title.count("<br>") + 1 for matrix in panels if matrix.title]
    return title_line(font) * max(lines) if lines else 0.0


def fitted_titles(grid: Grid, size: int) -> Grid:
    """The grid, its panels' titles broken in two when one is wider than its panel and the gap
    beside it (a phone's narrow panels): else neighbouring titles run into each other."""

    def fits(matrix: Matrix) -> bool:
        shown = html.unescape(re.sub(TAG, "", matrix.title))  # what is drawn, not its markup
        columns: int = matrix.z.shape[1]
        return text_width(shown, grid.font + 1) <= columns * size + GAP

    if all(fits(matrix) for matrix in grid.panels if matrix.title):
        return grid
    panels = tuple(replace(matrix, title=two_lines(matrix.title)) for matrix in grid.panels)
    return replace(grid, panels=panels)


TAG = r"<[^>]*>"  # Plotly's pseudo-HTML in a title


def two_lines(title: str) -> str:
    """``title`` broken at its " · " ("layer 1 · head 2"), else at the space or after the
    Chinese comma nearest its middle, never inside a tag."""
    head, dot, tail = title.partition(" · ")
    if dot:
        return f"{head}<br>{tail}"
    tags = [range(m.start(), m.end()) for m in re.finditer(TAG, title)]
    breaks = [
        (i, i + 1) if ch == " " else (i + 1, i + 1)  # a space goes, a comma stays on line one
        for i, ch in enumerate(title)
        if ch in " ，、" and not any(i in tag for tag in tags)
    ]
    if not breaks:
        return title
    end, start = min(breaks, key=lambda b: abs(2 * b[0] - len(title)))
    return f"{title[:end]}<br>{title[start:]}"


def bar_and_size(
    grid: Grid, numbers: list[list[list[str]]], width: float, screen: Screen, beside: float
) -> tuple[str, int]:
    """The colour bar (its widest tick label, or "" for none) and the cells' side. The bar
    stands in for the numbers: a figure has one only where its cells print none, and only when
    every panel has the same scale (else each reads its own in the hover)."""
    size = cell_size(grid, "", width, screen, beside)
    numbered = all(numbers_fit(texts, grid.font, size) for texts in numbers)
    bar = "" if numbered else shared_bar(grid.panels)
    return bar, cell_size(grid, bar, width, screen, beside) if bar else size


def shared_bar(panels: Sequence[Matrix]) -> str:
    """The widest tick label of the colour bar every panel shares, or "" when their scales
    differ."""
    first = colours(panels[0])
    same = all(colours(matrix) == first for matrix in panels[1:])
    fixed = len(panels) == 1 or panels[0].scale == "weights" or panels[0].limit is not None
    return bar_label(first["zmin"], first["zmax"]) if same and fixed else ""


def cell_size(grid: Grid, bar: str, width: float, screen: Screen, beside: float) -> int:
    """The cells' side: the matrices across ``width`` px less the margins, the gaps and the
    room beside, at most the screen's readable size, and short enough for it."""
    gaps = grid.gap(True) * (len(grid.cells(True)) - 1)
    across = (width - row_labels_room(grid) - side_room(bar) - gaps) * (1 - beside)
    down = screen.max_height / sum(grid.cells(False))
    size = min(across / sum(grid.cells(True)), screen.max_cell, down)
    return max(int(size), MIN_CELL)


def row_labels_room(grid: Grid) -> float:
    """Pixels left of the plot: the first panels' row labels and the first one's axis title."""
    first = [m for i, m in enumerate(grid.panels) if grid.place(i)[1] == 0]
    widest = max(text_width(escape(label), grid.font) for m in first for label in m.rows)
    titled = grid.row_title and bool(grid.panels[0].row_axis)
    return widest + label_room(grid.font, titled=titled)


def side_room(bar: str) -> float:
    """Pixels right of the plot: the colour bar's, or a label's overhang."""
    return colour_bar_room(bar) if bar else PAD + SLACK


def grid_margin(grid: Grid, size: int, bar: str) -> dict[str, int]:
    """Margins that hold every label, so that Plotly draws the figure once: row labels on the
    left, column labels above (upright or turned), the colour bar or the last column label's
    overhang on the right, and the last row label's overhang and the titles below."""
    font = grid.font
    top_row = [m for i, m in enumerate(grid.panels) if grid.place(i)[0] == 0]
    ticks = [column_ticks(matrix.cols, font, size) for matrix in top_row]
    above = max(tick.extent for tick in ticks) + label_room(font, bool(grid.panels[0].col_axis))
    right = side_room(bar) + (0 if bar else ticks[-1].overhang)
    below = 10 + row_ticks(grid.panels[-1].rows, font, size).overhang
    below += titles_height(grid.panels, font)
    edges = {"l": row_labels_room(grid), "r": right, "t": above, "b": below}
    return {side: math.ceil(px) for side, px in edges.items()} | {"pad": PAD}


@dataclass(frozen=True)
class Ticks:
    """One axis's tick labels as drawn."""

    axis: dict[str, Any]  # tickvals, ticktext (and tickangle)
    extent: float  # px they take away from the plot: above it (columns), left of it (rows)
    overhang: float  # px the last one reaches past the matrix: right (columns), below (rows)
    upright: tuple[int, ...] = ()  # on a turned axis, the columns whose labels fit upright


def every(font: int, size: int) -> int:
    """Label every k-th row or column: one per cell while a line of text fits in a cell."""
    return max(1, math.ceil((font + 2) / size))


def row_ticks(labels: Sequence[str], font: int, size: int) -> Ticks:
    """Row labels, every k-th while cells are lower than a line of text."""
    step = every(font, size)
    text = [escape(label) for label in labels]
    widest = max((text_width(label, font) for label in text), default=0.0)
    axis = {"tickvals": list(range(0, len(text), step)), "ticktext": text[::step]}
    return Ticks(axis, widest, max(0.0, (font * LINE - size) / 2))


def column_ticks(labels: Sequence[str], font: int, size: int) -> Ticks:
    """Column labels upright while each fits its room; else, on an axis with no CJK label, on
    their side (Latin reads well turned), and where any is CJK, upright with the long ones
    shortened ("[CLS]" → "CLS"): a CJK character on its side is hard to read. Hover has them
    whole. On a turned axis, ``upright`` names the columns whose labels fit their room: turned,
    a narrow one ("i", ".") reads as a dot, so the heatmap sets those upright
    (``upright_labels``)."""
    step = every(font, size)
    room = step * size - 2
    places = list(range(0, len(labels), step))
    shown = list(labels[::step])
    widths = [text_width(label, font) for label in shown]
    fits = max(widths, default=0.0) <= room
    turned = not fits and not any(is_cjk(label) for label in labels)
    if not fits and not turned:
        shown = [shorten(label, font, room) for label in shown]
    upright = tuple(at for at, w in zip(places, widths, strict=True) if turned and w <= room)
    last_turned = turned and places[-1] not in upright
    last = font if last_turned else text_width(shown[-1], font) if shown else 0.0
    centre = (places[-1] + 0.5) * size if places else 0.0
    overhang = max(0.0, centre + last / 2 - len(labels) * size)
    extent = max(widths) + font if turned else font * LINE
    axis = {"tickvals": places, "tickangle": -90 if turned else 0}
    ticktext = [escape(label) for label in shown]
    return Ticks(axis | {"ticktext": ticktext}, extent, overhang, upright)


def upright_labels(
    ticks: Ticks, font: int, axes: str = ""
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A turned column axis of panel x<axes> without the labels that fit upright, and those
    labels as annotations set upright above their columns, where the turned ones start (Plotly
    turns every tick label of an axis alike)."""
    axis, upright = ticks.axis, set(ticks.upright)
    if not upright:
        return axis, []
    shown = dict(zip(axis["tickvals"], axis["ticktext"], strict=True))
    notes = [
        {"text": shown[at], "x": at, "xref": f"x{axes}", "y": 1, "yref": f"y{axes} domain",
         "yanchor": "bottom", "yshift": UPRIGHT_SHIFT, "showarrow": False,
         "font": {"size": font}}
        for at in sorted(upright)
    ]  # fmt: skip
    ticktext = ["" if at in upright else text for at, text in shown.items()]
    return axis | {"ticktext": ticktext}, notes


def is_cjk(text: str) -> bool:
    """Whether ``text`` holds a wide (CJK) character."""
    return any(unicodedata.east_asian_width(ch) in ("W", "F") for ch in text)


def shorten(label: str, font: int, room: float) -> str:
    """``label`` within ``room`` px: whole if it fits, else without its brackets ("[CLS]" →
    "CLS"), else cut and marked "…"."""
    for text in (label, label.strip("[]")):
        if text and text_width(text, font) <= room:
            return text
    text = label.strip("[]") or label
    for end in range(len(text) - 1, 0, -1):
        if text_width(text[:end] + "…", font) <= room:
            return text[:end] + "…"
    return text[:1]


def numbers_fit(texts: list[list[str]], font: int, size: int) -> bool:
    """The one rule for cell numbers: printed at the cell font (≥ 12 px) when the widest fits
    its cell with a gap between neighbours, else left to the hover."""
    numbers = {text for row in texts for text in row}  # each distinct number measured once
    widest = max((text_width(text, font) for text in numbers), default=0.0)
    return font >= 12 and widest + 4 <= size and font + 4 <= size


@dataclass(frozen=True)
class Panel:
    """One matrix's part of a figure: its traces, its two axes and its shapes."""

    traces: list[Trace]
    axes: dict[str, Any]  # xaxis<s> and yaxis<s>
    shapes: list[dict[str, Any]]
    notes: list[dict[str, Any]] = field(default_factory=list)  # column labels set upright


def panel_title(text: str, x: float, y: float, font: int) -> dict[str, Any]:
    """A panel's title, centred under it (paper ``x``, its bottom ``y``)."""
    return {
        "text": text,
        "x": x,
        "y": y,
        "xref": "paper",
        "yref": "paper",
        "xanchor": "center",
        "yanchor": "top",
        "yshift": -4,
        "showarrow": False,
        "font": {"size": font + 1},
    }


def panel(
    matrix: Matrix,
    *,
    lang: str,
    font: int,
    size: int,
    axes: str = "",
    labels: tuple[bool, bool] = (True, True),
    titled: bool = True,
    row_title: bool = True,
    named: bool = True,
    bar: bool = False,
    numbers: list[list[str]] | None = None,
) -> Panel:
    """``matrix`` on the axes x<axes>, y<axes> in cells of ``size`` px: the heatmap (numbers in
    the cells where they fit, the colour bar if ``bar``), a click layer if asked for, masked
    cells grey and the selected row outlined; ``labels`` on its rows and columns, the axes
    ``titled`` (the rows too while ``row_title``); hover names each cell while ``named``;
    ``numbers``: its ``cell_numbers``."""
    masked = np.zeros(matrix.z.shape, dtype=bool) if matrix.masked is None else matrix.masked
    trace = _trace(matrix, masked, axes)
    texts = cell_numbers(matrix) if numbers is None else numbers
    if numbers_fit(texts, font, size):
        trace |= {"text": texts, "texttemplate": "%{text}", "textfont": {"size": font}}
    if bar:
        # At the plot's edge, not a fraction of its width past it: the room for it is known.
        colorbar = {"x": 1.0, "xanchor": "left", "thickness": 14, "len": 0.9, **QUIET_AXIS}
        trace |= {"showscale": True, "colorbar": colorbar}
    hover = _hover(matrix, masked, lang, named)
    traces = [trace | hover]
    if matrix.clickable:
        skip = {"hoverinfo": "skip"} if "customdata" in hover else hover
        traces = [trace | skip, _click_layer(matrix, hover, size, axes)]
    shapes = cell_rects(masked, MASK_COLOUR, 0.55, axes) + _selected(matrix, axes)
    layout, notes = _axes(matrix, font, size, axes, labels)
    if titled:
        layout = _titled(layout, matrix, lang, font, row_title)
    return Panel(traces, layout, shapes, notes)


def _titled(
    axes: dict[str, Any], matrix: Matrix, lang: str, font: int, row_title: bool = True
) -> dict[str, Any]:
    """The axes titled by the names of the matrix's rows (while ``row_title``) and columns
    (those it has)."""
    x, y = axes.values()
    names = [(x, matrix.col_axis), (y, matrix.row_axis if row_title else "")]
    titled = [
        axis | ({"title": axis_title(t(key, lang), font)} if key else {}) for axis, key in names
    ]
    return dict(zip(axes, titled, strict=True))


def _trace(matrix: Matrix, masked: npt.NDArray[np.bool_], axes: str) -> Trace:
    """The heatmap trace: masked −∞ scores as gaps (weights stay as given), no colour bar."""
    n, m = matrix.z.shape
    z = matrix.z
    if matrix.scale != "weights":
        z = np.where(masked & ~np.isfinite(z), np.nan, z)
    trace: Trace = {"type": "heatmap", "z": z, "x": np.arange(m), "y": np.arange(n)}
    trace |= {"xaxis": f"x{axes}", "yaxis": f"y{axes}", "xgap": 1, "ygap": 1, "showscale": False}
    return trace | colours(matrix) | ({"name": matrix.name} if matrix.name else {})


def colours(matrix: Matrix) -> dict[str, Any]:
    """Weights on 0 … 1 in blues; anything else diverging about 0, over ±limit."""
    if matrix.scale == "weights":
        return {"colorscale": BLUES, "zmin": 0.0, "zmax": 1.0}
    limit = matrix.limit
    if limit is None:
        finite = np.abs(matrix.z[np.isfinite(matrix.z)])
        limit = float(finite.max()) if finite.size else 1.0
    return {"colorscale": DIVERGING, "zmin": -(limit or 1.0), "zmax": limit or 1.0}


def cell_numbers(matrix: Matrix) -> list[list[str]]:
    """Each cell's number as printed: nothing where there is no value (NaN) or in masked
    weights; masked scores print −∞."""
    n, m = matrix.z.shape
    blank = np.isnan(matrix.z)
    if matrix.scale == "weights" and matrix.masked is not None:
        blank |= matrix.masked
    return [
        ["" if blank[i, j] else format_cell(float(matrix.z[i, j]), matrix.scale) for j in range(m)]
        for i in range(n)
    ]


def _hover(matrix: Matrix, masked: npt.NDArray[np.bool_], lang: str, named: bool) -> dict[str, Any]:
    """Hover: the panel's title, the cell's row and column under their names, and its value
    (or "masked", or its note); by position in figures with too many cells to name."""
    names = [
        f"{escape(t(key, lang))}: " if key else "" for key in (matrix.row_axis, matrix.col_axis)
    ]
    head = f"{matrix.title}<br>" if matrix.title else ""
    if not named:
        where = f"{head}{names[0]}%{{y}}<br>{names[1]}%{{x}}"
        return {"hovertemplate": f"{where}<br>= %{{z:.4g}}<extra></extra>"}
    n, m = matrix.z.shape
    rows, cols = [escape(label) for label in matrix.rows], [escape(label) for label in matrix.cols]
    word, notes = t("masked_cell", lang), matrix.notes
    values = [
        [
            notes[i, j] if notes is not None and notes[i, j] else
            word if masked[i, j] else format_value(float(matrix.z[i, j]))
            for j in range(m)
        ]
        for i in range(n)
    ]  # fmt: skip
    cells = [[[rows[i], cols[j], values[i][j]] for j in range(m)] for i in range(n)]
    where = f"{head}{names[0]}%{{customdata[0]}}<br>{names[1]}%{{customdata[1]}}"
    return {"customdata": cells, "hovertemplate": f"{where}<br>= %{{customdata[2]}}<extra></extra>"}


def _click_layer(matrix: Matrix, hover: dict[str, Any], size: int, axes: str) -> Trace:
    """A nearly transparent square over every cell centre: clicks on it report (x, y)."""
    n, m = matrix.z.shape
    grid_y, grid_x = np.mgrid[0:n, 0:m]
    named = "customdata" in hover  # else too many cells to name: the heatmap keeps its hover
    flat = {"customdata": [cell for row in hover.get("customdata", []) for cell in row]}
    return {
        "type": "scatter",
        "x": grid_x.ravel(),
        "y": grid_y.ravel(),
        "xaxis": f"x{axes}",
        "yaxis": f"y{axes}",
        "mode": "markers",
        # Plotly draws one of the squares (81 per 9×9 panel took half of /model's drawing); hover
        # and clicks still find every one.
        "marker": {
            "symbol": "square",
            "size": size,
            "opacity": 0.01,
            "color": "#000",
            "maxdisplayed": 1,
        },
        "selected": {"marker": {"opacity": 0.01}},
        "unselected": {"marker": {"opacity": 0.01}},
        "showlegend": False,
        **(flat | {"hovertemplate": hover["hovertemplate"]} if named else {"hoverinfo": "skip"}),
    }


def _axes(
    matrix: Matrix, font: int, size: int, axes: str, labels: tuple[bool, bool]
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Both axes of a panel: labels on its rows and columns (columns on top), row 0 on top; and
    the column labels set upright beside turned ones, where the columns are labelled."""
    n, m = matrix.z.shape
    common = {"showgrid": False, "zeroline": False, "tickfont": {"size": font}}
    columns, notes = upright_labels(column_ticks(matrix.cols, font, size), font, axes)
    x = common | columns | {"side": "top"}
    y = common | row_ticks(matrix.rows, font, size).axis
    both = {
        f"xaxis{axes}": x
        | {"range": [-0.5, m - 0.5], "anchor": f"y{axes}", "showticklabels": labels[1]},
        f"yaxis{axes}": y
        | {"range": [n - 0.5, -0.5], "anchor": f"x{axes}", "showticklabels": labels[0]},
    }
    return both, notes if labels[1] else []


def cell_rects(
    cells: npt.NDArray[np.bool_], colour: str, opacity: float, axes: str = "", layer: str = "above"
) -> list[dict[str, Any]]:
    """A filled rectangle over each run of ``cells`` in a row: one shape per run, not per cell."""
    refs = {"xref": f"x{axes}", "yref": f"y{axes}", "line": {"width": 0}, "layer": layer}
    return [
        {"type": "rect", "x0": start - 0.5, "x1": stop - 0.5, "y0": i - 0.5, "y1": i + 0.5}
        | refs
        | {"fillcolor": colour, "opacity": opacity}
        for i, start, stop in masked_runs(cells)
    ]


def frame(rows: slice, cols: slice, axes: str = "", width: int = 3) -> dict[str, Any]:
    """An orange frame round the cells ``rows`` × ``cols`` of a panel."""
    edges = {"x0": cols.start - 0.5, "x1": cols.stop - 0.5, "y0": rows.start - 0.5}
    refs = {"xref": f"x{axes}", "yref": f"y{axes}"}
    line = {"color": SELECT_COLOUR, "width": width}
    return {"type": "rect", **edges, "y1": rows.stop - 0.5, **refs, "line": line}


def _selected(matrix: Matrix, axes: str) -> list[dict[str, Any]]:
    """The selected row's outline, when it is one of the matrix's rows."""
    n, m = matrix.z.shape
    row = matrix.selected_row
    return (
        [frame(slice(row, row + 1), slice(0, m), axes)] if row is not None and 0 <= row < n else []
    )
