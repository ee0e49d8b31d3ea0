"""Lesson: the six steps of attention, one screen each, for the lab's sentence and settings."""

import math
from collections.abc import Callable
from dataclasses import replace

import numpy as np
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from ui.kit import screen, state
from ui.kit.display import chart, choose, handed_toggle, page_link, safe_text, token_chips
from ui.kit.figures import format_small
from ui.kit.formulas import mask_latex, scale_latex
from ui.kit.heatmap import Matrix, heatmap
from ui.kit.text import t
from ui.lab.compute import compute_lab
from ui.lab.settings import LabParams
from ui.steps.settings import STEPS, StepsParams
from viz_core import LabResult

DIMS = 8  # dimensions of Q, K, V and the output shown on a projector
FIGURE_SHARE = 0.58  # of the main area: as large as the lab's, its words beside it


# On a projector the indicator names the step and counts it ("Step 2 of 6"): no title and no
# progress bar, so that the figure is whole on the first screen.
TITLE_CSS = ".st-key-steps_title,.st-key-steps_progress{display:none}"


def _move(delta: int) -> None:
    # From the settings the last run closed with: step 1's matrix picker is a widget only there.
    last = state.stored(StepsParams)
    step = min(max(last.step + delta, 1), STEPS)
    state.put(replace(last, step=step))


def render() -> None:
    """One core call, the step indicator and buttons, then the chosen step's formula, matrix and
    why, and the settings it used."""
    # The lab's settings: those it last used, else this link's (with notes), as the lab reads them.
    lang = state.open_page("st_title", "st_intro", StepsParams)
    screen.page_css(state.present(), projector=TITLE_CSS)
    params = state.stored(LabParams)
    result = compute_lab(params)
    if result.n_content == 0:
        st.info(t("empty_text", lang), icon=":material/edit:")
        state.close_page(params, StepsParams(), share=False)
        return
    step = navigator(lang)
    with st.container(key="steps_title"):  # on a projector the indicator names it (CSS)
        st.subheader(t(f"st_step_{step}", lang))
    SCREENS[step](result, lang)
    settings_line(result, params, lang)
    state.close_page(params, replace(state.current(StepsParams), step=step))


def settings_line(result: LabResult, params: LabParams, lang: str) -> None:
    """The tokens, and the lab's settings this computation used."""
    scaling = t("st_scaled_on" if params.scale else "st_scaled_off", lang)
    token_chips(result.tokens)
    mask = t(f"mask_{params.mask}", lang)
    # From the result, not the lab's boxes: a trained head's d and heads are the model's.
    line = t("st_settings", lang, d=result.d, scale=scaling, mask=mask, seed=params.seed)
    if result.heads > 1:
        line += t("st_heads", lang, heads=result.heads, d_k=result.steps.d_k, head=result.head)
    st.caption(line)


def navigator(lang: str) -> int:
    """Previous and next buttons around the six steps, and the lab's ÷√d beside them (step 3
    with and without it, without leaving for the lab); returns the step on screen."""
    columns = st.columns([1, 4, 1, 1], vertical_alignment="center")
    previous, indicator, following, scaling = columns
    with scaling:
        label, help_ = t("scale_label_short", lang), t("scale_help", lang)
        handed_toggle(LabParams, "scale", "steps", label, help=help_)
    step = state.current(StepsParams).step
    previous.button(
        t("st_prev", lang),
        key="steps_prev",
        on_click=_move,
        args=(-1,),
        width="stretch",
        disabled=step <= 1,
    )
    following.button(
        t("st_next", lang),
        key="steps_next",
        on_click=_move,
        args=(1,),
        width="stretch",
        disabled=step >= STEPS,
        type="primary",
    )
    with indicator:
        label, short = t("st_indicator", lang, step=step), _short(lang)
        choose(StepsParams, "step", label, range(1, STEPS + 1), horizontal=True, format_func=short)
    step = state.current(StepsParams).step
    st.container(key="steps_progress").progress(step / STEPS)
    return step


def _short(lang: str) -> Callable[[int], str]:
    """A step's short name in the indicator."""
    return lambda number: t(f"st_short_{number}", lang)


def show(key: str, matrix: Matrix, lang: str, formula: str, why: str) -> None:
    """One matrix, large, with its formula and why beside it: on a projector all of it on the
    first screen (a phone stacks them, the figure first)."""
    figure_side, words = sides()
    with words:
        st.latex(formula)
        safe_text(why)
    with figure_side:
        chart(key, heatmap, matrix, lang=lang, share=FIGURE_SHARE)


def sides() -> tuple[DeltaGenerator, DeltaGenerator]:
    """The figure's column and, beside it, its formula's and words'."""
    figure_side, words = st.columns([FIGURE_SHARE, 1 - FIGURE_SHARE], gap="medium")
    return figure_side, words


