"""Plotly figure builders: arrays and labels in, ``go.Figure`` out. They never call ``st.*``.

Axes use integer positions with the tokens as tick text, so repeated characters (我爱我家) keep
their own rows and columns; every piece of user text is escaped, since Plotly labels are HTML-like.
The lab's figures are built from plain dicts without Plotly's property validation, which costs
ten times more than everything else in a rerun; the tests check what the builders produce.
"""

import base64
import hashlib
import html
import math
import unicodedata
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt
import plotly.graph_objects as go
from plotly.colors import get_colorscale

from ui.kit.cache import CACHES, MB, ByteCache, deep_bytes
from ui.kit.text import t

FONT = {"family": "Noto Sans CJK SC, PingFang SC, Microsoft YaHei, sans-serif", "size": 15}
SELECT_COLOUR = "#f97316"  # orange: distinct from both colour scales, also in grayscale
# Plotly's default template adds 3.7 kB to every figure's JSON on every rerun; Streamlit's theme
# styles the charts anyway, so send none.
TEMPLATE = "none"
MASK_COLOUR = "#6b7280"  # masked cells are greyed out: not a colour of either scale
SHOW_CELL_TEXT_UP_TO = 12  # tokens; above this the numbers no longer fit in a cell
# Resolved once: unvalidated figures pass colour scales to plotly.js as they are.
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
# Plotly hides a tick label that overflows the figure, and to know it measures every label on
# every draw: a forced layout of the whole page per label, the largest part of a redraw. The
# builders size each figure to hold its labels, so nothing can overflow: let Plotly skip it.
QUIET_AXIS = {"ticklabeloverflow": "allow"}
QUIET_TEMPLATE = {"layout": {"xaxis": QUIET_AXIS, "yaxis": QUIET_AXIS}}


class Figure(go.Figure):
    """A ``go.Figure`` built from plain dicts that Plotly turns into its objects only when
    someone reads them (a test, or a builder reusing a figure): sending needs neither. It
    converts itself for sending without Plotly's deep copy and its per-array checks for
    data-frame libraries: the containers are copied, numeric arrays become Plotly's typed arrays
    directly, the rest is shared. Together that was most of a lab rerun's time. The JSON is the
    same as Plotly's own (a test compares them for every chart of every page).
    """

    def __init__(
        self, data: list[Trace], layout: dict[str, Any], frames: list[dict[str, Any]] | None
    ) -> None:
        object.__setattr__(self, "_plain", {"data": data, "layout": layout, "frames": frames})

    def __getattr__(self, name: str) -> Any:
        """Build Plotly's objects on the first read of one (and then read it)."""
        plain = self.__dict__.get("_plain")
        if plain is None or name.startswith("__"):
            raise AttributeError(name)
        del self.__dict__["_plain"]
        go.Figure.__init__(self, **plain, _validate=False)
        return getattr(self, name)

    @property
    def fixed_width(self) -> int | None:
        """The width the builder set, if any, without building Plotly's objects."""
        plain = self.__dict__.get("_plain")
        width = plain["layout"].get("width") if plain is not None else self.layout.width
        return None if width is None else int(width)

    def to_dict(self) -> dict[str, Any]:
        plain = self.__dict__.get("_plain")
        if plain is None:  # built: what Plotly holds now, changes included
            frames = [frame._props for frame in self._frame_objs]
            plain = {"data": self._data, "layout": self._layout, "frames": frames}
        sent: dict[str, Any] = {"data": _sendable(plain["data"])}
        sent["layout"] = _sendable(plain["layout"])
        if plain["frames"]:
            sent["frames"] = _sendable(plain["frames"])
        return sent


# Plotly's typed arrays (plotly.js reads them as binary), and the keys it never converts.
SHORT = {"int8": "i1", "uint8": "u1", "int16": "i2", "uint16": "u2", "int32": "i4"}
SHORT |= {"uint32": "u4", "float32": "f4", "float64": "f8"}
TYPED = {np.dtype(name): short for name, short in SHORT.items()}  # by dtype: no str() per array
UNTYPED_KEYS = frozenset({"geojson", "layer", "layers", "range"})


def _sendable(value: Any) -> Any:
    """Dicts and lists copied all the way down, numeric arrays typed, everything else shared."""
    if isinstance(value, dict):
        # None unsets a property in Plotly: it is left out, not sent as null.
        return {
            k: v if k in UNTYPED_KEYS else _sendable(v) for k, v in value.items() if v is not None
        }
    if isinstance(value, list | tuple):
        return [
            _sendable(v) if isinstance(v, dict | list | tuple | np.ndarray) else v for v in value
        ]
    if isinstance(value, np.ndarray):
        return _typed(value)
    return value


