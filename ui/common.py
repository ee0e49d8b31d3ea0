"""Display helpers shared by the pages: charts, token chips, safe text, the cached lab call."""

import html
import math
from urllib.parse import urlencode

import plotly.graph_objects as go
import streamlit as st

from ui import figures, state
from ui.kit.cache import shared
from ui.strings import STRINGS, t
from viz_core import LabResult, is_special, run_lab

LAB_CACHE_MB = 64  # the heaviest lab result keeps 15 MB: four of those, or a thousand 9 × 9 ones

CSS = """<style>
.chips{display:flex;flex-wrap:wrap;gap:6px;margin:4px 0 8px}
.chip{border:1px solid #93c5fd;background:#eff6ff;color:#1e3a8a;border-radius:8px;
padding:3px 10px;font-size:1.35rem;line-height:1.6}
.chip.special{background:#f3f4f6;border-color:#d1d5db;color:#4b5563;font-size:1rem}
.chip sub{color:#6b7280;font-size:.75rem;margin-left:3px}
.safe{margin:0 0 .4rem;font-size:1rem}
</style>"""


@shared(max_mb=LAB_CACHE_MB)
def compute_lab(**settings: object) -> LabResult:
    """The lab's one core call per rerun, shared by every session and bounded in bytes.

    The result is immutable (a frozen dataclass of read-only arrays), so every session shares
    one object instead of unpickling a private copy on every rerun; thirty students on one link
    then hold one result, not thirty.
    """
    return run_lab(**settings)  # type: ignore[arg-type]


def alt_text(key: str, lang: str) -> str:
    """The chart's alternative text: by its key, else by its family (the key's first word)."""
    return t(f"alt_{key}" if f"alt_{key}" in STRINGS else f"alt_{key.split('_')[0]}", lang)


def chart(fig: go.Figure, key: str, **kwargs: object) -> None:
    """A Plotly chart with alt text and the app's modebar; its camera button saves <key>.png."""
    config = {
        **figures.CONFIG,
        "toImageButtonOptions": {"format": "png", "scale": 2, "filename": key},
    }
    st.plotly_chart(fig, key=key, config=config, alt=alt_text(key, state.lang()), **kwargs)  # type: ignore[call-overload]


def share_link(query: dict[str, str]) -> None:
    """The full link to this exact view, in a code box with a copy button."""
    base = (st.context.url or "").split("?")[0]
    with st.container(key="share_link"):
        st.caption(t("share_title", state.lang()))
        st.code(f"{base}?{urlencode(query)}", language=None, wrap_lines=True)


def safe_text(text: str, tag: str = "p") -> None:
    """Show text that contains user input or symbols as text: never Markdown, HTML or LaTeX."""
    st.html(f'{CSS}<{tag} class="safe">{html.escape(text)}</{tag}>')


def token_chips(tokens: tuple[str, ...]) -> None:
    """The tokens as numbered chips; every token is escaped."""
    chips = "".join(
        f'<span class="chip{" special" if is_special(token) else ""}">'
        f"{html.escape(token)}<sub>{i}</sub></span>"
        for i, token in enumerate(tokens)
    )
    st.html(f'{CSS}<div class="chips">{chips}</div>')


def scale_latex(d_k: int, temperature: float = 1.0, heads: int = 1) -> str:
    """S' = S / √d (or √d_k per head), with this d's numbers, and the temperature if not 1."""
    name = "d_k" if heads > 1 else "d"
    divisor = math.sqrt(d_k) * temperature
    tempered = "" if temperature == 1 else rf" \cdot {temperature:g}"
    return (
        rf"S' = \frac{{S}}{{\sqrt{{{name}}}{' T' if temperature != 1 else ''}}}"
        rf" = \frac{{S}}{{\sqrt{{{d_k}}}{tempered}}} = \frac{{S}}{{{divisor:.4g}}}"
    )


def mask_latex(lang: str) -> str:
    """M = S' where allowed, −∞ where masked, in the page's language."""
    allowed, masked = t("latex_allowed", lang), t("latex_masked", lang)
    return (
        rf"M_{{ij}} = \begin{{cases}} S'_{{ij}} & \text{{{allowed}}} \\ -\infty & "
        rf"\text{{{masked}}} \end{{cases}}"
    )
