"""Lesson: computing attention without the matrix — online softmax, FlashAttention, KV cache."""

from dataclasses import replace

import numpy as np
import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from ui.kernel import figures
from ui.kernel.compute import (
    CacheView,
    FlashView,
    cache_view,
    flash_view,
    human_bytes,
    online_row,
    state_before,
)
from ui.kernel.settings import TILE, XI_TOKENS, KernelParams
from ui.kit import notes, state
from ui.kit.display import Chart, chart, number_input, picker, safe_text, slider, token_chips
from ui.kit.figures import format_value
from ui.kit.text import t
from ui.lab.compute import compute_lab
from ui.lab.settings import LabParams
from viz_core import KV_CACHE_MODELS, LabResult, OnlineSoftmax, kv_cache_bytes, softmax
from viz_core.kernels import flash_scratch_floats
from viz_core.settings import Note

LONG_N = 4096  # a long input, to say where FlashAttention pays off
LONG_BLOCK = 64  # the tile GPU kernels use
LONG_D = 64  # a BERT-base head


def _vector(values: np.ndarray) -> str:
    return ", ".join(format_value(v, 3) for v in values[:3])


def render() -> None:
    """Section picker, then one section: the articles' row, or the lab's Q, K, V."""
    lang = state.open_page("kn_title", "kn_intro", KernelParams)
    lab = state.stored(LabParams)
    section = picker(KernelParams, "section", lang, "kn_section")
    if section == "softmax":
        softmax_section(lang)
    else:
        result = compute_lab(lab)
        if result.n_content == 0:
            st.info(t("empty_text", lang), icon=":material/edit:")
        else:
            (flash_section if section == "flash" else cache_section)(result, lang)
            lab_caption(result, lab, lang)
    state.close_page(lab, state.current(KernelParams))


def split() -> tuple[DeltaGenerator, DeltaGenerator]:
    """Controls, formula and why on the left, the figure on the right: on a 1280 × 720
    projector both sit on the first screen."""
    left, right = st.columns([1, 2], gap="medium")
    return left, right


def lab_caption(result: LabResult, lab: LabParams, lang: str) -> None:
    """The lab's tokens and the settings this section uses."""
    st.markdown(f"**{t('kn_lab_tokens', lang)}**")
    token_chips(result.tokens)
    scaling = t("kn_scaled_on" if lab.scale else "kn_scaled_off", lang)
    # From the result, not the lab's boxes: a trained head's d and heads are the model's.
    fields: dict[str, object] = {"d": result.d, "head": result.head, "heads": result.heads}
    fields["d_k"] = result.steps.d_k
    fields |= {"scale": scaling, "mask": t(f"mask_{lab.mask}", lang), "seed": lab.seed}
    st.caption(t("kn_lab_settings", lang, **fields))


# --- online softmax ---------------------------------------------------------------------------


def softmax_section(lang: str) -> None:
    """The articles' 喜 row ÷ 8, block by block: running max, rescaled sum, final weights."""
    st.subheader(t("kn_softmax_title", lang))
    left, right = split()
    with left:
        number_input(KernelParams, "block", lang, "kn_block", step=1)
        st.latex(
            r"\begin{gathered} m_b = \max\!\big(m_{b-1},\ \max_{j \in B_b} x_j\big) \\"
            r" \ell_b = e^{m_{b-1} - m_b}\,\ell_{b-1} + \textstyle\sum_{B_b} e^{x_j - m_b}"
            r" \\ p_j = e^{x_j - m} / \ell \end{gathered}"
        )
        run = online_row(state.current(KernelParams).block)
        reference = softmax(run.x)
        safe_text(softmax_why(run, lang))
    with right:
        # First: the table below, sent with it, would hold back its drawing.
        main = Chart("online_softmax_steps", first=True)
        chart(main, figures.online_softmax_steps, run, reference, XI_TOKENS, lang=lang)
        error = float(np.abs(run.weights - reference).max())
        total = format_value(float(run.l * np.exp(run.m)))
        safe_text(t("kn_softmax_check", lang, error=format_value(error, 2), total=total))
    st.dataframe(softmax_table(run, lang), hide_index=True, width="stretch")


