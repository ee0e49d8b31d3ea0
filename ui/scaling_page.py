"""Lesson: why divide by √d — Var(q·k) = d, measured, and what it does to softmax."""

import math

import numpy as np
import streamlit as st

from ui import lesson_figures, state
from ui.common import chart, safe_text, share_link
from ui.kit.cache import shared
from ui.params import ScalingParams, parse_scaling
from ui.strings import t
from viz_core import (
    D_MAX,
    D_MIN,
    DISTRIBUTIONS,
    Saturation,
    Sharpening,
    VarianceExperiment,
    dot_product_variance,
    sample_dot_products,
    saturation,
    sharpening,
)

STORE = "_scaling_params"
SAMPLES = 2000  # random pairs per d: ±3 % on each variance, and d = 8192 in under half a second
TRIALS = 200  # rows of n scores per d for the saturation curves
ROW_TOKENS = 9  # the articles' 9 × 9 example
PRESETS = (64, 1536, 6144)


@shared(max_mb=1)
def variance_experiment(distribution: str) -> VarianceExperiment:
    """Var(q·k) for d = 1 … 8192: computed once per distribution and server."""
    return dot_product_variance(samples=SAMPLES, distribution=distribution)


@shared(max_mb=2)
def dot_samples(d: int, distribution: str) -> np.ndarray:
    """q·k samples for the histogram of one d."""
    return sample_dot_products(d, SAMPLES, distribution, seed=d)


@shared(max_mb=1)
def saturation_curves(distribution: str) -> Saturation:
    """Softmax statistics against d, raw and scaled."""
    return saturation(n=ROW_TOKENS, trials=TRIALS, distribution=distribution)


@shared(max_mb=1)
def sharpening_rows() -> Sharpening:
    """One row of scores as d grows, for the animation."""
    return sharpening(n=ROW_TOKENS)


def _set_d(d: int) -> None:
    st.session_state.d = d


def render() -> None:
    """Controls, then the experiment, the histogram, saturation and the animation."""
    lang = state.lang()
    notes = state.restore(STORE, parse_scaling)
    st.title(t("sc_title", lang))
    st.caption(t("sc_intro", lang))
    state.show_notes(notes)

    left, right = st.columns([2, 3])
    left.radio(
        t("sc_distribution_label", lang),
        DISTRIBUTIONS,
        key="distribution",
        format_func=lambda name: t(f"sc_distribution_{name}", lang),
    )
    with right:
        st.number_input(t("d_label", lang), key="d", min_value=D_MIN, max_value=D_MAX, step=1)
        for column, preset in zip(st.columns(len(PRESETS)), PRESETS, strict=True):
            column.button(
                f"d = {preset:,}",
                key=f"sc_preset_{preset}",
                on_click=_set_d,
                args=(preset,),
                width="stretch",
            )
    params = ScalingParams(
        d=int(st.session_state.d), distribution=str(st.session_state.distribution)
    )
    if params.distribution == "uniform":
        st.info(t("sc_uniform_note", lang), icon="📐")

    experiment = variance_experiment(params.distribution)
    uniform = params.distribution == "uniform"
    st.subheader(t("sc_variance_title", lang))
    st.latex(
        r"\operatorname{Var}(q\cdot k) = \sum_{i=1}^{d}\operatorname{Var}(q_i k_i) = "
        + (r"d \cdot \tfrac{1}{3}\cdot\tfrac{1}{3} = \tfrac{d}{9}" if uniform else r"d")
        + r",\qquad \operatorname{Var}\!\left(\tfrac{q\cdot k}{\sqrt d}\right) = "
        + (r"\tfrac{1}{9}" if uniform else "1")
    )
    st.caption(
        t(
            "sc_variance_why",
            lang,
            samples=f"{SAMPLES:,}",
            theory_raw="d/9" if uniform else "d",
            theory_scaled="1/9" if uniform else "1",
        )
    )
    chart(lesson_figures.variance_chart(experiment, lang=lang), "variance_chart")

    dots = dot_samples(params.d, params.distribution)
    st.subheader(t("sc_histogram_title", lang, d=f"{params.d:,}"))
    safe_text(
        t(
            "sc_histogram_why",
            lang,
            std=f"{dots.std():.3g}",
            sqrt_d=f"{math.sqrt(params.d):.3g}",
            std_scaled=f"{(dots / math.sqrt(params.d)).std():.3g}",
        )
    )
    chart(lesson_figures.dot_histogram(dots, params.d, lang=lang), "dot_histogram")
    st.caption(t("sc_article_table", lang))

    curves = saturation_curves(params.distribution)
    st.subheader(t("sc_saturation_title", lang))
    st.caption(t("sc_saturation_why", lang, n=ROW_TOKENS, trials=TRIALS))
    columns = st.columns(3)
    for column, (field, title, y_range) in zip(
        columns,
        [
            ("max", "sc_max_weight", [0, 1.05]),
            ("entropy", "sc_entropy", [0, math.log(ROW_TOKENS) * 1.05]),
            ("gradient", "sc_gradient", None),
        ],
        strict=True,
    ):
        with column:
            fig = lesson_figures.saturation_chart(
                curves, field, title=t(title, lang), lang=lang, y_range=y_range
            )
            chart(fig, f"saturation_{field}")

    st.subheader(t("sc_animation_title", lang))
    st.caption(t("sc_animation_why", lang))
    chart(lesson_figures.sharpening_animation(sharpening_rows(), lang=lang), "sharpening_animation")
    st.info(t("sc_temperature_note", lang), icon="🌡️")

    state.remember(STORE, params)
    share_link(state.publish(params.to_query()))
