"""Lesson: the same sentence, four changes to the matrix — GQA, a sliding window, RoPE and
cross-attention, each checked against the plain computation it replaces."""

from dataclasses import replace
from functools import partial

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from ui.kit import notes, state
from ui.kit.display import chart, number_input, picker, radio, safe_text, selectbox, text_input
from ui.kit.figures import format_value
from ui.kit.text import t
from ui.lab.settings import LabParams
from ui.variants import figures
from ui.variants.compute import (
    AlignView,
    VariantsResult,
    aligned,
    compute_variants,
    same_token_row,
    sentence,
    strongest,
    translated,
)
from ui.variants.settings import TRANSLATOR, VariantsParams
from viz_core import KV_CACHE_MODELS, head_choices
from viz_core.settings import Note

MISTRAL_WINDOW = 4096  # Mistral-7B's sliding window
MISTRAL_LAYERS = 32
CLEAR_WORD = 0.5  # a character whose largest weight on one word is below this draws on several
STEP = state.Slot("variants", "translate_step", 0)  # characters of the translation shown
STEP_OF = state.Slot("variants", "translate_of", "")  # of which English sentence


def fit_gqa_heads(d: int) -> list[Note]:
    """q_heads must divide the lab's d and kv_heads must divide q_heads: else the largest that
    does, with a note naming the key and the value used."""
    params, found = state.current(VariantsParams), []
    q_heads, kv_heads = params.q_heads, params.kv_heads
    if d % q_heads:
        q_heads = max(h for h in head_choices(d) if h <= q_heads)
        found.append(Note("q_heads", str(q_heads)))
    if q_heads % kv_heads:
        kv_heads = max(h for h in range(1, q_heads + 1) if q_heads % h == 0 and h <= kv_heads)
        found.append(Note("kv_heads", str(kv_heads)))
    state.put(replace(params, q_heads=q_heads, kv_heads=kv_heads))
    return found


def render() -> None:
    """Variant picker, one cached core call, then the chosen variant."""
    lang = state.open_page("vr_title", "vr_intro", VariantsParams)
    lab = state.stored(LabParams)
    notes.show_notes(fit_gqa_heads(lab.d), lang)
    variant = picker(VariantsParams, "variant", lang, "vr_variant")
    tokens, _ = sentence(lab.text, lab.special)
    if len(tokens) - (2 if lab.special else 0) <= 0:
        st.info(t("empty_text", lang), icon=":material/edit:")
    else:
        SECTIONS[str(variant)](lab, lang)
    state.close_page(lab, state.current(VariantsParams))


def split() -> tuple[DeltaGenerator, DeltaGenerator]:
    """Controls, formula and why on the left, the figure on the right (a 1280 × 720 screen)."""
    left, right = st.columns([1, 2], gap="medium")
    return left, right


def result_for(lab: LabParams) -> VariantsResult:
    """The page's one core call: this page's settings with the lab's sentence, d, seed, scaling
    and row (the lab's tokens: its row is the same token here)."""
    return compute_variants(state.current(VariantsParams), lab)


def source_note(lab: LabParams, lang: str) -> None:
    """Where Q, K, V come from on this page (the lab may use embeddings instead)."""
    fields = {"d": lab.d, "seed": lab.seed, "scale": t(f"vr_scale_{str(lab.scale).lower()}", lang)}
    st.caption(t("vr_source", lang, **fields))


# --- GQA -------------------------------------------------------------------------------------


