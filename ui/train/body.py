"""Lesson: train one attention head with and without ÷√d_k, and see whether it learns."""

import math
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import partial

import numpy as np
import pandas as pd
import streamlit as st

from ui.kit import notes, screen, state
from ui.kit.cache import advance
from ui.kit.display import chart, number_input, presets, radio, safe_text, selectbox
from ui.kit.text import t
from ui.train import compute, figures
from ui.train.compute import TrainPair, train_pair
from ui.train.settings import D_PRESETS, TrainParams
from viz_core import NEVER, OPTIMIZERS, Sweep, TrainRun

SWEEPS = state.Slot(
    "train", "sweeps", frozenset[tuple[str, str, int]]()
)  # (task, optimizer, seed) asked for
# Streamlit fades what a running script has not sent again; the curve so far stays right while
# the page reruns itself to train the next run, so it keeps its full colour.
CURVES_CSS = ".st-key-loss_curves[data-stale=true]{opacity:1!important}"
# The answer under the chart: its question and the answer close together, so that on a
# projector both fit the first screen.
ANSWER_CSS = (
    ".st-key-need_answer{gap:.25rem;padding:.6rem 1rem} .st-key-need_answer strong{margin:0}"
)
# Seconds of the sweep per script run before the page reruns itself for the rest, so that no
# script run passes 1 s (docs/history.md, "Long computations in slices").
SLICE = 0.3
ONE_RUN = 0.0  # advance's budget that makes one call per script run: each run is drawn at once
PROGRESS_EVERY = 0.1  # seconds between moves of a progress bar: a short run shows none


def _ask_sweep(key: tuple[str, str, int]) -> None:
    SWEEPS.set(SWEEPS.get() | {key})


def render() -> None:
    """Controls beside the loss chart, then the numbers, gradients, attention and the sweep."""
    lang = state.open_page("tr_title", "tr_intro", TrainParams)
    screen.page_css(state.present(), every=CURVES_CSS + ANSWER_CSS)
    left, right = st.columns([2, 3], gap="medium")
    with left:
        controls(lang)
    params = state.current(TrainParams)
    with right:
        pair = trained(params, lang)
        loss_chart([pair.scaled, pair.unscaled], params, lang)
        answer_section(pair, lang)
    numbers_section(pair, params, lang)
    need_section(lang)
    gradient_section(pair, lang)
    weights_section(pair, params, lang)
    sweep_section(params, lang)
    state.close_page(params)


def _task_name(task: str, lang: str) -> str:
    return t(f"tr_task_{task}", lang)


def controls(lang: str) -> None:
    """Task, optimizer, d_k with its presets, steps and seed, stacked beside the chart."""
    label, help_ = t("tr_task_label", lang), t("tr_task_help", lang)
    tasks = TrainParams.spec("task").choices
    name = partial(_task_name, lang=lang)
    selectbox(TrainParams, "task", label, tasks, help=help_, format_func=name)
    radio(TrainParams, "optimizer", lang, "tr_optimizer", horizontal=True)
    number_input(TrainParams, "d", lang, "tr_d", step=1)
    presets(TrainParams, "d", D_PRESETS)
    # A row, not columns: columns stack on a phone, and would push the chart down.
    with st.container(horizontal=True):
        number_input(TrainParams, "steps", lang, "tr_steps", step=50)
        number_input(TrainParams, "seed", lang, "tr_seed", step=1)


@contextmanager
def progress_bar(text: str) -> Iterator[None]:
    """A progress bar that appears only if the work inside runs for a while (not when cached),
    moved at most every PROGRESS_EVERY seconds: each move is a message the browser draws."""
    holder = st.empty()
    moved = time.perf_counter()

    def report(done: float) -> None:
        nonlocal moved
        if time.perf_counter() - moved >= PROGRESS_EVERY:
            moved = time.perf_counter()
            holder.progress(min(max(done, 0.0), 1.0), text=text)

    with compute.reporting(report):
        yield
    holder.empty()


def trained(params: TrainParams, lang: str) -> TrainPair:
    """The page's one core call: both runs of this setting, shared by every session. A run not
    kept yet is trained in a script run of its own, which shows the scaled curve so far (its
    first 50 steps, then all of them); the page reruns itself until the unscaled run is done."""
    calls = compute.drawing_calls(params)
    with progress_bar(t("tr_training", lang)):
        done = advance(calls, ONE_RUN)
    if done < len(calls):
        last, kwargs = calls[done - 1]  # the longest scaled run trained so far
        loss_chart([last(**kwargs)], params, lang)
        notes.rerun()
    return train_pair(params)


