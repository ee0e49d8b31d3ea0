"""Lesson: why divide by √d — Var(q·k) = d, measured, and what it does to softmax."""

import math
from collections.abc import Callable

import numpy as np
import streamlit as st

from ui.kit import notes, state
from ui.kit.cache import Call, advance, shared
from ui.kit.display import chart, number_input, page_link, picker, presets, radio, safe_text
from ui.kit.text import t
from ui.scaling import figures
from ui.scaling.settings import ScalingParams
from ui.train.compute import need_parts, sentences_text
from viz_core import (
    EXPERIMENT_DS,
    ONE_HOT,
    Saturation,
    Sharpening,
    VarianceExperiment,
    dot_product_variance,
    lessons,
    sample_dot_products,
    saturation,
    sharpening,
)

SAMPLES = 2000  # random pairs per d: ±3 % on each variance, and d = 8192 in under half a second
TRIALS = 200  # rows of n scores per d for the saturation curves
ROW_TOKENS = 9  # the articles' 9 × 9 example
PRESETS = (64, 1536, 6144)

# px: each figure fits a 1280 × 720 first screen below the picker and its section's title
HISTOGRAM_HEIGHT, VARIANCE_HEIGHT, ANIMATION_HEIGHT = 340, 380, 380
# px: the saturation panels leave the training answer's sentence under them on a projector's
SATURATION_HEIGHT = 280


# Seconds of computing per script run before the page reruns itself for the rest, so that a
# first visit stays within 1 s per script run (docs/history.md, "Long computations in slices").
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
    """What the section on screen computes, as cached calls: each d's samples for the variance
    experiment, the saturation curves, or the histogram's samples at the presets (its fixed x
    range) and at this d. The animation's rows are cheap; a section not opened costs nothing."""
    distribution = params.distribution
    if params.section == "variance":
        return [
            (variance_dots, {"d": d, "distribution": distribution, "seed": seed})
            for seed, d in enumerate(EXPERIMENT_DS)
        ]
    if params.section == "saturation":
        return [(saturation_curves, {"distribution": distribution})]
    if params.section == "histogram":
        return [(dot_samples, {"d": d, "distribution": distribution}) for d in (*PRESETS, params.d)]
    return []


def computed(params: ScalingParams, lang: str) -> None:
    """Compute what is not kept yet, SLICE at a time: while work is left, show how far it got
    and rerun, so that no script run takes much longer than SLICE."""
    calls = page_calls(params)
    done = advance(calls, SLICE)
    if done < len(calls):
        st.progress(done / len(calls), text=t("sc_computing", lang, done=done, total=len(calls)))
        notes.rerun()


def render() -> None:
    """The section picker and the entries' distribution, which every section draws; then one
    section: the spread of q·k at this d, Var(q·k) against d, saturation, or the animation."""
    lang = state.open_page("sc_title", "sc_intro", ScalingParams)
    left, right = st.columns(2, vertical_alignment="bottom")
    with left, st.container():  # in a container, not the column itself: its options wrap
        section = picker(ScalingParams, "section", lang, "sc_section")
    with right:
        radio(ScalingParams, "distribution", lang, "sc_distribution", horizontal=True)
    params = state.current(ScalingParams)
    computed(params, lang)
    if section == "histogram":
        d_view(lang)  # it closes the page: a new d reruns it alone
        return
    SECTION_VIEWS[section](params, lang)
    uniform_note(params, lang)
    state.close_page(params)


@st.fragment
def d_view(lang: str) -> None:
    """The histogram's section: its title, d and its presets in one row, then the histogram. A
    fragment: a new d reruns this alone, and nothing above it depends on d."""
    title, box, buttons = st.columns([5, 3, 4], vertical_alignment="bottom")
    with box:
        number_input(ScalingParams, "d", lang, "d", step=1)
    with buttons:
        presets(ScalingParams, "d", PRESETS, label=lambda d: f"d = {d:,}")
    params = state.current(ScalingParams)
    with title:
        st.subheader(t("sc_histogram_title", lang, d=f"{params.d:,}"))
    histogram_section(params, lang)
    uniform_note(params, lang)
    state.close_page(params)


def uniform_note(params: ScalingParams, lang: str) -> None:
    """Under the figure: why entries uniform on [−1, 1] give d/9, not d."""
    if params.distribution == "uniform":
        st.info(t("sc_uniform_note", lang), icon=":material/straighten:")


def variance_section(params: ScalingParams, lang: str) -> None:
    """Var(q·k) grows like d; divided by √d it stays put."""
    experiment = variance_experiment(params.distribution)
    st.subheader(t("sc_variance_title", lang))
    chart("variance_chart", figures.variance_chart, experiment, lang=lang, height=VARIANCE_HEIGHT)
    variance_text(params.distribution == "uniform", lang)


