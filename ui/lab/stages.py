"""The lab's stage view: one stage of the computation at a time, beside the selected row.

Each stage is a function, top to bottom: its heading and formula, one large heatmap keyed
``<stage>_heatmap``, then two or three sentences of why and what changed (computed).
"""

import math
from collections.abc import Callable
from dataclasses import replace

import numpy as np
import streamlit as st

from ui.kit import state
from ui.kit.display import Chart, chart, clicked_point, page_link, safe_text
from ui.kit.figures import format_small, format_value
from ui.kit.formulas import mask_latex, scale_latex
from ui.kit.heatmap import Matrix, heatmap
from ui.kit.text import t
from ui.lab import figures
from ui.lab.settings import LabParams
from viz_core import ONE_HOT, LabResult, jacobian_norm

# Where a stage puts its heading and formula: above the figure and the row beside it, on one line
Above = Callable[[str, str], None]
OUTPUT_DIMS = 8  # dimensions of V shown in the output stage
CLOSE = 0.1  # largest weights of the two rows within this read as "close"
# A trained head's own words for two verdicts: its std is measured, and its d_k is fixed.
TRAINED_VERDICTS = {
    "row_verdict_both": "row_verdict_both_trained",
    "row_verdict_close": "row_verdict_close_trained",
}


def random_qk(result: LabResult) -> bool:
    """Whether q and k are random with variance about 1 (seeded, or seeded embeddings through
    seeded weights): then theory predicts a std of √d_k, and 1 after ÷√d_k. A trained head's
    are learned: only its measured std is said of it."""
    return result.source != "trained"


def root_std(result: LabResult) -> float:
    """The measured std of the scores ÷√d_k (without the temperature)."""
    return result.std_scores / math.sqrt(result.steps.d_k)


def train_link(lang: str) -> None:
    """The link to /train, after the sentence that says why its gradient is another number than
    a row's softmax Jacobian."""
    st.caption(t("train_differs", lang))
    page_link("train", t("train_link", lang))


def row_from_selection(selection: object) -> int | None:
    """The query row of a click on the weights heatmap, or None when nothing usable was clicked."""
    point = clicked_point(selection)
    y = None if point is None else point.get("y")
    if isinstance(y, bool) or not isinstance(y, int | float) or not math.isfinite(y):
        return None
    return round(y)


def _on_pick() -> None:
    """Copy a click on the weights heatmap into the row setting (a selection resets on redraw)."""
    row = row_from_selection(state.selection("weights_heatmap"))
    if row is not None and row >= 0:
        state.put(replace(state.current(LabParams), row=row))


def stage_heatmap(result: LabResult, stage: str, row: int, lang: str) -> None:
    """One stage of the computation as a large heatmap keyed ``<stage>_heatmap``; its z is that
    matrix of the computation (masked cells of ``masked`` as gaps). Rows are selectable on the
    weights."""
    steps = result.steps
    weights = stage == "weights"
    matrix = Matrix(
        getattr(steps, stage),
        result.tokens,
        result.tokens,
        scale="weights" if weights else "scores",
        masked=~steps.allowed if stage in ("masked", "weights") else None,
        selected_row=row,
        clickable=weights,
    )
    main = Chart(f"{stage}_heatmap", select=_on_pick if weights else None, first=True)
    chart(main, heatmap, matrix, lang=lang, share=0.58)


def scores_stage(result: LabResult, row: int, lang: str, above: Above) -> None:
    """QKᵀ: every query against every key."""
    sqrt_d = f"{math.sqrt(result.steps.d_k):.4g}"
    formula = r"S = Q K^{\top},\quad S_{ij} = q_i \cdot k_j"
    above(t("scores_title", lang), formula)
    stage_heatmap(result, "scores", row, lang)
    st.caption(t("scores_why", lang, sqrt_d=sqrt_d))
    cells = result.steps.scores.size
    key = "changed_scores_trained" if result.source == "trained" else "changed_scores"
    safe_text(t(key, lang, std=f"{result.std_scores:.3g}", sqrt_d=sqrt_d, cells=cells))


def scaled_stage(result: LabResult, row: int, lang: str, above: Above) -> None:
    """÷√d (and the temperature), or nothing when scaling is off."""
    steps = result.steps
    spread = {"divisor": f"{steps.divisor:.4g}", "before": f"{result.std_scores:.3g}"}
    after = f"{result.std_scores / steps.divisor:.3g}"
    if steps.scale:
        formula = scale_latex(steps.d_k, steps.temperature, result.heads)
    else:
        formula = rf"S' = S{'' if steps.temperature == 1 else f' / {steps.temperature:g}'}"
    above(t("scaled_title", lang), formula)
    stage_heatmap(result, "scaled", row, lang)
    if steps.scale:
        key = "scaled_why_on" if random_qk(result) else "scaled_why_on_trained"
        st.caption(t(key, lang, sqrt_d=f"{math.sqrt(steps.d_k):.4g}"))
    elif steps.temperature == 1:
        st.caption(t("scaled_why_off", lang))
        train_link(lang)
    else:
        st.caption(t("scaled_why_off_temperature", lang, temperature=f"{steps.temperature:g}"))
        train_link(lang)
    key = "changed_scaled" if steps.divisor != 1 else "changed_scaled_none"
    safe_text(t(key, lang, after=after, **spread))


