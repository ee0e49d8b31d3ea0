"""The Attention Lab: type a sentence, pick d, and watch every step of attention."""

from dataclasses import replace
from functools import partial

import numpy as np
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from ui.classroom.compute import LAB_VIEW, TEACHING
from ui.classroom.settings import ClassroomParams
from ui.kit import screen, state
from ui.kit.display import chart, heading_beside, page_link, safe_text, selectbox, token_chips
from ui.kit.heatmap import Matrix, heatmap
from ui.kit.text import STRINGS, t
from ui.lab import figures
from ui.lab.compare import B_BAR_CSS, compare_switch, compare_view
from ui.lab.compute import compute_lab
from ui.lab.controls import check_lab_heads, heads_note, stage_picker, teacher_bar
from ui.lab.export import matrix_csv, state_zip
from ui.lab.settings import CompareParams, Computing, LabParams
from ui.lab.stages import OUTPUT_DIMS, STAGE_VIEWS, row_panel
from viz_core import LabResult
from viz_core.model import unknown_characters

# The labels that a box already says (the sentence, the d presets, the mask), A's and B's,
# hidden where room is short: on a phone and on a projector; there d's too.
BOTH = (LabParams, CompareParams)
BOXED = ",".join(
    f".st-key-{settings.widget_key(name)}{suffix}"
    for settings in BOTH
    for name, suffix in (("text", ""), ("mask", ""), ("d", "_preset"))  # preset_control's key
)
BOXED_CSS = f":is({BOXED}) [data-testid=stWidgetLabel]{{display:none}}"
# The stage's title beside its picker: a line of the row panel's size, not a section's.
STAGE_LINE_CSS = ".st-key-lab_stage_line h3{font-size:1.3rem;padding:0}"
# The row's verdict beside its table where the row's column has room for both (a projector's),
# else under it.
ROW_WORDS_CSS = ".st-key-lab_row_verdict{min-width:15rem}"
# On a projector: d's label beside its box, not above it (a bare "1536" says nothing to the back
# of a room, and a label line would push the figure below the first screen); the stage's title
# left to the picker, which names it, so the formula and the whole figure fit beside it; the
# figure's column as narrow as its figure, so that the row's bars get the rest of the width; the
# row's numbers compact, under its bars.
D_KEYS = ",".join(f".st-key-{settings.widget_key('d')}" for settings in BOTH)
D_BOX = f":is({D_KEYS}) [data-testid=stNumberInput]"
PROJECTOR_CSS = (
    f"{D_BOX}{{display:flex;align-items:center;gap:.5rem}}"
    f" {D_BOX} [data-testid=stWidgetLabel]{{margin:0;white-space:nowrap}}"
    " .st-key-lab_stage_line [data-testid=stElementContainer]:has(h3){display:none}"
    " [data-testid=stColumn]:has(.st-key-lab_figure){flex:0 0 min-content;width:min-content}"
    " .st-key-lab_row_numbers table{font-size:15px;line-height:1.3}"
    " .st-key-lab_row_numbers :is(td,th){padding:.1rem .5rem}"
)


def render() -> None:
    """The page, top to bottom: controls, then the view of the sentence (``lab_view``)."""
    check_lab_heads()  # before the page's settings are checked, which would call it a carried value
    lang = state.open_page("lab_title", "lab_intro", LabParams)
    every = STAGE_LINE_CSS + ROW_WORDS_CSS + B_BAR_CSS
    screen.page_css(state.present(), every, BOXED_CSS, PROJECTOR_CSS)
    lab_view(lang)


@st.fragment
def lab_view(lang: str) -> None:
    """The sentence box, the bar of d, ÷√d, mask and model, one cached core call, the stage
    view, then the rest.

    A fragment: Enter in the box, or a new d, scaling or mask, reruns this alone, and the browser
    re-renders only what this sends (docs/history.md, "What the lab's speed comes from").
    """
    check_lab_heads()
    teacher_bar(state.current(LabParams), lang)
    heads_note(lang)
    params = state.current(LabParams)
    result = compute_lab(params)
    if result.n_content == 0:
        st.info(t("empty_text", lang), icon=":material/edit:")
        state.close_page(params, share=False)
        return
    if result.n_dropped:
        st.info(
            t("capped", lang, kept=result.n_content, dropped=result.n_dropped),
            icon=":material/content_cut:",
        )
    params = row_inside(params, len(result.tokens), lang)
    stage_view(params, lang)
    tokens_section(result, params, lang)
    every_row(result, lang)
    if result.projection is not None:
        projection_views(result, lang)
    if result.heads > 1:
        heads_views(result, lang)
    repeat_notes(result, params, lang)
    downloads(result, params, lang)


