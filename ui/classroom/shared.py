"""What the projector and the phones both show: the question, the class's answers, the truth
and, once revealed, why (a sentence), the contrast that makes the point and a link to the view."""

from typing import Any

import streamlit as st

from classroom import QUESTIONS, RoomView
from ui.classroom import figures
from ui.classroom.compute import series_text, view_link, why_text
from ui.kit.display import chart, safe_text
from ui.kit.figures import format_value
from ui.kit.text import t

SAME_UNITS = {"raw", "scaled", "layer"}  # a truth and its contrast in weights: one y axis


def prompt(room: RoomView, lang: str) -> None:
    """The question as asked, and for a choice of long answers (the articles') their texts."""
    if room.question_id is None or room.question_id not in QUESTIONS:
        return
    question = QUESTIONS[room.question_id]
    st.caption(t("cl_question_number", lang, number=room.number or 1))
    safe_text(question.say(lang, room.args), tag="h3", size="1.45rem")
    texts = room.option_text.get(lang, room.options)
    if room.kind == "choice" and tuple(texts) != tuple(room.options):  # the articles' A–D
        for option, text in zip(room.options, texts, strict=True):
            safe_text(f"{option}. {text}")


def labels(room: RoomView) -> tuple[str, ...]:
    """The histogram's bars: every choice or bin in order, or the characters given."""
    return tuple(room.counts or {})


def results(room: RoomView, lang: str) -> None:
    """The class's answers as a histogram; once revealed, the truth on it, why in a sentence
    above, and the app's own figure beside it, then its contrast: shorter, to stay on a
    projector's first screen."""
    if room.counts is None:
        return
    bars = labels(room)
    right = bars.index(room.answer) if room.answer in bars else None
    counts = tuple(room.counts[label] for label in bars)
    shown = room.chart if room.phase == "revealed" else None
    contrast = (shown or {}).get("contrast")
    if shown is not None:
        why_row(room, shown, lang)
    short = shown is not None
    columns = st.columns(3 if contrast else 2, gap="medium")
    with columns[0]:
        st.caption(t("cl_class_answers", lang, answered=room.answered or 0))
        chart(
            "class_answers", figures.answers_histogram, bars, counts, right, lang=lang, short=short
        )
    if shown is None:
        return
    top = shared_top(shown, contrast)
    with columns[1]:
        st.caption(series_text(shown, lang) if contrast else t("cl_app_figure", lang))
        chart("class_truth", figures.truth_chart, shown, lang=lang, top=top, short=True)
    if contrast:
        with columns[2]:
            st.caption(series_text(contrast, lang))
            chart("class_contrast", figures.truth_chart, contrast, lang=lang, top=top, short=True)


def reveal_heading(room: RoomView, lang: str) -> None:
    """Once revealed: the truth the app computed (beside the teacher's buttons)."""
    if room.phase == "revealed" and room.answer is not None:
        safe_text(truth_text(room, lang), tag="h4")


def why_row(room: RoomView, shown: dict[str, Any], lang: str) -> None:
    """Why the truth is what it is, in one sentence, and the link to the app's view that
    shows it."""
    said, opens = st.columns([5, 1], gap="medium", vertical_alignment="center")
    why = why_text(shown, lang)
    if why:
        with said:
            safe_text(why, size="1.05rem")
    link = view_link(room.question_id or "", room.settings, lang, room.answer)
    with opens:
        st.link_button(
            t("cl_open_view", lang), link, icon=":material/open_in_new:",
            help=t("cl_open_view_why", lang), width="content",
        )  # fmt: skip


def shared_top(shown: dict[str, Any], contrast: dict[str, Any] | None) -> float | None:
    """One y axis for a row of weights and its contrast (÷√d and not, two layers), so that the
    bars compare; None when they are in different units (e^x beside probabilities)."""
    if not contrast or contrast.get("kind") != "bars" or shown.get("kind") != "bars":
        return None
    if not {shown.get("series"), contrast.get("series")} <= SAME_UNITS:
        return None
    return max(float(v) for v in [*shown["values"], *contrast["values"]])


def truth_text(room: RoomView, lang: str) -> str:
    """The right answer, computed by the app: a choice or character, or a number and its bin."""
    if room.value is not None:
        value = format_value(room.value, 4)
        return t("cl_truth_number", lang, value=value, bin=room.answer or "")
    return t("cl_truth", lang, answer=room.answer or "")
