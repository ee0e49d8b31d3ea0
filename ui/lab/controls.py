"""The lab's controls, all above the figure: the sentence box, then one bar with d, ÷√d, the mask
and a popover with the model's settings. Each widget is built from its field of ``LabParams``
(its URL name and run_lab's parameter)."""

import secrets
from collections.abc import Callable
from dataclasses import replace

import streamlit as st

from ui.kit import state
from ui.kit.display import number_input, picker, preset_control, radio, selectbox, text_input
from ui.kit.display import toggle as switch
from ui.kit.text import t
from ui.lab.settings import TRAINED, Computing, LabParams
from viz_core import SEED_MAX, head_choices

PRESETS = (64, 96, 768, 1536, 6144)
HEADS_PRESETS = ((768, 12), (1536, 16))  # BERT-base, and a wider model
HEADS_RESET = state.Slot("lab", "heads_reset", (0, 0))  # (heads, d) when d stopped dividing them


def _new_seed(settings: type[Computing]) -> None:
    state.put(replace(state.current(settings), seed=secrets.randbelow(SEED_MAX + 1)))


def _set_model(settings: type[Computing], d: int, heads: int) -> None:
    state.put(replace(state.current(settings), d=d, heads=heads, head=0))


def check_lab_heads(settings: type[Computing] = LabParams) -> None:
    """The heads that d and the source allow, checked at the start of every run (the page's and
    the view's), before any widget: heads must divide d, and the head shown must exist."""
    before = state.current(settings) if state.refit_ready(settings) else None
    found = state.refit(settings)
    if before is not None and any(note.key.endswith("heads") for note in found):
        HEADS_RESET.set((before.heads, before.d))


def heads_note(lang: str) -> None:
    """Under the bar: the heads that the new d did not divide, once."""
    heads, d = HEADS_RESET.pop()
    if heads:
        st.caption(t("heads_reset", lang, heads=heads, d=d))


def teacher_bar(params: Computing, lang: str) -> None:
    """The sentence, d with its presets, scaling, the mask and the model's settings, in one row
    that wraps: what a lesson on √d changes, in reach on every screen. ``params``: A's (the
    lab's) or B's, whose widgets these are."""
    settings = type(params)
    with st.container(horizontal=True, gap="small", vertical_alignment="bottom"):
        text_input(settings, "text", t("text_label", lang), help=t("text_help", lang), width=220)
        if params.source == "trained":  # the model's d_k: nothing to choose
            st.badge(t("d_trained", lang, d_k=TRAINED.d_k), icon=":material/lock:", color="gray")
        else:
            number_input(settings, "d", lang, "d_short", step=1, width=130)
            d_presets(settings, lang)
        switch(settings, "scale", t("scale_label_short", lang), help=t("scale_help", lang))
        radio(settings, "mask", lang, "mask_short", horizontal=True, help=t("mask_help", lang))
        with st.popover(
            t("model_header", lang), icon=":material/tune:", help=t("model_help", lang)
        ):
            model_controls(params, lang)


def d_presets(settings: type[Computing], lang: str) -> None:
    """The common sizes of d as one segmented control: a click sets d, and the current d is shown
    selected. Typing another d leaves none selected."""
    preset_control(
        settings,
        "d",
        PRESETS,
        label=t("presets_label", lang),
        format_func=lambda d: f"{d:,}",
        help="  \n".join(f"**{d:,}**: {t(f'preset_{d}', lang)}" for d in PRESETS),
    )


def stage_picker(lang: str) -> str:
    """Which stage the large heatmap shows: ids in the URL, names in the page's language."""
    return picker(LabParams, "stage", lang, "stage")


def model_controls(params: Computing, lang: str) -> None:
    """Where Q, K, V come from, then that source's own settings, the temperature and the
    special tokens."""
    settings = type(params)
    radio(settings, "source", lang, "source")
    if params.source == "trained":
        trained_controls(settings, lang)
    else:
        heads_controls(params, lang)
        disabled = params.source != "embedding"
        help_ = t("position_help", lang)
        switch(settings, "position", t("position_label", lang), help=help_, disabled=disabled)
        number_input(settings, "seed", lang, "seed", step=1)
        key = f"{settings.PAGE}_{settings.PREFIX}new_seed"  # lab_new_seed, lab_b_new_seed
        st.button(
            t("new_random", lang), key=key, on_click=_new_seed, args=(settings,),
            icon=":material/casino:",
        )  # fmt: skip
    number_input(settings, "temperature", lang, "temperature", step=0.05, format="%.2f")
    switch(settings, "special", t("special_label", lang), help=t("special_help", lang))


def _named(letter: str) -> Callable[[int], str]:
    """Layer or head i as the model page names it: L1, H2."""
    return lambda i: f"{letter}{i + 1}"


def trained_controls(settings: type[Computing], lang: str) -> None:
    """The trained model's layer and head."""
    for name, count, letter in (("layer", TRAINED.layers, "L"), ("head", TRAINED.heads, "H")):
        label, help_ = t(f"{name}_label", lang), t(f"{name}_help", lang)
        selectbox(settings, name, label, range(count), help=help_, format_func=_named(letter))
    st.caption(t("trained_why", lang, d_model=TRAINED.d_model, heads=TRAINED.heads))


def heads_controls(params: Computing, lang: str) -> None:
    """The number of heads (divisors of d only), the head shown, and two model presets."""
    settings = type(params)
    choices = head_choices(params.d)
    selectbox(settings, "heads", t("heads_label", lang), choices, help=t("heads_help", lang))
    help_, single = t("head_help", lang), params.heads == 1
    selectbox(
        settings, "head", t("head_label", lang), range(params.heads), help=help_, disabled=single
    )
    with st.container(horizontal=True, gap="small"):
        for d, heads in HEADS_PRESETS:
            st.button(
                f"{d:,} × {heads}",
                key=f"{settings.widget_key('heads')}_preset_{d}",
                help=t(f"heads_preset_{d}", lang),
                on_click=_set_model,
                args=(settings, d, heads),
            )
