"""Lesson: the six steps of attention, one screen each, for the lab's sentence and settings."""

import math

import numpy as np
import streamlit as st

from ui import figures, lab, state
from ui.common import (
    chart,
    compute_lab,
    mask_latex,
    safe_text,
    scale_latex,
    share_link,
    token_chips,
)
from ui.params import STEPS, LabParams, StepsParams, parse_lab, parse_steps
from ui.strings import t

STORE = "_steps_params"
DIMS = 8  # dimensions of Q, K, V and the output shown on a projector


def _move(delta: int) -> None:
    st.session_state.step = min(max(int(st.session_state.step) + delta, 1), STEPS)


def render() -> None:
    """Step indicator and buttons, one core call, then the chosen step's formula, why and matrix."""
    lang = state.lang()
    # The lab's settings: those it last used, else this link's (with notes), as the lab reads them.
    notes = state.restore(lab.STORE, parse_lab) + state.restore(STORE, parse_steps)
    params: LabParams = st.session_state[lab.STORE]
    st.title(t("st_title", lang))
    st.caption(t("st_intro", lang))
    state.show_notes(notes)

    result = compute_lab(**params.core_kwargs())
    if result.n_content == 0:
        st.info(t("empty_text", lang), icon="✍️")
        state.publish({**params.to_query(), **StepsParams().to_query()})
        return
    scaling = t("st_scaled_on" if params.scale else "st_scaled_off", lang)
    mask = t(f"mask_{params.mask}", lang)
    token_chips(result.tokens)
    st.caption(t("st_settings", lang, d=params.d, scale=scaling, mask=mask, seed=params.seed))

    previous, indicator, following = st.columns([1, 4, 1], vertical_alignment="center")
    previous.button(
        t("st_prev", lang),
        key="step_prev",
        on_click=_move,
        args=(-1,),
        width="stretch",
        disabled=int(st.session_state.step) <= 1,
    )
    following.button(
        t("st_next", lang),
        key="step_next",
        on_click=_move,
        args=(1,),
        width="stretch",
        disabled=int(st.session_state.step) >= STEPS,
        type="primary",
    )
    with indicator:
        st.radio(
            t("st_indicator", lang, step=st.session_state.step),
            range(1, STEPS + 1),
            key="step",
            horizontal=True,
            format_func=lambda step: t(f"st_step_{step}", lang),
        )
    step = int(st.session_state.step)
    st.progress(step / STEPS)

    steps = result.steps
    tokens = result.tokens
    n = len(tokens)
    dims = min(DIMS, params.d)
    dim_labels = tuple(str(j) for j in range(dims))
    sqrt_d = f"{math.sqrt(params.d):.4g}"
    st.header(t(f"st_step_{step}", lang))

    def show(key: str, matrix: np.ndarray, **options: object) -> None:
        """One matrix, full width and large: rows are the tokens."""
        columns = options.pop("columns", tokens)
        fig = figures.matrix_heatmap(matrix, tokens, columns, lang=lang, large=True, **options)
        chart(fig, key)

    per_dimension = {
        "columns": dim_labels,
        "kind": "scores",
        "row_axis": "axis_token",
        "col_axis": "axis_dimension",
    }
    if step == 1:
        st.latex(rf"Q = X W_Q,\quad K = X W_K,\quad V = X W_V \qquad ({n} \times {params.d})")
        safe_text(t("st_why_1", lang, dims=dims, d=params.d))
        for tab, name, matrix in zip(
            st.tabs(["Q", "K", "V"]), "QKV", (steps.q, steps.k, steps.v), strict=True
        ):
            with tab:
                show(f"step_{name.lower()}", matrix[:, :dims], **per_dimension)
    elif step == 2:
        st.latex(r"S = Q K^{\top},\qquad S_{ij} = q_i \cdot k_j = \sum_{t=1}^{d} q_{it} k_{jt}")
        safe_text(t("st_why_2", lang, n=n))
        show("step_scores", steps.scores, kind="scores")
    elif step == 3:
        st.latex(
            scale_latex(result.steps.d_k, params.temperature, params.heads)
            if params.scale
            else r"S' = S"
        )
        safe_text(t("st_why_3", lang, sqrt_d=sqrt_d) if params.scale else t("st_why_3_off", lang))
        show("step_scaled", steps.scaled, kind="scores")
    elif step == 4:
        st.latex(mask_latex(lang))
        safe_text(t("st_why_4", lang) + " " + t(f"masked_why_{params.mask}", lang))
        show("step_masked", steps.masked, kind="scores", allowed=steps.allowed)
    elif step == 5:
        st.latex(r"A_{ij} = \frac{e^{M_{ij}}}{\sum_k e^{M_{ik}}},\qquad \sum_j A_{ij} = 1")
        safe_text(t("st_why_5", lang))
        show("step_weights", steps.weights, kind="weights", allowed=steps.allowed)
    else:
        st.latex(r"O = A V,\qquad o_i = \sum_j A_{ij}\, v_j")
        safe_text(t("st_why_6", lang, n=n, d=params.d, dims=dims))
        show("step_output", steps.output[:, :dims], **per_dimension)

    state.remember(STORE, StepsParams(step=step))
    share_link(state.publish({**params.to_query(), **StepsParams(step=step).to_query()}))
