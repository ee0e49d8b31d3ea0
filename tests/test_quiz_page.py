"""/quiz at a lesson: the first question to answer, its text and its answer box,
on the first screen of a projector, two laptops and a phone; a question that asks for so many
decimals shows its answer, its box and its placeholder with as many; the seed's box says it picks
a question set (not a question's number, which "题号" read as)."""

import html
import re

import numpy as np
import pytest
from conftest import open_app

from ui.quiz.body import DECIMALS
from ui.quiz.settings import QuizParams
from viz_core import make_quiz

# The prompt's "3 decimals", in each language, and the answer in the feedback and behind "Show".
ASKED = {"en": r"\((\d+) decimals\)", "zh": r"保留 (\d+) 位小数"}
SHOWN = {
    "en": (r"The answer is (-?[\d.]+)\.", r"Answer: (-?[\d.]+)\."),
    "zh": (r"答案是 (-?[\d.]+)。", r"答案：(-?[\d.]+)。"),
}


def page_html(at):
    """The text of every st.html element (questions, answers), unescaped."""
    return [html.unescape(re.sub(r"<[^>]+>", "", e.proto.body)) for e in at.get("html")]


def decimals(number):
    """How many decimals a printed number has."""
    return len(number.split(".")[1]) if "." in number else 0


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("seed", [0, 3, 11])
def test_a_question_gives_its_answer_with_the_decimals_it_asks_for(seed, lang):
    """Question 1 asks for N decimals: the ✓ feedback, the answer behind "Show the answer",
    the answer box's format and its placeholder all have N decimals."""
    at = open_app("quiz", lang=lang, quiz_seed=str(seed))
    prompt = next(text for text in page_html(at) if text.startswith("1. "))
    asked = int(re.search(ASKED[lang], prompt).group(1))
    question = make_quiz(seed)[0]
    box = at.number_input(key=f"quiz_answer_{seed}_1")
    assert (box.proto.format, box.proto.placeholder) == (f"%.{asked}f", "0." + "0" * asked)
    box.set_value(round(question.answer, asked)).run()
    feedback, behind = SHOWN[lang]
    right = re.search(feedback, at.success[0].value).group(1)
    shown = next(m.group(1) for text in page_html(at) if (m := re.search(behind, text)))
    assert decimals(right) == decimals(shown) == asked, (right, shown, asked)
    assert float(right) == pytest.approx(question.answer, abs=0.5 * 10**-asked)


@pytest.mark.parametrize(
    ("lang", "words"), [("zh", ("题组", "全班")), ("en", ("question set", "whole class"))]
)
def test_the_seed_box_says_it_picks_a_question_set(lang, words):
    """Its label names a question set and what sharing it does (not "题号", "quiz number", which
    read as a question's number), with a help that says more."""
    box = open_app("quiz", lang=lang).number_input(key=QuizParams.widget_key("quiz_seed"))
    label = box.label.lower()
    assert all(word in label for word in words), label
    assert "题号" not in label and "quiz number" not in label
    assert box.help


def is_article_question(text):
    return re.match(r"(Q\d|题 \d)", text)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_numeric_questions_and_the_articles_are_sections_of_their_own(lang):
    """By default the numbered questions with their boxes, and none of the articles'; with
    section=article (the picker's second button) the articles' three, without a numeric
    question to scroll past."""
    texts = page_html(open_app("quiz", lang=lang))
    assert any(text.startswith("1. ") for text in texts)
    assert not [text for text in texts if is_article_question(text)]
    at = open_app("quiz", lang=lang, section="article")
    texts = page_html(at)
    assert len([text for text in texts if is_article_question(text)]) == 3
    assert not [text for text in texts if text.startswith("1. ")]
    assert at.get("button_group")[0].value == ["article"] or "article" in str(
        at.get("button_group")[0].value
    )


def strong(at):
    """The bold one-sentence answers: each st.html body that is a <strong>, unescaped."""
    bodies = [e.proto.body for e in at.get("html")]
    return [html.unescape(re.sub(r"<[^>]+>", "", b)) for b in bodies if "<strong" in b]


