"""Lesson: how softmax works, with the articles' examples computed, not copied."""

from dataclasses import dataclass

import pandas as pd
import streamlit as st

from ui import figures, lesson_figures, state
from ui.common import chart, safe_text, share_link
from ui.kit.cache import shared
from ui.params import DEFAULT_VALUES, SoftmaxParams, parse_softmax, parse_values
from ui.strings import t
from viz_core import SoftmaxBreakdown, cross_entropy_gradient, softmax_breakdown, softmax_jacobian

STORE = "_softmax_params"
XI_ROW = "15.3, 22.7, 18.2, 2.1, 1.8, 3.2, 2.9, 5.6, 4.1"
FIVE = "15.3, 22.7, 18.2, 2.1, 1.8"


@dataclass(frozen=True)
class Preset:
    """An example from the articles, with the probabilities they print (as printed)."""

    values: str
    divisor: float = 1.0
    printed: str | None = None  # the article's text
    printed_numbers: tuple[str, ...] = ()  # the same, as numbers with the printed decimals


PRESETS = {
    "basic": Preset("2.0, 1.0, 0.1", 1, "[0.659, 0.242, 0.099]", ("0.659", "0.242", "0.099")),
    "winner": Preset(
        "20, 10, 1", 1, "[0.99998, 0.00005, 0.00000]", ("0.99998", "0.00005", "0.00000")
    ),
    "flat": Preset("0.02, 0.01, 0.01", 1, "[0.337, 0.332, 0.332]", ("0.337", "0.332", "0.332")),
    "mild": Preset("10, 11, 9", 1, "[0.245, 0.665, 0.090]", ("0.245", "0.665", "0.090")),
    "sharp": Preset("40, 44, 36", 1, "[0.018, 0.982, 0.0003]", ("0.018", "0.982", "0.0003")),
    "xi_raw": Preset(XI_ROW),
    "xi_8": Preset(
        XI_ROW,
        8,
        "[0.16, 0.40, 0.23, 0.03, 0.03, 0.03, 0.03, 0.05, 0.04]",
        ("0.16", "0.40", "0.23", "0.03", "0.03", "0.03", "0.03", "0.05", "0.04"),
    ),
    "five_raw": Preset(
        FIVE, 1, "[0.001, 0.997, 0.002, ≈0, ≈0]", ("0.001", "0.997", "0.002", "0.000", "0.000")
    ),
    "five_8": Preset(
        FIVE,
        8,
        "[0.187, 0.473, 0.270, 0.036, 0.035]",
        ("0.187", "0.473", "0.270", "0.036", "0.035"),
    ),
    "grad_raw": Preset("20, -10, 5", 1, "[0.9999, 0.0000, 0.0001]", ("0.9999", "0.0000", "0.0001")),
    "grad_8": Preset("20, -10, 5", 8, "[0.76, 0.02, 0.22]", ("0.76", "0.02", "0.22")),
    "overflow": Preset("1000, 999"),
}


def _decimals(printed: str) -> int:
    return len(printed.split(".")[1]) if "." in printed else 0


def article_check(preset: Preset, probs: tuple[float, ...]) -> tuple[bool, str]:
    """Whether the article's printed numbers match the computation at the printed precision.

    Returns (agrees, the computed numbers printed with the article's decimals).
    """
    computed = [
        f"{p:.{_decimals(text)}f}" for p, text in zip(probs, preset.printed_numbers, strict=True)
    ]
    agrees = computed == list(preset.printed_numbers)
    return agrees, "[" + ", ".join(computed) + "]"


def active_preset(values: tuple[float, ...], divisor: float) -> str | None:
    """The preset these numbers are, if any."""
    for name, preset in PRESETS.items():
        if parse_values(preset.values) == values and preset.divisor == divisor:
            return name
    return None


@shared(max_mb=1)
def compute(values: tuple[float, ...], divisor: float) -> SoftmaxBreakdown:
    """The page's one core call."""
    return softmax_breakdown(values, divisor)


def _use_preset(name: str) -> None:
    st.session_state.values = PRESETS[name].values
    st.session_state.divisor = float(PRESETS[name].divisor)


def _number(value: float) -> str:
    return figures.format_value(float(value), digits=6)


def _naive(value: float, lang: str) -> str:
    if value != value:  # NaN: ∞/∞
        return t("sm_undefined", lang)
    if value == float("inf"):
        return t("sm_overflow", lang)
    return _number(value)


