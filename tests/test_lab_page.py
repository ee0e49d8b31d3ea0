"""The lab page under AppTest: defaults, every control by URL and by widget, bad input."""

import math
import time
from dataclasses import asdict

import numpy as np
import pytest
from conftest import APP, chart_keys, decode, figure, markdown_texts, open_app
from numpy.testing import assert_allclose, assert_array_equal
from streamlit.testing.v1 import AppTest

from ui.lab.stages import row_from_selection
from viz_core import make_qkv, run_lab

STAGES = ["scores", "scaled", "masked", "weights"]


def open_page(**query):
    """Run the app once, as if opened from a link with ``query``."""
    at = AppTest.from_file(APP, default_timeout=60)
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def heatmap_z(at, key="weights_heatmap"):
    """The z matrix of the heatmap trace of a chart."""
    (trace,) = [tr for tr in figure(at, key)["data"] if tr["type"] == "heatmap"]
    return decode(trace["z"])


def ticks(at, key, axis="yaxis"):
    """The tick labels of a chart's axis, in order."""
    return figure(at, key)["layout"][axis]["ticktext"]


def bar_values(at, trace_index=0):
    """The y values of a bar trace of the row_bars chart."""
    return decode(figure(at, "row_bars")["data"][trace_index]["y"])


# --- the default page -----------------------------------------------------------------------


def test_default_page_shows_the_articles_example():
    """No parameters: 我喜欢人工智能 with [CLS]/[SEP], 9×9, d = 64, row 2 (喜); the softmax stage
    beside the selected row: two Plotly charts, no more."""
    at = open_page(lang="zh")
    assert chart_keys(at) == ["weights_heatmap", "row_bars"]
    assert at.query_params["stage"] == "weights"
    at.toggle(key="lab_show_multiples").set_value(True).run()
    assert len(figure(at, "row_multiples")["data"]) == 9
    assert ticks(at, "weights_heatmap") == [
        "[CLS]",
        "我",
        "喜",
        "欢",
        "人",
        "工",
        "智",
        "能",
        "[SEP]",
    ]
    assert at.selectbox(key="lab_row").value == 2
    assert at.query_params["d"] == "64" and at.query_params["row"] == "2"


def test_weights_heatmap_is_exactly_the_core_weights():
    """Contract: weights_heatmap's heatmap z is steps.weights, bit for bit."""
    at = open_page()
    assert_array_equal(heatmap_z(at), run_lab("我喜欢人工智能").steps.weights)


def test_row_bars_show_the_selected_row_with_and_without_scaling():
    """Contract: row_bars has a bar trace whose values are the selected row of the weights."""
    at = open_page(row="4")
    result = run_lab("我喜欢人工智能")
    assert_array_equal(bar_values(at, 0), result.steps.weights[4])
    assert_array_equal(bar_values(at, 1), result.unscaled.weights[4])


@pytest.mark.parametrize("stage", STAGES)
def test_rows_read_top_to_bottom(stage):
    """Query row 0 ([CLS]) is drawn at the top: the y axis runs from n − 1 down to 0."""
    at = open_page(stage=stage)
    key = f"{stage}_heatmap"
    y_range = figure(at, key)["layout"]["yaxis"]["range"]
    assert y_range[0] > y_range[1], key
    assert ticks(at, key)[0] == "[CLS]"


def test_repeated_characters_keep_their_own_rows():
    """我爱我家: both 我 have a row and a column (positions on the axes, tokens as tick text)."""
    at = open_page(text="我爱我家")
    assert ticks(at, "weights_heatmap") == ["[CLS]", "我", "爱", "我", "家", "[SEP]"]
    assert ticks(at, "weights_heatmap", "xaxis") == ["[CLS]", "我", "爱", "我", "家", "[SEP]"]
    assert heatmap_z(at).shape == (6, 6)


# --- every control through the URL ----------------------------------------------------------


def test_url_settings_reach_the_core():
    """text, special, d, scale, mask, seed and row from a link give exactly the core's numbers."""
    at = open_page(
        text="我爱我家", special="false", d="1536", scale="false", mask="causal", seed="7", row="3"
    )
    expected = run_lab("我爱我家", special=False, d=1536, scale=False, mask="causal", seed=7)
    assert_array_equal(heatmap_z(at), expected.steps.weights)
    assert at.number_input(key="lab_d").value == 1536
    assert at.toggle(key="lab_scale").value is False
    assert at.radio(key="lab_mask").value == "causal"
    assert at.selectbox(key="lab_row").value == 3
    assert_array_equal(bar_values(at), expected.steps.weights[3])