def xi_shares():
    """The article's 喜 row ÷ 8 through softmax, by character, in whole percent (numpy)."""
    from ui.kernel.settings import XI_ROW

    row = np.array(XI_ROW, dtype=float) / 8
    weights = np.exp(row - row.max()) / np.exp(row - row.max()).sum()
    names = ["我", "喜", "欢", "人", "工", "智", "能", "[CLS]", "[SEP]"]
    return {name: round(100 * w) for name, w in zip(names, weights, strict=True)}


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_each_article_question_opens_with_a_one_sentence_answer(lang):
    """Each model answer opens with one bold sentence, its numbers computed: question 1 counts
    the training settings slower or stuck (from need_sweeps.json, read here), question 3 names
    the three largest shares of the article's 喜 row; the evidence follows it."""
    from need_support import cells

    at = open_app("quiz", lang=lang, section="article")
    first, second, third = strong(at)[:3]
    for sentence in (first, second, third):  # one sentence: one full stop, at its end
        stop = "。" if lang == "zh" else "."
        assert (
            sentence.endswith(stop)
            and sentence[:-1].count(stop + ("" if lang == "zh" else " ")) == 0
        )
    table = cells().values()
    worse = sum(bool({"slower", "stuck"} & cell.kinds) for cell in table)
    stuck = sum("stuck" in cell.kinds for cell in table)
    if lang == "en":
        assert f"in {worse} of the {len(table)} settings trained here" in first
        assert f"{stuck} of them stuck" in first or (stuck == 0 and "none stuck" in first)
    else:
        assert f"这里训练的 {len(table)} 个设置里，有 {worse} 个" in first
    shares = xi_shares()
    top = sorted(shares, key=lambda c: -shares[c])[:3]
    unit = " %" if lang == "en" else "%"
    for character in top:
        assert f"{character}" in third and f"{shares[character]}{unit}" in third
    assert third.index(top[0]) < third.index(top[1]) < third.index(top[2])


# The first question's heading and its answer box, as the window shows them.
FIRST = """() => {
  const box = document.querySelector('.st-key-quiz_answer_0_1').getBoundingClientRect();
  const head = [...document.querySelectorAll('h4.safe')].find(h => h.textContent.startsWith('1. '))
    .getBoundingClientRect();
  return {head_top: head.top, head_bottom: head.bottom, box_bottom: box.bottom,
          height: innerHeight}; }"""


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("screen", ["projector", "laptop", "laptop-wide", "phone"])
def test_the_first_question_and_its_box_are_on_the_first_screen(opened, screen, lang):
    """At 1280 × 720 with ?present=true (and on the laptops and a phone) question 1's text and
    its answer box are whole on the first screen, before any scrolling."""
    tab = opened(screen, f"quiz?lang={lang}&quiz_seed=0", ".st-key-quiz_answer_0_1")
    found = tab.evaluate(FIRST)
    assert found["head_top"] >= 0 and found["head_bottom"] <= found["height"], found
    assert found["box_bottom"] <= found["height"], found


CLOSE = {"en": ("Close enough", "±"), "zh": ("算你对", "±")}
EXACT = {"en": "Correct!", "zh": "正确！"}


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("seed", [0, 11])
def test_an_answer_within_the_tolerance_is_not_called_exact(seed, lang):
    """Question 1 asks for 3 decimals and accepts ± its tolerance (steps rounded by hand). An
    answer that rounds to another number is "close enough", with the tolerance and the answer;
    only one that rounds to the answer is "correct"."""
    question = make_quiz(seed)[0]
    asked = DECIMALS[question.kind]
    at = open_app("quiz", lang=lang, quiz_seed=str(seed))
    box = at.number_input(key=f"quiz_answer_{seed}_1")
    off = round(question.answer + 0.8 * question.tolerance, asked)
    box.set_value(off).run()
    close = at.success[0].value
    assert EXACT[lang] not in close
    words, sign = CLOSE[lang]
    assert words in close and f"{sign}{question.tolerance:g}" in close
    assert f"{question.answer:.{asked}f}" in close
    at.number_input(key=f"quiz_answer_{seed}_1").set_value(round(question.answer, asked)).run()
    assert EXACT[lang] in at.success[0].value


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("seed", [0, 11])
def test_a_final_answer_rounded_right_is_correct_where_no_decimals_are_asked(seed, lang):
    """The gradient question (number 5) asks for no decimals: its answer rounded to 3 or to 2
    decimals, typed so, is "correct", not "close enough" (a student who rounds the last step
    right is right)."""
    question = make_quiz(seed)[4]
    assert question.kind == "gradient" and question.kind not in DECIMALS
    at = open_app("quiz", lang=lang, quiz_seed=str(seed))
    for decimals in (3, 2):
        typed = round(question.answer, decimals)
        assert abs(typed - question.answer) <= question.tolerance  # within it, to test wording
        at.number_input(key=f"quiz_answer_{seed}_5").set_value(typed).run()
        assert EXACT[lang] in at.success[0].value, (typed, at.success[0].value)
