"""Lesson: how softmax works, with the articles' examples computed, not copied."""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

import numpy as np
import pandas as pd
import streamlit as st

from ui.kit import state
from ui.kit.cache import shared
from ui.kit.display import (
    Chart,
    chart,
    number_input,
    page_link,
    picker,
    safe_text,
    selectbox,
    text_input,
)
from ui.kit.figures import format_value
from ui.kit.text import STRINGS, t
from ui.softmax import figures
from ui.softmax.presets import PRESETS, Preset, active_preset, compare, labels_for, largest
from ui.softmax.settings import DEFAULT_VALUES, LARGEST, SECTIONS, SoftmaxParams
from viz_core import (
    SoftmaxBreakdown,
    cross_entropy_gradient,
    jacobian_norm,
    softmax_breakdown,
    softmax_jacobian,
)
from viz_core.settings import parse_values

# Whether the examples' popover is open: its widget key, so that a pick can close it.
EXAMPLES = state.Slot("softmax", "examples", False)
# The examples two to a row, each beside its twin (unscaled, ÷ 8): the list fits a 720 px screen.
PRESET_ROWS = (
    ("basic", "winner"),
    ("flat", "mild"),
    ("sharp", "overflow"),
    ("xi_raw", "xi_8"),
    ("five_raw", "five_8"),
    ("grad_raw", "grad_8"),
)
# Two centred lines, each narrower than a phone: one line was 460 px wide, a phone has 360.
TABLE_FORMULA = (
    r"\begin{gathered}\operatorname{softmax}(x)_i = \frac{e^{x_i / c}}{\sum_j e^{x_j / c}} \\"
    r" = \frac{e^{x_i / c - m}}{\sum_j e^{x_j / c - m}},\quad m = \max_j x_j / c\end{gathered}"
)
CHART_HEIGHT = 320  # px: the bars and the controls above them fit a 1280 × 720 first screen


def compute(params: SoftmaxParams) -> SoftmaxBreakdown:
    """The page's one core call, at its numbers and divisor (every section and target of them
    shares one result); ValueError when the numbers are not 1 to 12 numbers."""
    return _breakdown(replace(params, target=LARGEST, section=SECTIONS[0]))


@shared(max_mb=1)
def _breakdown(params: SoftmaxParams) -> SoftmaxBreakdown:
    """softmax_breakdown, keyed by the settings that change it."""
    values = parse_values(params.values)
    if values is None:
        raise ValueError("Type 1 to 12 numbers, separated by commas.")
    return softmax_breakdown(values, params.divisor)


def _use_preset(name: str) -> None:
    """A pick sets the example's numbers and divisor, and closes the list it was picked from."""
    preset = PRESETS[name]
    params = state.current(SoftmaxParams)
    state.put(replace(params, values=preset.values, divisor=float(preset.divisor), target=LARGEST))
    EXAMPLES.set(False)


def _naive(value: float, total: float, lang: str) -> str:
    if value != value:  # NaN: ∞/∞, or 0/0 when every e^x underflowed
        return t("sm_undefined" if total else "sm_undefined_zero", lang)
    if value == float("inf"):
        return t("sm_overflow", lang)
    return format_value(value, 6)


def render() -> None:
    """Controls, one core call, then the chart, the article's check and one section below it:
    the table, stability, the Jacobian or the loss gradient."""
    lang = state.open_page("sm_title", "sm_intro", SoftmaxParams)
    controls(lang)
    params = state.current(SoftmaxParams)
    try:
        breakdown = compute(params)
    except ValueError:
        st.warning(t("sm_values_bad", lang), icon=":material/edit:")
        breakdown = compute(replace(params, values=DEFAULT_VALUES))
    labels = labels_for(tuple(float(x) for x in breakdown.x))
    chart_section(breakdown, labels, lang)
    article_verdict(breakdown, lang)
    past_target(labels, lang)
    section = picker(SoftmaxParams, "section", lang, "sm_section")
    SECTION_VIEWS[section](breakdown, labels, lang)
    state.close_page(state.current(SoftmaxParams))


def past_target(labels: list[str], lang: str) -> None:
    """A target past the last number (from a link, or numbers typed shorter) becomes the largest
    entry again, with a note: the link's own note only knew the longest list allowed."""
    params = state.current(SoftmaxParams)
    target = params.target
    if target >= len(labels):
        state.put(replace(params, target=LARGEST))
        words = {"target": target, "count": len(labels), "last": len(labels) - 1}
        st.info(t("sm_target_past", lang, **words), icon=":material/build:")


def controls(lang: str) -> None:
    """The numbers, the divisor, and the articles' examples in a popover beside them, so that the
    chart starts on the first screen of a phone or a projector."""
    numbers, divisor, examples = st.columns([5, 2, 2], vertical_alignment="bottom")
    with numbers:
        label, help_ = t("sm_values_label", lang), t("sm_values_help", lang)
        text_input(SoftmaxParams, "values", label, help=help_)
    with divisor:
        number_input(SoftmaxParams, "divisor", lang, "sm_divisor", step=1.0, format="%.3f")
    with examples.popover(
        t("sm_presets", lang), key=EXAMPLES.key, on_change="rerun",
        icon=":material/newspaper:", width="stretch",
    ):  # fmt: skip
        for row in PRESET_ROWS:
            pair = st.container(horizontal=True, wrap=False)
            for name in row:
                pair.button(
                    t(f"sm_preset_{name}", lang),
                    key=f"softmax_{name}",
                    on_click=_use_preset,
                    args=(name,),
                    width="stretch",
                    wrap=True,
                )