def _typed(array: npt.NDArray[Any]) -> Any:
    """A numeric array as Plotly's typed array spec, as ``to_typed_array_spec`` makes it (64-bit
    integers narrowed to the smallest type that holds them); other arrays as they are."""
    if array.size and array.dtype.kind in "iu" and array.dtype.itemsize == 8:
        for kind in (
            ("int8", "int16", "int32") if array.dtype.kind == "i" else ("uint8", "uint16", "uint32")
        ):
            info = np.iinfo(kind)
            if info.min <= array.min() and array.max() <= info.max:
                array = array.astype(kind)
                break
    short = TYPED.get(array.dtype)
    if short is None or array.size == 0:
        return array
    spec = {"dtype": short, "bdata": base64.b64encode(np.ascontiguousarray(array)).decode("ascii")}
    if array.ndim > 1:
        spec["shape"] = str(array.shape)[1:-1]
    return spec


class Sent(Figure):
    """A figure in the form Streamlit sends (``Figure.to_dict()``), shared read-only by every
    session that shows it: sent as it is, never turned back into Plotly's objects."""

    def __init__(self, sent: dict[str, Any]) -> None:
        object.__setattr__(self, "_sent", sent)

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(name)  # nothing to build: a shared figure is never changed

    @property
    def fixed_width(self) -> int | None:
        width = self._sent["layout"].get("width")
        return None if width is None else int(width)

    def to_dict(self) -> dict[str, Any]:
        return self._sent  # type: ignore[no-any-return]


FIGURES_MB = 2  # a 9 × 9 heatmap is some 10 kB as sent, the heaviest lab figure 0.2 MB
FIGURES = ByteCache("shared_figure", FIGURES_MB * MB, measure=deep_bytes)
CACHES.append(FIGURES)


def _key(value: Any) -> Hashable:
    """A hashable stand-in for a builder's argument: arrays by their shape, type and bytes."""
    if isinstance(value, np.ndarray):
        digest = hashlib.blake2b(np.ascontiguousarray(value).tobytes(), digest_size=16)
        return value.shape, value.dtype.str, digest.digest()
    if isinstance(value, list | tuple):
        return tuple(_key(item) for item in value)
    return value


def shared_figure(build: Callable[..., Figure], *args: Any, **kwargs: Any) -> Sent:
    """``build(*args, **kwargs)``, built once for these arguments and shared by every session,
    like the core results (a class on one link, a stage shown again, a rerun that changes no
    figure): building and converting a lab figure is a tenth of a rerun's script time."""
    key = (build.__module__, build.__qualname__, _key(args), _key(sorted(kwargs.items())))
    return Sent(FIGURES.get(key, lambda: sendable(build(*args, **kwargs))))


def sendable(fig: Figure) -> dict[str, Any]:
    """A built figure in the form Streamlit sends, to be shared."""
    return fig.to_dict()


def figure(
    data: list[Trace], layout: dict[str, Any], frames: list[dict[str, Any]] | None = None
) -> Figure:
    """A figure from plain dicts (and animation frames), skipping Plotly's validation (the slow
    part of a rerun)."""
    layout = {"font": FONT, "template": QUIET_TEMPLATE, **layout}
    return Figure(data, layout, frames)


def grid(
    panels: int, cols: int, titles: list[str], hgap: float = 0.03, vgap: float = 0.1
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
                "font": {"size": 14},
            }
        )
        refs.append((f"x{suffix}", f"y{suffix}"))
    return layout, refs


def panel_title(text: str, x: float, above: bool = True) -> dict[str, Any]:
    """A title over (or, ``above=False``, under) one panel of a figure, centred on paper x."""
    return {
        "text": text,
        "x": x,
        "y": 1.0 if above else 0.0,
        "xref": "paper",
        "yref": "paper",
        "xanchor": "center",
        "yanchor": "bottom" if above else "top",
        "showarrow": False,
        "font": {"size": 15},
    }


def escape(text: str) -> str:
    """User text → safe Plotly label: <, > and & are shown, never interpreted."""
    return html.escape(text, quote=False)


def tick_labels(tokens: tuple[str, ...] | list[str]) -> list[str]:
    """Escaped tokens for tick text."""
    return [escape(token) for token in tokens]


