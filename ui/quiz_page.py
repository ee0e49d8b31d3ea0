"""Check yourself: the articles' three questions, and seeded questions with numbers."""

import secrets

import streamlit as st

from ui import state
from ui.common import safe_text, share_link
from ui.kit.cache import shared
from ui.params import QuizParams, parse_quiz
from ui.strings import t
from viz_core import SEED_MAX, Question, make_quiz

STORE = "_quiz_params"
ARTICLE_QUESTIONS = ("qz_a1", "qz_a2", "qz_a3")


def _new_quiz() -> None:
    st.session_state.quiz_seed = secrets.randbelow(SEED_MAX + 1)


def _numbers(question: Question) -> dict[str, str]:
    """The question's numbers as the prompt prints them."""
    return {key: f"{value:g}" for key, value in question.numbers.items()}


def answer_text(question: Question) -> str:
    """The answer, rounded as a student would write it."""
    return f"{question.answer:.4g}" if question.kind != "causal_count" else f"{question.answer:.0f}"


@shared(max_mb=1)
def quiz(seed: int) -> list[Question]:
    """The page's one core call: the questions of this seed."""
    return make_quiz(seed)


def render() -> None:
    """Quiz number, the articles' questions, then the numeric questions with feedback."""
    lang = state.lang()
    notes = state.restore(STORE, parse_quiz)
    st.title(t("qz_title", lang))
    st.caption(t("qz_intro", lang))
    state.show_notes(notes)

    left, right = st.columns([2, 1], vertical_alignment="bottom")
    left.number_input(
        t("qz_seed_label", lang), key="quiz_seed", min_value=0, max_value=SEED_MAX, step=1
    )
    right.button(t("qz_new", lang), key="quiz_new", on_click=_new_quiz, width="stretch")
    params = QuizParams(quiz_seed=int(st.session_state.quiz_seed))

    st.header(t("qz_article_title", lang))
    for name in ARTICLE_QUESTIONS:
        safe_text(t(f"{name}_q", lang), tag="h4")
        with st.expander(t("qz_reveal", lang)):
            safe_text(t(f"{name}_a", lang))

    st.header(t("qz_numeric_title", lang))
    questions = quiz(params.quiz_seed)
    right_answers = 0
    for number, question in enumerate(questions, start=1):
        numbers = _numbers(question)
        safe_text(f"{number}. " + t(f"qz_{question.kind}", lang, **numbers), tag="h4")
        answer = st.number_input(
            t("qz_answer_label", lang),
            key=f"answer_{params.quiz_seed}_{number}",
            value=None,
            format="%.4f",
            placeholder="0.0000",
        )
        hint = t(f"qz_hint_{question.kind}", lang, **numbers)
        if answer is not None:
            if question.is_correct(answer):
                right_answers += 1
                st.success(t("qz_correct", lang, answer=answer_text(question)))
            else:
                st.error(t("qz_wrong", lang, hint=hint))
        with st.expander(t("qz_show", lang)):
            safe_text(t("qz_answer_is", lang, answer=answer_text(question), hint=hint))
    st.subheader(t("qz_score", lang, right=right_answers, total=len(questions)))

    state.remember(STORE, params)
    share_link(state.publish(params.to_query()))