@st.fragment
def stage_view(params: LabParams, lang: str) -> None:
    """The stage picker, the chosen stage's heatmap and the selected row beside it: a row click
    or another stage redraws only this.

    A fragment keeps its arguments for as long as its session lives (two minutes after the tab
    closes): it gets the settings and asks the shared cache, so that no session pins a result the
    cache has let go of.
    """
    result = compute_lab(params)
    n = len(result.tokens)
    row, _ = selected_row(n)
    # The picker, then the stage's heading and formula, on one line where they fit: the figure
    # starts higher, all of it on a projector's first screen.
    above = st.container(horizontal=True, vertical_alignment="center", key="lab_stage_line")
    with above:
        params = replace(params, row=row, stage=stage_picker(lang), compare=compare_switch(lang))
    if params.compare:
        compare_view(params, above, lang)
        return
    figure_side, row_side = st.columns([3, 2], gap="medium")
    with figure_side, st.container(key="lab_figure"):
        STAGE_VIEWS[params.stage](result, row, lang, partial(stage_heading, above))
    tokens = result.tokens  # the label function outlives the run: it must not hold the result
    with row_side:
        row_panel(result, row, lang)
        ask_the_class(params, lang)
        label, help_ = t("row_label", lang), t("row_help", lang)
        selectbox(
            LabParams,
            "row",
            label,
            range(n),
            help=help_,
            format_func=lambda i: f"{i} · {tokens[i]}",
        )
    state.close_page(params)


def stage_heading(above: DeltaGenerator, title: str, formula: str) -> None:
    """A stage's heading and formula, beside the stage picker above the figure and the row."""
    with above:
        heading_beside(title, formula)


def ask_the_class(params: LabParams, lang: str) -> None:
    """For a teacher whose class is running: this view, its settings and row, as the class's
    next question (handed to the class page, which asks it)."""
    room, _ = TEACHING.get()
    if room and st.button(t("lab_ask_class", lang), key="lab_ask_class", icon=":material/groups:"):
        LAB_VIEW.set(class_question(params))
        state.hand_over(ClassroomParams(room=room))


def class_question(params: LabParams) -> dict[str, object]:
    """The lab's settings that the class's question about a row takes (not the stage)."""
    settings = {name: getattr(params, name) for name in Computing.specs()}
    return settings | {"row": params.row}


def selected_row(n: int) -> tuple[int, bool]:
    """The selected row, a number inside the ``n`` rows, and whether it had to be moved inside.

    It is written back to the row box, whose options are labelled with the tokens: assigning it
    makes Streamlit send this sentence's labels to the browser, which would otherwise keep the
    old ones and send one back (the page's run restores every setting; a fragment's alone does
    not)."""
    params = state.current(LabParams)
    row = min(max(params.row, 0), max(n - 1, 0))
    state.put(replace(params, row=row), "row")
    return row, row != params.row


def row_inside(params: LabParams, n: int, lang: str) -> LabParams:
    """The settings with the row inside the matrix, saying so when a link asked for more."""
    row, moved = selected_row(n)
    if moved:
        st.caption(t("row_clamped", lang, n=n, row=row))
    return replace(params, row=row)


def tokens_section(result: LabResult, params: LabParams, lang: str) -> None:
    """The tokens as chips, where Q, K, V come from, and which head the large views show."""
    st.subheader(t("tokens_title", lang, n=len(result.tokens)))
    token_chips(result.tokens)
    st.caption(t("tokens_why", lang, d=result.d))
    source_note(result, params, lang)
    if result.heads > 1 and params.source != "trained":  # the trained note names it
        heads = result.heads
        st.info(
            t("head_shown", lang, head=params.head, heads=heads, d_k=result.steps.d_k),
            icon=":material/extension:",
        )


def source_note(result: LabResult, params: LabParams, lang: str) -> None:
    """What the weights mean for this source of Q, K, V."""
    if params.source == "random":
        st.caption(t("random_caveat", lang))
        page_link("model", t("model_link", lang))
    elif params.source == "trained":
        st.caption(t("trained_caveat", lang, layer=params.layer + 1, head=params.head + 1))
        unknown = unknown_characters(result.tokens)
        if unknown:
            safe_text(t("trained_unknown", lang, chars=" ".join(unknown)))
        page_link("model", t("model_link", lang))
    elif not params.position:
        safe_text(t("embedding_alike_why", lang))