def format_value(value: float, digits: int = 4) -> str:
    """A number with ``digits`` significant digits; never 'nan' or 'inf' shown as a number."""
    if math.isnan(value):
        return "—"
    if math.isinf(value):
        return "\u2212∞" if value < 0 else "+∞"
    return f"{value:.{digits}g}".replace("-", "\u2212")


def format_small(value: float) -> str:
    """A rounding error such as max |Σ − 1|: 0 when exactly 0, else like 2.2 × 10⁻¹⁶."""
    if value == 0:
        return "0"
    mantissa, exponent = f"{value:.1e}".split("e")
    digits = str(int(exponent)).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))
    return f"{mantissa} × 10{digits}"


def format_cell(value: float, kind: str) -> str:
    """A number short enough for a heatmap cell: weights with 2 decimals, scores with 1 or 0."""
    if not math.isfinite(value):
        return format_value(value)
    if kind == "weights":
        return f"{value:.2f}"
    if kind in ("fine", "jacobian"):  # small signed values, such as a softmax Jacobian
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


# Pixels a chart has at a 1280-px-wide screen: the main area with the sidebar open, and in
# presenter mode (sidebar collapsed). Heatmaps are sized to fit them, cells square.
MAIN_WIDTH = {False: 840, True: 1180}
MAX_CELL = {False: 44, True: 48}
MAX_HEIGHT = {False: 520, True: 320}  # of the cells: in presenter mode the figure fits 720 px
CELL_FONT = {False: 13, True: 14}  # cell numbers and ticks: ≥ 12 px, readable on a projector


# em of narrow signs in a sans font
NARROW = {".": 0.3, ",": 0.3, " ": 0.3, "−": 0.6, "-": 0.35, "[": 0.3, "]": 0.3}


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


@dataclass(frozen=True)
class Cells:
    """How a matrix is drawn: square cells of ``size`` px, numbers in them only if they fit."""

    size: int
    font: int
    show_text: bool
    tick_angle: int  # 0, or −90 when the column labels are wider than a cell
    bar_room: float  # px right of the cells for the colour bar


def cells(
    texts: list[list[str]], rows: list[str], cols: list[str], large: bool, share: float, bar: str
) -> Cells:
    """Cell size for a matrix that gets ``share`` of the main area, and whether its numbers fit;
    ``bar`` is the colour bar's widest tick label."""
    font = CELL_FONT[large]
    n, m = len(rows), len(cols)
    bar_room = colour_bar_room(bar)
    label = max((text_width(label, font) for label in rows), default=0)
    room = MAIN_WIDTH[large] * share - (label + label_room(font) + bar_room)
    size = int(min(room / max(m, 1), MAX_CELL[large], MAX_HEIGHT[large] / max(n, 1)))
    size = max(size, 10)
    show_text = numbers_fit(texts, font, size)
    return Cells(size, font, show_text, tick_angle(cols, font, size), bar_room)


def numbers_fit(texts: list[list[str]], font: int, size: float) -> bool:
    """Whether a matrix's numbers fit its cells of ``size`` px, with a gap between neighbours."""
    numbers = {text for row in texts for text in row}  # each distinct number measured once
    widest = max((text_width(text, font) for text in numbers), default=0)
    return widest + 4 <= size and font + 4 <= size


def tick_angle(labels: list[str], font: int, size: float) -> int:
    """Column labels upright while they fit a cell of ``size`` px, else on their side."""
    widest = max((text_width(label, font) for label in labels), default=0)
    return 0 if widest + 2 <= size else -90


