"""Lesson: why divide by √d — Var(q·k) = d, measured, and what it does to softmax."""

import math

import numpy as np
import streamlit as st

from ui.kit import notes, state
from ui.kit.cache import Call, advance, shared
from ui.kit.display import chart, number_input, page_link, presets, radio, safe_text
from ui.kit.text import t
from ui.scaling import figures
from ui.scaling.settings import ScalingParams
from viz_core import (
    EXPERIMENT_DS,
    ONE_HOT,
    Saturation,
    Sharpening,
    VarianceExperiment,
    dot_product_variance,
    sample_dot_products,
    saturation,
    sharpening,
)

SAMPLES = 2000  # random pairs per d: ±3 % on each variance, and d = 8192 in under half a second
TRIALS = 200  # rows of n scores per d for the saturation curves
ROW_TOKENS = 9  # the articles' 9 × 9 example
PRESETS = (64, 1536, 6144)

VARIANCE_HEIGHT, HISTOGRAM_HEIGHT = 400, 340  # px: each fits a first screen below the controls


# Seconds of computing per script run before the page reruns itself for the rest, so that a
# first visit stays within 1 s per script run (docs/performance.md, "Long computations in slices").
SLICE = 0.3


@shared(max_mb=1)
def variance_dots(d: int, distribution: str, seed: int) -> np.ndarray:
    """The q·k samples of one d of the variance experiment."""
    return sample_dot_products(d, SAMPLES, distribution, seed)


@shared(max_mb=1)
def variance_experiment(distribution: str) -> VarianceExperiment:
    """Var(q·k) for d = 1 … 8192, once per distribution and server, from each d's samples
    (drawn now where ``computed`` has not drawn them yet)."""

    def draw(d: int, seed: int) -> np.ndarray:
        return variance_dots(d=d, distribution=distribution, seed=seed)

    return dot_product_variance(samples=SAMPLES, distribution=distribution, draw=draw)


@shared(max_mb=2)
def dot_samples(d: int, distribution: str) -> np.ndarray:
    """q·k samples for the histogram of one d."""
    return sample_dot_products(d, SAMPLES, distribution, seed=d)


@shared(max_mb=1)
def saturation_curves(distribution: str) -> Saturation:
    """Softmax statistics against d, raw and scaled."""
    return saturation(n=ROW_TOKENS, trials=TRIALS, distribution=distribution)


@shared(max_mb=1)
def sharpening_rows(distribution: str) -> Sharpening:
    """One row of scores as d grows, for the animation, entries from the chosen distribution."""
    return sharpening(n=ROW_TOKENS, distribution=distribution)


def page_calls(params: ScalingParams) -> list[Call]:
    """What the page computes, as cached calls: each d's samples for the variance experiment,
    the saturation curves, and the histogram's samples (the sharpening rows are cheap)."""
    distribution = params.distribution
    draws = [
        (variance_dots, {"d": d, "distribution": distribution, "seed": seed})
        for seed, d in enumerate(EXPERIMENT_DS)
    ]
    saturation_call = (saturation_curves, {"distribution": distribution})
    return [*draws, saturation_call, (dot_samples, {"d": params.d, "distribution": distribution})]


def computed(params: ScalingParams, lang: str) -> None:
    """Compute what is not kept yet, SLICE at a time: while work is left, show how far it got
    and rerun, so that no script run takes much longer than SLICE."""
    calls = page_calls(params)
    done = advance(calls, SLICE)
    if done < len(calls):
        st.progress(done / len(calls), text=t("sc_computing", lang, done=done, total=len(calls)))
        notes.rerun()


DRAWN_FOR = state.Slot("scaling", "drawn_for", "")  # the distribution the sections below show


def render() -> None:
    """Controls and the histogram of this d, then the experiment, saturation and the animation."""
    lang = state.open_page("sc_title", "sc_intro", ScalingParams)
    DRAWN_FOR.set(state.current(ScalingParams).distribution)
    d_view(lang)
    params = state.current(ScalingParams)
    variance_section(params, lang)
    saturation_section(params, lang)
    animation_section(params, lang)


@st.fragment
def d_view(lang: str) -> None:
    """The controls, then the histogram, the figure d and its presets change. A fragment: a new
    d reruns this alone, and the sections below, which do not depend on d, are not sent again;
    a new distribution reruns the page, since every section draws it."""
    controls(lang)
    params = state.current(ScalingParams)
    if params.distribution != (DRAWN_FOR.get() or params.distribution):
        st.rerun()  # from a fragment, the whole page
    computed(params, lang)
    if params.distribution == "uniform":
        st.info(t("sc_uniform_note", lang), icon=":material/straighten:")
    histogram_section(params, lang)
    state.close_page(params)