def test_padding_mask_pads_and_greys_out_the_pad_columns():
    """mask=padding: [PAD]s appear, their columns get weight 0 and are greyed out in each row."""
    at = open_page(mask="padding")
    labels = ticks(at, "weights_heatmap", "xaxis")
    assert labels[-3:] == ["PAD"] * 3  # upright beside 汉字, "[PAD]" is wider than its cell
    assert (heatmap_z(at)[:, -3:] == 0).all()
    shapes = figure(open_page(mask="padding", stage="masked"), "masked_heatmap")["layout"]["shapes"]
    grey = [(s["x0"], s["x1"]) for s in shapes if s.get("fillcolor")]
    assert grey == [(8.5, 11.5)] * 12


def test_masked_cells_are_gaps_not_extreme_colours():
    """The masked heatmap draws −∞ cells as gaps (null), labelled −∞, never as a number."""
    at = open_page(mask="causal", stage="masked")
    (trace,) = [tr for tr in figure(at, "masked_heatmap")["data"] if tr["type"] == "heatmap"]
    z = decode(trace["z"])
    assert np.isnan(z[0, 1:]).all() and np.isfinite(np.diag(z)).all()
    assert trace["text"][0][1] == "−∞"
    assert not any(
        "nan" in cell.lower() or "inf" in cell.lower() for row in trace["text"] for cell in row
    )


ENGLISH_TITLE = "Scaled dot-product attention, step by step"
CHINESE_TITLE = "缩放点积注意力，一步一步看"


@pytest.mark.parametrize(
    ("locale", "query", "title"),
    [
        ("en-US", {}, ENGLISH_TITLE),
        ("zh-CN", {}, CHINESE_TITLE),
        ("fr-FR", {}, CHINESE_TITLE),
        ("en-US", {"lang": "zh"}, CHINESE_TITLE),
        ("zh-CN", {"lang": "en"}, ENGLISH_TITLE),
    ],
)
def test_language_from_the_url_else_from_the_browser(locale, query, title):
    """?lang= wins; without it the browser's language decides (English for en-*, else Chinese)."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.context["locale"] = locale
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    assert at.title[0].value == title


# --- every control through its widget --------------------------------------------------------


def test_typing_a_sentence_redraws_with_its_tokens():
    """A new sentence in the text box gives its tokens on both axes."""
    at = open_page()
    at.text_input(key="lab_text").set_value("Hi 你好").run()
    assert ticks(at, "weights_heatmap") == ["[CLS]", "H", "i", "你", "好", "[SEP]"]
    assert at.query_params["text"] == "Hi 你好"


def test_widgets_change_the_numbers():
    """special, d, scale, mask and seed widgets each change the weights as the core says."""
    at = open_page()
    at.toggle(key="lab_special").set_value(False).run()
    at.number_input(key="lab_d").set_value(96).run()
    at.toggle(key="lab_scale").set_value(False).run()
    at.radio(key="lab_mask").set_value("causal").run()
    at.number_input(key="lab_seed").set_value(3).run()
    expected = run_lab("我喜欢人工智能", special=False, d=96, scale=False, mask="causal", seed=3)
    assert_array_equal(heatmap_z(at), expected.steps.weights)
    assert at.query_params["d"] == "96" and at.query_params["mask"] == "causal"


@pytest.mark.parametrize("preset", [64, 96, 768, 1536, 6144])
def test_presets_set_d(preset):
    """One click on a preset sets d."""
    at = open_page(d="10")
    at.segmented_control(key="lab_d_preset").set_value(preset).run()
    assert at.number_input(key="lab_d").value == preset
    assert at.query_params["d"] == str(preset)


def test_new_random_picks_and_shows_a_new_seed():
    """The 'new random' button changes the seed, shows it, and puts it in the URL."""
    at = open_page()
    at.button(key="lab_new_seed").click().run()
    seed = at.number_input(key="lab_seed").value
    assert seed != 0
    assert at.query_params["seed"] == str(seed)
    assert_array_equal(heatmap_z(at), run_lab("我喜欢人工智能", seed=seed).steps.weights)


def test_selected_row_survives_a_settings_change():
    """Pick row 5, then change d, scaling and the mask: row 5 stays selected."""
    at = open_page()
    at.selectbox(key="lab_row").set_value(5).run()
    at.number_input(key="lab_d").set_value(1536).run()
    at.toggle(key="lab_scale").set_value(False).run()
    at.radio(key="lab_mask").set_value("causal").run()
    assert at.selectbox(key="lab_row").value == 5
    assert_array_equal(
        bar_values(at),
        run_lab("我喜欢人工智能", d=1536, scale=False, mask="causal").steps.weights[5],
    )


def test_switching_language_keeps_every_setting():
    """zh → en: d, scale, mask, seed, row and text stay as they were."""
    at = open_page(
        lang="zh", text="我爱我家", d="768", scale="false", mask="causal", seed="9", row="3"
    )
    before = dict(at.query_params)
    at.radio(key="lang").set_value("en").run()
    after = dict(at.query_params)
    assert after.pop("lang") == "en" and before.pop("lang") == "zh"
    assert after == before
    assert at.title[0].value == "Scaled dot-product attention, step by step"


def test_a_click_on_the_heatmap_selects_its_row():
    """The click layer reports the cell's (x, y); y is the query row."""
    selection = {"selection": {"points": [{"x": 3, "y": 6, "curve_number": 1}]}}
    assert row_from_selection(selection) == 6
    no_row = [
        None,
        {},
        {"selection": {}},
        {"selection": {"points": []}},
        {"selection": {"points": [{"y": "x"}]}},
        {"selection": {"points": [{"y": float("nan")}]}},
    ]
    for empty in no_row:
        assert row_from_selection(empty) is None