def matrix_heatmap(
    z: npt.NDArray[np.float64],
    row_tokens: tuple[str, ...],
    col_tokens: tuple[str, ...],
    *,
    lang: str,
    kind: str,
    allowed: npt.NDArray[np.bool_] | None = None,
    selected_row: int | None = None,
    row_axis: str = "axis_query",
    col_axis: str = "axis_key",
    large: bool = False,
    clickable: bool = False,
    share: float = 1.0,
) -> go.Figure:
    """A labelled heatmap: ``kind`` "scores" (diverging), "fine" (diverging, three decimals) or
    "weights" (0 … 1); ``large`` for a projector; ``share`` of the main area's width. Cells not
    ``allowed`` are greyed out and hover says "masked". With ``clickable``, a transparent square
    over each cell carries the hover and reports clicks (Streamlit 1.67 gives no heatmap clicks).
    """
    n, m = z.shape
    masked = np.zeros((n, m), dtype=bool) if allowed is None else ~allowed
    rows, cols = tick_labels(row_tokens), tick_labels(col_tokens)
    texts = _texts(z, masked, kind)
    colours = _colours(z, kind)
    bar = bar_label(colours["zmin"], colours["zmax"])
    geometry = cells(texts, list(row_tokens), list(col_tokens), large, share, bar)
    axes = (t(row_axis, lang), t(col_axis, lang))
    hover, hovertemplate = _hover(z, masked, rows, cols, axes, t("masked_cell", lang))
    own_hover = {"customdata": hover, "hovertemplate": hovertemplate, "hoverongaps": True}
    hovering = {"hoverinfo": "skip"} if clickable else own_hover
    heatmap = _heatmap(z, masked, kind, colours | hovering)
    if geometry.show_text:
        numbers = np.array(texts).reshape(z.shape)  # an array: copied in one step (see _hover)
        heatmap |= {"text": numbers, "texttemplate": "%{text}", "textfont": {"size": geometry.font}}
    click = _click_layer(hover, hovertemplate, geometry.size)
    traces = [heatmap, click] if clickable else [heatmap]
    return figure(traces, _matrix_layout(rows, cols, axes, geometry, _shapes(masked, selected_row)))


def _heatmap(
    z: npt.NDArray[np.float64],
    masked: npt.NDArray[np.bool_],
    kind: str,
    style: dict[str, Any],
) -> Trace:
    """The heatmap trace: −∞ of masked score cells becomes a gap, not a colour; ``style`` its
    colours and hover."""
    n, m = z.shape
    return {
        "type": "heatmap",
        "z": z if kind == "weights" else np.where(masked & ~np.isfinite(z), np.nan, z),
        "x": np.arange(m),
        "y": np.arange(n),
        "xgap": 1,
        "ygap": 1,
        "colorbar": {"thickness": 14, "len": 0.9, **QUIET_AXIS},
        **style,
    }


JACOBIAN_LIMIT = 0.25  # |p_i(δ_ij − p_j)| ≤ 1/4: a fixed scale, so near zero looks near zero


def _colours(z: npt.NDArray[np.float64], kind: str) -> dict[str, Any]:
    """Weights on 0 … 1 in blues; a softmax Jacobian on ±1/4; scores on a diverging scale
    symmetric about 0 that spans their largest magnitude."""
    if kind == "weights":
        return {"colorscale": BLUES, "zmin": 0.0, "zmax": 1.0}
    if kind == "jacobian":
        return {"colorscale": DIVERGING, "zmin": -JACOBIAN_LIMIT, "zmax": JACOBIAN_LIMIT}
    finite = np.abs(z[np.isfinite(z)])
    limit = float(finite.max()) if finite.size else 1.0
    return {"colorscale": DIVERGING, "zmin": -limit, "zmax": limit}


def _texts(z: npt.NDArray[np.float64], masked: npt.NDArray[np.bool_], kind: str) -> list[list[str]]:
    """Each cell's number as it would be printed (masked weights print nothing)."""
    n, m = z.shape
    return [
        [
            "" if kind == "weights" and masked[i, j] else format_cell(float(z[i, j]), kind)
            for j in range(m)
        ]
        for i in range(n)
    ]


def _hover(
    z: npt.NDArray[np.float64],
    masked: npt.NDArray[np.bool_],
    rows: list[str],
    cols: list[str],
    axes: tuple[str, str],
    masked_word: str,
) -> tuple[npt.NDArray[np.str_], str]:
    """Per cell: its row, its column and its value (or "masked"), (n, m, 3); and the template
    showing them under the axes' own names. A string array, not nested lists: Plotly copies a
    figure's data twice per rerun, an array in one step, a list of lists item by item."""
    n, m = z.shape
    hover = np.array(
        [
            [
                [rows[i], cols[j], masked_word if masked[i, j] else format_value(float(z[i, j]))]
                for j in range(m)
            ]
            for i in range(n)
        ]
    ).reshape(n, m, 3)
    hovertemplate = (
        f"{escape(axes[0])}: %{{customdata[0]}}<br>{escape(axes[1])}: %{{customdata[1]}}<br>"
        "= %{customdata[2]}<extra></extra>"
    )
    return hover, hovertemplate


def _click_layer(hover: npt.NDArray[np.str_], hovertemplate: str, size: int) -> Trace:
    """A nearly transparent square over every cell centre: clicks on it report (x, y)."""
    n, m = hover.shape[:2]
    grid_y, grid_x = np.mgrid[0:n, 0:m]
    return {
        "type": "scatter",
        "x": grid_x.ravel(),
        "y": grid_y.ravel(),
        "mode": "markers",
        "marker": {"symbol": "square", "size": size, "opacity": 0.01, "color": "#000"},
        "selected": {"marker": {"opacity": 0.01}},
        "unselected": {"marker": {"opacity": 0.01}},
        "customdata": hover.reshape(n * m, 3),
        "showlegend": False,
        "hovertemplate": hovertemplate,
    }