def gqa_section(lab: LabParams, lang: str) -> None:
    """Query heads sharing key/value heads: the sharing, the weights, the cache saved."""
    st.subheader(t("vr_gqa_title", lang))
    left, right = split()
    with left:
        selectbox(VariantsParams, "q_heads", t("vr_q_heads_label", lang), head_choices(lab.d))
        q_heads = state.current(VariantsParams).q_heads
        divisors = [h for h in range(1, q_heads + 1) if q_heads % h == 0]
        label, help_ = t("vr_kv_heads_label", lang), t("vr_kv_heads_help", lang)
        selectbox(VariantsParams, "kv_heads", label, divisors, help=help_)
        result = result_for(lab)
        view = result.gqa
        st.latex(
            r"\begin{gathered} g(h) = \lfloor h / (H / H_{kv}) \rfloor \\"
            r" S_h = Q_h K_{g(h)}^{\top} / \sqrt{d_k} \\"
            r" O_h = \operatorname{softmax}(S_h)\, V_{g(h)} \end{gathered}"
        )
        group = view.q_heads // view.kv_heads
        fields: dict[str, object] = {"q_heads": view.q_heads, "kv_heads": view.kv_heads}
        fields["group"] = group
        safe_text(t("vr_gqa_why", lang, token=result.tokens[result.row], **fields))
    with right:
        chart(
            "gqa_heads", figures.gqa_heads, view, result.tokens, result.row, lang=lang,
                    )  # fmt: skip
    fields = {"loop": format_value(view.loop_error, 2), "change": format_value(view.mha_change, 3)}
    safe_text(t("vr_gqa_check", lang, **fields))
    safe_text(gqa_cache_text(result, lang))
    source_note(lab, lang)


def gqa_cache_text(result: VariantsResult, lang: str) -> str:
    """The cache per token and layer, for this setting and for a real model."""
    view, n = result.gqa, len(result.tokens)
    kv, full = 2 * view.kv_heads * view.d_k, 2 * view.q_heads * view.d_k
    text = t(
        "vr_gqa_cache",
        lang,
        kv_heads=view.kv_heads,
        q_heads=view.q_heads,
        d_k=view.d_k,
        kv=f"{kv:,}",
        full=f"{full:,}",
        n=n,
        kv_total=f"{kv * n:,}",
        full_total=f"{full * n:,}",
        ratio=f"{full / kv:g}",
    )
    for model in KV_CACHE_MODELS:
        if model.kv_heads < model.heads:
            ratio = f"{model.heads / model.kv_heads:g}"
            fields = {"model": model.name, "heads": model.heads, "kv_heads": model.kv_heads}
            text += " " + t("vr_gqa_real", lang, ratio=ratio, **fields)
    return text


# --- sliding window --------------------------------------------------------------------------


def window_section(lab: LabParams, lang: str) -> None:
    """Causal attention inside a window: what the last token can no longer see."""
    st.subheader(t("vr_window_title", lang))
    left, right = split()
    with left:
        number_input(VariantsParams, "window", lang, "vr_window", step=1)
        result = result_for(lab)
        st.latex(
            r"\begin{gathered} M_{ij} = \begin{cases} 0 & i - w < j \le i \\"
            r" -\infty & \text{otherwise} \end{cases} \\"
            r" A = \operatorname{softmax}\!\big(QK^{\top}/\sqrt{d} + M\big) \end{gathered}"
        )
        safe_text(window_why(result, lang))
    last = len(result.tokens) - 1
    with right:
        view = result.window
        chart(
            "window_heatmap", figures.window_heatmap, view, result.tokens, last, lang=lang,
                    )  # fmt: skip
    safe_text(t("vr_window_check", lang, error=format_value(result.window.renorm_error, 2)))
    reach = f"{MISTRAL_LAYERS * (MISTRAL_WINDOW - 1):,}"
    fields = {"window": f"{MISTRAL_WINDOW:,}", "layers": MISTRAL_LAYERS, "reach": reach}
    safe_text(t("vr_window_mistral", lang, **fields))
    source_note(lab, lang)


def window_why(result: VariantsResult, lang: str) -> str:
    """What the window cuts, for the last token and in total."""
    view, tokens = result.window, result.tokens
    n, last = len(tokens), len(tokens) - 1
    if view.window >= n:
        return t("vr_window_all", lang, window=view.window, n=n)
    seen = [tokens[j] for j in range(n) if view.allowed[last, j]]
    lost = [tokens[j] for j in range(last + 1) if not view.allowed[last, j]]
    causal_pairs = n * (n + 1) // 2
    return t(
        "vr_window_why",
        lang,
        window=view.window,
        before=view.window - 1,
        token=tokens[last],
        seen=" ".join(seen),
        lost=" ".join(lost),
        cut=causal_pairs - int(view.allowed.sum()),
        pairs=causal_pairs,
    )


# --- RoPE ------------------------------------------------------------------------------------