def variance_text(uniform: bool, lang: str) -> None:
    """The formula, in pieces that wrap on a narrow screen, and the why of the experiment."""
    raw = (
        [r"\operatorname{Var}(q\cdot k) = \sum_{i=1}^{d}\operatorname{Var}(q_i k_i)",
         r"= d \cdot \tfrac{1}{3}\cdot\tfrac{1}{3} = \tfrac{d}{9}"]
        if uniform
        else [r"\operatorname{Var}(q\cdot k) = \sum_{i=1}^{d}\operatorname{Var}(q_i k_i) = d"]
    )  # fmt: skip
    scaled = r"\operatorname{Var}\!\left(\tfrac{q\cdot k}{\sqrt d}\right) = " + (
        r"\tfrac{1}{9}" if uniform else "1"
    )
    with st.container(
        horizontal=True, horizontal_alignment="center", vertical_alignment="center", gap="large"
    ):
        with st.container(horizontal=True, width="content", vertical_alignment="center"):
            for piece in raw:
                st.latex(piece, width="content")
        st.latex(scaled, width="content")
    theory_raw, theory_scaled = ("d/9", "1/9") if uniform else ("d", "1")
    words = {"samples": f"{SAMPLES:,}", "theory_raw": theory_raw, "theory_scaled": theory_scaled}
    st.caption(t("sc_variance_why", lang, **words))


def histogram_section(params: ScalingParams, lang: str) -> None:
    """q·k at this d, raw and ÷√d, with the measured spread beside the theory's."""
    dots = dot_samples(params.d, params.distribution)
    entry_variance = lessons.entry_variance(params.distribution)
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
    chart(
        "dot_histogram", figures.dot_histogram, dots, params.d, theory_std, lang=lang,
        reach=preset_reach(params.distribution), height=HISTOGRAM_HEIGHT,
    )  # fmt: skip
    safe_text(t("sc_histogram_why", lang, **numbers))
    st.caption(t("sc_article_table", lang))


def preset_reach(distribution: str) -> tuple[float, float]:
    """How far the presets' samples reach, raw and ÷√d (as the histogram draws them, float32):
    the histogram's x axes at every d, so that going from one preset to another widens the raw
    panel and leaves the scaled one as it was."""
    samples = [(dot_samples(d, distribution), math.sqrt(d)) for d in PRESETS]
    raw = max(float(np.abs(dots.astype(np.float32)).max()) for dots, _ in samples)
    scaled = max(float(np.abs((dots / root).astype(np.float32)).max()) for dots, root in samples)
    return raw, scaled


def saturation_section(params: ScalingParams, lang: str) -> None:
    """Max weight, entropy and the softmax gradient against d, with and without ÷√d; then what
    it means for training, how the panels were measured, and the way to /train."""
    curves = saturation_curves(params.distribution)
    st.subheader(t("sc_saturation_title", lang))
    panels = [
        ("max", "sc_max_weight", [0, 1.05]),
        ("entropy", "sc_entropy", [0, math.log(ROW_TOKENS) * 1.05]),
        ("gradient", "sc_gradient", None),
    ]
    for column, (field, title, y_range) in zip(st.columns(3), panels, strict=True):
        with column:
            chart(
                f"saturation_{field}", figures.saturation_chart, curves, field,
                title=t(title, lang), lang=lang, y_range=y_range, height=SATURATION_HEIGHT,
            )  # fmt: skip
    training_answer(lang)  # first under the panels: on a projector's first screen with them
    st.caption(t("sc_saturation_why", lang, n=ROW_TOKENS, trials=TRIALS))
    page_link("train", t("train_link", lang))


def training_answer(lang: str) -> None:
    """Saturation at the start is not the end of training: what /train's runs say, in the words
    /model, /train and the quiz use (one computation for all four)."""
    claims, evidence = need_parts(lang)
    safe_text(t("tr_need_title", lang), tag="h4")
    safe_text(sentences_text(claims, lang))
    for line in evidence:
        safe_text(line, size="0.875rem")


def animation_section(params: ScalingParams, lang: str) -> None:
    """One row of scores as d grows: what its largest weight does, counted from the frames."""
    rows = sharpening_rows(params.distribution)
    st.subheader(t("sc_animation_title", lang))
    chart(
        "sharpening_animation", figures.sharpening_animation, rows, lang=lang,
        height=ANIMATION_HEIGHT,
    )  # fmt: skip
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
    st.info(t("sc_temperature_note", lang), icon=":material/thermostat:")


SECTION_VIEWS: dict[str, Callable[[ScalingParams, str], None]] = {
    "variance": variance_section,
    "saturation": saturation_section,
    "animation": animation_section,
}
