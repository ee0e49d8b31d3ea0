"""The class mode's questions: each truth recomputed here another way, bins that hold it,
prompts in both languages, and how a typed answer becomes a key in the tally."""

import ast
import dataclasses
import json
import math
import string
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from classroom import KINDS, QUESTIONS, Truth
from classroom.questions import bin_label, normalise_answer, parse_number
from classroom.safety import STRIPPED_CATEGORIES, clean_text, csv_cell, normalise_code
from viz_core import align, load_model, make_qkv, run_model
from viz_core.model import SPECIAL_IDS

ROOT = Path(__file__).resolve().parent.parent
SENTENCE = ["[CLS]", "我", "喜", "欢", "人", "工", "智", "能", "[SEP]"]
PAGES = {"lab", "softmax", "scaling", "model", "variants", "quiz"}


def plain_softmax(scores):
    """e^x / Σ e^x, the way the articles do it (scores small enough not to overflow)."""
    scores = np.asarray(scores, dtype=float) - np.max(scores)
    exps = np.exp(scores)
    return exps / exps.sum()


def plain_row(tokens, d, seed, row, scale, keys=None):
    """One row of single-head attention weights over random Q, K: a plain loop over keys."""
    q, k, _ = make_qkv(tokens, d, seed)
    keys = range(len(tokens)) if keys is None else keys
    divisor = math.sqrt(d) if scale else 1.0
    scores = [sum(q[row, i] * k[j, i] for i in range(d)) / divisor for j in keys]
    return plain_softmax(scores)


def containing_bin(edges, value):
    """Index of the bin [a, b) that holds value; the last bin includes its upper edge."""
    for i in range(len(edges) - 1):
        high = math.inf if edges[i + 1] is None else edges[i + 1]
        if edges[i] <= value < high or (i == len(edges) - 2 and value == high):
            return i
    raise AssertionError(f"{value} in no bin of {edges}")


# --- the registry -------------------------------------------------------------------------------


def test_there_are_at_least_nine_questions_over_the_pages_and_every_kind():
    assert len(QUESTIONS) >= 9
    pages = {q.page for q in QUESTIONS.values()}
    assert {"lab", "softmax", "scaling", "model", "variants"} <= pages <= PAGES
    assert {q.kind for q in QUESTIONS.values()} == set(KINDS)
    assert all(key == q.id for key, q in QUESTIONS.items())


@pytest.mark.parametrize("question_id", QUESTIONS)
def test_every_prompt_exists_in_zh_and_en_and_formats(question_id):
    """Both prompts fill every placeholder from the truth; the Chinese one is Chinese."""
    question = QUESTIONS[question_id]
    truth = question.truth()
    assert set(question.prompt) == {"zh", "en"}
    zh, en = question.text("zh", truth), question.text("en", truth)
    assert "{" not in zh + en and "}" not in zh + en
    assert any("\u4e00" <= ch <= "\u9fff" for ch in zh)
    assert en.isascii() or any(ch.isascii() and ch.isalpha() for ch in en)
    assert set(truth.option_text) == {"zh", "en"}
    assert all(len(texts) == len(truth.options) for texts in truth.option_text.values())


@pytest.mark.parametrize("question_id", QUESTIONS)
def test_every_truth_survives_json_and_its_answer_is_well_formed(question_id):
    question = QUESTIONS[question_id]
    truth = question.truth()
    again = Truth.from_json(json.loads(json.dumps(truth.to_json(), allow_nan=False)))
    assert again == truth
    json.dumps(question.settings(), allow_nan=False)
    if question.kind == "character":
        assert len(truth.answer) == 1 and truth.options == ()
    else:
        assert truth.answer in truth.options
    assert question.settings() == question.defaults


@pytest.mark.parametrize("question_id", [q for q in QUESTIONS if QUESTIONS[q].kind == "number"])
def test_a_numbers_bins_rise_and_the_right_one_holds_the_truth(question_id):
    truth = QUESTIONS[question_id].truth()
    finite = [e for e in truth.edges if e is not None]
    assert finite == sorted(set(finite)) and truth.edges[0] is not None
    assert len(truth.edges) == len(truth.options) + 1
    assert truth.options[containing_bin(truth.edges, truth.value)] == truth.answer


