"""The lab's controls, all above the figure: the sentence box, then one bar with d, ÷√d, the mask
and a popover with the model's settings. Every widget's key is its URL name and its parameter
name in the core."""

import secrets

import streamlit as st

from ui.kit.display import number_input, picker, radio
from ui.kit.text import t
from ui.lab.settings import MAX_TEXT_CHARS, TRAINED, LabParams
from viz_core import SEED_MAX, head_choices

PRESETS = (64, 96, 768, 1536, 6144)
HEADS_PRESETS = ((768, 12), (1536, 16))  # BERT-base, and a wider model


def _new_seed() -> None:
    st.session_state.seed = secrets.randbelow(SEED_MAX + 1)


def _set_model(d: int, heads: int) -> None:
    st.session_state.d = d
    st.session_state.heads = heads
    st.session_state.head = 0


def text_box(lang: str) -> None:
    """The sentence: each character becomes a token."""
    st.text_input(
        t("text_label", lang),
        key="text",
        help=t("text_help", lang),
        max_chars=MAX_TEXT_CHARS,
        width=220,
    )


HEADS_NOTE = "_heads_reset"  # (heads, d) when d stopped dividing the heads: said once


def fit_heads() -> None:
    """The heads that d and the source allow, derived at the start of every run (the page's and
    the view's), before any widget: heads must divide d, and the head shown must exist."""
    session = st.session_state
    if "heads" not in session:  # a first run: the link's settings are checked as they are read
        return
    trained = session.source == "trained"
    if not trained and int(session.heads) not in head_choices(int(session.d)):
        session[HEADS_NOTE] = (int(session.heads), int(session.d))
        session.heads = 1
    if int(session.head) >= (TRAINED.heads if trained else int(session.heads)):
        session.head = 0


def heads_note(lang: str) -> None:
    """Under the bar: the heads that the new d did not divide, once."""
    reset = st.session_state.pop(HEADS_NOTE, None)
    if reset is not None:
        st.caption(t("heads_reset", lang, heads=reset[0], d=reset[1]))


def teacher_bar(lang: str) -> None:
    """The sentence, d with its presets, scaling, the mask and the model's settings, in one row
    that wraps: what a lesson on √d changes, in reach on every screen."""
    trained = st.session_state.source == "trained"
    with st.container(horizontal=True, gap="small", vertical_alignment="bottom"):
        text_box(lang)
        if trained:  # the model's d_k: nothing to choose
            st.badge(t("d_trained", lang, d_k=TRAINED.d_k), icon=":material/lock:", color="gray")
        else:
            number_input(LabParams, "d", lang, "d_short", step=1, width=130)
            d_presets(lang)
        st.toggle(t("scale_label_short", lang), key="scale", help=t("scale_help", lang))
        radio(LabParams, "mask", lang, "mask_short", horizontal=True, help=t("mask_help", lang))
        with st.popover(
            t("model_header", lang), icon=":material/tune:", help=t("model_help", lang)
        ):
            model_controls(lang)


def d_presets(lang: str) -> None:
    """The common sizes of d as one segmented control: a click sets d, and the current d is shown
    selected. Typing another d leaves none selected."""
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


def stage_picker(lang: str) -> str:
    """Which stage the large heatmap shows: ids in the URL, names in the page's language."""
    return picker(LabParams, "stage", lang, "stage")


def model_controls(lang: str) -> None:
    """Where Q, K, V come from, then that source's own settings, the temperature and the
    special tokens."""
    radio(LabParams, "source", lang, "source")
    if st.session_state.source == "trained":
        trained_controls(lang)
    else:
        heads_controls(lang)
        st.toggle(
            t("position_label", lang),
            key="position",
            help=t("position_help", lang),
            disabled=st.session_state.source != "embedding",
        )
        number_input(LabParams, "seed", lang, "seed", step=1)
        st.button(
            t("new_random", lang), key="new_seed", on_click=_new_seed, icon=":material/casino:"
        )
    number_input(LabParams, "temperature", lang, "temperature", step=0.05, format="%.2f")
    st.toggle(t("special_label", lang), key="special", help=t("special_help", lang))


def trained_controls(lang: str) -> None:
    """The trained model's layer and head."""
    st.selectbox(t("layer_label", lang), range(TRAINED.layers), key="layer",
                 format_func=lambda i: f"L{i + 1}", help=t("layer_help", lang))  # fmt: skip
    st.selectbox(t("head_label", lang), range(TRAINED.heads), key="head",
                 format_func=lambda i: f"H{i + 1}", help=t("head_help", lang))  # fmt: skip
    st.caption(t("trained_why", lang, d_model=TRAINED.d_model, heads=TRAINED.heads))


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