def article_verdict(breakdown: SoftmaxBreakdown, lang: str) -> None:
    """When the numbers are an article's example: do its printed softmax, Σ and gradient agree
    with the computation at the article's own precision?"""
    name = active_preset(tuple(breakdown.x), breakdown.divisor)
    if name is None:
        return
    preset = PRESETS[name]
    gradient = cross_entropy_gradient(breakdown.probs, largest(tuple(breakdown.x)))
    checks = [
        ("probs", preset.probs, tuple(breakdown.probs)),
        ("total", preset.total, (breakdown.naive_total,)),  # the article sums e^x, unshifted
        ("gradient", preset.gradient, tuple(gradient)),
    ]
    for what, printed, computed in checks:
        if what == "total" and total_of_rounded(preset, breakdown, lang):
            continue
        if printed is not None:
            agrees, numbers = compare(printed, computed)
            if agrees:
                st.success(
                    t(f"sm_{what}_agrees", lang, printed=printed.text),
                    icon=":material/check_circle:",
                )
            else:
                words = {"printed": printed.text, "computed": numbers}
                st.warning(t(f"sm_{what}_differs", lang, **words), icon=":material/newspaper:")
    twin = PRESETS[preset.scaled_twin].probs if preset.scaled_twin else None
    if twin is not None:
        numbers = "[" + ", ".join(f"{p:.2f}" for p in breakdown.probs) + "]"
        top = f"{breakdown.probs.max():.2f}"
        st.info(
            t("sm_twin_note", lang, printed=twin.text, computed=numbers, top=top),
            icon=":material/newspaper:",
        )
        page_link(
            "model", t("model_link", lang)
        )  # the article's 喜 row is made up; the trained model's is measured


def total_of_rounded(preset: Preset, breakdown: SoftmaxBreakdown, lang: str) -> bool:
    """An article's Σ that is the sum of its own rounded eˣ (and those are right, to its
    decimals): both numbers are right, and the page says why. False when that is not so."""
    printed, exps = preset.total, preset.exps
    if printed is None or exps is None:
        return False
    exps_agree, _ = compare(exps, tuple(np.exp(breakdown.x / breakdown.divisor)))
    added = sum(float(number) for number in exps.numbers)
    decimals = len(printed.numbers[0].split(".")[-1])
    if not exps_agree or f"{added:.{decimals}f}" != printed.numbers[0]:
        return False
    exact = float(breakdown.naive_total)
    words = {"printed": printed.text, "exps": exps.text, "exact": f"{exact:.4f}"}
    words["rounded"] = f"{exact:.{decimals}f}"
    st.info(t("sm_total_both", lang, **words), icon=":material/functions:")
    return True


def table_section(breakdown: SoftmaxBreakdown, labels: list[str], lang: str) -> None:
    """The articles' table: x, ÷ divisor, − max, eˣ, p, and Σ."""
    st.subheader(t("sm_table_title", lang))
    st.latex(TABLE_FORMULA)
    st.caption(t("sm_table_why", lang))
    columns = {  # (column, significant digits): eˣ to 4, as the article's 6.77, so a phone fits
        "sm_col_x": (breakdown.x, 6),
        "sm_col_scaled": (breakdown.scaled, 6),
        "sm_col_shifted": (breakdown.shifted, 6),
        "sm_col_exp": (breakdown.exps, 4),
    }
    table = {"sm_col_position": labels}
    table |= {key: [format_value(v, n) for v in column] for key, (column, n) in columns.items()}
    table["sm_col_prob"] = [f"{v:.5f}" for v in breakdown.probs]  # as the article's 0.99998
    narrow_table(table, lang)
    total, check = format_value(breakdown.total, 6), f"{breakdown.probs.sum():.15f}"
    safe_text(t("sm_total", lang, total=total, check=check))


def narrow_table(columns: Mapping[str, Sequence[str]], lang: str) -> None:
    """A table whose columns are named by string keys: a short name heads each column and the
    name in words (``<key>_help``) is its header's tooltip, so that the table fits a phone. The
    first column (which entry) stays put when longer numbers make the table scroll sideways."""
    names = {key: t(key, lang) for key in columns}
    config = {
        names[key]: st.column_config.TextColumn(
            help=t(f"{key}_help", lang) if f"{key}_help" in STRINGS else None, pinned=i == 0
        )
        for i, key in enumerate(columns)
    }
    frame = pd.DataFrame({names[key]: values for key, values in columns.items()})
    st.dataframe(frame, hide_index=True, width="stretch", column_config=config)