# --- bad input never breaks the page ---------------------------------------------------------


@pytest.mark.parametrize("text", ["", "   ", "\u3000\n\t"])
def test_empty_or_blank_sentence_gives_a_hint_and_no_charts(text):
    """Nothing to attend to: a friendly hint and no empty, broken charts."""
    at = open_page(text=text)
    assert chart_keys(at) == []
    assert any("我喜欢人工智能" in info.value for info in at.info)


def test_blank_typed_sentence_recovers():
    """Clearing the box shows the hint; typing again brings the charts back."""
    at = open_page()
    at.text_input(key="lab_text").set_value("").run()
    assert chart_keys(at) == []
    at.text_input(key="lab_text").set_value("你好").run()
    assert "weights_heatmap" in chart_keys(at)


def test_very_long_sentence_is_capped_with_a_note_and_answers_quickly():
    """20,000 characters at d = 6144: cut to 32 tokens, with notes, within a few seconds."""
    start = time.perf_counter()
    at = open_page(text="注意力机制" * 4000, d="6144")
    elapsed = time.perf_counter() - start
    assert heatmap_z(at).shape == (32, 32)
    labels = ticks(at, "weights_heatmap")
    assert 16 <= len(labels) <= 32 and labels[0] == "[CLS]"  # every k-th label when cells are small
    assert len(at.info) >= 2  # the link's text was cut, and the tokens were capped
    assert elapsed < 20  # generous: it is ~1 s here; the benchmark measures it properly


def notes(at):
    """The texts of the page's info boxes."""
    return [box.value for box in at.info]


def noted(at, key, used):
    """Whether a note says the link's ``key`` was replaced by ``used`` (in either language)."""
    return any(
        f"`{key}`" in text and (f"using {used} instead" in text or f"改用 {used}。" in text)
        for text in notes(at)
    )