def controls(lang: str) -> None:
    """The entries' distribution, and d with its presets."""
    left, right = st.columns([2, 3])
    with left:
        radio(ScalingParams, "distribution", lang, "sc_distribution")
    with right:
        number_input(ScalingParams, "d", lang, "d", step=1)
        presets(ScalingParams, "d", PRESETS, label=lambda d: f"d = {d:,}")


def variance_section(params: ScalingParams, lang: str) -> None:
    """Var(q·k) grows like d; divided by √d it stays put."""
    experiment = variance_experiment(params.distribution)
    st.subheader(t("sc_variance_title", lang))
    chart("variance_chart", figures.variance_chart, experiment, lang=lang, height=VARIANCE_HEIGHT)
    variance_text(params.distribution == "uniform", lang)


def variance_text(uniform: bool, lang: str) -> None:
    """The formula and the why of the variance experiment."""
    st.latex(
        r"\operatorname{Var}(q\cdot k) = \sum_{i=1}^{d}\operatorname{Var}(q_i k_i) = "
        + (r"d \cdot \tfrac{1}{3}\cdot\tfrac{1}{3} = \tfrac{d}{9}" if uniform else r"d")
        + r",\qquad \operatorname{Var}\!\left(\tfrac{q\cdot k}{\sqrt d}\right) = "
        + (r"\tfrac{1}{9}" if uniform else "1")
    )
    raw, scaled = ("d/9", "1/9") if uniform else ("d", "1")
    samples = f"{SAMPLES:,}"
    st.caption(t("sc_variance_why", lang, samples=samples, theory_raw=raw, theory_scaled=scaled))


def histogram_section(params: ScalingParams, lang: str) -> None:
    """q·k at this d, raw and ÷√d, with the measured spread beside the theory's."""
    dots = dot_samples(params.d, params.distribution)
    entry_variance = variance_experiment(params.distribution).entry_variance
    sqrt_d = math.sqrt(params.d)
    theory_std = sqrt_d * entry_variance  # √(d · Var(q_i) · Var(k_i))
    numbers = {
        "std": f"{dots.std():.3g}",
        "samples": f"{dots.size:,}",
        "theory": "√d" if entry_variance == 1 else "√(d/9)",
        "theory_value": f"{theory_std:.3g}",
        "std_scaled": f"{(dots / sqrt_d).std():.3g}",
        "theory_scaled": f"{entry_variance:.3g}",
    }
    st.subheader(t("sc_histogram_title", lang, d=f"{params.d:,}"))
    chart(
        "dot_histogram", figures.dot_histogram, dots, params.d, theory_std, lang=lang,
        height=HISTOGRAM_HEIGHT,
    )  # fmt: skip
    safe_text(t("sc_histogram_why", lang, **numbers))
    st.caption(t("sc_article_table", lang))


def saturation_section(params: ScalingParams, lang: str) -> None:
    """Max weight, entropy and the softmax gradient against d, with and without ÷√d."""
    curves = saturation_curves(params.distribution)
    st.subheader(t("sc_saturation_title", lang))
    st.caption(t("sc_saturation_why", lang, n=ROW_TOKENS, trials=TRIALS))
    page_link("train", t("train_link", lang))
    panels = [
        ("max", "sc_max_weight", [0, 1.05]),
        ("entropy", "sc_entropy", [0, math.log(ROW_TOKENS) * 1.05]),
        ("gradient", "sc_gradient", None),
    ]
    for column, (field, title, y_range) in zip(st.columns(3), panels, strict=True):
        with column:
            chart(
                f"saturation_{field}", figures.saturation_chart, curves, field,
                title=t(title, lang), lang=lang, y_range=y_range,
            )  # fmt: skip


def animation_section(params: ScalingParams, lang: str) -> None:
    """One row of scores as d grows: what its largest weight does, counted from the frames."""
    rows = sharpening_rows(params.distribution)
    st.subheader(t("sc_animation_title", lang))
    top_raw, top_scaled = rows.raw.max(axis=1), rows.scaled.max(axis=1)  # (len(ds),)
    numbers = {
        "raw_min": f"{top_raw.min():.2f}",
        "raw_max": f"{top_raw.max():.2f}",
        "raw_onehot": int((top_raw > ONE_HOT).sum()),
        "scaled_min": f"{top_scaled.min():.2f}",
        "scaled_max": f"{top_scaled.max():.2f}",
        "scaled_onehot": int((top_scaled > ONE_HOT).sum()),
        "d_count": len(rows.ds),
        "one_hot": ONE_HOT,
    }
    verdict = "spread" if numbers["scaled_onehot"] == 0 and top_scaled.max() < ONE_HOT else "mixed"
    st.caption(
        t("sc_animation_why", lang, **numbers) + " " + t(f"sc_animation_verdict_{verdict}", lang)
    )
    chart("sharpening_animation", figures.sharpening_animation, rows, lang=lang)
    st.info(t("sc_temperature_note", lang), icon=":material/thermostat:")