def projection_views(result: LabResult, lang: str) -> None:
    """X, W_Q, W_K, W_V and the projections, first dimensions only, on request."""
    projection = result.projection
    assert projection is not None
    plus = t("projection_plus", lang) if projection.positions is not None else ""
    # A toggle, not an expander: a collapsed expander still draws its seven charts.
    if st.toggle(t("projection_title", lang), key="lab_show_projection"):
        d_model, d = projection.x.shape[1], projection.q.shape[1]
        safe_text(t("projection_why", lang, plus=plus, d_model=d_model, d=d))
        dims = min(OUTPUT_DIMS, d_model)
        labels = tuple(str(j) for j in range(dims))
        views = [("x", result.tokens, "axis_token")]
        views += [(name, labels, "axis_dimension") for name in ("w_q", "w_k", "w_v")]
        views += [(name, result.tokens, "axis_token") for name in ("q", "k", "v")]
        for column, (name, rows, row_axis) in zip(
            st.columns(4) + st.columns(4), views, strict=False
        ):
            with column:
                st.caption(t(f"matrix_{name}", lang))
                matrix = getattr(projection, name)[: len(rows), :dims]
                shown = Matrix(matrix, rows, labels, row_axis=row_axis, col_axis="axis_dimension")
                chart(f"projection_{name}", heatmap, shown, lang=lang, share=0.24)


def heads_views(result: LabResult, lang: str) -> None:
    """The chosen head's group of heads, and the average of every head."""
    st.subheader(t("heads_title", lang))
    st.caption(t("heads_why", lang))
    weights = [steps.weights for steps in result.per_head]
    group = figures.heads_group(len(weights), result.head)
    if len(group) < len(weights):
        st.caption(t("heads_group", lang, heads=len(weights), first=group[0], last=group[-1]))
    chart("heads_grid", figures.heads_grid, weights, result.tokens, lang=lang, selected=result.head)
    st.caption(t("heads_average_title", lang))
    mean = Matrix(result.mean_weights, result.tokens, result.tokens, scale="weights")
    chart("heads_average", heatmap, mean, lang=lang)


def repeat_notes(result: LabResult, params: LabParams, lang: str) -> None:
    """Do repeated characters attend alike? Only positions can tell them apart."""
    if not result.repeats:
        return
    st.subheader(t("repeats_title", lang))
    for token, places, gap in result.repeats:
        where = ", ".join(str(i) for i in places)
        key = "repeats_same" if gap == 0 else "repeats_differ"
        safe_text(t(key, lang, token=token, places=where, gap=f"{gap:.3f}"))
    if not (params.source == "embedding" and not params.position and params.mask == "none"):
        st.caption(t("repeats_try", lang))


def every_row(result: LabResult, lang: str) -> None:
    """Every row's weights as small bar charts, on request (nine subplots are slow to draw)."""
    if st.toggle(t("multiples_title", lang), key="lab_show_multiples"):
        weights = result.steps.weights
        chart("row_multiples", figures.row_multiples, weights, result.tokens, lang=lang)


def every_matrix(result: LabResult) -> dict[str, np.ndarray]:
    """Every matrix of this view, by file name: the shown head's steps, all heads, X and W."""
    steps = result.steps
    names = ("weights", "scores", "scaled", "masked", "output", "q", "k", "v")
    matrices = {name: getattr(steps, name) for name in names}
    matrices["output_all"] = result.output
    if result.heads > 1:
        matrices["weights_mean"] = result.mean_weights
        for h, head in enumerate(result.per_head):
            matrices[f"head_{h}_weights"] = head.weights
    if result.projection is not None:
        for name in ("x", "w_q", "w_k", "w_v"):
            matrices[name] = getattr(result.projection, name)
    return matrices


def one_csv(params: LabParams, name: str) -> str:
    """One matrix of these settings as a token-labelled CSV."""
    result = compute_lab(params)
    return matrix_csv(every_matrix(result)[name], result.tokens)


def everything_zip(params: LabParams, query: dict[str, str]) -> bytes:
    """Every matrix of these settings, and the link's settings, in a zip."""
    result = compute_lab(params)
    return state_zip(query, result.tokens, every_matrix(result))


def downloads(result: LabResult, params: LabParams, lang: str) -> None:
    """One matrix as a token-labelled CSV, or everything as a zip, built only when pressed.

    The server keeps each button's function until the session ends: they hold the settings and
    fetch the result when pressed, so that a closed tab does not pin a large result.
    """
    # A switch, not a heading: closed, the downloads cost no widgets on every rerun.
    if not st.toggle(t("downloads_title", lang), key="lab_show_downloads"):
        return
    shown = [name for name in every_matrix(result) if f"matrix_{name}" in STRINGS]
    row = st.container(horizontal=True, vertical_alignment="bottom")
    choice = row.selectbox(
        t("download_pick", lang),
        shown,
        key="lab_download_matrix",
        format_func=lambda name: t(f"matrix_{name}", lang),
        width=360,
    )
    row.download_button(
        t("download_button", lang),
        data=partial(one_csv, params, choice),
        file_name=f"{choice}.csv",
        mime="text/csv",
        key="lab_download_csv",
        on_click="ignore",
    )
    row.download_button(
        t("download_zip", lang),
        data=partial(everything_zip, params, state.full_query(params.to_query())),
        file_name="attention-lab.zip",
        mime="application/zip",
        key="lab_download_zip",
        on_click="ignore",
    )
    st.caption(t("download_png_hint", lang))