@pytest.mark.parametrize(
    ("query", "key", "used"),
    [
        ({"d": "1e400"}, "d", "64"),
        ({"d": "nan"}, "d", "64"),
        ({"d": "-inf"}, "d", "64"),
        ({"d": "0"}, "d", "1"),
        ({"d": "-64"}, "d", "1"),
        ({"d": "99999999"}, "d", "8192"),
        ({"d": "abc"}, "d", "64"),
        ({"d": ""}, "d", "64"),
        ({"seed": "1e400"}, "seed", "0"),
        ({"seed": "-1"}, "seed", "0"),
        ({"row": "-1"}, "row", "0"),
        ({"mask": "bogus"}, "mask", "none"),
        ({"lang": "fr"}, "lang", "zh"),
        ({"special": "perhaps"}, "special", "true"),
        ({"scale": "nan"}, "scale", "true"),
        ({"d": ["1", "1e400"]}, "d", "64"),
    ],
)
def test_bad_url_values_never_crash_and_are_noted(query, key, used):
    """Every bad value is replaced by a sane one with a note that names the key and the value
    used instead; never an exception, never NaN."""
    at = open_page(**query)
    assert "weights_heatmap" in chart_keys(at)
    assert noted(at, key, used), notes(at)
    assert not np.isnan(heatmap_z(at)).any()


def test_a_row_past_the_sentence_is_clamped_with_a_caption():
    """row=999 in a 9-token sentence selects the last row, and a caption says so."""
    at = open_page(row="999", lang="en")
    assert at.selectbox(key="lab_row").value == 8
    assert any("8" in caption.value and "9" in caption.value for caption in at.caption)


def test_huge_d_from_the_url_is_clamped():
    """?d=99999999 becomes 8192 (the maximum) and the URL is corrected."""
    at = open_page(d="99999999")
    assert at.number_input(key="lab_d").value == 8192
    assert at.query_params["d"] == "8192"


PAYLOAD = "![x](http://e.com/x.png)<script>alert(1)</script>:red[x]$x$**b**"


def test_user_text_is_never_rendered_as_markdown_or_html():
    """Markdown, HTML, directives and LaTeX in the sentence appear literally, never rendered."""
    at = open_page(text=PAYLOAD, row="3")
    for text in markdown_texts(at):
        for piece in ["![x]", "<script", ":red[", "$x$", "**b**"]:
            assert piece not in text, (piece, text)
    html_bodies = [element.value for element in at.get("html")]
    assert any("&lt;" in body for body in html_bodies)
    assert not any("<script" in body for body in html_bodies)


def test_plotly_labels_are_escaped():
    """Tick labels and hovers escape <, > and &: Plotly treats labels as HTML."""
    at = open_page(text="<b>&")
    assert ticks(at, "weights_heatmap")[1:4] == ["&lt;", "b", "&gt;"]
    for key in chart_keys(at):
        spec = str(figure(at, key))
        assert "<b>" not in spec.replace("<br>", ""), key


# --- heads, source, temperature -------------------------------------------------------------


def heatmaps(at, key):
    return [decode(tr["z"]) for tr in figure(at, key)["data"] if tr["type"] == "heatmap"]


def test_heads_from_the_url_show_the_chosen_head_and_a_grid_of_all():
    """d=768, heads=12, head=5: the large views are head 5; heads_grid has 12 heatmaps."""
    at = open_page(d="768", heads="12", head="5", row="3")
    expected = run_lab("我喜欢人工智能", d=768, heads=12, head=5)
    assert_array_equal(heatmap_z(at), expected.per_head[5].weights)
    assert_array_equal(bar_values(at), expected.per_head[5].weights[3])
    grid = heatmaps(at, "heads_grid")
    assert len(grid) == 12
    for shown, steps in zip(grid, expected.per_head, strict=True):
        np.testing.assert_allclose(shown, steps.weights, atol=1e-7)  # float32 for display
    assert_array_equal(heatmaps(at, "heads_average")[0], expected.mean_weights)


def test_one_head_has_no_grid():
    """With one head there is nothing to compare: no heads grid."""
    assert "heads_grid" not in chart_keys(open_page())


def show_model(at):
    """The model's settings (heads, source, temperature) sit in the bar's popover: AppTest sees
    its widgets without opening it."""
    return at


def test_heads_preset_sets_d_and_heads():
    """The '1,536 × 16' preset gives 16 heads of 96."""
    at = show_model(open_page())
    at.button(key="lab_heads_preset_1536").click().run()
    assert at.query_params["d"] == "1536" and at.query_params["heads"] == "16"
    assert len(heatmaps(at, "heads_grid")) == 16


