"""The Attention Lab: type a sentence, pick d, and watch every step of attention."""

import math
import secrets
from dataclasses import replace

import numpy as np
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from ui import figures, state
from ui.common import (
    chart,
    compute_lab,
    mask_latex,
    safe_text,
    scale_latex,
    share_link,
    token_chips,
)
from ui.export import matrix_csv, state_zip
from ui.params import MAX_TEXT_CHARS, LabParams, clamp_row, parse_lab
from ui.strings import STRINGS, t
from viz_core import (
    D_MAX,
    D_MIN,
    MASK_KINDS,
    SEED_MAX,
    SOURCES,
    TEMPERATURE_RANGE,
    LabResult,
    head_choices,
)

STORE = "_lab_params"
PRESETS = (64, 96, 768, 1536, 6144)
OUTPUT_DIMS = 8  # dimensions of V shown in the weighted-sum figure


def side_by_side() -> list[DeltaGenerator]:
    """Two columns, or, in presenter mode, one full-width block after another."""
    return [st.container(), st.container()] if state.present() else st.columns(2, gap="large")


def _set(key: str, value: object) -> None:
    st.session_state[key] = value


def _new_seed() -> None:
    st.session_state.seed = secrets.randbelow(SEED_MAX + 1)


def row_from_selection(selection: object) -> int | None:
    """The query row of a click on the weights heatmap, or None when nothing usable was clicked."""
    points = getattr(selection, "get", lambda *_: None)("selection") or {}
    points = points.get("points", []) if isinstance(points, dict) else []
    if not points or not isinstance(points[0], dict):
        return None
    y = points[0].get("y")
    if isinstance(y, bool) or not isinstance(y, int | float) or not math.isfinite(y):
        return None
    return round(y)


def _on_pick() -> None:
    """Copy a click on the weights heatmap into the row setting (a selection resets on redraw)."""
    row = row_from_selection(st.session_state.get("weights_heatmap"))
    if row is not None and row >= 0:
        st.session_state.row = row


def controls(lang: str) -> LabParams:
    """The sidebar: every widget's key is its URL name and its parameter name in the core."""
    with st.sidebar:
        st.header(t("controls", lang))
        st.text_input(
            t("text_label", lang), key="text", help=t("text_help", lang), max_chars=MAX_TEXT_CHARS
        )
        st.toggle(t("special_label", lang), key="special", help=t("special_help", lang))
        st.number_input(
            t("d_label", lang),
            key="d",
            min_value=D_MIN,
            max_value=D_MAX,
            step=1,
            help=t("d_help", lang),
        )
        st.caption(t("presets_label", lang))
        for chunk in (PRESETS[:3], PRESETS[3:]):
            for column, preset in zip(st.columns(3, gap="small"), chunk, strict=False):
                column.button(
                    f"{preset:,}",
                    key=f"preset_{preset}",
                    help=t(f"preset_{preset}", lang),
                    on_click=_set,
                    args=("d", preset),
                    width="stretch",
                    type="primary" if st.session_state.d == preset else "secondary",
                )
        st.toggle(t("scale_label", lang), key="scale", help=t("scale_help", lang))
        st.radio(
            t("mask_label", lang),
            MASK_KINDS,
            key="mask",
            help=t("mask_help", lang),
            format_func=lambda kind: t(f"mask_{kind}", lang),
        )
        st.number_input(
            t("seed_label", lang),
            key="seed",
            min_value=0,
            max_value=SEED_MAX,
            step=1,
            help=t("seed_help", lang),
        )
        st.button(t("new_random", lang), key="new_seed", on_click=_new_seed)
        model_controls(lang)
    session = st.session_state
    return LabParams(
        text=str(session.text)[:MAX_TEXT_CHARS],
        special=bool(session.special),
        d=int(session.d),
        scale=bool(session.scale),
        mask=str(session.mask),
        seed=int(session.seed),
        row=int(session.row),
        heads=int(session.heads),
        head=int(session.head),
        source=str(session.source),
        position=bool(session.position),
        temperature=float(session.temperature),
    )


def _set_model(d: int, heads: int) -> None:
    st.session_state.d = d
    st.session_state.heads = heads
    st.session_state.head = 0