# --- each truth, recomputed ---------------------------------------------------------------------


def test_lab_top_key_is_the_argmax_of_the_plain_row():
    """喜's row at d = 64, seed 0, ÷√d: the key with the largest weight, by a plain loop."""
    truth = QUESTIONS["lab_top_key"].truth()
    weights = plain_row(SENTENCE, 64, 0, 2, scale=True)
    assert truth.answer == SENTENCE[int(np.argmax(weights))]
    assert truth.options == tuple(SENTENCE)
    np.testing.assert_allclose(truth.chart["values"], weights, atol=1e-6)
    assert truth.chart["highlight"] == int(np.argmax(weights))
    assert truth.args["token"] == "喜" and truth.args["d"] == "64"


def test_lab_top_key_takes_any_lab_view():
    """我爱我家 without [CLS]/[SEP], d = 8, seed 3, no ÷√d, causal: row 2 (the second 我)
    sees keys 0…2 only; repeated tokens are told apart by position."""
    settings = {"text": "我爱我家", "special": False, "d": 8, "seed": 3, "scale": False,
                "mask": "causal", "row": 2}  # fmt: skip
    truth = QUESTIONS["lab_top_key"].truth(settings)
    assert truth.options == ("我 (0)", "爱", "我 (2)", "家")
    weights = plain_row(list("我爱我家"), 8, 3, 2, scale=False, keys=range(3))
    assert truth.answer == truth.options[int(np.argmax(weights))]
    np.testing.assert_allclose(truth.chart["values"], [*weights, 0.0], atol=1e-6)


def test_lab_top_key_reads_the_chosen_head():
    """Four heads of d = 16: head 1 is columns 4…7, scaled by √4."""
    truth = QUESTIONS["lab_top_key"].truth({"d": 16, "heads": 4, "head": 1, "seed": 7})
    q, k, _ = make_qkv(SENTENCE, 16, 7)
    weights = plain_softmax(k[:, 4:8] @ q[2, 4:8] / 2.0)
    np.testing.assert_allclose(truth.chart["values"], weights, atol=1e-6)
    assert truth.answer == SENTENCE[int(np.argmax(weights))]


def test_lab_top_key_on_the_trained_model_uses_its_layer_and_head():
    truth = QUESTIONS["lab_top_key"].truth({"source": "trained", "layer": 1, "head": 2})
    steps = run_model("我喜欢人工智能").layers[1][2]
    weights = plain_softmax(steps.k @ steps.q[2] / math.sqrt(steps.q.shape[1]))
    np.testing.assert_allclose(truth.chart["values"], weights, atol=1e-6)


@pytest.mark.parametrize(
    "settings",
    [
        {"colour": "blue"},  # no such setting
        {"stage": "weights"},  # a view of the page, not of the question
        {"d": 0},
        {"d": 8193},
        {"d": 64.5},
        {"d": "64"},
        {"d": True},
        {"scale": "yes"},
        {"mask": "diagonal"},
        {"source": "bert"},
        {"seed": -1},
        {"temperature": 0.0},
        {"heads": 3},  # does not divide d = 64
        {"heads": 2, "head": 2},
        {"row": 9},  # past the 9 tokens
        {"row": -1},
        {"layer": 5},
        {"text": "我" * 501},
    ],
)
def test_bad_lab_settings_are_refused_with_a_sentence(settings):
    with pytest.raises(ValueError, match=r"[A-Z].*\."):
        QUESTIONS["lab_top_key"].truth(settings)


def test_lab_top_weight_without_scaling_at_1536_is_nearly_all_on_one_key():
    """÷√d off at d = 1,536: the top key of 喜's row takes almost everything (bin 0.8–1)."""
    truth = QUESTIONS["lab_top_weight"].truth()
    weights = plain_row(SENTENCE, 1536, 0, 2, scale=False)
    assert truth.value == pytest.approx(weights.max(), abs=1e-9)
    assert truth.options == ("0–0.2", "0.2–0.4", "0.4–0.6", "0.6–0.8", "0.8–1")
    assert truth.answer == "0.8–1"
    scaled = QUESTIONS["lab_top_weight"].truth({"scale": True})
    assert scaled.value == pytest.approx(plain_row(SENTENCE, 1536, 0, 2, scale=True).max())
    assert scaled.value < truth.value