@pytest.mark.parametrize(("sent", "kept"), [("3 · 欢", 3), ("12 · 能", 12), ("· x", 0)])
def test_a_row_label_sent_back_as_text_keeps_its_number(sent, kept):
    """A run of the lab's view alone can get the row box's old label back as text: the typed
    settings read its number."""
    from ui.lab.settings import LabParams

    values = {LabParams.widget_key(name): value for name, value in asdict(LabParams()).items()}
    values[LabParams.widget_key("row")] = sent
    assert LabParams.from_state(values).row == kept


@pytest.mark.parametrize(
    ("sent", "n", "expected"),
    [(99, 4, (3, True)), (1, 4, (1, False)), ("3 · 欢", 9, (3, False)), ("12 · 能", 9, (8, True))],
)
def test_the_selected_row_is_a_number_inside_the_matrix(sent, n, expected):
    """Either run, the page's or the stage view's alone, gets the row through ``selected_row``:
    a row past the sentence is moved to its last row (and says so), an old label sent back as
    text keeps its number, and the box is given the row it shows."""

    def app(sent, n):
        import streamlit as st

        from ui.kit import state
        from ui.lab.body import selected_row
        from ui.lab.settings import LabParams

        state.put(LabParams())
        st.session_state["lab_row"] = sent
        st.write(repr((selected_row(n), st.session_state["lab_row"])))

    at = AppTest.from_function(app, args=(sent, n)).run()
    assert not at.exception and at.markdown[0].value == repr((expected, expected[0]))


def test_changing_d_resets_heads_that_no_longer_divide_it():
    """12 heads at d = 768, then d = 100: 12 does not divide 100, so 1 head, with a caption
    that says so once (not the note for a value carried from another page)."""
    at = open_page(d="768", heads="12", head="3", lang="en")
    at.number_input(key="lab_d").set_value(100).run()
    assert at.selectbox(key="lab_heads").value == 1 and at.selectbox(key="lab_head").value == 0
    assert "heads_grid" not in chart_keys(at)
    said = "12 heads do not divide d = 100, so 1 head is used."
    assert markdown_texts(at).count(said) == 1
    assert not any("another page" in text for text in markdown_texts(at))
    at.toggle(key="lab_scale").set_value(False).run()
    assert said not in markdown_texts(at)


def test_a_d_preset_resets_heads_that_no_longer_divide_it():
    """12 heads at d = 768, then the 64 preset: 1 head, and the caption."""
    at = open_page(d="768", heads="12", lang="en")
    at.button_group(key="lab_d_preset").set_value(64).run()
    assert at.query_params["d"] == "64" and at.selectbox(key="lab_heads").value == 1
    assert "12 heads do not divide d = 64, so 1 head is used." in markdown_texts(at)


def test_embedding_source_without_positions_makes_the_two_wo_identical():
    """source=embedding, position=false: 我爱我家's two 我 attend alike, and the page says so."""
    at = open_page(text="我爱我家", source="embedding", position="false", lang="en")
    weights = heatmap_z(at)
    assert_array_equal(weights[1], weights[3])
    assert any("identical" in body for body in (e.value for e in at.get("html")))
    assert "projection_w_q" not in chart_keys(at)  # on request only: seven charts
    at.toggle(key="lab_show_projection").set_value(True).run()
    assert "projection_w_q" in chart_keys(at)


def test_embedding_source_with_positions_tells_them_apart():
    """With positions the two 我 rows differ."""
    at = open_page(text="我爱我家", source="embedding", position="true", lang="en")
    weights = heatmap_z(at)
    assert not np.allclose(weights[1], weights[3])
    assert_array_equal(
        weights, run_lab("我爱我家", source="embedding", position=True).steps.weights
    )


def test_temperature_from_the_url_and_the_widget():
    """temperature=0.5 sharpens exactly as the core says; the widget changes it too."""
    at = open_page(temperature="0.5")
    assert_array_equal(heatmap_z(at), run_lab("我喜欢人工智能", temperature=0.5).steps.weights)
    at = show_model(at)  # open already: the link set the temperature
    at.number_input(key="lab_temperature").set_value(4.0).run()
    assert_array_equal(heatmap_z(at), run_lab("我喜欢人工智能", temperature=4.0).steps.weights)
    assert at.query_params["temperature"] == "4"