def softmax_why(run: OnlineSoftmax, lang: str) -> str:
    """What the running max did on this row: how often it rose, and the first rescale."""
    trace = run.trace
    rises = [i for i in range(1, len(trace)) if trace[i].m > trace[i - 1].m]
    fields = {
        "m": format_value(float(run.m)),
        "l": format_value(float(run.l)),
        "blocks": len(trace),
    }
    if not rises:
        return t("kn_softmax_why_once", lang, **fields)
    first = trace[rises[0]]
    tokens = " ".join(XI_TOKENS[first.columns])
    return t(
        "kn_softmax_why",
        lang,
        rises=len(rises),
        token=tokens,
        rescale=format_value(float(first.rescale), 3),
        **fields,
    )


def softmax_table(run: OnlineSoftmax, lang: str) -> pd.DataFrame:
    """One row per block: what it read, and m, the rescale factor and ℓ after it."""
    rows = []
    for b, block in enumerate(run.trace):
        read = run.x[block.columns]
        entries = ", ".join(
            f"{token} {value:.4g}"
            for token, value in zip(XI_TOKENS[block.columns], read, strict=True)
        )
        rescale = "—" if b == 0 else format_value(float(block.rescale))
        rows.append(
            [b + 1, entries, format_value(float(block.m)), rescale, format_value(float(block.l))]
        )
    columns = ["kn_col_block", "kn_col_read", "kn_col_m", "kn_col_rescale", "kn_col_l"]
    return pd.DataFrame(rows, columns=[t(c, lang) for c in columns])


# --- FlashAttention ---------------------------------------------------------------------------


def _move_tile(delta: int, last: int) -> None:
    params = state.current(KernelParams)
    state.put(replace(params, tile=min(max(params.tile + delta, 0), last)))


def tile_stepper(count: int, lang: str) -> int:
    """◄ slider ► over the tiles; a tile past the last one (a link's, or a shorter sentence's)
    becomes the last, with a note."""
    last = count - 1
    params = state.current(KernelParams)
    if params.tile > last:
        notes.show_notes([Note("tile", str(last))], lang)
        state.put(replace(params, tile=last))
    if count == 1:
        return 0
    tile = min(params.tile, last)
    slider(KernelParams, "tile", t("kn_tile_label", lang, count=count), 0, last)
    back, forward = st.columns(2)
    back.button(
        "",
        icon=":material/chevron_left:",
        key="kernel_tile_prev",
        on_click=_move_tile,
        args=(-1, last),
        disabled=tile <= 0,
        width="stretch",
        help=t("kn_tile_prev", lang),
    )
    forward.button(
        "",
        icon=":material/chevron_right:",
        key="kernel_tile_next",
        on_click=_move_tile,
        args=(1, last),
        disabled=tile >= last,
        width="stretch",
        help=t("kn_tile_next", lang),
        type="primary",
    )
    return state.current(KernelParams).tile


def flash_section(result: LabResult, lang: str) -> None:
    """The lab's head in 4 × 4 tiles: the stepper, the grid and running state, then the checks."""
    view = flash_view(result.steps)
    st.subheader(t("kn_flash_title", lang))
    left, right = split()
    with left:
        index = tile_stepper(view.tiles.tile_count, lang)
        st.latex(
            r"\begin{gathered} S = Q_i K_j^{\top} / \sqrt{d_k} \\"
            r" m' = \max(m,\ \max_j S_{\cdot j}) \\"
            r" \ell' = e^{m - m'}\,\ell + \textstyle\sum_j e^{S_{\cdot j} - m'} \\"
            r" A' = e^{m - m'} A + e^{S - m'} V_j \\ O_i = A / \ell \end{gathered}"
        )
        safe_text(tile_why(view, index, result.tokens, lang))
    with right:
        chart(
            "flash_tiles", figures.flash_tiles, view.tiles, view.masked, index, result.tokens,
            lang=lang,
        )  # fmt: skip
    st.dataframe(tile_table(view, index, result.tokens, lang), hide_index=True, width="stretch")
    memory_text(view, lang)
    comparison(view, result.tokens, lang)


