"""Display helpers every page shares: charts, token chips, safe text, the share link."""

import dataclasses
import hashlib
import html
import inspect
from collections.abc import Callable, Hashable, Sequence
from functools import cache
from typing import Any

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from ui.kit import state
from ui.kit.cache import CACHES, MB, ByteCache, deep_bytes
from ui.kit.figures import CONFIG
from ui.kit.settings import Settings
from ui.kit.text import STRINGS, t
from viz_core import is_special

CSS = """<style>
.chips{display:flex;flex-wrap:wrap;gap:6px;margin:4px 0 8px}
.chip{border:1px solid #93c5fd;background:#eff6ff;color:#1e3a8a;border-radius:8px;
padding:3px 10px;font-size:1.35rem;line-height:1.6}
.chip.special{background:#f3f4f6;border-color:#d1d5db;color:#4b5563;font-size:1rem}
.chip sub{color:#6b7280;font-size:.75rem;margin-left:3px}
</style>"""
# Inline, not a style sheet: a sheet would be sent again with every such text.
SAFE_STYLE = "margin:0 0 .4rem;font-size:1rem"


def alt_text(key: str, lang: str) -> str:
    """The chart's alternative text: by its key, else by its family (the key's first word)."""
    return t(f"alt_{key}" if f"alt_{key}" in STRINGS else f"alt_{key.split('_')[0]}", lang)


FIGURES_MB = 2  # a 9 × 9 heatmap keeps about 0.1 MB, the heaviest lab figure 0.65 MB
PLOTLY_OBJECT_BYTES = 1500  # what a go.Figure keeps per dict of its properties, as an object


def figure_bytes(fig: go.Figure) -> int:
    """About what a ``go.Figure`` keeps: its properties, and one Plotly object for each dict."""
    # Its own property dicts, read in place: to_plotly_json copies them all first, 3× the time
    # (/model's heads figure: 16.5 ms against 5.4 ms, see docs/performance.md).
    properties = [fig._data, fig._layout]
    return deep_bytes(properties) + PLOTLY_OBJECT_BYTES * _dicts(properties)


def _dicts(value: object) -> int:
    """How many dicts a tree of plain values holds."""
    if isinstance(value, dict):
        return 1 + sum(_dicts(item) for item in value.values())
    return sum(_dicts(item) for item in value) if isinstance(value, list | tuple) else 0


FIGURES = ByteCache("figures", FIGURES_MB * MB, measure=figure_bytes, cycles=True)
CACHES.append(FIGURES)


def figure_key(value: Any) -> Hashable:
    """A hashable stand-in for a builder's argument: arrays by their shape, type and bytes,
    dataclasses (settings, core results) by their fields."""
    if isinstance(value, np.ndarray):
        digest = hashlib.blake2b(np.ascontiguousarray(value).tobytes(), digest_size=16)
        return value.shape, value.dtype.str, digest.digest()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = (getattr(value, field.name) for field in dataclasses.fields(value))
        return type(value).__qualname__, tuple(figure_key(field) for field in fields)
    if isinstance(value, dict):
        return tuple((key, figure_key(item)) for key, item in sorted(value.items()))
    if isinstance(value, slice):  # unhashable before Python 3.12
        return slice, value.start, value.stop, value.step
    if isinstance(value, list | tuple):
        return tuple(figure_key(item) for item in value)
    return value  # type: ignore[no-any-return]  # numbers, text, None: hashable as they are


def shown(build: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Hashable, go.Figure]:
    """``build(*args, **kwargs)`` as a ``go.Figure``, built and validated once for these
    arguments and shared by every session (read-only: Streamlit sends a copy of it), and the
    key it is kept under: what the figure shows."""
    key = (build.__module__, build.__qualname__, figure_key(args), figure_key(kwargs))

    def make() -> go.Figure:
        fig = build(*args, **kwargs)
        return fig if isinstance(fig, go.Figure) else go.Figure(fig)

    return key, FIGURES.get(key, make)


def clicked_point(selection: object) -> dict[str, Any] | None:
    """The first point of a chart's click event (``select`` in ``chart``), or None when the event
    holds no usable point: the browser sends it, so nothing about its shape is trusted."""
    points = getattr(selection, "get", lambda *_: None)("selection") or {}
    points = points.get("points", []) if isinstance(points, dict) else []
    return points[0] if points and isinstance(points[0], dict) else None


SCREEN = {"large": state.present, "phone": state.phone}  # what a builder may size itself for


@cache
def screen_options(build: Callable[..., Any]) -> tuple[str, ...]:
    """The screen options a figure builder takes: ``large`` (a projector), ``phone``; all of
    them for one that takes ``**screen`` (``Unpack[Screen]``) to pass on to ``heatmap``."""
    parameters = inspect.signature(build).parameters
    return tuple(name for name in SCREEN if name in parameters or "screen" in parameters)


