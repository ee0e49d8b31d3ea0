"""Lesson: how softmax works, with the articles' examples computed, not copied."""

import pandas as pd
import streamlit as st

from ui.kit import state
from ui.kit.cache import shared
from ui.kit.display import chart, number_input, safe_text
from ui.kit.figures import format_value, matrix_heatmap, positions
from ui.kit.settings import parse_values
from ui.kit.text import t
from ui.softmax import figures
from ui.softmax.presets import PRESETS, active_preset, article_check
from ui.softmax.settings import DEFAULT_VALUES, SoftmaxParams
from viz_core import SoftmaxBreakdown, cross_entropy_gradient, softmax_breakdown, softmax_jacobian


@shared(max_mb=1)
def compute(values: tuple[float, ...], divisor: float) -> SoftmaxBreakdown:
    """The page's one core call."""
    return softmax_breakdown(values, divisor)


def _use_preset(name: str) -> None:
    st.session_state.values = PRESETS[name].values
    st.session_state.divisor = float(PRESETS[name].divisor)


def _number(value: float) -> str:
    return format_value(float(value), digits=6)


def _naive(value: float, lang: str) -> str:
    if value != value:  # NaN: ∞/∞
        return t("sm_undefined", lang)
    if value == float("inf"):
        return t("sm_overflow", lang)
    return _number(value)


def render() -> None:
    """Controls, one core call, then the table, the chart, stability and gradients."""
    lang = state.open_page("sm_title", "sm_intro", SoftmaxParams)
    controls(lang)
    values = parse_values(str(st.session_state["values"]))
    if values is None:
        st.warning(t("sm_values_bad", lang), icon="✍️")
        values = parse_values(DEFAULT_VALUES)
    assert values is not None
    divisor = float(st.session_state.divisor)
    breakdown = compute(values, divisor)
    article_verdict(breakdown, lang)
    table_section(breakdown, lang)
    chart_section(breakdown, lang)
    stability_section(breakdown, lang)
    target = gradient_section(breakdown, lang)
    params = SoftmaxParams(values=str(st.session_state["values"]), divisor=divisor, target=target)
    state.close_page(params)


def controls(lang: str) -> None:
    """The numbers, the divisor, and one button per example from the articles."""
    left, right = st.columns([3, 1])
    left.text_input(
        t("sm_values_label", lang), key="values", help=t("sm_values_help", lang), max_chars=400
    )
    with right:
        number_input(SoftmaxParams, "divisor", lang, "sm_divisor", step=1.0, format="%.3f")
    st.caption(t("sm_presets", lang))
    names = list(PRESETS)
    for start in range(0, len(names), 4):
        for column, name in zip(st.columns(4), names[start : start + 4], strict=False):
            column.button(
                t(f"sm_preset_{name}", lang),
                key=f"sm_{name}",
                on_click=_use_preset,
                args=(name,),
                width="stretch",
            )


def article_verdict(breakdown: SoftmaxBreakdown, lang: str) -> None:
    """When the numbers are an article's example: does its printed result agree?"""
    preset = active_preset(tuple(breakdown.x), breakdown.divisor)
    if not (preset and PRESETS[preset].printed):
        return
    agrees, computed = article_check(PRESETS[preset], tuple(breakdown.probs))
    printed = PRESETS[preset].printed or ""
    if agrees:
        st.success(t("sm_article_agrees", lang, printed=printed), icon="✅")
    else:
        st.warning(t("sm_article_differs", lang, printed=printed, computed=computed), icon="📰")


def table_section(breakdown: SoftmaxBreakdown, lang: str) -> None:
    """The articles' table: x, ÷ divisor, − max, eˣ, p, and Σ."""
    st.subheader(t("sm_table_title", lang))
    st.latex(
        r"\operatorname{softmax}(x)_i = \frac{e^{x_i / c}}{\sum_j e^{x_j / c}}"
        r" = \frac{e^{x_i / c - m}}{\sum_j e^{x_j / c - m}},\quad m = \max_j x_j / c"
    )
    st.caption(t("sm_table_why", lang))
    columns = {
        "sm_col_x": breakdown.x,
        "sm_col_scaled": breakdown.scaled,
        "sm_col_shifted": breakdown.shifted,
        "sm_col_exp": breakdown.exps,
    }
    table = {t("sm_col_position", lang): positions(len(breakdown.x))}
    table |= {t(key, lang): [_number(v) for v in column] for key, column in columns.items()}
    table[t("sm_col_prob", lang)] = [f"{v:.6f}" for v in breakdown.probs]
    st.dataframe(pd.DataFrame(table), hide_index=True, width="stretch")
    total, check = _number(breakdown.total), f"{breakdown.probs.sum():.15f}"
    safe_text(t("sm_total", lang, total=total, check=check))


def chart_section(breakdown: SoftmaxBreakdown, lang: str) -> None:
    """What goes in and what comes out, bar for bar."""
    st.subheader(t("sm_chart_title", lang))
    st.caption(t("sm_chart_why", lang))
    labels = positions(len(breakdown.x))
    fig = figures.softmax_bars(breakdown.scaled, breakdown.probs, labels, lang=lang)
    chart(fig, "softmax_bars")


def stability_section(breakdown: SoftmaxBreakdown, lang: str) -> None:
    """The naive formula beside the stable one: overflow is shown as such, never as NaN."""
    st.subheader(t("sm_stability_title", lang))
    st.caption(t("sm_stability_why", lang))
    overflowed = not all(v == v and v != float("inf") for v in breakdown.naive_probs)
    stability = pd.DataFrame(
        {
            t("sm_col_position", lang): positions(len(breakdown.x)),
            "e^x": [_naive(v, lang) for v in breakdown.naive_exps],
            t("sm_naive", lang): [_naive(v, lang) for v in breakdown.naive_probs],
            t("sm_stable", lang): [f"{v:.6f}" for v in breakdown.probs],
        }
    )
    st.dataframe(stability, hide_index=True, width="stretch")
    (st.warning if overflowed else st.info)(
        t("sm_naive_broken" if overflowed else "sm_naive_ok", lang)
    )


def gradient_section(breakdown: SoftmaxBreakdown, lang: str) -> int:
    """The cross-entropy gradient p − one-hot and the Jacobian; returns the target."""
    n = len(breakdown.x)
    st.subheader(t("sm_gradient_title", lang))
    st.latex(
        r"\frac{\partial(-\ln p_t)}{\partial x_j} = p_j - [j = t],\qquad"
        r"\frac{\partial p_i}{\partial x_j} = p_i(\delta_{ij} - p_j)"
    )
    st.caption(t("sm_gradient_why", lang))
    if int(st.session_state.target) >= n:
        st.session_state.target = 0
    target = st.selectbox(
        t("sm_target_label", lang), range(n), key="target", format_func=lambda i: f"x{i}"
    )
    gradient = cross_entropy_gradient(breakdown.probs, target)
    jacobian = softmax_jacobian(breakdown.probs)
    norm = f"{(jacobian**2).sum() ** 0.5:.2e}"
    safe_text(t("sm_gradient_size", lang, grad=f"{abs(gradient).max():.2e}", norm=norm))
    left, right = st.columns(2)
    with left:
        chart(figures.gradient_bars(gradient, lang=lang), "gradient_bars")
    with right:
        labels = tuple(positions(n))
        options = {"kind": "fine", "row_axis": "axis_output", "col_axis": "axis_input"}
        fig = matrix_heatmap(jacobian, labels, labels, lang=lang, **options)
        chart(fig, "jacobian_heatmap")
    return int(target)