def tile_why(view: FlashView, index: int, tokens: tuple[str, ...], lang: str) -> str:
    """Which block of scores this tile is, and whether it was computed or skipped."""
    run = view.tiles
    tile = run.tiles[index]
    fields = {
        "tile": index,
        "count": run.tile_count,
        "queries": " ".join(tokens[tile.rows]),
        "keys": " ".join(tokens[tile.cols]),
        "skipped": run.skipped_tiles,
    }
    key = "kn_tile_skipped" if tile.skipped else "kn_tile_computed"
    return t(key, lang, **fields) + " " + t("kn_tile_why", lang, **fields)


def tile_table(view: FlashView, index: int, tokens: tuple[str, ...], lang: str) -> pd.DataFrame:
    """The current query rows: m and ℓ before and after the tile, the rescale factor, the
    partial output so far and the final one (first three dimensions)."""
    tile = view.tiles.tiles[index]
    m_old, l_old = state_before(view.tiles, index)
    rows = []
    for r, i in enumerate(range(tile.rows.start, tile.rows.stop)):
        with np.errstate(invalid="ignore"):
            rescale = float(np.exp(m_old[r] - tile.m[r])) if np.isfinite(tile.m[r]) else 0.0
        rows.append(
            [
                tokens[i],
                format_value(m_old[r]),
                format_value(tile.m[r]),
                format_value(rescale if np.isfinite(m_old[r]) else 0.0),
                format_value(l_old[r]),
                format_value(tile.l[r]),
                _vector(tile.output[r]),
                _vector(view.plain[i]),
            ]
        )
    names = ["query", "m_old", "m_new", "rescale", "l_old", "l_new", "partial", "final"]
    return pd.DataFrame(rows, columns=[t(f"kn_col_{name}", lang) for name in names])


def memory_text(view: FlashView, lang: str) -> None:
    """Floats held at once against n · m, here and for a long input."""
    run = view.full
    n, d_v = view.plain.shape
    long_scratch = flash_scratch_floats(LONG_N, LONG_N, LONG_D, LONG_BLOCK, LONG_BLOCK)
    fields = {
        "scratch": f"{run.scratch_floats:,}",
        "plain": f"{run.plain_floats:,}",
        "n": n,
        "tile": min(TILE, n),
        "d_v": d_v,
        "long_n": f"{LONG_N:,}",
        "long_block": LONG_BLOCK,
        "long_d": LONG_D,
        "long_scratch": f"{long_scratch:,}",
        "long_plain": f"{LONG_N * LONG_N:,}",
        "ratio": f"{LONG_N * LONG_N / long_scratch:,.0f}",
    }
    smaller = run.scratch_floats < run.plain_floats
    safe_text(t("kn_memory_less" if smaller else "kn_memory_more", lang, **fields))


def comparison(view: FlashView, tokens: tuple[str, ...], lang: str) -> None:
    """The tiled output beside the lab's plain output, row by row, with their difference."""
    n, d_v = view.plain.shape
    st.markdown(f"**{t('kn_compare_title', lang)}**")
    safe_text(t("kn_compare", lang, error=format_value(view.error, 2), n=n, d_v=d_v))
    delta = np.abs(view.full.output - view.plain).max(axis=1)
    table = pd.DataFrame(
        {
            t("kn_col_query", lang): list(tokens),
            t("kn_col_flash", lang): [_vector(o) for o in view.full.output],
            t("kn_col_plain", lang): [_vector(o) for o in view.plain],
            t("kn_col_delta", lang): [format_value(x, 2) for x in delta],
        }
    )
    st.dataframe(table, hide_index=True, width="stretch")