def chart(
    key: str,
    build: Callable[..., Any],
    *args: Any,
    select: Callable[[], None] | None = None,
    first: bool = False,
    **kwargs: Any,
) -> None:
    """The chart keyed ``key``: ``build(*args, **kwargs)`` (a figure dict or a ``go.Figure``),
    with alt text and the app's modebar, whose camera button saves <key>.png; ``select`` is
    called when a point is clicked. ``first``: the page's main chart, drawn before the rest of
    the page comes whenever it shows what this session has not been sent (``state.drawn_first``).
    A ``go.Figure`` is sent as it is, where Streamlit would validate a dict on every run: so each
    is built once (``shown``). A builder that takes ``large`` or ``phone`` gets it from the
    screen: pages never branch on it."""
    for name in screen_options(build):
        kwargs.setdefault(name, SCREEN[name]())
    shows, fig = shown(build, *args, **kwargs)
    config = {**CONFIG, "toImageButtonOptions": {"format": "png", "scale": 2, "filename": key}}
    picked = {"on_select": select, "selection_mode": "points"} if select else {}
    # A figure that sets its own width (square heatmap cells) keeps it; the others fill the column.
    width = "content" if fig.layout.width else "stretch"
    alt = alt_text(key, state.lang())
    st.plotly_chart(fig, key=key, config=config, alt=alt, width=width, **picked)  # type: ignore[call-overload]
    if first:
        state.drawn_first(key, shows)


def heading(title: str, formula: str = "") -> None:
    """A step's heading and its formula (LaTeX) as one element: each element is built, sent and
    drawn on every run. ``title`` is the app's own text, never the user's (it is Markdown)."""
    st.markdown(f"### {title}" + (f"\n$$\n{formula}\n$$" if formula else ""))


def safe_text(text: str, tag: str = "p") -> None:
    """Show text that contains user input or symbols as text: never Markdown, HTML or LaTeX."""
    st.html(f'<{tag} class="safe" style="{SAFE_STYLE}">{html.escape(text)}</{tag}>')


def token_chips(tokens: tuple[str, ...]) -> None:
    """The tokens as numbered chips; every token is escaped."""
    chips = "".join(
        f'<span class="chip{" special" if is_special(token) else ""}">'
        f"{html.escape(token)}<sub>{i}</sub></span>"
        for i, token in enumerate(tokens)
    )
    st.html(f'{CSS}<div class="chips">{chips}</div>')


def number_input(settings: type[Settings], key: str, lang: str, text: str, **options: Any) -> None:
    """A number widget keyed ``key`` whose bounds are the ones its URL field declares; its label
    is the string ``<text>_label`` and its help ``<text>_help`` when that exists."""
    spec = settings.spec(key)
    low, high = spec.bounds({})
    kind = int if spec.kind == "integer" else float
    if f"{text}_help" in STRINGS:
        options["help"] = t(f"{text}_help", lang)
    label = t(f"{text}_label", lang)
    st.number_input(label, key=key, min_value=kind(low), max_value=kind(high), **options)


def presets(
    key: str, values: Sequence[int], prefix: str, label: Callable[[int], str] = str
) -> None:
    """A button for each of ``values`` (keyed ``<prefix><value>``) that sets ``key`` to it, in
    one row: columns would stack on a phone and push the figure below the first screen."""
    with st.container(horizontal=True, gap="small"):
        for value in values:
            st.button(
                label(value),
                key=f"{prefix}{value}",
                on_click=_set,
                args=(key, value),
                width="stretch",
            )


def _set(key: str, value: object) -> None:
    st.session_state[key] = value


def radio(settings: type[Settings], key: str, lang: str, text: str, **options: Any) -> None:
    """Radio buttons for a choice field: the URL keeps the id, the user reads ``<text>_<id>``."""
    if f"{text}_help" in STRINGS:
        options["help"] = t(f"{text}_help", lang)
    st.radio(
        t(f"{text}_label", lang),
        settings.spec(key).choices,
        key=key,
        format_func=lambda choice: t(f"{text}_{choice}", lang),
        **options,
    )


def train_link(lang: str) -> None:
    """Where a page says "cannot learn": a link to the page that tests the claim."""
    st.page_link("ui/train/page.py", label=t("train_link", lang), icon=":material/fitness_center:")


def model_link(lang: str) -> None:
    """Where a page says its random weights differ from the article's: the trained model."""
    st.page_link("ui/model/page.py", label=t("model_link", lang), icon=":material/psychology:")


def picker(settings: type[Settings], key: str, lang: str, text: str) -> str:
    """Segmented buttons for a choice field (a page's stage or section): the URL keeps the id,
    the user reads ``<text>_<id>``; one is always chosen."""
    spec = settings.spec(key)
    choice = st.segmented_control(
        t(f"{text}_label", lang),
        spec.choices,
        key=key,
        required=True,
        format_func=lambda option: t(f"{text}_{option}", lang),
        label_visibility="collapsed",
    )
    return str(choice or spec.choices[0])
