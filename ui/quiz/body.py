"""Check yourself: the articles' three questions, and seeded questions with numbers."""

import secrets

import streamlit as st

from ui.kernel.settings import XI_DIVISOR, XI_ROW
from ui.kit import state
from ui.kit.cache import shared
from ui.kit.display import number_input, page_link, picker, safe_text
from ui.kit.text import t
from ui.quiz.settings import QuizParams
from ui.train.compute import need_cells, need_parts, sentences_text
from viz_core import SEED_MAX, Question, make_quiz, softmax_breakdown

ARTICLE_QUESTIONS = ("qz_a1", "qz_a2", "qz_a3")
COUNTS = {"causal_count"}  # questions whose answer is a whole number
# Questions whose prompt asks for so many decimals: their box and their answer show as many.
DECIMALS = {"softmax_by_hand": 3}
DIGITS = 4  # the other answers: significant digits shown, decimals the box takes


def _new_quiz() -> None:
    state.put(QuizParams(quiz_seed=secrets.randbelow(SEED_MAX + 1)))


def _numbers(question: Question) -> dict[str, str]:
    """The question's numbers as the prompt prints them (+ 0.0: a -0.0 rounded from a small
    negative number prints as 0, not "-0")."""
    return {key: f"{value + 0.0:g}" for key, value in question.numbers.items()}


def answer_text(question: Question) -> str:
    """The answer, rounded as a student would write it: to the decimals its prompt asks for."""
    return rounded(question.kind, question.answer)


def rounded(kind: str, value: float) -> str:
    """``value`` as an answer to a question of ``kind`` is written: a count whole, else to the
    decimals its prompt asks for, or to DIGITS significant digits."""
    if kind in COUNTS:
        return f"{value:.0f}"
    if kind in DECIMALS:
        return f"{value:.{DECIMALS[kind]}f}"
    return f"{value:.{DIGITS}g}"


def box_format(kind: str) -> tuple[str, str]:
    """The answer box's format and placeholder: a count's whole, else the decimals asked for."""
    if kind in COUNTS:
        return "%d", "0"
    decimals = DECIMALS.get(kind, DIGITS)
    return f"%.{decimals}f", "0." + "0" * decimals


@shared(max_mb=1)
def quiz(params: QuizParams) -> list[Question]:
    """The page's one core call: the questions of its seed."""
    return make_quiz(params.quiz_seed)


def render() -> None:
    """The section picker, then one section: the question set with the numeric questions, their
    feedback and the score; or the articles' questions, each answered in one sentence first."""
    lang = state.open_page("qz_title", "qz_intro", QuizParams)
    section = picker(QuizParams, "section", lang, "qz_section")
    if section == "article":
        article_questions(lang)
    else:
        numeric_questions(lang)
    state.close_page(state.current(QuizParams))


def numeric_questions(lang: str) -> None:
    """The question set's seed, each numeric question with its feedback, and the score."""
    left, right = st.columns([2, 1], vertical_alignment="bottom")
    with left:
        number_input(QuizParams, "quiz_seed", lang, "qz_seed", step=1)
    right.button(
        t("qz_new", lang),
        key="quiz_new_seed",
        on_click=_new_quiz,
        width="stretch",
        icon=":material/casino:",
    )
    params = state.current(QuizParams)
    st.header(t("qz_numeric_title", lang))  # first: a question to answer on the first screen
    questions = quiz(params)
    results = [
        ask(number, question, params.quiz_seed, lang)
        for number, question in enumerate(questions, start=1)
    ]
    answered = [right for right in results if right is not None]
    score = {"right": sum(answered), "answered": len(answered), "total": len(questions)}
    st.subheader(t("qz_score" if answered else "qz_score_none", lang, **score))


# Question 3's answer names each key of the article's 喜 row by its share, in this order.
XI_NAMES = ("wo", "xi", "huan", "ren", "gong", "zhi", "neng", "cls", "sep")


def xi_shares() -> dict[str, str]:
    """The article's 喜 row ÷ 8 through softmax, each key's share in whole percent."""
    weights = softmax_breakdown(XI_ROW, XI_DIVISOR).probs
    return {name: f"{100 * w:.0f}" for name, w in zip(XI_NAMES, weights, strict=True)}


