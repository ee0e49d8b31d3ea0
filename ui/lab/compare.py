"""The lab's compare mode (``?compare=true``): the lab's settings (A) beside a second set (B),
for example scaled at d = 64 beside unscaled at d = 6,144. One stage and one row for both: the
two heatmaps side by side, the row's weights from A and B together, and B − A on request."""

import numpy as np
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from ui.kit import notes, state
from ui.kit.display import Chart, chart, safe_text
from ui.kit.display import toggle as switch
from ui.kit.heatmap import Matrix, heatmap
from ui.kit.text import t
from ui.lab import figures
from ui.lab.compute import compute_lab
from ui.lab.controls import check_lab_heads, teacher_bar
from ui.lab.settings import CompareParams, Computing, LabParams
from viz_core import LabResult

MATRICES = ("scores", "scaled", "masked", "weights")  # the stages A and B are compared at
# B's controls wrapped to a narrow column: the open popover covers less of the two heatmaps.
B_BAR_CSS = ".st-key-lab_b_bar{width:24rem;max-width:100%}"
# Whether B's settings popover is open (its widget key), and B as it was last drawn: a change of
# B closes the popover, which covers the heatmaps that show the change.
B_OPEN = state.Slot("lab", "b_open", False)
B_DRAWN: state.Slot[CompareParams | None] = state.Slot("lab", "b_drawn", None)


def compare_switch(lang: str) -> bool:
    """The switch between the lab as it is and A beside B; whether it is on."""
    switch(LabParams, "compare", t("compare_label", lang), help=t("compare_help", lang))
    return state.current(LabParams).compare


def b_settings(a: LabParams, line: DeltaGenerator, lang: str) -> CompareParams:
    """B: as it was last, else the link's b_ keys over A's settings (a key B does not set is
    A's); its controls in a narrow popover on the stage's line, closed again once B changes."""
    found = state.restore(CompareParams, base=a)
    check_lab_heads(CompareParams)
    b = state.current(CompareParams)
    if B_DRAWN.get() != b:
        B_OPEN.set(False)  # before the popover is built: it is drawn closed
        B_DRAWN.set(b)
    label = summary(b, lang, "compare_b")
    popover = line.popover(label, icon=":material/tune:", key=B_OPEN.key, on_change="rerun")
    # B's widgets only while it is open: the browser does not draw a closed popover's widgets,
    # and would send their old values back after the change that closed it. Closed, B is
    # written to their keys: a key outlives its widget, and would bring back an older B.
    if popover.open:
        with popover, st.container(key="lab_b_bar"):
            teacher_bar(b, lang)
    else:
        state.put(b, *CompareParams.url_names())
    notes.show_notes(found, lang)
    return state.current(CompareParams)


def summary(params: Computing, lang: str, name: str) -> str:
    """A set's name and what a lesson on √d compares: d and ÷√d, then the mask and the source
    where they are not the lab's first ones."""
    scale = t("trace_scaled" if params.scale else "trace_unscaled", lang)
    parts = [t(name, lang), f"d = {params.d:,}", scale]
    parts += [t(f"mask_{params.mask}", lang)] if params.mask != "none" else []
    parts += [t(f"source_{params.source}", lang)] if params.source != "random" else []
    return " · ".join(parts)


def compare_view(a: LabParams, line: DeltaGenerator, lang: str) -> None:
    """B's settings, then A's and B's heatmaps of one stage side by side, the row from both, and
    B − A when both have the same tokens (else why not)."""
    b = b_settings(a, line, lang)
    stage = a.stage if a.stage in MATRICES else "weights"
    if stage != a.stage:
        st.caption(t("compare_stage", lang, stage=t(f"stage_{stage}", lang)))
    a_result, b_result = compute_lab(a), compute_lab(a.with_b(b))
    row = min(a.row, len(b_result.tokens) - 1)
    for side, result, settings, name in zip(
        st.columns(2, gap="medium"), (a_result, b_result), (a, b), ("compare_a", "compare_b"),
        strict=True,
    ):  # fmt: skip
        with side:
            safe_text(summary(settings, lang, name), tag="b")
            shown = stage_matrix(result, stage, row)
            suffix = "_b" if name == "compare_b" else ""
            drawn = Chart(f"compare_heatmap{suffix}", first=name == "compare_a")
            chart(drawn, heatmap, shown, lang=lang, share=0.48)
    same = a_result.tokens == b_result.tokens
    both_rows(a_result, b_result, row, same, lang)
    difference(a_result, b_result, stage, same, lang)
    state.close_page(a, b)


def stage_matrix(result: LabResult, stage: str, row: int) -> Matrix:
    """One stage of a result as the lab draws it, the shared row outlined."""
    steps = result.steps
    masked = ~steps.allowed if stage in ("masked", "weights") else None
    scale = "weights" if stage == "weights" else "scores"
    # No title over the columns: the set's name is there, and A and B fit a projector's height.
    return Matrix(getattr(steps, stage), result.tokens, result.tokens, scale=scale,
                  masked=masked, selected_row=row, col_axis="")  # fmt: skip


def both_rows(a: LabResult, b: LabResult, row: int, same: bool, lang: str) -> None:
    """The selected row's weights from A and B together, when they weigh the same keys."""
    token = a.tokens[row]
    safe_text(t("compare_row", lang, token=token), tag="h3")
    if not same:
        st.caption(t("compare_tokens_differ", lang, a=len(a.tokens), b=len(b.tokens)))
        return
    a_row, b_row = a.steps.weights[row], b.steps.weights[row]
    chart("compare_bars", figures.pair_bars, a_row, b_row, a.tokens, lang=lang)
    top_a, top_b = int(np.argmax(a_row)), int(np.argmax(b_row))
    safe_text(t("compare_row_why", lang, token=token, a_key=a.tokens[top_a], b_key=b.tokens[top_b],
                a_top=f"{a_row[top_a]:.3f}", b_top=f"{b_row[top_b]:.3f}"))  # fmt: skip


def difference(a: LabResult, b: LabResult, stage: str, same: bool, lang: str) -> None:
    """B − A at the stage, on request: a cell-by-cell difference needs the same rows and
    columns."""
    if not st.toggle(t("compare_difference", lang), key="lab_compare_difference"):
        return
    if not same:
        st.info(t("compare_tokens_differ", lang, a=len(a.tokens), b=len(b.tokens)))
        return
    first, second = getattr(a.steps, stage), getattr(b.steps, stage)
    both = a.steps.allowed & b.steps.allowed  # −∞ − −∞ is no number: masked in either is grey
    delta = np.where(both, second - first, np.nan)
    shown = Matrix(delta, a.tokens, a.tokens, scale="scores", masked=~both)
    chart("compare_difference", heatmap, shown, lang=lang, share=0.58)
    largest = float(np.nanmax(np.abs(delta))) if both.any() else 0.0
    st.caption(t("compare_difference_why", lang, largest=f"{largest:.3g}"))
