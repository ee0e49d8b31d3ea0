"""The lab's compare mode under AppTest: ?compare=true shows the lab's
settings (A) beside B (b_ keys over A's), one stage and one row for both, the row's weights from
both, and B − A when the tokens are the same. Expected matrices are numpy's, from the Q and K the
app's core draws."""

import math

import numpy as np
import pytest
from conftest import chart_keys, decode, figure, markdown_texts, open_app
from numpy.testing import assert_allclose
from test_budgets import FIGURES_KB, HEAVIEST_LAB, figure_bytes

from ui.kit.pages import page_named, url_keys
from viz_core import make_qkv, run_lab

TEXT = "我喜欢人工智能"


def z(at, key):
    (trace,) = [tr for tr in figure(at, key)["data"] if tr["type"] == "heatmap"]
    return decode(trace["z"])


def numpy_weights(text, d, scale):
    """Softmax of QKᵀ (÷√d when ``scale``) by numpy, from the app's seeded Q and K."""
    tokens = ["[CLS]", *text, "[SEP]"]
    q, k, _ = make_qkv(tokens, d)  # the core's seeded draw: the steps after it are numpy's
    scores = q @ k.T / (math.sqrt(d) if scale else 1.0)
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    return weights / weights.sum(axis=1, keepdims=True)


def test_without_compare_the_lab_is_as_it_was():
    at = open_app(lang="en", b_d="6144")
    assert chart_keys(at) == ["weights_heatmap", "row_bars"]
    assert not any(key.startswith("b_") for key in at.query_params)


def test_compare_shows_a_beside_b_with_b_s_own_settings():
    """Scaled at d = 64 beside unscaled at d = 6,144: both heatmaps are numpy's softmax of their
    own QKᵀ, the row's bars hold both rows, and the link keeps B's keys."""
    at = open_app(lang="en", compare="true", b_d="6144", b_scale="false")
    assert chart_keys(at)[:3] == ["compare_heatmap", "compare_heatmap_b", "compare_bars"]
    assert_allclose(z(at, "compare_heatmap"), numpy_weights(TEXT, 64, True), atol=1e-9)
    b = numpy_weights(TEXT, 6144, False)
    assert_allclose(z(at, "compare_heatmap_b"), b, atol=1e-9)
    bars = figure(at, "compare_bars")["data"]
    assert_allclose(decode(bars[1]["y"]), b[2], atol=1e-9)  # row 2 (喜), A's row, shared
    assert at.query_params["b_d"] == "6144" and at.query_params["b_scale"] == "false"
    assert "b_text" not in at.query_params and "b_row" not in at.query_params
    assert any("d = 6,144 · unscaled" in text for text in html_texts(at))


def html_texts(at):
    return [element.proto.body for element in at.get("html")]


def test_a_key_b_does_not_set_is_a_s():
    """A's d is 96 and B only switches ÷√d off: B computes at d = 96."""
    at = open_app(lang="en", compare="true", d="96", b_scale="false")
    assert_allclose(z(at, "compare_heatmap_b"), numpy_weights(TEXT, 96, False), atol=1e-9)
    assert "b_d" not in at.query_params


def open_b(at):
    """The teacher opens B's settings: their widgets are built while they are open, and a change
    of B closes them."""
    at.session_state["_lab_b_open"] = True
    return at.run()


def test_b_s_widgets_change_b_alone_and_the_shared_stage_moves_both():
    at = open_app(lang="en", compare="true")
    open_b(at).number_input(key="lab_b_d").set_value(1536).run()
    open_b(at).toggle(key="lab_b_scale").set_value(False).run()
    assert at.query_params["b_d"] == "1536" and at.query_params["d"] == "64"
    at.segmented_control(key="lab_stage").set_value("scores").run()
    steps_a, steps_b = (
        run_lab("我喜欢人工智能", d=64).steps,
        run_lab("我喜欢人工智能", d=1536).steps,
    )
    assert_allclose(z(at, "compare_heatmap"), steps_a.q @ steps_a.k.T, atol=1e-9)
    assert_allclose(z(at, "compare_heatmap_b"), steps_b.q @ steps_b.k.T, atol=1e-9)


def test_the_difference_is_b_minus_a_cell_by_cell():
    at = open_app(lang="en", compare="true", b_d="6144", b_scale="false")
    at.toggle(key="lab_compare_difference").set_value(True).run()
    expected = numpy_weights(TEXT, 6144, False) - numpy_weights("我喜欢人工智能", 64, True)
    assert_allclose(z(at, "compare_difference"), expected, atol=1e-9)
    largest = f"{np.abs(expected).max():.3g}"
    assert any(largest in text for text in markdown_texts(at))


def test_different_tokens_say_why_there_is_no_difference():
    at = open_app(lang="en", compare="true", b_text="我爱我家")
    at.toggle(key="lab_compare_difference").set_value(True).run()
    assert "compare_difference" not in chart_keys(at) and "compare_bars" not in chart_keys(at)
    said = " ".join(markdown_texts(at))
    assert "9 against 6" in said and "different tokens" in said
    assert not at.exception


def test_the_lab_declares_b_s_keys_for_every_sweep():
    """B's keys are the computing keys prefixed b_, never the shared row or stage."""
    keys = url_keys(page_named("lab"))
    b_keys = {key for key in keys if key.startswith("b_")}
    assert {"b_d", "b_scale", "b_text", "b_source", "b_mask"} <= b_keys
    assert not {"b_row", "b_stage", "b_compare"} & b_keys


@pytest.mark.parametrize("bad", ["-5", "nan", "1e99", "abc", "64.5"])
def test_a_bad_b_value_gets_a_note_and_the_page_works(bad):
    at = open_app(lang="en", compare="true", b_d=bad)
    assert "compare_heatmap_b" in chart_keys(at)
    assert any("b_d" in text for text in markdown_texts(at))


def test_heaviest_compare_link_stays_within_the_figure_budget():
    """A and B both at the heaviest setting a link allows, B unscaled, the difference shown."""
    query = {key: str(value).lower() for key, value in HEAVIEST_LAB.items()}
    b = {f"b_{key}": value for key, value in query.items()} | {"b_scale": "false"}
    at = open_app(compare="true", **query, **b)
    at.toggle(key="lab_compare_difference").set_value(True).run()
    assert not at.exception
    assert figure_bytes(at) < FIGURES_KB * 1000, figure_bytes(at)