def chart_section(breakdown: SoftmaxBreakdown, labels: list[str], lang: str) -> None:
    """What goes in and what comes out, bar for bar."""
    st.subheader(t("sm_chart_title", lang))
    main = Chart("softmax_bars", first=True)
    chart(
        main, figures.softmax_bars, breakdown.scaled, breakdown.probs, labels,
        lang=lang, height=CHART_HEIGHT,
    )  # fmt: skip
    st.caption(t("sm_chart_why", lang))


def stability_section(breakdown: SoftmaxBreakdown, labels: list[str], lang: str) -> None:
    """The naive formula beside the stable one: overflow and underflow are shown as such, never
    as NaN, and the two agree only where they really do."""
    st.subheader(t("sm_stability_title", lang))
    st.caption(t("sm_stability_why", lang))
    total = breakdown.naive_total
    table = {
        "sm_col_position": labels,
        "sm_col_naive_exp": [_naive(v, total, lang) for v in breakdown.naive_exps],
        "sm_naive": [_naive(v, total, lang) for v in breakdown.naive_probs],
        "sm_stable": [f"{v:.6f}" for v in breakdown.probs],
    }
    narrow_table(table, lang)
    key, error = naive_verdict(breakdown)
    (st.info if key == "sm_naive_ok" else st.warning)(t(key, lang, error=error))


def naive_verdict(breakdown: SoftmaxBreakdown) -> tuple[str, str]:
    """Which way the naive formula went (exact, overflowed, all underflowed, or inexact where
    some e^x fell below the smallest float), and its largest relative error."""
    naive, stable = breakdown.naive_probs, breakdown.probs
    if not np.isfinite(breakdown.naive_total):
        return "sm_naive_broken", ""
    if breakdown.naive_total == 0:
        return "sm_naive_underflow", ""
    if np.allclose(naive, stable, rtol=1e-9, atol=0):
        return "sm_naive_ok", ""
    positive = stable > 0
    error = np.abs(naive[positive] - stable[positive]) / stable[positive]
    return "sm_naive_inexact", f"{100 * error.max():.3g}"


def jacobian_section(breakdown: SoftmaxBreakdown, labels: list[str], lang: str) -> None:
    """What vanishes near one-hot: ∂p/∂x for these numbers, ÷ the divisor beside ÷ 1."""
    same = ", ".join(repr(float(x)) for x in breakdown.x)  # the numbers exactly, as text
    unscaled = compute(SoftmaxParams(values=same, divisor=1.0))
    st.subheader(t("sm_jacobian_title", lang))
    st.latex(r"J_{ij} = \frac{\partial p_i}{\partial x_j} = p_i(\delta_{ij} - p_j)")
    st.caption(t("sm_jacobian_why", lang))
    runs = [(breakdown, "jacobian_heatmap")]
    if breakdown.divisor != 1:
        runs.append((unscaled, "jacobian_unscaled"))
    numbers = {
        "divisor": f"{breakdown.divisor:g}",
        "norm": f"{jacobian_norm(breakdown.probs):.3g}",
        "top": f"{breakdown.probs.max():.3f}",
        "norm_raw": f"{jacobian_norm(unscaled.probs):.3g}",
        "top_raw": f"{unscaled.probs.max():.3f}",
    }
    key = "sm_jacobian_compare" if len(runs) == 2 else "sm_jacobian_alone"
    safe_text(t(key, lang, **numbers))
    for column, (run, chart_key) in zip(st.columns(len(runs)), runs, strict=True):
        with column:
            st.caption(t("sm_divided_by", lang, divisor=f"{run.divisor:g}"))
            jacobian = softmax_jacobian(run.probs)
            share = 1 / len(runs)
            chart(chart_key, figures.jacobian_heatmap, jacobian, labels, lang=lang, share=share)


def loss_gradient_section(breakdown: SoftmaxBreakdown, labels: list[str], lang: str) -> None:
    """The cross-entropy gradient p − one-hot(t): large entries only where the answer is wrong."""
    n = len(labels)
    st.subheader(t("sm_loss_title", lang))
    st.latex(r"\frac{\partial(-\ln p_t)}{\partial x_j} = p_j - [j = t]")
    st.caption(t("sm_loss_why", lang))
    top = largest(tuple(breakdown.x))
    largest_label = t("sm_target_largest", lang, token=labels[top])
    selectbox(
        SoftmaxParams,
        "target",
        t("sm_target_label", lang),
        [LARGEST, *range(n)],
        format_func=lambda i: largest_label if i < 0 else labels[i],
    )
    choice = state.current(SoftmaxParams).target
    target = top if choice == LARGEST else choice
    gradient = cross_entropy_gradient(breakdown.probs, target)
    numbers = {
        "target": labels[target],
        "grad": f"{abs(gradient).max():.3g}",
        "big": int((abs(gradient) >= 0.01).sum()),
        "n": n,
    }
    safe_text(t("sm_loss_numbers", lang, **numbers))
    chart("gradient_bars", figures.gradient_bars, gradient, labels, lang=lang)


SECTION_VIEWS: dict[str, Callable[[SoftmaxBreakdown, list[str], str], None]] = {
    "table": table_section,
    "stability": stability_section,
    "jacobian": jacobian_section,
    "gradient": loss_gradient_section,
}