def test_source_widget_switches_to_embeddings():
    """Choosing embeddings in the sidebar changes the numbers to the embedding source's."""
    at = show_model(open_page())
    at.radio(key="lab_source").set_value("embedding").run()
    assert_array_equal(heatmap_z(at), run_lab("我喜欢人工智能", source="embedding").steps.weights)
    assert at.query_params["source"] == "embedding"


@pytest.mark.parametrize(
    ("query", "key", "used"),
    [
        ({"heads": "5"}, "heads", "1"),
        ({"heads": "0"}, "heads", "1"),
        ({"heads": "1e400"}, "heads", "1"),
        ({"heads": "65", "d": "8192"}, "heads", "64"),
        ({"head": "99"}, "head", "0"),
        ({"head": "-1"}, "head", "0"),
        ({"source": "glove"}, "source", "random"),
        ({"position": "maybe"}, "position", "true"),
        ({"temperature": "0"}, "temperature", "0.05"),
        ({"temperature": "100"}, "temperature", "20"),
        ({"temperature": "nan"}, "temperature", "1"),
        ({"temperature": "-1"}, "temperature", "0.05"),
    ],
)
def test_bad_head_source_and_temperature_values_are_noted(query, key, used):
    """Every bad new key is replaced with a sane value and a note naming key and value."""
    at = open_page(**query)
    assert noted(at, key, used), notes(at)
    assert "weights_heatmap" in chart_keys(at)


def shown_texts(at):
    """Every text of the page: Markdown, captions, LaTeX and what st.html writes."""
    return markdown_texts(at) + [element.proto.body for element in at.get("html")]


def test_random_vectors_are_said_to_differ_from_the_articles_example():
    """With random Q, K, V the lab says its weights are not the article's worked 喜 row."""
    random = " ".join(shown_texts(open_page(lang="en")))
    assert "differ from the article's worked 喜 row" in random
    embedding = " ".join(shown_texts(open_page(lang="en", source="embedding")))
    assert "differ from the article's worked 喜 row" not in embedding


@pytest.mark.parametrize("mask", ["causal", "padding"])
def test_a_mask_says_the_rest_is_renormalised_and_shows_the_row_sums(mask):
    """Under the mask step: masked cells drop out, the rest are renormalised to sum to 1, with
    the largest |Σ − 1| of the rows computed here."""
    at = open_page(lang="en", mask=mask, stage="masked")
    weights = heatmap_z(open_page(mask=mask))
    attending = weights.sum(axis=1)[weights.sum(axis=1) > 0]
    error = float(np.abs(attending - 1).max())
    text = " ".join(shown_texts(at))
    assert "renormalised, so each row still sums to 1" in text
    mantissa, exponent = f"{error:.1e}".split("e")
    sup = str(int(exponent)).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))
    assert f"max |Σ − 1| = {'0' if error == 0 else f'{mantissa} × 10{sup}'}" in text
    assert "renormalised" not in " ".join(shown_texts(open_page(lang="en", stage="masked")))


def test_embeddings_without_positions_say_why_equal_characters_attend_alike():
    """source=embedding, position=false: the page explains the identical rows on the page."""
    at = open_page(lang="en", text="我爱我家", source="embedding", position="false")
    text = " ".join(shown_texts(at))
    assert "the same row of X → the same q, k and v" in text
    other = " ".join(shown_texts(open_page(lang="en", text="我爱我家", source="embedding")))
    assert "the same row of X" not in other


# --- one stage at a time (the stage picker) --------------------------------------------------


def heatmaps_of(at, key):
    """The z of every heatmap trace of a chart, in order."""
    return [decode(tr["z"]) for tr in figure(at, key)["data"] if tr["type"] == "heatmap"]


