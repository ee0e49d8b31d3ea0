"""The lab's controls: the sidebar, the sentence box, and the bar above the figure. Every
widget's key is its URL name and its parameter name in the core."""

import secrets

import streamlit as st

from ui.kit.display import number_input, picker, radio
from ui.kit.text import t
from ui.lab.settings import MAX_TEXT_CHARS, LabParams
from viz_core import SEED_MAX, head_choices

PRESETS = (64, 96, 768, 1536, 6144)
HEADS_PRESETS = ((768, 12), (1536, 16))  # BERT-base, and a wider model


def _new_seed() -> None:
    st.session_state.seed = secrets.randbelow(SEED_MAX + 1)


def _set_model(d: int, heads: int) -> None:
    st.session_state.d = d
    st.session_state.heads = heads
    st.session_state.head = 0


def controls(lang: str) -> None:
    """The sidebar: what a lesson changes less often than the sentence, d, scaling and the mask,
    which sit above the figure (``text_box``, ``teacher_bar``)."""
    with st.sidebar:
        st.header(t("controls", lang))
        st.toggle(t("special_label", lang), key="special", help=t("special_help", lang))
        number_input(LabParams, "seed", lang, "seed", step=1)
        st.button(
            t("new_random", lang), key="new_seed", on_click=_new_seed, icon=":material/casino:"
        )
        model_controls(lang)


def text_box(lang: str) -> None:
    """The sentence: each character becomes a token."""
    st.text_input(
        t("text_label", lang), key="text", help=t("text_help", lang), max_chars=MAX_TEXT_CHARS
    )


def teacher_bar(lang: str) -> None:
    """d with its presets, scaling and the mask, side by side above the figure: what a lesson on
    √d changes, in reach without opening the sidebar. One row that wraps, not columns: columns
    are a block each, built and sent on every run."""
    with st.container(horizontal=True, gap="medium", vertical_alignment="bottom"):
        help_d = t("d_help", lang)
        number_input(
            LabParams, "d", lang, "d_short", step=1, help=help_d, on_change=fit_heads, width=130
        )
        d_presets(lang)
        st.toggle(t("scale_label_short", lang), key="scale", help=t("scale_help", lang))
        radio(LabParams, "mask", lang, "mask_short", horizontal=True, help=t("mask_help", lang))


def d_presets(lang: str) -> None:
    """The common sizes of d as one segmented control: a click sets d, and the current d is shown
    selected (one widget, not five buttons: each widget is hashed, registered and sent on every
    rerun). Typing another d leaves none selected."""
    current = st.session_state.d
    st.session_state.d_preset = current if current in PRESETS else None
    st.segmented_control(
        t("presets_label", lang),
        PRESETS,
        key="d_preset",
        format_func=lambda d: f"{d:,}",
        help="  \n".join(f"**{d:,}**: {t(f'preset_{d}', lang)}" for d in PRESETS),
        on_change=_preset_chosen,
    )


def _preset_chosen() -> None:
    """A click on a preset sets d; a click on the selected one (which clears it) keeps d."""
    chosen = st.session_state.d_preset
    if chosen is not None:
        st.session_state.d = chosen
        fit_heads()


def stage_picker(lang: str) -> str:
    """Which stage the large heatmap shows: ids in the URL, names in the page's language."""
    return picker(LabParams, "stage", lang, "stage")


MODEL_KEYS = ("heads", "head", "source", "position", "temperature")
SIDEBAR_D = "_sidebar_d"  # the d that the sidebar's list of heads was drawn for
HEADS_NOTE = "_heads_reset"  # (heads, d) when a new d did not divide the heads: said once


def sidebar_is_stale() -> bool:
    """Whether d, set above the figure in a run of the view alone, has left the sidebar's open
    model controls listing the heads of another d."""
    session = st.session_state
    return bool(session.get("show_model")) and session.d != session.get(SIDEBAR_D, session.d)


def model_controls(lang: str) -> None:
    """Heads, where Q/K/V come from, and the temperature, behind a switch: open when any of them
    differs from its default (a link that sets one opens it), closed for the first lesson.
    Closed, they keep their values (restored from the page's last run) and cost no widgets."""
    st.session_state[SIDEBAR_D] = st.session_state.d
    defaults = LabParams()
    changed = any(st.session_state[key] != getattr(defaults, key) for key in MODEL_KEYS)
    st.session_state.setdefault("show_model", changed)
    if not st.toggle(t("model_header", lang), key="show_model", help=t("model_help", lang)):
        return
    heads_controls(lang)
    radio(LabParams, "source", lang, "source")
    st.toggle(
        t("position_label", lang),
        key="position",
        help=t("position_help", lang),
        disabled=st.session_state.source != "embedding",
    )
    number_input(LabParams, "temperature", lang, "temperature", step=0.05, format="%.2f")


def fit_heads() -> None:
    """After d changed: heads must divide d, and the head shown must exist (shown or not, the
    heads setting must fit); ``heads_note`` says what was reset."""
    session = st.session_state
    if int(session.heads) not in head_choices(int(session.d)):
        session[HEADS_NOTE] = (int(session.heads), int(session.d))
        session.heads = 1
    if int(session.head) >= int(session.heads):
        session.head = 0


def heads_note(lang: str) -> None:
    """Under d: the heads that the new d did not divide, once."""
    reset = st.session_state.pop(HEADS_NOTE, None)
    if reset is not None:
        heads, d = reset
        st.caption(t("heads_reset", lang, heads=heads, d=d))


def heads_controls(lang: str) -> None:
    """The number of heads (divisors of d only), the head shown, and two model presets."""
    session = st.session_state
    options = head_choices(int(session.d))
    st.selectbox(t("heads_label", lang), options, key="heads", help=t("heads_help", lang))
    st.selectbox(
        t("head_label", lang),
        range(int(session.heads)),
        key="head",
        help=t("head_help", lang),
        disabled=int(session.heads) == 1,
    )
    with st.container(horizontal=True, gap="small"):
        for d, heads in HEADS_PRESETS:
            st.button(
                f"{d:,} × {heads}",
                key=f"heads_preset_{d}",
                help=t(f"heads_preset_{d}", lang),
                on_click=_set_model,
                args=(d, heads),
            )
