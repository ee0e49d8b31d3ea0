"""/model: the trained character model's heads, roles, guesses and ÷√d, in both languages."""

import numpy as np
import pytest
from conftest import FUZZ, chart_keys, decode, figure, markdown_texts, open_app
from numpy.testing import assert_allclose

from viz_core import fill_mask, load_head_report, run_model

CHARTS = ["model_heads", "fill_mask", "head_roles", "model_loss"]


def html_texts(at):
    return [element.proto.body for element in at.get("html")]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_page_draws_its_four_charts_in_both_languages(lang):
    """The heads grid, the guesses, the roles and the loss curve, in that order, titled in the
    page's language."""
    at = open_app("model", lang=lang)
    assert chart_keys(at) == CHARTS
    title = at.title[0].value
    assert ("训练好的模型" in title) if lang == "zh" else ("trained model" in title)


def test_the_heads_grid_shows_every_head_s_weights_on_the_sentence():
    """Eight panels, one per layer × head; each panel's cells are run_model's weights."""
    at = open_app("model", lang="en", text="我爱我家")
    spec = figure(at, "model_heads")
    heatmaps = [trace for trace in spec["data"] if trace["type"] == "heatmap"]
    assert len(heatmaps) == 8
    run = run_model("我爱我家")
    for i, trace in enumerate(heatmaps):
        expected = run.layers[i // 4][i % 4].weights
        assert_allclose(decode(trace["z"]), expected, atol=1e-6)


def test_the_guesses_are_the_model_s_own_at_the_chosen_temperature():
    """Hiding character 2 of 我喜欢人工智能 at T = 2: the bars are fill_mask's first guesses
    and probabilities, computed independently here."""
    at = open_app("model", lang="en", mask_at="2", fill_temperature="2")
    bars = figure(at, "fill_mask")["data"][0]
    expected = fill_mask("我喜[MASK]人工智能", top=len(bars["x"]), temperature=2.0)
    assert list(bars["x"]) == [ch for ch, _ in expected]
    assert_allclose(decode(bars["y"]), [p for _, p in expected], rtol=1e-9)
    assert any("我喜[MASK]人工智能" in text for text in html_texts(at))


def test_a_blank_past_the_sentence_says_the_last_character_is_hidden_and_hides_it():
    """?mask_at=9 on 我喜欢 (three characters): the note names 9 and the three, the box shows
    2, the model reads 我喜[MASK] and the bars are fill_mask's own for it; a sentence typed
    shorter than the blank does the same."""
    at = open_app("model", lang="en", text="我喜欢", mask_at="9")
    notes = [element.value for element in at.info]
    assert any("Character 9" in note and "3 characters" in note for note in notes), notes
    assert at.number_input(key="model_mask_at").value == 2
    assert any("我喜[MASK]" in text for text in html_texts(at))
    bars = figure(at, "fill_mask")["data"][0]
    assert list(bars["x"]) == [ch for ch, _ in fill_mask("我喜[MASK]", top=len(bars["x"]))]
    at.text_input(key="model_text").set_value("我喜").run()
    assert at.number_input(key="model_mask_at").value == 1
    assert any("我[MASK]" in text for text in html_texts(at)) and not at.exception


def test_new_heads_are_given_time_to_draw_and_a_new_blank_is_not(draw_waits):
    """The page waits (notes.let_draw) after sending heads it has not sent before, so that they
    are drawn before the guesses below them arrive: once for a new sentence, and not at all for
    a new blank or temperature, which leave the heads as they are."""
    waits = draw_waits
    at = open_app("model", lang="en")
    waits.clear()  # opening ran the lab, then this page: each waited for its first chart
    at.text_input(key="model_text").set_value("今天天气很好").run()
    assert len(waits) == 1
    at.number_input(key="model_mask_at").set_value(3).run()
    at.number_input(key="model_fill_temperature").set_value(2.0).run()
    assert len(waits) == 1
    assert not at.exception


def test_the_roles_chart_is_the_shipped_report():
    """The roles heatmap is the head report measured on held-out sentences: 8 heads × 5 roles."""
    at = open_app("model", lang="zh")
    (trace,) = [t for t in figure(at, "head_roles")["data"] if t["type"] == "heatmap"]
    assert_allclose(decode(trace["z"]), load_head_report().role_weights.reshape(8, 5), atol=1e-9)


def test_the_xi_row_table_holds_the_model_s_weights_beside_the_article_s():
    """The 喜 table: the article's 0.16 / 0.40 / 0.23, then each first-layer head's weights on
    我, 喜 and 欢, rounded as shown."""
    at = open_app("model", lang="en")
    table = at.dataframe[0].value
    assert table.iloc[0].tolist() == [0.16, 0.40, 0.23]
    run = run_model("我喜欢人工智能")
    xi = run.tokens.index("喜")
    for head in range(4):
        weights = run.layers[0][head].weights[xi]
        expected = [round(float(weights[run.tokens.index(ch)]), 2) for ch in "我喜欢"]
        assert table.iloc[head + 1].tolist() == expected


@pytest.mark.parametrize(
    ("query", "note"),
    [
        ({"text": "🙂Zebra我"}, "[UNK]"),
        ({"text": "好" * 60}, "positions"),
        ({"text": ""}, None),
        ({"mask_at": "999"}, None),
        ({"fill_temperature": "0"}, None),
    ],
)
def test_hostile_or_odd_input_gets_a_note_never_a_traceback(query, note):
    """Unknown characters, too long a sentence, an empty one, a place past the end or a
    temperature of 0: the page still draws, with a note where something was replaced."""
    at = open_app("model", lang="en", **query)
    notes = [element.value for element in at.info] + [element.value for element in at.warning]
    if note:
        assert any(note in text for text in notes), notes
    if query.get("text") != "":
        assert "model_heads" in chart_keys(at)


@pytest.mark.parametrize("name", list(FUZZ))
def test_fuzzed_values_in_every_key_never_crash_or_render_as_markdown(name):
    """Every URL key of the page with each hostile value: no exception, no user text rendered
    as Markdown (the masked sentence is shown as escaped text)."""
    value = FUZZ[name]
    at = open_app("model", lang="en", text=value, mask_at=value, fill_temperature=value)
    typed = "".join(value.split())  # the sentence as the model reads it: white space dropped
    assert all(typed[:8] not in text for text in markdown_texts(at) if len(typed) >= 4)
    assert all("<b>" not in text for text in html_texts(at))


def test_a_sentence_with_markup_is_shown_escaped():
    """<b>x</b> typed as the sentence appears as text in the masked line, never as HTML."""
    at = open_app("model", lang="en", text="<b>我</b>", mask_at="0")
    assert any("&lt;" in text for text in html_texts(at))
    assert np.all([("<b>" not in text) for text in html_texts(at)])


def test_unknown_characters_are_listed_as_literal_text():
    """Characters the model never saw are named in a note with every Markdown sign escaped, so
    that typed *, $ or [ ] never become emphasis, LaTeX or a link."""
    at = open_app("model", lang="en", text="*a*$[b](c)我")
    (note,) = [element.value for element in at.info if "[UNK]" in element.value]
    listed = note.split(": ", 1)[1].split(" ")
    assert {"\\*", "\\$", "\\[", "\\]"} <= set(listed)
    assert all(len(item) == 2 and item[0] == "\\" for item in listed if not item.isalnum())


@pytest.mark.parametrize(
    ("page", "query"),
    [
        ("lab", {}),
        ("steps", {"step": "6"}),
        ("softmax", {"values": "15.3,22.7,18.2,2.1,1.8,3.2,2.9,5.6,4.1", "divisor": "1"}),
    ],
)
def test_pages_that_say_random_weights_differ_link_to_the_trained_model(page, query):
    """The lab (random Q, K, V), step 6 and softmax's 喜 row each link to /model."""
    at = open_app(page, lang="en", **query)
    assert "model" in [element.proto.page for element in at.get("page_link")]


def test_the_lab_with_embeddings_does_not_claim_random_weights():
    """With embeddings the caveat about random weights, and its link, are not shown."""
    at = open_app("lab", lang="en", source="embedding")
    assert "model" not in [element.proto.page for element in at.get("page_link")]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_does_a_trained_model_need_scaling_is_answered_in_one_sentence_first(lang):
    """Under "Does a trained model still need ÷√d?" the first text is one bold sentence that
    answers it, with the trained heads' scaled σ range read here from mlm_heads.json (not 1:
    said so), before the table and the evidence."""
    import html
    import json

    from conftest import ROOT

    stored = json.loads((ROOT / "viz_core/models/mlm_heads.json").read_text(encoding="utf-8"))
    scaled = [std for layer in stored["std_scaled"] for std in layer]
    low, high = f"{min(scaled):.2f}", f"{max(scaled):.2f}"
    at = open_app("model", lang=lang)
    bodies = [html.unescape(e.proto.body) for e in at.get("html")]
    title = (
        "训练好的模型还需要 ÷√d 吗？" if lang == "zh" else "Does a trained model still need ÷√d?"
    )
    headers = [e.value for e in at.subheader]
    assert title in headers
    (answer,) = [b for b in bodies if "<strong" in b and f"{low}–{high}" in b]
    words = ("训练好的头的分数标准差", "the trained heads' scores")
    verdict = next(i for i, b in enumerate(bodies) if any(w in b for w in words))
    assert bodies.index(answer) < verdict
    assert (("不是 1" if lang == "zh" else "not 1") in answer) == (max(scaled) >= 1.5)
    text = answer.split(">", 1)[1].rsplit("<", 1)[0]
    assert text.endswith(("。", ".")) and text[:-1].count("。" if lang == "zh" else ". ") == 0