def test_score_std_at_1536_is_about_the_square_root_of_d():
    """σ of q·k for standard normal entries is √d ≈ 39.2; 4,000 samples land within 5 %."""
    truth = QUESTIONS["score_std"].truth()
    assert truth.value == pytest.approx(math.sqrt(1536), rel=0.05)
    assert truth.answer == truth.options[containing_bin(truth.edges, math.sqrt(1536))]
    assert sum(truth.chart["counts"]) == 4000
    assert truth.chart["mark"] == pytest.approx(truth.value, abs=1e-3)
    rng = np.random.default_rng(1)
    q, k = rng.standard_normal((2, 4000, 1536))
    assert np.std(np.sum(q * k, axis=1)) == pytest.approx(truth.value, rel=0.05)


@pytest.mark.parametrize("d", [1, 16, 64, 768, 8192])
def test_score_std_bins_are_around_the_square_root_of_d(d):
    """The bin that holds the truth holds √d, whatever d."""
    truth = QUESTIONS["score_std"].truth({"d": d, "samples": 2000})
    assert truth.answer == truth.options[containing_bin(truth.edges, math.sqrt(d))]


def test_softmax_top_of_the_articles_example():
    """softmax([2, 1, 0.1]) by hand: 7.389 / 11.212 = 0.659, bin 0.65–0.7."""
    truth = QUESTIONS["softmax_top"].truth()
    exps = [math.exp(2.0), math.exp(1.0), math.exp(0.1)]
    assert truth.value == pytest.approx(exps[0] / sum(exps), abs=1e-12)
    assert round(truth.value, 3) == 0.659
    assert truth.answer == "0.65–0.7"
    assert truth.args["values"] == "2, 1, 0.1"


def test_softmax_top_of_other_scores():
    truth = QUESTIONS["softmax_top"].truth({"values": [1.0, 1.0]})
    assert truth.value == pytest.approx(0.5) and truth.answer == "0.5–0.55"
    truth = QUESTIONS["softmax_top"].truth({"values": [20, 10, 1]})
    assert truth.value == pytest.approx(1 / (1 + math.exp(-10) + math.exp(-19)))
    assert truth.answer == "0.9–1"
    for bad in ([1.0], [1.0] * 13, ["a", 1.0], [1e9, 1.0]):
        with pytest.raises(ValueError):
            QUESTIONS["softmax_top"].truth({"values": bad})


def test_model_fill_is_the_models_own_top_guess():
    """The logits at [MASK], special tokens left out: the largest is 欢."""
    truth = QUESTIONS["model_fill"].truth()
    run = run_model("我喜[MASK]人工智能")
    logits = run.logits[run.tokens.index("[MASK]"), SPECIAL_IDS:]
    best = load_model().vocab[SPECIAL_IDS + int(np.argmax(logits))]
    assert truth.answer == best == "欢"
    probs = plain_softmax(logits)
    np.testing.assert_allclose(truth.chart["values"], np.sort(probs)[::-1][:5], atol=1e-6)
    with pytest.raises(ValueError):
        QUESTIONS["model_fill"].truth({"text": "没有空格"})


def test_translator_word_is_where_the_last_layer_looks_while_writing_xi():
    """Row 1 of the last decoder layer's cross-attention (the step that writes 喜), averaged
    over its heads by a loop: the English word with the largest weight is "like"."""
    truth = QUESTIONS["translator_word"].truth()
    run = align("I like artificial intelligence.", "我喜欢人工智能")
    assert run.target_tokens[1] == "喜"
    heads = run.cross[-1]
    mean = sum(head[1] for head in heads) / len(heads)
    assert truth.answer == run.source_tokens[int(np.argmax(mean))] == "like"
    assert truth.options == run.source_tokens
    assert truth.args["char"] == "喜"
    np.testing.assert_allclose(truth.chart["values"], mean, atol=1e-6)
    with pytest.raises(ValueError):
        QUESTIONS["translator_word"].truth({"row": 8})  # 7 characters and [EOS]


