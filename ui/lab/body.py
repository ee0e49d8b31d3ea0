"""The Attention Lab: type a sentence, pick d, and watch every step of attention."""

import math
from dataclasses import replace

import numpy as np
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from ui.kit import state
from ui.kit.display import chart, safe_text, token_chips
from ui.kit.figures import matrix_heatmap
from ui.kit.formulas import mask_latex, scale_latex
from ui.kit.text import STRINGS, t
from ui.lab import figures
from ui.lab.compute import compute_lab
from ui.lab.controls import controls
from ui.lab.export import matrix_csv, state_zip
from ui.lab.settings import LabParams, clamp_row
from viz_core import LabResult

OUTPUT_DIMS = 8  # dimensions of V shown in the weighted-sum figure


def side_by_side() -> list[DeltaGenerator]:
    """Two columns, or, in presenter mode, one full-width block after another."""
    return [st.container(), st.container()] if state.present() else st.columns(2, gap="large")


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


def render() -> None:
    """The page, top to bottom: controls, one cached core call, then each step."""
    lang = state.open_page("lab_title", "lab_intro", LabParams)
    controls(lang)
    params = state.current(LabParams)
    result = compute_lab(**params.core_kwargs())
    if result.n_content == 0:
        st.info(t("empty_text", lang), icon="✍️")
        state.close_page(params, share=False)
        return
    if result.n_dropped:
        st.info(t("capped", lang, kept=result.n_content, dropped=result.n_dropped), icon="✂️")
    params = row_inside(params, len(result.tokens), lang)
    tokens_section(result, params, lang)
    if result.projection is not None:
        projection_views(result, lang)
    left, right = side_by_side()
    with left:
        scores_section(result, lang)
    with right:
        scaled_section(result, params, lang)
    row_views(result, params, lang)
    if params.heads > 1:
        heads_views(result, lang)
    repeat_notes(result, params, lang)
    downloads(result, params, lang)


def row_inside(params: LabParams, n: int, lang: str) -> LabParams:
    """The settings with the row inside the matrix, saying so when a link asked for more."""
    clamped = clamp_row(params, n)
    if clamped.row != params.row:
        st.caption(t("row_clamped", lang, n=n, row=clamped.row))
        st.session_state.row = clamped.row
    return clamped


def tokens_section(result: LabResult, params: LabParams, lang: str) -> None:
    """The tokens as chips, where Q, K, V come from, and which head the large views show."""
    st.subheader(t("tokens_title", lang, n=len(result.tokens)))
    token_chips(result.tokens)
    caveat = " " + t("random_caveat", lang) if params.source == "random" else ""
    st.caption(t("tokens_why", lang, d=params.d) + caveat)
    if params.source == "embedding" and not params.position:
        safe_text(t("embedding_alike_why", lang))
    if params.heads > 1:
        st.info(
            t("head_shown", lang, head=params.head, heads=params.heads, d_k=result.steps.d_k),
            icon="🧩",
        )


def stage_heatmap(result: LabResult, stage: str, **options: object) -> None:
    """One stage of the computation as a large, labelled heatmap keyed ``<stage>_heatmap``."""
    matrix = getattr(result.steps, stage)
    kind = "weights" if stage == "weights" else "scores"
    fig = matrix_heatmap(
        matrix, result.tokens, result.tokens, kind=kind, large=state.present(), **options
    )
    chart(
        fig,
        f"{stage}_heatmap",
        **({"on_select": _on_pick, "selection_mode": "points"} if options.get("clickable") else {}),
    )


def scores_section(result: LabResult, lang: str) -> None:
    """Step 1: QKᵀ."""
    st.subheader(t("scores_title", lang))
    st.latex(r"S = Q K^{\top},\quad S_{ij} = q_i \cdot k_j")
    st.caption(t("scores_why", lang, sqrt_d=f"{math.sqrt(result.steps.d_k):.4g}"))
    stage_heatmap(result, "scores", lang=lang)


def scaled_section(result: LabResult, params: LabParams, lang: str) -> None:
    """Step 2: ÷√d (and the temperature), or nothing when scaling is off."""
    st.subheader(t("scaled_title", lang))
    if params.scale:
        st.latex(scale_latex(result.steps.d_k, params.temperature, params.heads))
        st.caption(t("scaled_why_on", lang, sqrt_d=f"{math.sqrt(result.steps.d_k):.4g}"))
    else:
        st.latex(r"S' = S" if params.temperature == 1 else rf"S' = S / {params.temperature:g}")
        st.caption(t("scaled_why_off", lang))
    if params.temperature != 1:
        st.caption(t("temperature_why", lang, temperature=f"{params.temperature:g}"))
    stage_heatmap(result, "scaled", lang=lang)


def projection_views(result: LabResult, lang: str) -> None:
    """X, W_Q, W_K, W_V and the projections, first dimensions only, on request."""
    projection = result.projection
    assert projection is not None
    plus = t("projection_plus", lang) if projection.positions is not None else ""
    with st.expander(t("projection_title", lang)):
        d_model, d = projection.x.shape[1], projection.q.shape[1]
        safe_text(t("projection_why", lang, plus=plus, d_model=d_model, d=d))
        dims = min(OUTPUT_DIMS, d_model)
        labels = tuple(str(j) for j in range(dims))
        per_token = {"row_axis": "axis_token", "col_axis": "axis_dimension", "kind": "scores"}
        per_dim = {"row_axis": "axis_dimension", "col_axis": "axis_dimension", "kind": "scores"}
        views = [("x", result.tokens, per_token)]
        views += [(name, labels, per_dim) for name in ("w_q", "w_k", "w_v")]
        views += [(name, result.tokens, per_token) for name in ("q", "k", "v")]
        for column, (name, rows, options) in zip(
            st.columns(4) + st.columns(4), views, strict=False
        ):
            with column:
                st.caption(t(f"matrix_{name}", lang))
                matrix = getattr(projection, name)[: len(rows), :dims]
                chart(
                    matrix_heatmap(matrix, rows, labels, lang=lang, **options), f"projection_{name}"
                )