def model_controls(lang: str) -> None:
    """Heads, where Q/K/V come from, and the temperature."""
    session = st.session_state
    st.header(t("model_header", lang))
    choices = head_choices(int(session.d))
    if int(session.heads) not in choices:
        st.caption(t("heads_reset", lang, heads=session.heads, d=session.d))
        session.heads = 1
    if int(session.head) >= int(session.heads):
        session.head = 0
    st.selectbox(t("heads_label", lang), choices, key="heads", help=t("heads_help", lang))
    st.selectbox(
        t("head_label", lang),
        range(int(session.heads)),
        key="head",
        help=t("head_help", lang),
        disabled=int(session.heads) == 1,
    )
    for column, (d, heads) in zip(st.columns(2), [(768, 12), (1536, 16)], strict=True):
        column.button(
            f"{d:,} × {heads}",
            key=f"heads_preset_{d}",
            help=t(f"heads_preset_{d}", lang),
            on_click=_set_model,
            args=(d, heads),
            width="stretch",
        )
    st.radio(
        t("source_label", lang),
        SOURCES,
        key="source",
        help=t("source_help", lang),
        format_func=lambda source: t(f"source_{source}", lang),
    )
    st.toggle(
        t("position_label", lang),
        key="position",
        help=t("position_help", lang),
        disabled=session.source != "embedding",
    )
    st.number_input(
        t("temperature_label", lang),
        key="temperature",
        min_value=TEMPERATURE_RANGE[0],
        max_value=TEMPERATURE_RANGE[1],
        step=0.05,
        format="%.2f",
        help=t("temperature_help", lang),
    )


def render() -> None:
    """The page, top to bottom: controls, one cached core call, then each step."""
    lang = state.lang()
    notes = state.restore(STORE, parse_lab)
    params = controls(lang)
    result = compute_lab(**params.core_kwargs())

    st.title(t("lab_title", lang))
    st.caption(t("lab_intro", lang))
    state.show_notes(notes)
    if result.n_content == 0:
        st.info(t("empty_text", lang), icon="✍️")
        state.remember(STORE, params)
        state.publish(params.to_query())
        return
    if result.n_dropped:
        st.info(t("capped", lang, kept=result.n_content, dropped=result.n_dropped), icon="✂️")

    n = len(result.tokens)
    clamped = clamp_row(params, n)
    if clamped.row != params.row:
        st.caption(t("row_clamped", lang, n=n, row=clamped.row))
        st.session_state.row = clamped.row
    params = clamped
    steps = result.steps
    sqrt_d = f"{math.sqrt(steps.d_k):.4g}"

    st.subheader(t("tokens_title", lang, n=n))
    token_chips(result.tokens)
    caveat = " " + t("random_caveat", lang) if params.source == "random" else ""
    st.caption(t("tokens_why", lang, d=params.d) + caveat)
    if params.heads > 1:
        st.info(
            t("head_shown", lang, head=params.head, heads=params.heads, d_k=steps.d_k), icon="🧩"
        )
    if result.projection is not None:
        projection_views(result, lang)

    left, right = side_by_side()
    with left:
        st.subheader(t("scores_title", lang))
        st.latex(r"S = Q K^{\top},\quad S_{ij} = q_i \cdot k_j")
        st.caption(t("scores_why", lang, sqrt_d=sqrt_d))
        fig = figures.matrix_heatmap(
            steps.scores,
            result.tokens,
            result.tokens,
            lang=lang,
            kind="scores",
            large=state.present(),
        )
        chart(fig, "scores_heatmap")
    with right:
        st.subheader(t("scaled_title", lang))
        if params.scale:
            st.latex(scale_latex(steps.d_k, params.temperature, params.heads))
            st.caption(t("scaled_why_on", lang, sqrt_d=sqrt_d))
        else:
            st.latex(r"S' = S" if params.temperature == 1 else rf"S' = S / {params.temperature:g}")
            st.caption(t("scaled_why_off", lang))
        if params.temperature != 1:
            st.caption(t("temperature_why", lang, temperature=f"{params.temperature:g}"))
        fig = figures.matrix_heatmap(
            steps.scaled,
            result.tokens,
            result.tokens,
            lang=lang,
            kind="scores",
            large=state.present(),
        )
        chart(fig, "scaled_heatmap")

    row_views(result, params, lang)
    if params.heads > 1:
        heads_views(result, lang)
    repeat_notes(result, params, lang)
    downloads(result, params, lang)