def test_the_articles_xi_row_gives_xi_itself_the_largest_share():
    """The article's printed 喜 row ÷ 8, softmax by hand: 喜 (22.7) wins, not 我 or 欢."""
    row = [15.3, 22.7, 18.2, 2.1, 1.8, 3.2, 2.9, 5.6, 4.1]
    shares = plain_softmax(np.array(row) / 8)
    truth = QUESTIONS["article_xi_share"].truth()
    assert truth.answer == "喜" == truth.options[int(np.argmax(shares))]
    np.testing.assert_allclose(truth.chart["values"], shares, atol=1e-6)


def test_the_articles_conceptual_questions_have_the_articles_answers():
    """Q1: the variance grows with d (shown: unscaled rows turn one-hot as d grows);
    Q2: exp, then divide by the sum (shown on [2, 1, 0.1])."""
    why = QUESTIONS["article_why_scale"].truth()
    right = why.options.index(why.answer)
    assert "方差" in why.option_text["zh"][right] and "variance" in why.option_text["en"][right]
    raw, scaled = why.chart["raw"], why.chart["scaled"]
    assert raw[-1] > 0.9 and scaled[-1] < 0.6 and raw == sorted(raw)
    ops = QUESTIONS["article_softmax_ops"].truth()
    right = ops.options.index(ops.answer)
    assert "exp" in ops.option_text["zh"][right] and "sum" in ops.option_text["en"][right]
    assert ops.chart["total"] == pytest.approx(math.exp(2) + math.exp(1) + math.exp(0.1))


# --- answers ------------------------------------------------------------------------------------


def test_a_choice_must_be_one_of_the_options():
    truth = QUESTIONS["translator_word"].truth()
    assert normalise_answer("choice", truth, " like ") == ("like", "like")
    assert normalise_answer("choice", truth, "Like") == ("Like", "like")
    for bad in ("love", "lik", "", 3):
        with pytest.raises(ValueError):
            normalise_answer("choice", truth, bad)


def test_a_choice_between_options_that_differ_only_in_case_needs_the_exact_one():
    """Tokens I and i are two options: each is taken as typed; "AB" fits two and is refused."""
    options = ("I", "i", "Ab", "aB")
    truth = Truth("I", None, options, {"zh": options, "en": options}, (), {}, {})
    assert normalise_answer("choice", truth, "i")[1] == "i"
    assert normalise_answer("choice", truth, "I")[1] == "I"
    with pytest.raises(ValueError, match="Pick one"):
        normalise_answer("choice", truth, "AB")


@pytest.mark.parametrize(
    ("typed", "number"),
    [("0.66", 0.66), (".5", 0.5), ("66%", 0.66), ("０.６６", 0.66), ("1,536", 1536.0),
     ("1e-1", 0.1), ("−0.5", -0.5), ("+3", 3.0), (" 39 ", 39.0)],
)  # fmt: skip
def test_a_typed_number_is_read_as_a_student_writes_it(typed, number):
    assert parse_number(typed) == pytest.approx(number)


@pytest.mark.parametrize("typed", ["", "abc", "nan", "inf", "1e999", "0.5.5", "1,5", "½", "0x10"])
def test_what_is_not_a_number_is_refused(typed):
    with pytest.raises(ValueError, match="Type a number"):
        parse_number(typed)


def test_a_number_is_kept_as_typed_and_counted_under_its_bin():
    truth = QUESTIONS["lab_top_weight"].truth()
    assert normalise_answer("number", truth, "0.2") == ("0.2", "0.2–0.4")  # [a, b)
    assert normalise_answer("number", truth, "1") == ("1", "0.8–1")  # the last bin is closed
    assert normalise_answer("number", truth, "95%") == ("95%", "0.8–1")
    assert normalise_answer("number", truth, 0.5) == ("0.5", "0.4–0.6")
    for outside in ("-0.1", "1.01"):
        with pytest.raises(ValueError, match="from 0 to 1"):
            normalise_answer("number", truth, outside)
    std = QUESTIONS["score_std"].truth()
    assert normalise_answer("number", std, "1536")[1] == std.options[-1]  # the open last bin