def callout(
    title: str,
    sentences: list[str],
    lang: str,
    below: Sequence[str] = (),
    lead: int = 1,
    key: str | None = None,
) -> None:
    """Computed sentences in a frame, shown as text (never Markdown): the first one, the
    finding, in bold on its own, and the rest of its ``lead`` sentences each on its own; the
    rest, the why, after them; then each of ``below`` (the numbers behind it) on a line of its
    own, smaller."""
    with st.container(border=True, key=key):
        safe_text(title, tag="h4")
        safe_text(sentences[0], tag="strong")
        for sentence in sentences[1:lead]:
            safe_text(sentence)
        if sentences[lead:]:
            safe_text(compute.sentences_text(sentences[lead:], lang))
        for line in below:
            safe_text(line, size="0.875rem")


def loss_chart(runs: list[TrainRun], params: TrainParams, lang: str) -> None:
    """The main figure: the loss of the runs trained so far, titled by their setting."""
    task, optimizer = t(f"tr_task_{params.task}", lang), t(f"tr_optimizer_{params.optimizer}", lang)
    title = t("tr_loss_title", lang)
    setting = t("tr_loss_setting", lang, task=task, d=params.d, optimizer=optimizer)
    chart(
        "loss_curves",
        figures.loss_curves,
        runs,
        steps=params.steps,
        title=title,
        setting=setting,
        lang=lang,
    )


def numbers_section(pair: TrainPair, params: TrainParams, lang: str) -> None:
    """What the loss curves show, and the numbers at the start that explain it."""
    sqrt_d = f"{math.sqrt(params.d):.3g}"  # exact, not measured: 8, not 8.00
    st.caption(t("tr_same_start", lang, sqrt_d=sqrt_d) + " " + t("tr_loss_why", lang))
    left, right = st.columns(2, gap="medium")
    with left:
        title = t("tr_run_title", lang, seed=params.seed)
        sentences = compute.verdict(pair, lang)
        callout(title, sentences, lang, lead=compute.VERDICT_LEAD, key="run_verdict")
    with right:
        st.latex(
            r"\operatorname{softmax}\!\Big(\frac{q k^\top}{\sqrt{d_k}}\Big)"
            r"\ \text{vs}\ \operatorname{softmax}\big(q k^\top\big)"
        )
        # A static table wraps its long row names: it fits a phone without scrolling sideways.
        st.table(measure_table(pair, lang), hide_index=True)


def answer_section(pair: TrainPair, lang: str) -> None:
    """The page's answer to its question, on the first screen under the chart: the shipped
    sweeps' answer (the one /model, the quiz and /scaling give), its numbers further down; its
    title says so when the run drawn above is a seed that differs from the median."""
    claims, _ = compute.need_parts(lang)
    runs = len(compute.shipped_sweeps()[OPTIMIZERS[0]].seeds)
    title = t("tr_answer_title", lang, runs=runs, kernels=len(compute.shipped_kernels()))
    if compute.seed_agrees(compute.evidence(pair), pair.scaled) is False:
        title += t("tr_answer_seed_differs", lang, seed=pair.scaled.seed)
    with st.container(border=True, key="need_answer"):
        safe_text(title, tag="h4", size="0.875rem")
        safe_text(claims[0], tag="strong")


def need_section(lang: str) -> None:
    """The page's question for every d_k and optimizer, from the shipped sweeps, in full: the
    answer (shown under the chart too), what it says of the articles' claim, every setting's
    numbers. The model page, the quiz and the scaling page give the same."""
    claims, evidence = compute.need_parts(lang)
    callout(t("tr_need_title", lang), claims, lang, below=evidence, key="need_detail")


def _steps_text(step: int, lang: str) -> str:
    return t("tr_never", lang) if step == NEVER else str(step)


def measure_table(pair: TrainPair, lang: str) -> pd.DataFrame:
    """Accuracy, steps to 90 %, and the start's score std, peak weight and gradient size."""
    e = compute.evidence(pair)
    rows = {
        "tr_row_accuracy": [t("tr_percent", lang, value=compute.pct(a)) for a in e.accuracy],
        "tr_row_steps_to": [_steps_text(s, lang) for s in e.steps],
        "tr_row_std": [compute.num(s) for s in e.score_std],
        "tr_row_peak": [f"{p:.2f}" for p in e.peak],
        "tr_row_one_hot": [t("tr_percent", lang, value=compute.pct(p)) for p in e.one_hot],
        "tr_row_grad": [compute.num(g) for g in e.early_gradient],
    }
    names = [t(key, lang, window=e.window) for key in rows]
    scaled, unscaled = zip(*rows.values(), strict=True)
    return pd.DataFrame(
        {
            t("tr_col_measure", lang): names,
            t("tr_scaled", lang): list(scaled),
            t("tr_unscaled", lang): list(unscaled),
        }
    )