def mask_shapes(masked: npt.NDArray[np.bool_]) -> list[dict[str, Any]]:
    """A grey rectangle over each run of masked cells: one shape per run, not per cell."""
    return [
        {
            "type": "rect",
            "x0": start - 0.5,
            "x1": stop - 0.5,
            "y0": i - 0.5,
            "y1": i + 0.5,
            "fillcolor": MASK_COLOUR,
            "opacity": 0.55,
            "line": {"width": 0},
            "layer": "above",
        }
        for i, start, stop in masked_runs(masked)
    ]


def _shapes(masked: npt.NDArray[np.bool_], selected_row: int | None) -> list[dict[str, Any]]:
    """The masked runs greyed out, and an outline round the selected row."""
    n, m = masked.shape
    shapes = mask_shapes(masked)
    if selected_row is not None and 0 <= selected_row < n:
        outline = {"color": SELECT_COLOUR, "width": 3}
        edges = {"x0": -0.5, "x1": m - 0.5, "y0": selected_row - 0.5, "y1": selected_row + 0.5}
        shapes.append({"type": "rect", **edges, "line": outline})
    return shapes


def _matrix_layout(
    rows: list[str],
    cols: list[str],
    axes: tuple[str, str],
    geometry: Cells,
    shapes: list[dict[str, Any]],
) -> dict[str, Any]:
    """Token ticks on both axes (keys on top), titled ``axes`` (rows, columns), row 0 on top,
    square cells, a fixed size. When a cell is smaller than a line of tick text, only every k-th
    token is labelled (hover has all), so that no two labels overlap."""
    n, m = len(rows), len(cols)
    size, font = geometry.size, geometry.font
    every = math.ceil((font + 2) / size)  # 1 while a label fits in a cell
    top = max(text_width(label, font) for label in cols) if geometry.tick_angle else font * 1.3
    left = max((text_width(label, font) for label in rows), default=0)
    margin = held_margin(left, top, font, right=geometry.bar_room)
    return {
        "width": int(margin["l"] + size * m + margin["r"]),
        "height": int(margin["t"] + size * n + margin["b"]),
        "margin": margin,
        "plot_bgcolor": "rgba(128, 128, 128, 0.22)",  # the gaps, on a light or dark theme
        "clickmode": "event+select",
        "dragmode": False,
        "shapes": shapes,
        "xaxis": _token_axis(cols, every, axes[1], font)
        | {"side": "top", "tickangle": geometry.tick_angle, "range": [-0.5, m - 0.5]},
        "yaxis": _token_axis(rows, every, axes[0], font) | {"range": [n - 0.5, -0.5]},
    }


def _token_axis(labels: list[str], every: int, title: str, font: int) -> dict[str, Any]:
    """An axis labelled with every ``every``-th token, no grid, titled."""
    return {
        "tickvals": list(range(0, len(labels), every)),
        "ticktext": labels[::every],
        "title": axis_title(title, font),
        "showgrid": False,
        "zeroline": False,
        "tickfont": {"size": font},
    }


# Plotly draws a chart twice when its labels push the margins past the layout's: it draws, finds
# the labels larger than the margins, and draws again. The builders give margins that already
# hold the labels, so one draw does. The axis title's gap and size are set here, not left to
# Streamlit's theme (which scales them in presenter mode), so that the room is known.
PAD = 4  # px between the plot and its tick labels
TITLE_GAP = 12  # px between the tick labels and the axis title
SLACK = 12  # Plotly's own offsets (tick label standoff, rounding), measured 7 to 9 px


def title_room(font: int) -> float:
    """Pixels an axis title one size above the tick labels takes across, with its gap."""
    return TITLE_GAP + 1.5 * (font + 1)


def label_room(font: int) -> float:
    """Pixels a margin needs beyond its tick labels: the pad, the axis title and Plotly's own."""
    return PAD + title_room(font) + SLACK


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
    label (measured: up to 53 px plus the label)."""
    return 56 + text_width(label, FONT["size"])


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


def positions(n: int) -> list[str]:
    """Position labels x₀ … for numbers that are not tokens."""
    return [f"x{i}" for i in range(n)]