def projection_views(result: LabResult, lang: str) -> None:
    """X, W_Q, W_K, W_V and the projections, first dimensions only, on request."""
    projection = result.projection
    assert projection is not None
    plus = t("projection_plus", lang) if projection.positions is not None else ""
    with st.expander(t("projection_title", lang)):
        d_model, d = projection.x.shape[1], projection.q.shape[1]
        safe_text(t("projection_why", lang, plus=plus, d_model=d_model, d=d))
        dims = min(OUTPUT_DIMS, projection.x.shape[1])
        labels = tuple(str(j) for j in range(dims))
        per_token = {"row_axis": "axis_token", "col_axis": "axis_dimension", "kind": "scores"}
        per_dim = {"row_axis": "axis_dimension", "col_axis": "axis_dimension", "kind": "scores"}
        views = [
            ("x", projection.x, result.tokens, per_token),
            ("w_q", projection.w_q, labels, per_dim),
            ("w_k", projection.w_k, labels, per_dim),
            ("w_v", projection.w_v, labels, per_dim),
            ("q", projection.q, result.tokens, per_token),
            ("k", projection.k, result.tokens, per_token),
            ("v", projection.v, result.tokens, per_token),
        ]
        for column, (name, matrix, rows, options) in zip(
            st.columns(4) + st.columns(4), views, strict=False
        ):
            with column:
                st.caption(t(f"matrix_{name}", lang))
                fig = figures.matrix_heatmap(
                    matrix[: len(rows), :dims], rows, labels, lang=lang, **options
                )
                chart(fig, f"projection_{name}")


def heads_views(result: LabResult, lang: str) -> None:
    """Every head's weights, and their average."""
    st.subheader(t("heads_title", lang))
    st.caption(t("heads_why", lang))
    weights = [steps.weights for steps in result.per_head]
    group = figures.heads_group(len(weights), result.head)
    if len(group) < len(weights):
        st.caption(
            t("heads_group", lang, heads=len(weights), first=group[0], last=group[-1])
        )
    chart(figures.heads_grid(weights, result.tokens, lang=lang, selected=result.head), "heads_grid")
    st.caption(t("heads_average_title", lang))
    fig = figures.matrix_heatmap(
        result.mean_weights, result.tokens, result.tokens, lang=lang, kind="weights"
    )
    chart(fig, "heads_average")


def repeat_notes(result: LabResult, params: LabParams, lang: str) -> None:
    """Do repeated characters attend alike? Only positions can tell them apart."""
    if not result.repeats:
        return
    st.subheader(t("repeats_title", lang))
    for token, places, gap in result.repeats:
        where = ", ".join(str(i) for i in places)
        key = "repeats_same" if gap == 0 else "repeats_differ"
        safe_text(t(key, lang, token=token, places=where, gap=f"{gap:.3f}"))
    if not (params.source == "embedding" and not params.position):
        st.caption(t("repeats_try", lang))


@st.fragment
def row_views(result: LabResult, params: LabParams, lang: str) -> None:
    """Everything that depends on the selected row: a row click redraws only this."""
    steps = result.steps
    tokens = result.tokens
    n = len(tokens)
    params = replace(params, row=min(int(st.session_state.get("row", params.row)), n - 1))
    row = params.row

    left, right = side_by_side()
    with left:
        st.subheader(t("masked_title", lang))
        st.latex(mask_latex(lang))
        st.caption(t(f"masked_why_{result.mask}", lang))
        fig = figures.matrix_heatmap(
            steps.masked,
            tokens,
            tokens,
            lang=lang,
            kind="scores",
            allowed=steps.allowed,
            selected_row=row,
            large=state.present(),
        )
        chart(fig, "masked_heatmap")
    with right:
        st.subheader(t("weights_title", lang))
        st.latex(r"A_{ij} = \operatorname{softmax}(M_i)_j = \frac{e^{M_{ij}}}{\sum_k e^{M_{ik}}}")
        st.caption(t("weights_why", lang))
        st.selectbox(
            t("row_label", lang),
            range(n),
            key="row",
            help=t("row_help", lang),
            format_func=lambda i: f"{i} · {tokens[i]}",
        )
        fig = figures.matrix_heatmap(
            steps.weights,
            tokens,
            tokens,
            lang=lang,
            kind="weights",
            allowed=steps.allowed,
            selected_row=row,
            large=state.present(),
            clickable=True,
        )
        chart(fig, "weights_heatmap", on_select=_on_pick, selection_mode="points")

    token = tokens[row]
    scaled_row = result.scaled.weights[row]
    unscaled_row = result.unscaled.weights[row]
    safe_text(t("bars_title", lang, token=token), tag="h3")
    st.caption(
        t("bars_why", lang, max_off=f"{unscaled_row.max():.3f}", max_on=f"{scaled_row.max():.3f}")
    )
    fig = figures.row_bars(
        steps.weights[row], result.contrast.weights[row], tokens, scaled=steps.scale, lang=lang
    )
    chart(fig, "row_bars")
    # A toggle, not an expander: a collapsed expander still draws its chart, and nine small
    # subplots are the slowest thing on the page for a browser.
    if st.toggle(t("multiples_title", lang), key="show_multiples"):
        chart(figures.row_multiples(steps.weights, tokens, lang=lang), "row_multiples")

    st.subheader(t("output_title", lang))
    st.latex(r"o_i = \sum_j A_{ij}\, v_j")
    dims = min(OUTPUT_DIMS, steps.d_k)
    if params.heads > 1:
        st.caption(
            t(
                "output_concat",
                lang,
                heads=params.heads,
                d_k=steps.d_k,
                n=n,
                d=params.d,
                head=params.head,
            )
        )
    safe_text(t("output_why", lang, token=token, dims=dims))
    terms = " + ".join(
        f"{w:.2f}·V({tok})" for w, tok in zip(steps.weights[row], tokens, strict=True)
    )
    st.code(f"{token} = {terms}", language=None, wrap_lines=True)
    fig = figures.contributions_heatmap(
        steps.contributions(row),
        steps.output[row],
        steps.weights[row],
        tokens,
        lang=lang,
        dims=dims,
    )
    chart(fig, "output_contributions")

    number_strip(result, row, result.steps.d_k, lang)
    state.remember(STORE, params)
    share_link(state.publish(params.to_query()))


