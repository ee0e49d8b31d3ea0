"""Display helpers every page shares: charts, token chips, safe text, the share link."""

import dataclasses
import hashlib
import html
import inspect
from collections.abc import Callable, Hashable, Sequence
from functools import cache
from typing import Any, ParamSpec

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from ui.kit import notes, screen, state
from ui.kit.cache import CACHES, MB, ByteCache, deep_bytes
from ui.kit.figures import CONFIG
from ui.kit.pages import page_named
from ui.kit.text import STRINGS, t
from viz_core import is_special
from viz_core.settings import Settings

CSS = """<style>
.chips{display:flex;flex-wrap:wrap;gap:6px;margin:4px 0 8px}
.chip{border:1px solid #93c5fd;background:#eff6ff;color:#1e3a8a;border-radius:8px;
padding:3px 10px;font-size:1.35rem;line-height:1.6}
.chip.special{background:#f3f4f6;border-color:#d1d5db;color:#4b5563;font-size:1rem}
.chip sub{color:#6b7280;font-size:.75rem;margin-left:3px}
</style>"""
# Inline, not a style sheet: a sheet would be sent again with every such text.
SAFE_STYLE = "margin:0 0 .4rem;font-size:1rem"
P = ParamSpec("P")


def alt_text(key: str, lang: str) -> str:
    """The chart's alternative text: by its key, else by its family (the key's first word)."""
    return t(f"alt_{key}" if f"alt_{key}" in STRINGS else f"alt_{key.split('_')[0]}", lang)


FIGURES_MB = 2  # a 9 × 9 heatmap keeps about 0.1 MB, the heaviest lab figure 0.65 MB
PLOTLY_OBJECT_BYTES = 1500  # what a go.Figure keeps per dict of its properties, as an object


def figure_bytes(fig: go.Figure) -> int:
    """About what a ``go.Figure`` keeps: its properties, and one Plotly object for each dict."""
    # Its own property dicts, read in place: to_plotly_json copies them all first (3× the time,
    # docs/history.md).
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


@cache
def takes_screen(build: Callable[..., Any]) -> bool:
    """Whether a figure builder sizes itself for the screen (takes ``screen``)."""
    return "screen" in inspect.signature(build).parameters


@dataclasses.dataclass(frozen=True)
class Chart:
    """A chart's key and how it is drawn: ``select`` is called when a point is clicked; ``first``:
    the page's main chart, drawn before the rest of the page comes whenever it shows what this
    session has not been sent (``notes.drawn_first``)."""

    key: str
    select: Callable[[], None] | None = None
    first: bool = False


# The options come before the builder, in Chart: PEP 612 allows none between P.args and P.kwargs.
def chart(key: str | Chart, build: Callable[P, object], *args: P.args, **kwargs: P.kwargs) -> None:
    """The chart keyed ``key`` (or ``Chart(key, select=…, first=…)``): ``build(*args, **kwargs)``
    (a figure dict or a ``go.Figure``), with alt text and the app's modebar, whose camera button
    saves <key>.png. A ``go.Figure`` is sent as it is, where Streamlit would validate a dict on
    every run: so each is built once (``shown``). A builder that takes ``screen`` gets this run's
    typography (``ui.kit.typography``): pages never branch on the screen."""
    drawn = key if isinstance(key, Chart) else Chart(key)
    if takes_screen(build):
        # Builders default screen to LAPTOP, so P checks a call without it; it is filled in here.
        kwargs.setdefault("screen", screen.typography(state.present()))
    shows, fig = shown(build, *args, **kwargs)
    image = {"format": "png", "scale": 2, "filename": drawn.key}
    config = {**CONFIG, "toImageButtonOptions": image}
    picked = {"on_select": drawn.select, "selection_mode": "points"} if drawn.select else {}
    # A figure that sets its own width (square heatmap cells) keeps it; the others fill the column.
    width = "content" if fig.layout.width else "stretch"
    alt = alt_text(drawn.key, state.lang())
    st.plotly_chart(fig, key=drawn.key, config=config, alt=alt, width=width, **picked)  # type: ignore[call-overload]
    if drawn.first:
        notes.drawn_first(drawn.key, shows)


def heading(title: str, formula: str = "") -> None:
    """A step's heading and its formula (LaTeX) as one element: each element is built, sent and
    drawn on every run. ``title`` is the app's own text, never the user's (it is Markdown)."""
    st.markdown(f"### {title}" + (f"\n$$\n{formula}\n$$" if formula else ""))


def heading_beside(title: str, formula: str) -> None:
    """A heading and its formula as two elements as wide as their content, for a horizontal
    container that holds them beside its other elements (and wraps when they do not fit)."""
    st.markdown(f"### {title}", width="content")
    if formula:
        st.latex(formula, width="content")


def safe_text(text: str, tag: str = "p", size: str = "1rem") -> None:
    """Show text that contains user input or symbols as text: never Markdown, HTML or LaTeX."""
    style = SAFE_STYLE.replace("1rem", size)
    st.html(f'<{tag} class="safe" style="{style}">{html.escape(text)}</{tag}>')


def token_chips(tokens: tuple[str, ...]) -> None:
    """The tokens as numbered chips; every token is escaped."""
    chips = "".join(
        f'<span class="chip{" special" if is_special(token) else ""}">'
        f"{html.escape(token)}<sub>{i}</sub></span>"
        for i, token in enumerate(tokens)
    )
    st.html(f'{CSS}<div class="chips">{chips}</div>')


def _label(text: str, lang: str, options: dict[str, Any]) -> str:
    """A widget's label ``<text>_label``, and its help ``<text>_help`` when that exists."""
    if f"{text}_help" in STRINGS:
        options.setdefault("help", t(f"{text}_help", lang))
    return t(f"{text}_label", lang)