@pytest.mark.parametrize("stage", STAGES)
def test_each_stage_is_one_large_heatmap_of_its_matrix(stage):
    """?stage=<id>: one heatmap keyed <id>_heatmap whose z is that matrix of the computation,
    recomputed here from Q and K (masked cells as gaps); the row panel beside it."""
    at = open_page(stage=stage, mask="causal", d="96")
    tokens = ["[CLS]", *"我喜欢人工智能", "[SEP]"]
    q, k, _ = make_qkv(tokens, d=96, seed=0)
    scores = q @ k.T
    scaled = scores / math.sqrt(96)
    future = np.triu(np.ones((9, 9), dtype=bool), k=1)
    masked = np.where(future, np.nan, scaled)
    e = np.exp(np.where(future, -np.inf, scaled) - scaled.max(axis=1, keepdims=True))
    expected = {
        "scores": scores,
        "scaled": scaled,
        "masked": masked,
        "weights": e / e.sum(1)[:, None],
    }
    assert chart_keys(at) == [f"{stage}_heatmap", "row_bars"]
    assert_allclose(heatmaps_of(at, f"{stage}_heatmap")[0], expected[stage], rtol=1e-12, atol=1e-15)


def test_the_output_stage_shows_what_each_key_adds_to_the_selected_row():
    """?stage=output&row=3: output_heatmap's rows are A[3, j] · v_j over the first 8 dimensions,
    computed here, and under them their sum, the output row, outlined."""
    at = open_page(stage="output", row="3")
    tokens = ["[CLS]", *"我喜欢人工智能", "[SEP]"]
    q, k, v = make_qkv(tokens, d=64, seed=0)
    scores = q[3] @ k.T / 8
    weights = np.exp(scores - scores.max()) / np.exp(scores - scores.max()).sum()
    (rows,) = heatmaps_of(at, "output_heatmap")
    assert_allclose(rows[:-1], weights[:, None] * v[:, :8], rtol=1e-12, atol=1e-15)
    assert_allclose(rows[-1], weights @ v[:, :8], rtol=1e-12, atol=1e-15)
    (outline,) = figure(at, "output_heatmap")["layout"]["shapes"]
    assert (outline["y0"], outline["y1"]) == (len(tokens) - 0.5, len(tokens) + 0.5)


def test_all_stages_are_small_multiples_in_one_figure():
    """?stage=all: one chart, stages_overview, with the four matrices as four heatmap traces."""
    at = open_page(stage="all")
    assert chart_keys(at) == ["stages_overview", "row_bars"]
    result = run_lab("我喜欢人工智能")
    overview = heatmaps_of(at, "stages_overview")
    assert len(overview) == 4
    assert_allclose(overview[0], result.steps.scores, rtol=1e-6)  # float32 for display
    assert_allclose(overview[3], result.steps.weights, rtol=1e-6, atol=1e-7)


def test_the_stage_picker_switches_the_stage_and_the_link():
    """Picking a stage draws that stage only and writes its id (not its label) into the URL."""
    at = open_page(lang="zh")
    at.button_group(key="lab_stage").set_value("scaled").run()
    assert chart_keys(at) == ["scaled_heatmap", "row_bars"]
    assert at.query_params["stage"] == "scaled"


@pytest.mark.parametrize("raw", ["bogus", "", "权重", "<b>all</b>"])
def test_a_bad_stage_in_a_link_is_noted(raw):
    """A stage that is not an id: the default stage (weights), with a note naming the key."""
    at = open_page(stage=raw)
    assert noted(at, "stage", "weights")
    assert chart_keys(at) == ["weights_heatmap", "row_bars"]


def test_heads_still_draw_the_grid_and_the_average():
    """With heads > 1 the lab still draws heads_grid (one trace per head) and heads_average."""
    at = open_page(d="768", heads="12")
    assert {"weights_heatmap", "row_bars", "heads_grid", "heads_average"} <= set(chart_keys(at))