def rope_section(lab: LabParams, lang: str) -> None:
    """Rotary positions against added ones: a score that depends on the distance only."""
    st.subheader(t("vr_rope_title", lang))
    result = result_for(lab)
    view = result.rope
    if view is None:
        st.info(t("vr_rope_d1", lang), icon=":material/rotate_right:")
        return
    left, right = split()
    with left:
        st.latex(
            r"\begin{gathered} (R_m q)^{\top} (R_n k) = q^{\top} R_{n-m}\, k \\"
            r" (q + p_m)^{\top}(k + p_n) \\"
            r" = q^{\top}k + q^{\top}p_n + p_m^{\top}k + p_m^{\top}p_n \end{gathered}"
        )
        fields = {"token": result.tokens[result.row], "d": view.d_rope}
        fields |= {
            "rope": format_value(view.rope_spread, 2),
            "absolute": format_value(view.absolute_spread, 3),
        }
        safe_text(t("vr_rope_why", lang, plain=format_value(view.plain, 3), **fields))
    with right:
        chart("rope_scores", figures.rope_scores, view, lang=lang)
    first, second = view.demo_rows
    gaps = {
        "plain": format_value(abs(view.demo_plain[0] - view.demo_plain[1]).max(), 2),
        "rope": format_value(abs(view.demo_rope[0] - view.demo_rope[1]).max(), 3),
        "weights_plain": format_value(view.demo_weight_gaps[0], 2),
        "weights_rope": format_value(view.demo_weight_gaps[1], 3),
    }
    safe_text(t("vr_rope_demo", lang, first=first, second=second, **gaps))
    source_note(lab, lang)


# --- cross-attention -------------------------------------------------------------------------


def cross_section(lab: LabParams, lang: str) -> None:
    """Queries from one sentence, keys and values from another: the trained translator's, or
    seeded random ones."""
    st.subheader(t("vr_cross_title", lang))
    left, right = split()
    with left:
        radio(VariantsParams, "cross_source", lang, "vr_cross_source", horizontal=True)
        label, help_ = t("vr_text_b_label", lang), t("vr_text_b_help", lang)
        text_input(VariantsParams, "text_b", label, help=help_)
    if state.current(VariantsParams).cross_source == "trained":
        trained_cross(lab, lang, left, right)
    else:
        random_cross(lab, lang, left, right)


def random_cross(lab: LabParams, lang: str, left: DeltaGenerator, right: DeltaGenerator) -> None:
    """The lab's random queries over a second sentence's random keys: how, not what."""
    with left:
        result = result_for(lab)
        st.latex(
            r"\begin{gathered} Q = X_A W_Q \\ K = X_B W_K,\quad V = X_B W_V \\"
            r" O = \operatorname{softmax}(Q K^{\top} / \sqrt{d})\, V \end{gathered}"
        )
        view = result.cross
        if view is not None:
            fields = {"n": len(result.tokens), "m": len(view.tokens_b), "d": lab.d}
            safe_text(t("vr_cross_why", lang, seed=lab.seed + 1, **fields))
    if view is None:
        st.info(t("vr_cross_empty", lang), icon=":material/edit:")
        return
    with right:
        chart(
            "cross_heatmap", figures.cross_heatmap, view, result.tokens, result.row, lang=lang,
        )  # fmt: skip
    if view.dropped_b:
        st.info(t("vr_cross_capped", lang, dropped=view.dropped_b), icon=":material/content_cut:")
    error = float(abs(view.weights.sum(axis=1) - 1).max())
    safe_text(
        t("vr_cross_check", lang, error=format_value(error, 2), n=len(result.tokens), d=lab.d)
    )
    source_note(lab, lang)