def heads_views(result: LabResult, lang: str) -> None:
    """The chosen head's group of heads, and the average of every head."""
    st.subheader(t("heads_title", lang))
    st.caption(t("heads_why", lang))
    weights = [steps.weights for steps in result.per_head]
    group = figures.heads_group(len(weights), result.head)
    if len(group) < len(weights):
        st.caption(t("heads_group", lang, heads=len(weights), first=group[0], last=group[-1]))
    chart(figures.heads_grid(weights, result.tokens, lang=lang, selected=result.head), "heads_grid")
    st.caption(t("heads_average_title", lang))
    fig = matrix_heatmap(
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
    n = len(result.tokens)
    params = replace(params, row=min(int(st.session_state.get("row", params.row)), n - 1))
    left, right = side_by_side()
    with left:
        masked_section(result, params.row, lang)
    with right:
        weights_section(result, params.row, lang)
    bars_section(result, params.row, lang)
    output_section(result, params, lang)
    number_strip(result, params.row, result.steps.d_k, lang)
    state.close_page(params)


def masked_section(result: LabResult, row: int, lang: str) -> None:
    """Step 3: the mask, masked cells greyed out."""
    st.subheader(t("masked_title", lang))
    st.latex(mask_latex(lang))
    st.caption(t(f"masked_why_{result.mask}", lang))
    if result.mask != "none":
        safe_text(t("mask_renormalised", lang, error=f"{result.row_sum_error:.1e}"))
    stage_heatmap(result, "masked", lang=lang, allowed=result.steps.allowed, selected_row=row)


def weights_section(result: LabResult, row: int, lang: str) -> None:
    """Step 4: softmax, with the row picker; a click on a row selects it."""
    tokens = result.tokens
    st.subheader(t("weights_title", lang))
    st.latex(r"A_{ij} = \operatorname{softmax}(M_i)_j = \frac{e^{M_{ij}}}{\sum_k e^{M_{ik}}}")
    st.caption(t("weights_why", lang))
    st.selectbox(
        t("row_label", lang),
        range(len(tokens)),
        key="row",
        help=t("row_help", lang),
        format_func=lambda i: f"{i} · {tokens[i]}",
    )
    options = {"allowed": result.steps.allowed, "selected_row": row, "clickable": True}
    stage_heatmap(result, "weights", lang=lang, **options)


def bars_section(result: LabResult, row: int, lang: str) -> None:
    """The selected row's weights, scaled beside unscaled; every row on request."""
    steps = result.steps
    safe_text(t("bars_title", lang, token=result.tokens[row]), tag="h3")
    max_off = f"{result.unscaled.weights[row].max():.3f}"
    max_on = f"{result.scaled.weights[row].max():.3f}"
    st.caption(t("bars_why", lang, max_off=max_off, max_on=max_on))
    fig = figures.row_bars(
        steps.weights[row],
        result.contrast.weights[row],
        result.tokens,
        scaled=steps.scale,
        lang=lang,
    )
    chart(fig, "row_bars")
    # A toggle, not an expander: a collapsed expander still draws its chart, and nine small
    # subplots are the slowest thing on the page for a browser.
    if st.toggle(t("multiples_title", lang), key="show_multiples"):
        chart(figures.row_multiples(steps.weights, result.tokens, lang=lang), "row_multiples")


def output_section(result: LabResult, params: LabParams, lang: str) -> None:
    """Step 5: the output of the selected row, a weighted sum of the values."""
    steps, tokens, row = result.steps, result.tokens, params.row
    st.subheader(t("output_title", lang))
    st.latex(r"o_i = \sum_j A_{ij}\, v_j")
    dims = min(OUTPUT_DIMS, steps.d_k)
    if params.heads > 1:
        shape = {"heads": params.heads, "d_k": steps.d_k, "n": len(tokens), "d": params.d}
        st.caption(t("output_concat", lang, head=params.head, **shape))
    safe_text(t("output_why", lang, token=tokens[row], dims=dims))
    terms = " + ".join(
        f"{w:.2f}·V({token})" for w, token in zip(steps.weights[row], tokens, strict=True)
    )
    st.code(f"{tokens[row]} = {terms}", language=None, wrap_lines=True)
    fig = figures.contributions_heatmap(
        steps.contributions(row),
        steps.output[row],
        steps.weights[row],
        tokens,
        lang=lang,
        dims=dims,
    )
    chart(fig, "output_contributions")


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
    ]
    metrics += [
        (
            f"stat_entropy_{name}",
            f"{stats.entropy[row]:.3f}",
            t("stat_effective", lang, value=f"{stats.effective_tokens[row]:.1f}"),
        )
        for name, stats in (("on", on), ("off", off))
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
    names = ("weights", "scores", "scaled", "masked", "output", "q", "k", "v")
    matrices = {name: getattr(steps, name) for name in names}
    matrices["output_all"] = result.output
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