@pytest.mark.parametrize(
    ("temperature", "scale", "heads", "mask"),
    [(1.0, True, 1, "none"), (2.5, True, 1, "none"), (1.0, False, 2, "causal")],
)
def test_the_row_panel_gives_the_spread_max_weight_entropy_and_gradient_scaled_and_unscaled(
    temperature, scale, heads, mask
):
    """Beside the heatmap: the spread of all the scores softmax gets (next to what it should
    be), then the selected row's largest weight, entropy and ‖∂p/∂x‖, the scaled column first
    whichever way the switch is, recomputed here for the head shown (head 0: Q's and K's first
    d/heads columns); at d = 6144 the unscaled row is one-hot and the page says so."""
    query = {"temperature": str(temperature), "scale": str(scale).lower(), "heads": str(heads)}
    at = open_page(lang="en", d="6144", row="2", mask=mask, **query)
    tokens = ["[CLS]", *"我喜欢人工智能", "[SEP]"]
    q, k, _ = make_qkv(tokens, d=6144, seed=0)
    d_k = 6144 // heads
    raw = q[:, :d_k] @ k[:, :d_k].T
    keys = 3 if mask == "causal" else len(tokens)  # row 2 sees keys 0, 1, 2 under the mask
    table = next(m.value for m in at.markdown if "largest weight" in m.value)
    lines = table.splitlines()[2:]  # after head and rule
    root = "√d" if heads == 1 else "√d_k"
    expected_spread = {
        1.0: ["1", f"{root} = {math.sqrt(d_k):.2f}"],
        2.5: ["1/T = 0.4", f"{root}/T = {math.sqrt(d_k) / 2.5:.2f}"],
    }[temperature]
    assert lines[0].split("|")[1].strip() == "std of all the scores"
    said = "expected" if temperature == 1 else "expected (T = 2.5)"
    assert lines[1].split("|")[1].strip() == said
    assert [cell.strip() for cell in lines.pop(1).split("|")[2:4]] == expected_spread
    cells = [line.split("|")[2:4] for line in lines]
    for column, divisor in [(0, math.sqrt(d_k) * temperature), (1, temperature)]:
        scores = raw / divisor
        query_row = scores[2, :keys]
        e = np.exp(query_row - query_row.max())
        p = e / e.sum()
        jacobian = np.diag(p) - np.outer(p, p)
        entropy = -(p[p > 0] * np.log(p[p > 0])).sum()
        expected = [f"{scores.std():.3f}", f"{p.max():.3f}", f"{entropy:.3f}"]
        expected.append(f"{np.linalg.norm(jacobian):.3f}")
        assert [row[column].strip() for row in cells] == expected
    assert any("nearly one-hot" in text for text in shown_texts(at))


def test_a_shared_heatmap_follows_the_language_and_presenter_mode():
    """The lab's figures are shared between sessions by their arguments: a session in English
    after one in Chinese, or on a projector after one without, gets a figure of its own."""
    from ui.kit import cache

    cache.clear_all()
    zh = figure(open_page(lang="zh"), "weights_heatmap")
    en = figure(open_page(lang="en"), "weights_heatmap")
    large = figure(open_page(lang="en", present="true"), "weights_heatmap")
    assert zh["layout"]["xaxis"]["title"]["text"] == "键（K 的行）"
    assert en["layout"]["xaxis"]["title"]["text"] == "key (rows of K)"
    assert (en["data"][0]["textfont"]["size"], large["data"][0]["textfont"]["size"]) == (13, 14)


def test_a_new_heatmap_is_given_time_to_draw_before_the_row_bars(draw_waits):
    """The lab waits (notes.let_draw) once after a stage heatmap it has not sent before, so the
    browser draws it before the row's bars beside it arrive; the same heatmap again does not."""
    waits = draw_waits
    at = open_app(lang="en")
    assert len(waits) == 1
    at.run()
    assert len(waits) == 1
    at.text_input(key="lab_text").set_value("我爱北京").run()
    assert len(waits) == 2
    assert not at.exception


def test_the_overview_s_panels_say_the_range_their_colours_span():
    """Each of the four panels has its own colours: its title gives its smallest and largest
    finite value, numpy's of that stage (the raw scores at d = 1,536 reach about ±100)."""
    at = open_page(lang="en", stage="all", d="1536", scale="false", mask="causal")
    titles = [note["text"] for note in figure(at, "stages_overview")["layout"]["annotations"]]
    steps = run_lab("我喜欢人工智能", d=1536, scale=False, mask="causal").steps
    scores = steps.q @ steps.k.T
    causal = np.tril(np.ones_like(scores, dtype=bool))
    weights = np.where(causal, np.exp(scores - scores.max(axis=1, keepdims=True)), 0.0)
    weights /= weights.sum(axis=1, keepdims=True)
    expected = [scores, scores, scores[causal], weights]
    for title, matrix in zip(titles, expected, strict=True):
        low, high = (f"{v:.3g}".replace("-", "\u2212") for v in (matrix.min(), matrix.max()))
        assert title.endswith(f"<br>{low} … {high}"), title
    assert abs(scores).max() > 50