# --- KV cache ---------------------------------------------------------------------------------


def cache_section(result: LabResult, lang: str) -> None:
    """Generation token by token: the causal weights step by step, the cache, real sizes."""
    view = cache_view(result.steps)
    n, d_k = result.steps.k.shape
    st.subheader(t("kn_cache_title", lang))
    left, right = split()
    with left:
        st.latex(
            r"\begin{gathered} K_{\le i} = \begin{bmatrix} K_{< i} \\ k_i \end{bmatrix},\quad"
            r" V_{\le i} = \begin{bmatrix} V_{< i} \\ v_i \end{bmatrix} \\"
            r" o_i = \operatorname{softmax}\!\big(q_i K_{\le i}^{\top} / \sqrt{d_k}\big)\,"
            r" V_{\le i} \end{gathered}"
        )
        fields = {"n": n, "with": n, "without": n * (n + 1) // 2}
        safe_text(t("kn_cache_why", lang, **fields))
    with right:
        chart(
            "kv_cache", figures.kv_cache, view.run.weights, result.tokens, KV_CACHE_MODELS,
            lang=lang,
        )  # fmt: skip
    cache_check(view, n, d_k, result.mask, lang)
    bytes_table(n, lang)


def cache_check(view: CacheView, n: int, d_k: int, mask: str, lang: str) -> None:
    """The cached decode equals causal attention; what this head's cache holds."""
    held = 2 * n * d_k
    safe_text(
        t(
            "kn_cache_check",
            lang,
            error=format_value(view.error, 2),
            lengths=", ".join(str(length) for length in view.run.cache_lengths[:6]),
            held=f"{held:,}",
            n=n,
            d_k=d_k,
        )
    )
    if mask != "causal":
        st.caption(t("kn_cache_mask_note", lang, mask=t(f"mask_{mask}", lang)))


def bytes_table(n: int, lang: str) -> None:
    """Each real model's cache from its shape: 2 · layers · kv_heads · d_k · tokens · bytes."""
    st.markdown(f"**{t('kn_bytes_title', lang)}**")
    st.latex(r"\text{bytes} = 2 \times L \times H_{kv} \times d_k \times T \times b")
    rows = []
    for model in KV_CACHE_MODELS:
        per_token = kv_cache_bytes(model.layers, model.kv_heads, model.d_k, 1)
        rows.append(
            [
                model.name,
                model.layers,
                f"{model.kv_heads} / {model.heads}",
                model.d_k,
                f"{model.tokens:,}",
                f"2 × {model.layers} × {model.kv_heads} × {model.d_k} × {model.tokens:,} × "
                f"{model.bytes_per_value}",
                human_bytes(model.total_bytes),
                human_bytes(per_token),
            ]
        )
    names = ["model", "layers", "kv_heads", "d_k", "tokens", "formula", "size", "per_token"]
    table = pd.DataFrame(rows, columns=[t(f"kn_col_{name}", lang) for name in names])
    st.dataframe(table, hide_index=True, width="stretch")
    safe_text(gqa_saving(n, lang))


def gqa_saving(n: int, lang: str) -> str:
    """What sharing K/V heads saves, from the models' shapes; and this sentence at BERT's."""
    bert = KV_CACHE_MODELS[0]
    sentence = kv_cache_bytes(bert.layers, bert.kv_heads, bert.d_k, n)
    texts = [t("kn_bytes_sentence", lang, n=n, model=bert.name, size=human_bytes(sentence))]
    for model in KV_CACHE_MODELS:
        if model.kv_heads < model.heads:
            full = kv_cache_bytes(model.layers, model.heads, model.d_k, model.tokens)
            texts.append(
                t(
                    "kn_bytes_gqa",
                    lang,
                    model=model.name,
                    heads=model.heads,
                    kv_heads=model.kv_heads,
                    ratio=f"{full / model.total_bytes:g}",
                    full=human_bytes(full),
                    size=human_bytes(model.total_bytes),
                )
            )
    return " ".join(texts)
