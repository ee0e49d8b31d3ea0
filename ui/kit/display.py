"""Display helpers every page shares: charts, token chips, safe text, the share link."""

import html
from typing import Any

import plotly.graph_objects as go
import streamlit as st

from ui.kit import state
from ui.kit.figures import CONFIG, Figure
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
# Inline, not a style sheet: a page has several such texts, and each sheet was 0.4 kB sent anew.
SAFE_STYLE = "margin:0 0 .4rem;font-size:1rem"


def alt_text(key: str, lang: str) -> str:
    """The chart's alternative text: by its key, else by its family (the key's first word)."""
    return t(f"alt_{key}" if f"alt_{key}" in STRINGS else f"alt_{key.split('_')[0]}", lang)


def chart(fig: go.Figure, key: str, **kwargs: object) -> None:
    """A Plotly chart with alt text and the app's modebar; its camera button saves <key>.png."""
    config = {
        **CONFIG,
        "toImageButtonOptions": {"format": "png", "scale": 2, "filename": key},
    }
    # A figure that sets its own width (square heatmap cells) keeps it; the others fill the column.
    width = fig.fixed_width if isinstance(fig, Figure) else fig.layout.width
    kwargs.setdefault("width", "content" if width else "stretch")
    st.plotly_chart(fig, key=key, config=config, alt=alt_text(key, state.lang()), **kwargs)  # type: ignore[call-overload]


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