def render() -> None:
    """Controls, one core call, then the table, the chart, stability and gradients."""
    lang = state.lang()
    notes = state.restore(STORE, parse_softmax)
    st.title(t("sm_title", lang))
    st.caption(t("sm_intro", lang))
    state.show_notes(notes)

    left, right = st.columns([3, 1])
    left.text_input(
        t("sm_values_label", lang), key="values", help=t("sm_values_help", lang), max_chars=400
    )
    right.number_input(
        t("sm_divisor_label", lang),
        key="divisor",
        min_value=0.001,
        max_value=1e6,
        step=1.0,
        format="%.3f",
        help=t("sm_divisor_help", lang),
    )
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

    values = parse_values(str(st.session_state["values"]))
    if values is None:
        st.warning(t("sm_values_bad", lang), icon="✍️")
        values = parse_values(DEFAULT_VALUES)
    assert values is not None
    divisor = float(st.session_state.divisor)
    breakdown = compute(values, divisor)
    n = len(values)

    preset = active_preset(values, divisor)
    if preset and PRESETS[preset].printed:
        agrees, computed = article_check(PRESETS[preset], tuple(breakdown.probs))
        printed = PRESETS[preset].printed or ""
        if agrees:
            st.success(t("sm_article_agrees", lang, printed=printed), icon="✅")
        else:
            st.warning(t("sm_article_differs", lang, printed=printed, computed=computed), icon="📰")

    st.subheader(t("sm_table_title", lang))
    st.latex(
        r"\operatorname{softmax}(x)_i = \frac{e^{x_i / c}}{\sum_j e^{x_j / c}}"
        r" = \frac{e^{x_i / c - m}}{\sum_j e^{x_j / c - m}},\quad m = \max_j x_j / c"
    )
    st.caption(t("sm_table_why", lang))
    table = pd.DataFrame(
        {
            t("sm_col_position", lang): lesson_figures.positions(n),
            t("sm_col_x", lang): [_number(v) for v in breakdown.x],
            t("sm_col_scaled", lang): [_number(v) for v in breakdown.scaled],
            t("sm_col_shifted", lang): [_number(v) for v in breakdown.shifted],
            t("sm_col_exp", lang): [_number(v) for v in breakdown.exps],
            t("sm_col_prob", lang): [f"{v:.6f}" for v in breakdown.probs],
        }
    )
    st.dataframe(table, hide_index=True, width="stretch")
    safe_text(
        t("sm_total", lang, total=_number(breakdown.total), check=f"{breakdown.probs.sum():.15f}")
    )

    st.subheader(t("sm_chart_title", lang))
    st.caption(t("sm_chart_why", lang))
    chart(lesson_figures.softmax_bars(breakdown.scaled, breakdown.probs, lang=lang), "softmax_bars")

    st.subheader(t("sm_stability_title", lang))
    st.caption(t("sm_stability_why", lang))
    overflowed = not all(v == v and v != float("inf") for v in breakdown.naive_probs)
    stability = pd.DataFrame(
        {
            t("sm_col_position", lang): lesson_figures.positions(n),
            "e^x": [_naive(v, lang) for v in breakdown.naive_exps],
            t("sm_naive", lang): [_naive(v, lang) for v in breakdown.naive_probs],
            t("sm_stable", lang): [f"{v:.6f}" for v in breakdown.probs],
        }
    )
    st.dataframe(stability, hide_index=True, width="stretch")
    (st.warning if overflowed else st.info)(
        t("sm_naive_broken" if overflowed else "sm_naive_ok", lang)
    )

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
    safe_text(
        t(
            "sm_gradient_size",
            lang,
            grad=f"{abs(gradient).max():.2e}",
            norm=f"{(jacobian**2).sum() ** 0.5:.2e}",
        )
    )
    left, right = st.columns(2)
    with left:
        chart(lesson_figures.gradient_bars(gradient, lang=lang), "gradient_bars")
    with right:
        labels = tuple(lesson_figures.positions(n))
        chart(
            figures.matrix_heatmap(
                jacobian,
                labels,
                labels,
                lang=lang,
                kind="fine",
                row_axis="axis_output",
                col_axis="axis_input",
            ),
            "jacobian_heatmap",
        )

    params = SoftmaxParams(values=str(st.session_state["values"]), divisor=divisor, target=target)
    state.remember(STORE, params)
    share_link(state.publish(params.to_query()))