def masked_stage(result: LabResult, row: int, lang: str, above: Above) -> None:
    """The mask: −∞ where a query may not look."""
    allowed = result.steps.allowed
    hidden = int(allowed.size - allowed.sum())
    above(t("masked_title", lang), mask_latex(lang))
    stage_heatmap(result, "masked", row, lang)
    st.caption(t(f"masked_why_{result.mask}", lang))
    safe_text(t("changed_masked", lang, hidden=hidden, cells=allowed.size))
    if result.mask != "none":
        safe_text(t("mask_renormalised", lang, error=format_small(result.row_sum_error)))


def weights_stage(result: LabResult, row: int, lang: str, above: Above) -> None:
    """Softmax on every row: the attention weights; a click selects a row."""
    top = f"{result.stats.max_weight[row]:.3f}"
    softmax = r"A_{ij} = \frac{e^{M_{ij}}}{\sum_k e^{M_{ik}}}"  # the title says softmax
    above(t("weights_title", lang), softmax)
    stage_heatmap(result, "weights", row, lang)
    st.caption(t("weights_why", lang))
    safe_text(t("changed_weights", lang, token=result.tokens[row], top=top))


def output_stage(result: LabResult, row: int, lang: str, above: Above) -> None:
    """×V: the selected row's output, a weighted sum of the value vectors."""
    steps, tokens = result.steps, result.tokens
    dims = min(OUTPUT_DIMS, steps.v.shape[1])
    above(t("output_title", lang), r"o_i = \sum_j A_{ij}\, v_j")
    contributions, output = steps.contributions(row), steps.output[row]
    chart(
        "output_heatmap", figures.output_heatmap, contributions, output, tokens, lang=lang,
        dims=dims,
    )  # fmt: skip
    safe_text(t("output_why", lang, token=tokens[row], dims=dims))
    weighted = zip(steps.weights[row], tokens, strict=True)
    terms = " + ".join(f"{w:.2f}·V({token})" for w, token in weighted)
    st.code(f"{tokens[row]} = {terms}", language=None, wrap_lines=True)


def all_stages(result: LabResult, row: int, lang: str, above: Above) -> None:
    """The four matrices side by side, in one figure, to see what each step does."""
    steps = result.steps
    matrices = [steps.scores, steps.scaled, steps.masked, steps.weights]
    names = [t(f"stage_{stage}", lang) for stage in ("scores", "scaled", "masked", "weights")]
    # Each panel's colours span its own range (no one colour bar reads all four): its title says
    # which, as the hover says each cell.
    titles = [
        f"{name}<br>{value_range(matrix)}" for name, matrix in zip(names, matrices, strict=True)
    ]
    above(t("stages_all_title", lang), "")
    chart(
        "stages_overview", figures.stages_overview, matrices, titles, result.tokens,
        steps.allowed, lang=lang,
    )  # fmt: skip
    st.caption(t("stages_all_why", lang))


def value_range(matrix: np.ndarray) -> str:
    """A matrix's finite values from the smallest to the largest, as a panel's title says them."""
    finite = matrix[np.isfinite(matrix)]
    low, high = (finite.min(), finite.max()) if finite.size else (0.0, 0.0)
    return f"{format_value(low, 3)} … {format_value(high, 3)}"


STAGE_VIEWS: dict[str, Callable[[LabResult, int, str, Above], None]] = {
    "scores": scores_stage,
    "scaled": scaled_stage,
    "masked": masked_stage,
    "weights": weights_stage,
    "output": output_stage,
    "all": all_stages,
}