def trained_cross(lab: LabParams, lang: str, left: DeltaGenerator, right: DeltaGenerator) -> None:
    """The translator reads the English (text_b) and writes the lab's sentence: each row is the
    step that produced a character, over the English words."""
    with left:
        with st.container(horizontal=True):
            layers = range(TRANSLATOR.decoder_layers)
            selectbox(VariantsParams, "cross_layer", t("vr_cross_layer_label", lang), layers,
                      format_func=lambda i: f"L{i + 1}")  # fmt: skip
            radio(VariantsParams, "cross_head", lang, "vr_cross_head", horizontal=True)
        params = state.current(VariantsParams)
        layer, head = params.cross_layer, params.cross_head
        view = aligned(params.text_b, lab.text, layer, head)
        st.latex(  # three lines, as the other sections': on one it ran past a phone's edge
            r"\begin{gathered} Q = H_{\text{dec}} W_Q \\"
            r" K = H_{\text{enc}} W_K,\quad V = H_{\text{enc}} W_V \\"
            r" A = \operatorname{softmax}(Q K^{\top} / \sqrt{d_k}) \end{gathered}"
        )
    if view is None:
        st.info(t("vr_cross_empty_trained", lang), icon=":material/edit:")
        return
    with right:
        # The lab's row names a token of the lab's sentence: here, the row of that same
        # character (the translator's rows have no [CLS]: row 2 is 欢 here, 喜 in the lab).
        row = same_token_row(sentence(lab.text, lab.special)[0], lab.row, view.target)
        chart("cross_heatmap", figures.alignment_heatmap, view, row, lang=lang)
    alignment_text(view, lang)
    translation_steps(params.text_b, layer, head, lab.text, lang)


def alignment_text(view: AlignView, lang: str) -> None:
    """Which word each character mostly attends to, where it is not one-to-one, and what
    differs from self-attention: every word and number from the weights."""
    found = strongest(view)
    pairs = ("，" if lang == "zh" else ", ").join(f"{c} ← {w} ({p:.2f})" for c, w, p in found)
    safe_text(t("vr_cross_found", lang, pairs=pairs))
    found = [(c, w, p) for c, w, p in found if c != "[EOS]"]  # the characters only, from here
    shared_words: dict[str, list[str]] = {}
    for character, word, _ in found:
        shared_words.setdefault(word, []).append(character)
    many = [f"{''.join(chars)} ← {word}" for word, chars in shared_words.items() if len(chars) > 1]
    if many:
        safe_text(t("vr_cross_many", lang, groups="; ".join(many)))
    spread = [f"{c} ({p:.2f})" for c, _, p in found if p < CLEAR_WORD]
    if spread:
        safe_text(t("vr_cross_spread", lang, chars=", ".join(spread), share=CLEAR_WORD))
    if view.unknown or view.unknown_target:
        unknown = " ".join([*view.unknown, *view.unknown_target])
        safe_text(t("vr_cross_unknown", lang, words=unknown))
    st.caption(t("vr_cross_trained_why", lang, n=len(view.target), m=len(view.source)))


def _step_translation(delta: int, last: int) -> None:
    STEP.set(min(max(STEP.get() + delta, 0), last))


def translation_steps(english: str, layer: int, head: str, chinese: str, lang: str) -> None:
    """The model's own translation of the English, one character per press, each step's
    attention row drawn as it is produced."""
    own = translated(english, layer, head)
    if own is None:
        return
    if STEP_OF.get() != english:  # a new sentence starts from its first step
        STEP.set(0)
        STEP_OF.set(english)
    st.markdown(f"#### {t('vr_translate_title', lang)}")
    last = len(own.target)
    shown = min(STEP.get(), last)
    step = partial(st.button, on_click=_step_translation)
    with st.container(horizontal=True, vertical_alignment="center"):
        step(t("vr_translate_next", lang), key="variants_translate_next",
             icon=":material/skip_next:", args=(1, last), disabled=shown >= last)  # fmt: skip
        step(t("vr_translate_all", lang), key="variants_translate_all",
             icon=":material/fast_forward:", args=(last, last), disabled=shown >= last)  # fmt: skip
        step(t("vr_translate_reset", lang), key="variants_translate_reset",
             icon=":material/replay:", args=(-last, last), disabled=shown == 0)  # fmt: skip
    if shown == 0:
        return
    so_far = "".join(token for token in own.target[:shown] if token != "[EOS]")
    safe_text(t("vr_translate_so_far", lang, text=so_far, shown=shown, total=last))
    chart("translation_steps", figures.alignment_heatmap, own, shown - 1, shown, lang=lang)
    if shown == last and own.text != chinese:
        safe_text(t("vr_translate_differs", lang, own=own.text, given=chinese))


SECTIONS = {
    "gqa": gqa_section,
    "window": window_section,
    "rope": rope_section,
    "cross": cross_section,
}
