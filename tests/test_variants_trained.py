"""/variants' cross-attention on the trained translator: the heatmap is the decoder's attention
over the English words, teacher-forced on the lab's sentence, and what the page says is read
from those weights."""

import numpy as np
import pytest
from conftest import chart_keys, decode, figure, open_app
from numpy.testing import assert_allclose

from viz_core.translator import align, translate

ENGLISH, CHINESE = "I like artificial intelligence.", "我喜欢人工智能"


def weights(at, key="cross_heatmap"):
    (trace,) = [tr for tr in figure(at, key)["data"] if tr["type"] == "heatmap"]
    return decode(trace["z"])


def shown(at):
    return " ".join(element.proto.body for element in at.get("html"))


@pytest.mark.parametrize(("layer", "head"), [("1", "mean"), ("0", "2"), ("1", "0")])
def test_the_heatmap_is_the_chosen_layer_and_head_of_the_translator(layer, head):
    at = open_app("variants", lang="en", variant="cross", cross_layer=layer, cross_head=head)
    run = align(ENGLISH, CHINESE)
    heads = np.array(run.cross[int(layer)])  # (heads, T, S)
    expected = heads.mean(axis=0) if head == "mean" else heads[int(head)]
    assert_allclose(weights(at), expected, rtol=1e-9, atol=1e-12)
    layout = figure(at, "cross_heatmap")["layout"]
    # A short key label is drawn upright above its column (an annotation), a long one turned.
    axis = layout["xaxis"]
    labels = {at: text for at, text in zip(axis["tickvals"], axis["ticktext"], strict=True) if text}
    upright = layout.get("annotations", [])
    labels |= {note["x"]: note["text"] for note in upright if note.get("yref") == "y domain"}
    words = [labels[at] for at in sorted(labels)]
    assert words == ["i", "like", "artificial", "intelligence", ".", "[EOS]"]
    assert_allclose(weights(at).sum(axis=1), 1, atol=1e-6)


def test_the_page_names_each_character_s_strongest_word_from_the_weights():
    at = open_app("variants", lang="en", variant="cross")
    run = align(ENGLISH, CHINESE)
    mean = np.mean(run.cross[1], axis=0)
    text = shown(at)
    for i, character in enumerate(run.target_tokens):
        j = int(mean[i].argmax())
        assert f"{character} ← {run.source_tokens[j]} ({mean[i, j]:.2f})" in text
    assert "喜欢 ← like" in text  # two characters from one word, found in the weights
    assert "translates only short, common sentences" in " ".join(c.value for c in at.caption)
    assert "no causal mask" in text.lower() or "no causal mask" in " ".join(
        c.value for c in at.caption
    )


def test_translate_it_steps_through_the_model_s_own_translation():
    at = open_app("variants", lang="en", variant="cross")
    assert "translation_steps" not in chart_keys(at)
    at.button(key="variants_translate_next").click().run()
    at.button(key="variants_translate_next").click().run()
    own = translate(ENGLISH)
    assert_allclose(
        weights(at, "translation_steps"), np.mean(own.cross[1], axis=0)[:2], rtol=1e-9, atol=1e-12
    )
    assert f"step 2 of {len(own.target_tokens)}): {own.text[:2]}" in shown(at)
    at.button(key="variants_translate_all").click().run()
    assert weights(at, "translation_steps").shape[0] == len(own.target_tokens)
    assert own.text in shown(at) and "differs" in shown(at)  # 我喜欢人。 is not 我喜欢人工智能


@pytest.mark.parametrize(
    ("query", "key", "used"),
    [({"cross_layer": "9"}, "cross_layer", "1"), ({"cross_head": "7"}, "cross_head", "mean"),
     ({"cross_source": "magic"}, "cross_source", "trained")],
)  # fmt: skip
def test_bad_cross_settings_are_noted(query, key, used):
    at = open_app("variants", lang="en", variant="cross", **query)
    assert "cross_heatmap" in chart_keys(at)
    notes = [box.value for box in at.info]
    assert any(f"`{key}`" in note and f"using {used} instead" in note for note in notes), notes


@pytest.mark.parametrize("english", ["😀😀", "我喜欢你", "<b>x</b> **y**", "word " * 300])
def test_odd_english_never_breaks_the_page(english):
    at = open_app("variants", lang="en", variant="cross", text_b=english)
    assert not at.exception
    assert "<b>" not in shown(at).replace("&lt;b&gt;", "")
    assert "cross_heatmap" in chart_keys(at)