def row_panel(result: LabResult, row: int, lang: str) -> None:
    """The selected row scaled vs unscaled: its bars, and the numbers that explain them."""
    token = result.tokens[row]
    chart(
        "row_bars", figures.row_bars, result.steps.weights[row], result.contrast.weights[row],
        result.tokens, scaled=result.steps.scale, lang=lang,
        title=t("bars_title", lang, token=token),
    )  # fmt: skip
    numbers = row_numbers(result, row)
    verdict = row_verdict(*numbers["max"], *numbers["gradient"])
    if not random_qk(result):  # no theory of a std of 1 for it, and no d to change
        verdict = TRAINED_VERDICTS.get(verdict, verdict)
    expected = row_expected(result, lang)
    words = row_words(numbers, lang) | {"expected": expected[1], "std": f"{root_std(result):.3f}"}
    # The table, then the verdict that reads it: beside it where the column holds both.
    with st.container(horizontal=True, key="lab_row_words"):
        table = row_table(numbers, expected, lang)
        st.container(key="lab_row_numbers", width="content").markdown(table)
        with st.container(key="lab_row_verdict"):
            safe_text(t(verdict, lang, **words))
    if not random_qk(result):  # no theory predicts its std: one sentence on why
        st.caption(t("row_spread_trained", lang, std=words["std"]))
    if verdict == "row_verdict_saturated":
        train_link(lang)
    row_sums = t("stat_row_sum", lang, error=format_small(result.row_sum_error))
    st.caption(f"{row_sums} {t('stats_why', lang)}")


def row_numbers(result: LabResult, row: int) -> dict[str, tuple[float, float]]:
    """The row's numbers, scaled and unscaled: the std of all the scores softmax gets (each
    divided by the temperature too), the row's largest weight, its entropy and the Frobenius
    norm of its softmax Jacobian."""
    on, off = (result.stats, result.contrast_stats)[:: 1 if result.steps.scale else -1]
    scaled, unscaled = result.scaled.weights[row], result.unscaled.weights[row]
    return {
        "spread": (result.std_scaled, result.std_scores / result.steps.temperature),
        "max": (float(on.max_weight[row]), float(off.max_weight[row])),
        "entropy": (float(on.entropy[row]), float(off.entropy[row])),
        "gradient": (float(jacobian_norm(scaled)), float(jacobian_norm(unscaled))),
    }


def row_expected(result: LabResult, lang: str) -> tuple[str, str, str]:
    """The table's row under the spread: its label, and what the spread would be for random q
    and k scaled and unscaled, 1 and √d, each divided by the temperature (√d_k with several
    heads: each head divides by its own). The label says "expected" of random q and k, and "if
    q, k were random" of a trained head's; it names T when T is not 1: on a projector its
    control is out of sight."""
    steps = result.steps
    root = "√d_k" if result.heads > 1 else "√d"
    sqrt_d = math.sqrt(steps.d_k)
    temperature = steps.temperature
    label = "row_expected" if random_qk(result) else "row_random"
    if temperature == 1:
        return t(label, lang), "1", f"{root} = {sqrt_d:.2f}"
    return (
        t(f"{label}_t", lang, temperature=f"{temperature:g}"),
        f"1/T = {1 / temperature:.3g}",
        f"{root}/T = {sqrt_d / temperature:.2f}",
    )


def row_table(
    numbers: dict[str, tuple[float, float]], expected: tuple[str, str, str], lang: str
) -> str:
    """The row's numbers as a Markdown table, the spread of all the scores first (the cause of
    the rest) with what it should be under it: our labels and numbers only, never user text (a
    table element costs a dataframe's serialisation on every rerun)."""
    head = f"| | {t('trace_scaled', lang)} | {t('trace_unscaled', lang)} |\n|:--|--:|--:|\n"
    rows = [
        f"| {t(f'row_{name}', lang)} | {on:.3f} | {off:.3f} |"
        for name, (on, off) in numbers.items()
    ]
    rows.insert(1, "| {} | {} | {} |".format(*expected))
    return head + "\n".join(rows)


def row_words(numbers: dict[str, tuple[float, float]], lang: str) -> dict[str, str]:
    """The numbers a verdict sentence quotes, and how many times smaller the unscaled gradient
    is (or that it is zero to the three decimals the table shows)."""
    (max_on, max_off), (grad_on, grad_off) = numbers["max"], numbers["gradient"]
    words = {
        "spread": f"{numbers['spread'][0]:.3f}",
        "max_on": f"{max_on:.3f}",
        "max_off": f"{max_off:.3f}",
        "grad_on": f"{grad_on:.3f}",
        "grad_off": f"{grad_off:.3f}",
    }
    if grad_off < 5e-4:
        words["ratio"] = t("ratio_vanished", lang, grad_on=words["grad_on"])
    else:
        ratio = f"{grad_on / grad_off:.3g}"
        words["ratio"] = t("ratio_times", lang, ratio=ratio, grad_on=words["grad_on"])
    return words


def row_verdict(max_on: float, max_off: float, grad_on: float, grad_off: float) -> str:
    """Which sentence the row's numbers support (one-hot both ways first: a trained head's row
    can be, and then "only 0.000 against 0.000 scaled" would say nothing)."""
    if max_on > ONE_HOT and max_off > ONE_HOT:
        return "row_verdict_both"
    if max_off > ONE_HOT and grad_off < grad_on / 3:
        return "row_verdict_saturated"
    if abs(max_off - max_on) > CLOSE:
        return "row_verdict_sharper"
    return "row_verdict_close"