def test_a_character_answer_is_exactly_one_character():
    truth = QUESTIONS["model_fill"].truth()
    assert normalise_answer("character", truth, " 欢 ") == ("欢", "欢")
    assert normalise_answer("character", truth, "👍🏽")[1] == "👍🏽"  # one character on screen
    for bad in ("欢迎", "", "\u200b", "a b"):
        with pytest.raises(ValueError):
            normalise_answer("character", truth, bad)


@given(st.floats(min_value=0.0, max_value=1.0))
def test_every_number_from_0_to_1_falls_in_exactly_one_bin_that_contains_it(value):
    truth = QUESTIONS["softmax_top"].truth()
    label = bin_label(truth, value)
    i = truth.options.index(label)
    assert truth.edges[i] <= value <= truth.edges[i + 1]
    assert [o for j, o in enumerate(truth.options) if j == containing_bin(truth.edges, value)] == [
        label
    ]


@given(st.text(max_size=60))
def test_cleaned_text_has_no_control_or_format_characters_and_stays_short(text):
    import unicodedata

    try:
        cleaned = clean_text(text, 24, "nickname")
    except ValueError:
        return
    assert 0 < len(cleaned) <= 24 and cleaned == cleaned.strip()
    assert not any(unicodedata.category(ch) in STRIPPED_CATEGORIES for ch in cleaned)


@given(st.text())
def test_no_csv_cell_starts_like_a_formula(text):
    assert not csv_cell(text).startswith(("=", "+", "-", "@", "\t", "\r"))


@given(st.text(alphabet=string.ascii_letters + string.digits + " -", max_size=10))
def test_a_normalised_code_is_six_unambiguous_characters_or_none(text):
    code = normalise_code(text)
    assert code is None or (len(code) == 6 and not set(code) & set("0O1IL"))


# --- the package's own rules --------------------------------------------------------------------


def _functions():
    for path in sorted((ROOT / "classroom").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                yield path, node


def test_no_classroom_function_is_longer_than_40_lines():
    long = [
        f"{path.name}:{node.lineno} {node.name}"
        for path, node in _functions()
        if node.end_lineno - node.lineno + 1 > 40
    ]
    assert long == []


def test_classroom_imports_neither_streamlit_nor_plotly_nor_ui():
    for path in sorted((ROOT / "classroom").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                modules = [node.module or ""]
            else:
                continue
            for module in modules:
                assert module.split(".")[0] not in {"streamlit", "plotly", "ui"}, path


# --- one schema: a lab question is checked with the lab's own declaration -----------------------


@pytest.mark.parametrize("question_id", ["lab_top_key", "lab_top_weight"])
def test_a_lab_setting_out_of_range_is_refused_with_the_lab_s_own_bound(question_id):
    """d past the lab's largest, and a head past the last of the heads asked for: refused by the
    question with the bound the lab's settings declare (read from them here), never a bound of
    its own; the lab's keys and defaults are the lab's."""
    from classroom import Invalid
    from viz_core.lab_settings import VIEW, Computing, LabParams

    question = QUESTIONS[question_id]
    d_high = LabParams.spec("d").high
    with pytest.raises(Invalid) as caught:
        question.settings({"d": d_high + 1})
    assert caught.value.code == "setting_whole" and caught.value.params["high"] == f"{d_high:g}"
    with pytest.raises(Invalid) as caught:
        question.settings({"d": 64, "heads": 4, "head": 4})
    assert caught.value.params == {"name": "head", "low": "0", "high": "3"}
    with pytest.raises(Invalid) as caught:
        question.settings({"d": 64, "heads": 3})  # 3 does not divide 64: the lab's rule
    assert caught.value.code == "setting_rule"
    names = {f.name for f in dataclasses.fields(Computing)} | {"row"}
    assert set(question.fields) == names
    assert question.settings()["text"] == VIEW.text and question.settings({"d": 96})["d"] == 96