def number_input(settings: type[Settings], name: str, lang: str, text: str, **options: Any) -> None:
    """A number widget for field ``name`` whose bounds are the ones its URL field declares; its
    label is the string ``<text>_label`` and its help ``<text>_help`` when that exists."""
    spec = settings.spec(name)
    low, high = spec.bounds({})
    kind = int if spec.kind == "integer" else float
    label = _label(text, lang, options)
    key = settings.widget_key(name)
    st.number_input(label, key=key, min_value=kind(low), max_value=kind(high), **options)


def text_input(settings: type[Settings], name: str, label: str, **options: Any) -> None:
    """A text box for field ``name``, as long as the field allows."""
    max_chars = settings.spec(name).max_chars or None
    st.text_input(label, key=settings.widget_key(name), max_chars=max_chars, **options)


def toggle(settings: type[Settings], name: str, label: str, **options: Any) -> None:
    """A switch for a true/false field."""
    st.toggle(label, key=settings.widget_key(name), **options)


def selectbox(
    settings: type[Settings], name: str, label: str, choices: Sequence[Any], **options: Any
) -> None:
    """A select box for field ``name`` over ``choices`` (the ones the page allows now)."""
    st.selectbox(label, choices, key=settings.widget_key(name), **options)


def slider(settings: type[Settings], name: str, label: str, low: int, high: int) -> None:
    """A slider for a whole-number field, from ``low`` to ``high`` (what the page allows now)."""
    st.slider(label, low, high, key=settings.widget_key(name))


def handed_toggle(
    settings: type[Settings], name: str, page: str, label: str, **options: Any
) -> None:
    """A switch on ``page`` for a flag of the settings it reads from another page (the lab's
    ÷√d on /steps), keyed ``<page>_<the other page's key>``: a change goes back to them."""
    key = f"{page}_{settings.widget_key(name)}"
    st.session_state[key] = getattr(state.stored(settings), name)
    st.toggle(label, key=key, on_change=_hand_back, args=(settings, name, key), **options)


def _hand_back(settings: type[Settings], name: str, key: str) -> None:
    changed = {name: bool(st.session_state[key])}
    state.change_handed(dataclasses.replace(state.stored(settings), **changed))


def state_toggle(
    label: str, key: str, value: bool, act: Callable[[bool], None], **options: Any
) -> None:
    """A switch showing ``value`` (a state kept elsewhere, which another device may change) on
    every run, and calling ``act(new)`` only when clicked."""
    st.session_state[key] = value
    st.toggle(label, key=key, on_change=lambda: act(bool(st.session_state[key])), **options)


def presets(
    settings: type[Settings], name: str, values: Sequence[int], label: Callable[[int], str] = str
) -> None:
    """A button for each of ``values`` that sets field ``name`` to it, in one row: columns would
    stack on a phone and push the figure below the first screen."""
    with st.container(horizontal=True, gap="small"):
        for value in values:
            st.button(
                label(value),
                key=f"{settings.widget_key(name)}_{value}",
                on_click=set_field,
                args=(settings, name, value),
                width="stretch",
            )


def set_field(settings: type[Settings], name: str, value: object) -> None:
    """Set one field of a page's settings (a button's callback)."""
    state.put(dataclasses.replace(state.current(settings), **{name: value}))


def preset_control(
    settings: type[Settings], name: str, values: Sequence[int], **options: Any
) -> None:
    """``values`` of a number field as one segmented control: a click sets the field, and its
    value is shown selected when it is one of them; another value leaves none selected."""
    key = f"{settings.widget_key(name)}_preset"
    current = getattr(state.current(settings), name)
    st.session_state[key] = current if current in values else None
    st.segmented_control(
        options.pop("label"), values, key=key, on_change=_preset_chosen, args=(settings, name, key),
        **options,
    )  # fmt: skip


def _preset_chosen(settings: type[Settings], name: str, key: str) -> None:
    """A click on a preset sets the field; a click on the selected one (which clears it) keeps
    it."""
    chosen = st.session_state[key]
    if chosen is not None:
        set_field(settings, name, chosen)


def radio(settings: type[Settings], name: str, lang: str, text: str, **options: Any) -> None:
    """Radio buttons for a choice field: the URL keeps the id, the user reads ``<text>_<id>``."""
    label = _label(text, lang, options)
    st.radio(
        label,
        settings.spec(name).choices,
        key=settings.widget_key(name),
        format_func=lambda choice: t(f"{text}_{choice}", lang),
        **options,
    )


def choose(
    settings: type[Settings], name: str, label: str, choices: Sequence[Any], **options: Any
) -> None:
    """Radio buttons for field ``name`` over ``choices`` (a number's few values, say)."""
    st.radio(label, choices, key=settings.widget_key(name), **options)


def page_link(path: str, label: str) -> None:
    """A link to the page at ``path``, with its icon, as PAGES lists it."""
    page = page_named(path)
    st.page_link(page.file, label=label, icon=page.icon)


def picker(settings: type[Settings], name: str, lang: str, text: str) -> str:
    """Segmented buttons for a choice field (a page's stage or section): the URL keeps the id,
    the user reads ``<text>_<id>``; one is always chosen."""
    spec = settings.spec(name)
    choice = st.segmented_control(
        t(f"{text}_label", lang),
        spec.choices,
        key=settings.widget_key(name),
        required=True,
        format_func=lambda option: t(f"{text}_{option}", lang),
        label_visibility="collapsed",
    )
    return str(choice or spec.choices[0])
