"""What a trained model sees: the shipped character model's heads on the lab's sentence, the roles
they took on held-out sentences, its guesses for a hidden character, and ÷√d after training."""

import math
from dataclasses import replace

import pandas as pd
import streamlit as st

from ui.kit import state
from ui.kit.cache import shared
from ui.kit.display import (
    Chart,
    chart,
    clicked_point,
    number_input,
    page_link,
    safe_text,
    text_input,
)
from ui.kit.heatmap import heatmap
from ui.kit.text import literal, t
from ui.lab.settings import DEFAULT_TEXT, LabParams
from ui.model import figures
from ui.model.settings import ModelParams
from ui.train.compute import need_cells, need_parts, seed_stds, sentences_text
from viz_core import (
    ONE_HOT,
    ModelRun,
    fill_mask,
    held_out_sentences,
    load_head_report,
    load_model,
    run_model,
)
from viz_core.model import CLEAR_ROLE, MASK

TOP = 8  # guesses shown
ARTICLE_SENTENCE = DEFAULT_TEXT  # the articles' sentence, the lab's default
ARTICLE_ROW = {"我": 0.16, "喜": 0.40, "欢": 0.23}  # the seventh article's row of 喜


@shared(max_mb=2)
def model_run(text: str) -> ModelRun:
    """The page's core call: the sentence through the model, every head kept."""
    return run_model(text)


def render() -> None:
    """The sentence and what the model makes of it, then what does not depend on it: the
    heads' roles, 喜, √d and training."""
    lang = state.open_page("md_title", "md_intro", ModelParams)
    sentence_view(lang)
    roles_section(lang)
    article_row_section(lang)
    sqrt_section(lang)
    training_section(lang)


@st.fragment
def sentence_view(lang: str) -> None:
    """The sentence, one core call, its heads and the blank to fill. A fragment: a new sentence
    or blank reruns this alone, and the browser redraws only what it sends."""
    text_input(ModelParams, "text", t("md_text", lang))
    params = state.current(ModelParams)
    try:
        run = model_run(params.text)
    except ValueError:
        st.info(t("empty_text", lang), icon=":material/edit:")
        state.close_page(params)
        return
    reading_notes(run, lang)
    heads_section(run, params, lang)
    params = fill_section(run, params, lang)
    state.close_page(params)


def reading_notes(run: ModelRun, lang: str) -> None:
    """What the model could not read: unknown characters, and those past its last position."""
    if run.unknown:
        chars = literal(" ".join(run.unknown))
        st.info(t("md_unknown", lang, chars=chars), icon=":material/help:")
    if run.dropped:
        positions = load_model().config.max_len
        st.info(
            t("md_cut", lang, positions=positions, dropped=run.dropped),
            icon=":material/content_cut:",
        )


OPEN_IN_LAB = state.Slot(
    "model", "open_in_lab", (-1, -1)
)  # (layer, head) clicked: the lab opens on it