def gradient_section(pair: TrainPair, lang: str) -> None:
    """Does the gradient vanish? Its size at every step, both runs."""
    e = compute.evidence(pair)
    st.subheader(t("tr_grad_title", lang))
    st.latex(  # two lines: one is wider than a phone
        r"\begin{gathered} \frac{\partial L}{\partial s_{ij}} = "
        r"\frac{w_{ij}\big(g_{ij} - \sum_k w_{ik}\, g_{ik}\big)}{\sqrt{d_k}\ \text{"
        + t("tr_or", lang)
        + r"}\ 1} \\"
        r" g_{ij} = \frac{\partial L}{\partial w_{ij}} \end{gathered}"
    )
    numbers = {
        "early_s": compute.num(e.early_gradient[0]),
        "early_u": compute.num(e.early_gradient[1]),
        "late_s": compute.num(e.late_gradient[0]),
        "late_u": compute.num(e.late_gradient[1]),
    }
    safe_text(t("tr_grad_why", lang, window=e.window, **numbers))
    chart("grad_curves", figures.grad_curves, pair, lang=lang)


def weights_section(pair: TrainPair, params: TrainParams, lang: str) -> None:
    """The attention on the probe, forming checkpoint by checkpoint, scaled beside unscaled."""
    e = compute.evidence(pair)
    st.subheader(t("tr_weights_title", lang))
    rule = t(f"tr_rule_{params.task}", lang)
    on = {"on_s": f"{e.on_ideal[0]:.2f}", "on_u": f"{e.on_ideal[1]:.2f}"}
    safe_text(t("tr_weights_why", lang, rule=rule, **on))
    ideal = compute.ideal_keys(params.task, pair.scaled.probe)
    chart("learned_weights", figures.learned_weights, pair, ideal, lang=lang)


def sweep_section(params: TrainParams, lang: str) -> None:
    """Steps to 90 % against d_k, several seeds, computed only when asked for."""
    st.subheader(t("tr_sweep_title", lang))
    seeds = compute.sweep_seeds(params.seed)
    st.caption(
        t(
            "tr_sweep_why",
            lang,
            seeds=len(seeds),
            seed_list=", ".join(str(s) for s in seeds),
            every=compute.SWEEP_EVAL_EVERY,
            max_steps=compute.SWEEP_MAX_STEPS,
        )
    )
    key = (params.task, params.optimizer, params.seed)
    if key not in SWEEPS.get():
        st.button(t("tr_sweep_button", lang), key="train_sweep", on_click=_ask_sweep, args=(key,))
        return
    calls = compute.sweep_calls(params.task, params.optimizer, params.seed)
    done = advance(calls, SLICE)
    if done < len(calls):
        # A few cells per run, then the next run: the bar moves, and every run stays short.
        st.progress(done / len(calls), text=t("tr_sweep_running", lang, done=done, runs=len(calls)))
        notes.rerun()
    result = compute.sweep(task=params.task, optimizer=params.optimizer, seed=params.seed)
    callout(t("tr_verdict_title", lang), compute.sweep_summary(result, lang), lang)
    moved = compute.moved_runs(result)
    if moved:  # the page's answer above is the shipped sweep's: say where this server's differs
        st.info(t("tr_sweep_moved", lang, moved=moved, runs=result.scaled.size * 2))
    chart("sweep_steps", figures.sweep_steps, result, lang=lang)
    st.dataframe(sweep_table(result, lang), hide_index=True, width="stretch")


def sweep_table(result: Sweep, lang: str) -> pd.DataFrame:
    """One row per d_k: score std at the start, every seed's steps, and the medians."""

    def steps(row: np.ndarray) -> str:
        return ", ".join(_steps_text(int(s), lang) for s in row)

    def median(value: float) -> str:
        return t("tr_never", lang) if math.isnan(value) else f"{value:.0f}"

    stds = zip(result.score_std_scaled.tolist(), result.score_std_unscaled.tolist(), strict=True)
    return pd.DataFrame(
        {
            t("tr_sw_col_d", lang): list(result.d_ks),
            t("tr_sw_col_std", lang): [f"{s:.2f} / {u:.1f}" for s, u in stds],
            t("tr_sw_col_scaled", lang): [steps(row) for row in result.scaled],
            t("tr_sw_col_unscaled", lang): [steps(row) for row in result.unscaled],
            t("tr_sw_col_median_s", lang): [median(m) for m in result.median_steps(True)],
            t("tr_sw_col_median_u", lang): [median(m) for m in result.median_steps(False)],
        }
    )