def number_strip(result: LabResult, row: int, d: int, lang: str) -> None:
    """Spread of the scores next to √d and 1, and how peaked the selected row is."""
    st.subheader(t("stats_title", lang))
    on = result.stats if result.steps.scale else result.contrast_stats
    off = result.contrast_stats if result.steps.scale else result.stats
    metrics = [
        (
            "stat_std_raw",
            f"{result.std_scores:.2f}",
            t("stat_std_raw_vs", lang, value=f"{math.sqrt(d):.2f}"),
        ),
        ("stat_std_scaled", f"{result.std_scaled:.2f}", t("stat_std_scaled_vs", lang)),
        ("stat_max_on", f"{on.max_weight[row]:.3f}", None),
        ("stat_max_off", f"{off.max_weight[row]:.3f}", None),
        (
            "stat_entropy_on",
            f"{on.entropy[row]:.3f}",
            t("stat_effective", lang, value=f"{on.effective_tokens[row]:.1f}"),
        ),
        (
            "stat_entropy_off",
            f"{off.entropy[row]:.3f}",
            t("stat_effective", lang, value=f"{off.effective_tokens[row]:.1f}"),
        ),
    ]
    for cell, (label, value, beside) in zip(st.columns(len(metrics)), metrics, strict=True):
        cell.metric(t(label, lang), value, beside, delta_color="off", delta_arrow="off")
    st.caption(
        f"{t('stat_row_sum', lang)}: {t('stat_row_sum_ok', lang)} "
        f"(max |Σ − 1| = {result.row_sum_error:.1e}). {t('stats_why', lang)}"
    )


def every_matrix(result: LabResult) -> dict[str, np.ndarray]:
    """Every matrix of this view, by file name: the shown head's steps, all heads, X and W."""
    steps = result.steps
    matrices = {
        "weights": steps.weights,
        "scores": steps.scores,
        "scaled": steps.scaled,
        "masked": steps.masked,
        "output": steps.output,
        "output_all": result.output,
        "q": steps.q,
        "k": steps.k,
        "v": steps.v,
    }
    if len(result.per_head) > 1:
        matrices["weights_mean"] = result.mean_weights
        for h, head in enumerate(result.per_head):
            matrices[f"head_{h}_weights"] = head.weights
    if result.projection is not None:
        for name in ("x", "w_q", "w_k", "w_v"):
            matrices[name] = getattr(result.projection, name)
    return matrices


def downloads(result: LabResult, params: LabParams, lang: str) -> None:
    """One matrix as a token-labelled CSV, or everything as a zip, built only when pressed."""
    st.subheader(t("downloads_title", lang))
    matrices = every_matrix(result)
    shown = [name for name in matrices if f"matrix_{name}" in STRINGS]
    left, right = st.columns([2, 1], vertical_alignment="bottom")
    choice = left.selectbox(
        t("download_pick", lang),
        shown,
        key="download_matrix",
        format_func=lambda name: t(f"matrix_{name}", lang),
    )
    right.download_button(
        t("download_button", lang),
        data=lambda: matrix_csv(matrices[choice], result.tokens),
        file_name=f"{choice}.csv",
        mime="text/csv",
        key="download_csv",
        on_click="ignore",
    )
    st.download_button(
        t("download_zip", lang),
        data=lambda: state_zip(state.full_query(params.to_query()), result.tokens, matrices),
        file_name="attention-lab.zip",
        mime="application/zip",
        key="download_zip",
        on_click="ignore",
    )
    st.caption(t("download_png_hint", lang))
