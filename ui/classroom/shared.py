"""What the projector and the phones both show: the question, the class's answers, the truth."""

import streamlit as st

from classroom import QUESTIONS, RoomView
from ui.classroom import figures
from ui.kit.display import chart, safe_text
from ui.kit.figures import format_value
from ui.kit.text import t


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
    """The class's answers as a histogram; once revealed, the truth on it, beside the app's own
    figure for the question."""
    if room.counts is None:
        return
    bars = labels(room)
    right = bars.index(room.answer) if room.answer in bars else None
    counts = tuple(room.counts[label] for label in bars)
    answers, truth = st.columns(2, gap="medium")
    with answers:
        st.caption(t("cl_class_answers", lang, answered=room.answered or 0))
        chart("class_answers", figures.answers_histogram, bars, counts, right, lang=lang)
    if room.phase != "revealed" or room.chart is None:
        return
    with truth:
        safe_text(truth_text(room, lang), tag="h4")
        chart("class_truth", figures.truth_chart, room.chart, lang=lang)


def truth_text(room: RoomView, lang: str) -> str:
    """The right answer, computed by the app: a choice or character, or a number and its bin."""
    if room.value is not None:
        value = format_value(room.value, 4)
        return t("cl_truth_number", lang, value=value, bin=room.answer or "")
    return t("cl_truth", lang, answer=room.answer or "")