def by_token(
    result: LabResult, z: np.ndarray, scale: str = "scores", masked: np.ndarray | None = None
) -> Matrix:
    """A matrix between tokens: a row and a column per token."""
    return Matrix(z, result.tokens, result.tokens, scale=scale, masked=masked)


def per_dimension(result: LabResult, z: np.ndarray) -> Matrix:
    """A matrix with a row per token and a column per dimension: its first DIMS dimensions."""
    labels = tuple(str(j) for j in range(min(DIMS, result.steps.d_k)))
    return Matrix(z, result.tokens, labels, row_axis="axis_token", col_axis="axis_dimension")


def step_qkv(result: LabResult, lang: str) -> None:
    """Step 1: Q, K or V, picked beside its formula (one figure: tabs above it would push it
    below a projector's first screen)."""
    steps = result.steps
    n, d_k = steps.q.shape
    dims = min(DIMS, d_k)
    figure_side, words = sides()
    with words:
        st.latex(  # two lines: one is wider than a phone
            rf"\begin{{gathered}} Q = X W_Q,\quad K = X W_K,\quad V = X W_V \\"
            rf" ({n} \times {d_k}) \end{{gathered}}"
        )
        choose(StepsParams, "matrix", t("st_matrix", lang), ("q", "k", "v"), horizontal=True,
               format_func=str.upper)  # fmt: skip
        key = "st_why_1_trained" if result.source == "trained" else "st_why_1"
        safe_text(t(key, lang, dims=dims, d=d_k))
    name = state.current(StepsParams).matrix
    with figure_side:
        shown = per_dimension(result, getattr(steps, name)[:, :dims])
        chart(f"step_{name}", heatmap, shown, lang=lang, share=FIGURE_SHARE)


def step_scores(result: LabResult, lang: str) -> None:
    """Step 2: QKᵀ."""
    formula = r"S = Q K^{\top},\qquad S_{ij} = q_i \cdot k_j = \sum_{t=1}^{d} q_{it} k_{jt}"
    why = t("st_why_2", lang, n=len(result.tokens))
    show("step_scores", by_token(result, result.steps.scores), lang, formula, why)


def step_scaled(result: LabResult, lang: str) -> None:
    """Step 3: ÷√d_k, with the divisor the computation used."""
    steps = result.steps
    sqrt_d = f"{math.sqrt(steps.d_k):.4g}"
    heads = result.heads
    formula = scale_latex(steps.d_k, steps.temperature, heads) if steps.scale else r"S' = S"
    why = t("st_why_3_off", lang)
    if steps.scale:
        # a trained head's std is measured, not predicted: ÷√d_k need not bring it to 1
        std = f"{result.std_scores / math.sqrt(steps.d_k):.3f}"
        key = "st_why_3_trained" if result.source == "trained" else "st_why_3"
        why = t(key, lang, sqrt_d=sqrt_d, std=std)
    show("step_scaled", by_token(result, steps.scaled), lang, formula, why)


def step_masked(result: LabResult, lang: str) -> None:
    """Step 4: the mask."""
    why = t("st_why_4", lang) + " " + t(f"masked_why_{result.mask}", lang)
    if result.mask != "none":
        why += " " + t("mask_renormalised", lang, error=format_small(result.row_sum_error))
    steps = result.steps
    shown = by_token(result, steps.masked, masked=~steps.allowed)
    show("step_masked", shown, lang, mask_latex(lang), why)


def step_weights(result: LabResult, lang: str) -> None:
    """Step 5: softmax."""
    steps = result.steps
    formula = r"A_{ij} = \frac{e^{M_{ij}}}{\sum_k e^{M_{ik}}},\qquad \sum_j A_{ij} = 1"
    shown = by_token(result, steps.weights, "weights", ~steps.allowed)
    show("step_weights", shown, lang, formula, t("st_why_5", lang))


def step_output(result: LabResult, lang: str) -> None:
    """Step 6: the output, a weighted sum of the values."""
    steps = result.steps
    n, d_v = steps.output.shape
    formula = r"O = A V,\qquad o_i = \sum_j A_{ij}\, v_j"
    why = t("st_why_6", lang, n=n, d=d_v, dims=min(DIMS, d_v))
    show("step_output", per_dimension(result, steps.output[:, :DIMS]), lang, formula, why)
    page_link("model", t("model_link", lang))  # what the output holds when Q, K, V are learned


SCREENS: dict[int, Callable[[LabResult, str], None]] = {
    1: step_qkv,
    2: step_scores,
    3: step_scaled,
    4: step_masked,
    5: step_weights,
    6: step_output,
}
