"""The lab on a trained head (source=trained): every stage, the row panel and the downloads are
that head's real Q, K, V on the user's sentence, recomputed here from the model's own run."""

import io
import math
import zipfile

import numpy as np
import pytest
from conftest import APP, chart_keys, decode, figure, markdown_texts
from numpy.testing import assert_allclose
from streamlit.testing.v1 import AppTest

from ui.lab.body import everything_zip, one_csv
from ui.lab.settings import LabParams
from viz_core import run_model

TEXT = "我喜欢人工智能"


def open_page(**query):
    at = AppTest.from_file(APP, default_timeout=60)
    for key, value in {"lang": "en", "source": "trained", **query}.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def z(at, key):
    return [decode(trace["z"]) for trace in figure(at, key)["data"] if trace["type"] == "heatmap"]


def expected(layer, head, scale=True, temperature=1.0, text=TEXT):
    """Scores, scaled, weights of the model's head, from its q and k, by plain numpy."""
    steps = run_model(text).layers[layer][head]
    scores = steps.q @ steps.k.T
    scaled = scores / ((math.sqrt(steps.q.shape[1]) if scale else 1.0) * temperature)
    e = np.exp(scaled - scaled.max(axis=1, keepdims=True))
    return steps, {"scores": scores, "scaled": scaled, "weights": e / e.sum(1)[:, None]}


@pytest.mark.parametrize("stage", ["scores", "scaled", "weights"])
@pytest.mark.parametrize(("layer", "head"), [(0, 0), (1, 3)])
def test_every_stage_is_the_trained_head_s(stage, layer, head):
    """?source=trained&layer=L&head=H: each stage's heatmap is that head's matrix."""
    at = open_page(layer=str(layer), head=str(head), stage=stage)
    _, matrices = expected(layer, head)
    assert_allclose(z(at, f"{stage}_heatmap")[0], matrices[stage], rtol=1e-9, atol=1e-12)


def test_the_trained_first_layer_head_3_attends_to_the_next_character():
    """What the model learned is visible: head 3 of layer 1 put its weight on the next character
    in the held-out report (mlm_heads.json); on the default sentence 喜's row peaks at 欢."""
    at = open_page(layer="0", head="2", row="2")
    weights = z(at, "weights_heatmap")[0]
    assert weights[2].argmax() == 3  # 喜 → 欢


def test_scaling_off_shows_the_same_q_and_k_unscaled_and_temperature_divides():
    at = open_page(layer="1", head="1", scale="false", temperature="2", stage="scaled")
    _, matrices = expected(1, 1, scale=False, temperature=2.0)
    assert_allclose(z(at, "scaled_heatmap")[0], matrices["scaled"], rtol=1e-9, atol=1e-12)
    bars = figure(at, "row_bars")["data"]
    assert_allclose(decode(bars[0]["y"]) if "y" in bars[0] else decode(bars[0]["x"]),
                    matrices["weights"][2], rtol=1e-6, atol=1e-9)  # fmt: skip


def test_d_is_the_model_s_d_k_and_not_offered():
    """No d box with a trained head: a badge names d_k = 64; the heads grid shows the layer's 4."""
    at = open_page()
    assert not [w for w in at.number_input if w.key == "d"]
    assert len(z(at, "heads_grid")) == 4
    assert any("d_k = 64 (the trained model's: fixed)" in text for text in markdown_texts(at))


def test_a_causal_mask_hides_the_future_of_the_trained_head():
    at = open_page(mask="causal", stage="weights")
    weights = z(at, "weights_heatmap")[0]
    assert np.allclose(np.triu(np.nan_to_num(weights), k=1), 0)
    assert_allclose(np.nansum(weights, axis=1), 1, atol=1e-9)


def test_downloads_hold_the_trained_head_s_q_k_v():
    params = LabParams(source="trained", layer=1, head=2)
    steps, _ = expected(1, 2)
    rows = one_csv(params, "q").strip().splitlines()
    first = [float(x) for x in rows[1].split(",")[1:]]
    assert_allclose(first, steps.q[0], rtol=1e-6)
    with zipfile.ZipFile(io.BytesIO(everything_zip(params, {"source": "trained"}))) as archive:
        assert any(name.startswith("k") for name in archive.namelist())


@pytest.mark.parametrize(
    ("query", "key", "used"),
    [({"layer": "7"}, "layer", "1"), ({"head": "9"}, "head", "3"), ({"layer": "-1"}, "layer", "0")],
)
def test_a_layer_or_head_outside_the_model_is_noted(query, key, used):
    """The nearest layer or head the model has, with a note naming the key."""
    at = open_page(**query)
    assert "weights_heatmap" in chart_keys(at)
    assert any(f"`{key}`" in box.value and f"using {used} instead" in box.value for box in at.info)


@pytest.mark.parametrize("text", ["😀 hello 😀", "abc", "我喜欢🍎", "<b>x</b>"])
def test_characters_the_model_never_saw_run_as_unk_with_a_note(text):
    at = open_page(text=text)
    assert "weights_heatmap" in chart_keys(at)
    assert not np.isnan(np.nan_to_num(z(at, "weights_heatmap")[0], nan=0.0)).any()
    shown = " ".join(e.proto.body for e in at.get("html"))
    assert "never saw" in shown or "weights_heatmap" in chart_keys(at)


def test_a_row_one_hot_both_scaled_and_unscaled_is_said_to_be_so():
    """A trained head's row can be one-hot with ÷√d_k and without: the row panel says so, not
    that the unscaled gradient "is only 0.000" against a scaled one just as small. Each such row
    is found here by plain numpy on the model's own q and k."""
    shown = 0
    for layer, head in [(1, 1), (1, 3)]:
        _, found = expected(layer, head)
        unscaled = expected(layer, head, scale=False)[1]["weights"].max(axis=1)
        rows = np.flatnonzero((found["weights"].max(axis=1) > 0.9) & (unscaled > 0.9))
        row = int(rows[0])
        at = open_page(layer=str(layer), head=str(head), row=str(row), stage="weights")
        texts = " ".join(markdown_texts(at) + [e.proto.body for e in at.get("html")])
        assert "nearly one-hot both scaled and unscaled" in texts, (layer, head, row)
        assert "hardly moves its weights" not in texts
        shown += 1
    assert shown == 2