def clicked_head(selection: object, heads: int) -> tuple[int, int] | None:
    """(layer, head) of a click on the heads figure: each panel is a heatmap and its click layer,
    so the clicked trace's number halved is the panel's."""
    point = clicked_point(selection)
    curve = None if point is None else point.get("curve_number")
    if not isinstance(curve, int) or isinstance(curve, bool) or curve < 0:
        return None
    return divmod(curve // 2, heads)


def _open_head() -> None:
    """Keep the clicked head; the run then hands it to the lab (``open_in_lab``)."""
    config = load_model().config
    picked = clicked_head(state.selection("model_heads"), config.heads)
    if picked is not None and picked[0] < config.layers:
        OPEN_IN_LAB.set(picked)


def open_in_lab(text: str) -> None:
    """The head clicked in this run, opened in the lab on this sentence: one explicit hand-over
    of the lab's settings (its other settings at their defaults)."""
    layer, head = OPEN_IN_LAB.pop()
    if layer >= 0:
        lab = LabParams(text=text, source="trained", layer=layer, head=head, stage="weights")
        state.hand_over(lab)


def heads_section(run: ModelRun, params: ModelParams, lang: str) -> None:
    """Every layer × head as small heatmaps in one figure; a click opens that head in the lab."""
    st.subheader(t("md_heads_title", lang))
    st.caption(t("md_heads_why", lang))
    panels = figures.head_panels(run, lang)
    # First: the guesses' chart, below, sent with new heads would hold back their drawing.
    main = Chart("model_heads", select=_open_head, first=True)
    chart(main, heatmap, panels, lang=lang, per_row=4)
    open_in_lab(params.text)


def past_blank(count: int, lang: str) -> None:
    """A blank past the sentence's last character (a link's ?mask_at=99, or a sentence typed
    shorter) becomes its last character, with a note, before the box shows it: the link's own
    note only knew the longest sentence allowed."""
    params = state.current(ModelParams)
    at = params.mask_at
    if at >= count > 0:
        state.put(replace(params, mask_at=count - 1))
        words = {"at": at, "count": count, "last": count - 1}
        st.info(t("md_fill_past", lang, **words), icon=":material/build:")


def fill_section(run: ModelRun, params: ModelParams, lang: str) -> ModelParams:
    """Hide one character of the sentence; the model's guesses as bars, with a temperature."""
    st.subheader(t("md_fill_title", lang))
    st.caption(t("md_fill_why", lang))
    content = list(run.tokens[1:-1])
    past_blank(len(content), lang)
    left, right = st.columns(2)
    with left:
        number_input(ModelParams, "mask_at", lang, "md_fill_at", step=1)
    with right:
        number_input(ModelParams, "fill_temperature", lang, "md_fill_temperature", step=0.5)
    params = state.current(ModelParams)
    at = params.mask_at  # past_blank kept it inside the sentence
    answer = content[at]
    masked = "".join([*content[:at], MASK, *content[at + 1 :]])
    safe_text(t("md_fill_masked", lang, masked=masked))
    found = fill_mask(masked, top=TOP, temperature=params.fill_temperature)  # cheap: not cached
    chart("fill_mask", figures.guesses_bars, found, lang, answer)
    fill_verdict(found, answer, params.fill_temperature, lang)
    return params


def fill_verdict(
    found: list[tuple[str, float]], answer: str, temperature: float, lang: str
) -> None:
    """Where the hidden character is among the guesses."""
    if answer not in load_model().index:
        safe_text(t("md_fill_unknown", lang, answer=answer))
        return
    ranks = [ch for ch, _ in found]
    if answer in ranks:
        p = dict(found)[answer]
        safe_text(t("md_fill_hit", lang, answer=answer, rank=ranks.index(answer) + 1, p=f"{p:.3f}"))
    else:
        safe_text(t("md_fill_miss", lang, answer=answer, top=len(found)))


def roles_section(lang: str) -> None:
    """The roles the heads took on held-out sentences, each head named by its strongest."""
    st.subheader(t("md_roles_title", lang))
    measured = load_head_report()
    lengths = [len(text) + 2 for text in held_out_sentences(measured.sentences)]  # [CLS] [SEP]
    uniform = f"{sum(1 / n for n in lengths) / len(lengths):.2f}"
    why = t("md_roles_why", lang, sentences=measured.sentences, uniform=uniform, clear=CLEAR_ROLE)
    st.caption(why)
    chart("head_roles", heatmap, figures.roles_matrix(measured, lang), lang=lang, share=0.7)
    layers, heads, _ = measured.role_weights.shape
    lines = []
    for layer in range(layers):
        for head in range(heads):
            role, score = measured.strongest(layer, head)
            name = t(f"md_role_{role}", lang, clear=CLEAR_ROLE)
            lines.append(
                t(
                    "md_role_line",
                    lang,
                    layer=layer + 1,
                    head=head + 1,
                    role=name,
                    score=f"{score:.2f}",
                )
            )
    st.markdown("\n".join(f"- {line}" for line in lines))


def article_row_section(lang: str) -> None:
    """喜's row of 我喜欢人工智能 in every head of the first layer, beside the article's."""
    st.subheader(t("md_xi_title", lang))
    st.caption(t("md_xi_why", lang))
    run = model_run(ARTICLE_SENTENCE)
    xi = run.tokens.index("喜")
    rows = {t("md_xi_article", lang): list(ARTICLE_ROW.values())}
    for head, steps in enumerate(run.layers[0]):
        weights = steps.weights[xi]
        rows[t("md_head_panel", lang, layer=1, head=head + 1)] = [
            float(weights[run.tokens.index(ch)]) for ch in ARTICLE_ROW
        ]
    table = pd.DataFrame(rows, index=list(ARTICLE_ROW)).T.round(2)
    st.dataframe(table, width="stretch")
    heads = run.layers[0]
    wo = max(range(len(heads)), key=lambda h: heads[h].weights[xi, run.tokens.index("我")])
    huan = max(range(len(heads)), key=lambda h: heads[h].weights[xi, run.tokens.index("欢")])
    numbers = {
        "wo": f"{heads[wo].weights[xi, run.tokens.index('我')]:.2f}",
        "huan": f"{heads[huan].weights[xi, run.tokens.index('欢')]:.2f}",
    }
    safe_text(t("md_xi_verdict", lang, head_wo=wo + 1, head_huan=huan + 1, **numbers))


NEAR_ONE = 1.5  # a trained head's scaled σ below this is still "about 1"


def sqrt_section(lang: str) -> None:
    """Each head's score spread, raw against √d_k and scaled against 1, and its one-hot rows."""
    st.subheader(t("md_sqrt_title", lang))
    measured = load_head_report()
    root = math.sqrt(measured.d_k)
    spread = {"low": f"{measured.std_scaled.min():.2f}", "high": f"{measured.std_scaled.max():.2f}"}
    near = measured.std_scaled.max() < NEAR_ONE  # the article's reason still describes it
    answer = t("md_sqrt_answer_near" if near else "md_sqrt_answer", lang, **spread)
    safe_text(answer, tag="strong")  # the answer in one sentence, the evidence below
    st.caption(
        t("md_sqrt_why", lang, sentences=measured.sentences, root=f"{root:g}", one_hot=ONE_HOT)
    )
    layers, heads = measured.std_raw.shape
    table = pd.DataFrame(
        {
            t("md_sqrt_col_head", lang): [
                t("md_head_panel", lang, layer=layer + 1, head=head + 1)
                for layer in range(layers)
                for head in range(heads)
            ],
            t("md_sqrt_col_raw", lang): [f"{std:.2f}" for std in measured.std_raw.ravel()],
            t("md_sqrt_col_scaled", lang): [f"{std:.2f}" for std in measured.std_scaled.ravel()],
            t("md_sqrt_col_one_hot", lang): [f"{share:.0%}" for share in measured.one_hot.ravel()],
        }
    )
    st.table(table, hide_index=True)  # a static table wraps its headers: it fits a phone
    words = {
        "raw_min": f"{measured.std_raw.min():.1f}",
        "raw_max": f"{measured.std_raw.max():.1f}",
        "scaled_min": f"{measured.std_scaled.min():.2f}",
        "scaled_max": f"{measured.std_scaled.max():.2f}",
        "peaked": int((measured.one_hot > 0.5).sum()),
        "heads": measured.one_hot.size,
        "root": f"{root:g}",
    }
    safe_text(t("md_sqrt_verdict", lang, **words))
    start_of_training(measured.d_k, lang)


def start_of_training(d_k: int, lang: str) -> None:
    """Why ÷√d_k, then: how a random head of this d_k starts, and whether it learns without it,
    by optimizer, from the runs of the training page (the answer it gives too)."""
    cells = need_cells(d_k)
    scaled, unscaled = cells[0].std  # one init per seed, whatever the optimizer
    each = seed_stds(cells[0].d_k)  # one seed's start, as /train draws it
    words = {
        "d_k": d_k,
        "swept": cells[0].d_k,
        "std_s": f"{scaled:.2f}",
        "std_u": f"{unscaled:.1f}",
        "runs": cells[0].runs,
        "low_s": f"{min(each[0]):.2f}",
        "high_s": f"{max(each[0]):.2f}",
        "low_u": f"{min(each[1]):.1f}",
        "high_u": f"{max(each[1]):.1f}",
    }
    claims, evidence = need_parts(lang, d_k)
    safe_text(sentences_text([t("md_sqrt_start", lang, **words), *claims], lang))
    for line in evidence:
        safe_text(line, size="0.875rem")
    page_link("train", t("train_link", lang))


def training_section(lang: str) -> None:
    """Data with its credit, size, the loss by epoch, held-out accuracy, and what it cannot do."""
    st.subheader(t("md_train_title", lang))
    model = load_model()
    record, config = model.record, model.config
    size = {
        "train": f"{record['train_sentences']:,}",
        "held": f"{record['held_out_sentences']:,}",
        "layers": config.layers,
        "heads": config.heads,
        "d_model": config.d_model,
        "d_k": config.d_k,
        "vocab": f"{config.vocab_size:,}",
        "params": f"{record['parameters']:,}",
        "steps": f"{record['steps']:,}",
        "minutes": f"{record['seconds'] / 60:.0f}",
    }
    safe_text(t("md_train_text", lang, **size))
    chart("model_loss", figures.loss_curve, record["epochs"], lang)
    scores = record["held_out"]
    percent = {key: f"{scores[key]:.0%}" for key in ("top1", "top5")}
    baseline = f"{scores['baseline_top1']:.0%}"
    commonest = record["commonest_character"]
    safe_text(t("md_train_score", lang, baseline=baseline, commonest=commonest, **percent))
    st.caption(t("md_train_limits", lang))