def article_questions(lang: str) -> None:
    """The articles' three questions, each with its model answer behind a click: one sentence
    first, in bold, then the evidence (question 3's shares computed from the article's row)."""
    st.header(t("qz_article_title", lang))
    shares = xi_shares()
    for name in ARTICLE_QUESTIONS:
        safe_text(t(f"{name}_q", lang), tag="h4")
        with st.expander(t("qz_reveal", lang)):
            safe_text(short_answer(name, lang), tag="strong")
            safe_text(t(f"{name}_a", lang, **(shares if name == "qz_a3" else {})))
            if name == "qz_a1":  # the article's "cannot learn", with the conditions runs give
                need_answer(lang)


# The characters of the article's 喜 row, in XI_NAMES' order.
XI_CHARACTERS = dict(
    zip(XI_NAMES, ("我", "喜", "欢", "人", "工", "智", "能", "[CLS]", "[SEP]"), strict=True)
)


def short_answer(name: str, lang: str) -> str:
    """A question's answer in one sentence, its numbers computed: for question 1 from the
    training runs every page quotes, for question 3 from the article's row."""
    if name == "qz_a1":
        cells = need_cells()
        worse = sum(bool({"slower", "stuck"} & set(need.kinds)) for need in cells)
        stuck = sum("stuck" in need.kinds for need in cells)
        key = "qz_a1_short" if stuck else "qz_a1_short_none"
        return t(key, lang, worse=worse, cells=len(cells), stuck=stuck)
    if name == "qz_a3":
        shares = xi_shares()
        first, second, third = sorted(XI_NAMES, key=lambda n: -int(shares[n]))[:3]
        words = {f"c{i}": XI_CHARACTERS[n] for i, n in enumerate((first, second, third))}
        words |= {f"p{i}": shares[n] for i, n in enumerate((first, second, third))}
        words |= {"xi": shares["xi"]}
        return t("qz_a3_short", lang, **words)
    return t(f"{name}_short", lang)


def need_answer(lang: str) -> None:
    """Where the article's "the model cannot learn" holds, by d_k and optimizer: the training
    page's sweeps, as every page tells them."""
    claims, evidence = need_parts(lang)
    safe_text(sentences_text(claims, lang))
    for line in evidence:
        safe_text(line, size="0.875rem")
    page_link("train", t("train_link", lang))


def feedback(question: Question, answer: float, lang: str) -> str:
    """A right answer's feedback: "correct" when it is the answer rounded as far as the prompt
    asks, or (where it asks for no decimals) as far as the student typed; else "close enough",
    within the tolerance (steps rounded by hand), so a ✓ never sits beside another number."""
    decimals = DECIMALS.get(question.kind, typed_decimals(answer))
    exact = f"{answer:.{decimals}f}" == f"{question.answer:.{decimals}f}"
    key = "qz_correct" if exact else "qz_close"
    return t(key, lang, answer=answer_text(question), tolerance=f"{question.tolerance:.2g}")


def typed_decimals(value: float) -> int:
    """How many decimals a number has as typed (its shortest form: 0.87 has two)."""
    text = repr(value)
    return len(text.split(".")[1]) if "." in text and "e" not in text else 0


def ask(number: int, question: Question, seed: int, lang: str) -> bool | None:
    """One numeric question with its answer box and feedback: right, wrong, or None when not
    answered yet. A count takes a whole number."""
    numbers = _numbers(question)
    decimals = DECIMALS.get(question.kind, DIGITS)
    safe_text(
        f"{number}. " + t(f"qz_{question.kind}", lang, **numbers, decimals=decimals), tag="h4"
    )
    box, placeholder = box_format(question.kind)
    answer = st.number_input(
        t("qz_answer_label", lang),
        key=f"quiz_answer_{seed}_{number}",
        value=None,
        step=1 if question.kind in COUNTS else None,
        format=box,
        placeholder=placeholder,
    )
    hint = t(f"qz_hint_{question.kind}", lang, **numbers)
    right = None if answer is None else question.is_correct(answer)
    if answer is not None and right:  # right implies an answer; mypy needs it said
        st.success(feedback(question, answer, lang))
    elif right is False:
        st.error(t("qz_wrong", lang, hint=hint))
    with st.expander(t("qz_show", lang)):
        safe_text(t("qz_answer_is", lang, answer=answer_text(question), hint=hint))
    return right
