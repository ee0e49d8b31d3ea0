"""The /variants page under AppTest: GQA, a sliding window, RoPE and cross-attention.

Expected values are computed here with plain numpy from make_qkv, tokenize and a softmax,
never with the page's own functions.
"""

import html
import math
import tracemalloc

import numpy as np
import pytest
from conftest import FUZZ, chart_keys, decode, figure, open_app
from numpy.testing import assert_allclose

from viz_core import make_qkv, tokenize

MB = 1 << 20
LONG_TEXT = "".join(chr(0x4E00 + 7 * i) for i in range(40))  # capped to 32 tokens


def plain_softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def named(at, key, name):
    (found,) = [tr for tr in figure(at, key)["data"] if tr.get("name") == name]
    return found


def html_texts(at):
    """Text written with safe_text (st.html), unescaped, without its style sheet."""
    return [html.unescape(element.proto.body.split("</style>")[-1]) for element in at.get("html")]


def notes(at):
    return [info.value for info in at.info]


def key_labels(fig):
    """The cross heatmap's key labels as drawn, left to right, each with its angle: the turned
    axis's tick text, and the labels set upright above it (annotations)."""
    axis = fig["layout"]["xaxis"]
    drawn = {
        at: (html.unescape(text), axis["tickangle"])
        for at, text in zip(axis["tickvals"], axis["ticktext"], strict=True)
        if text
    }
    for note in fig["layout"].get("annotations", []):
        if note.get("xref") == "x" and note.get("yref") == "y domain":
            assert note["x"] not in drawn  # each column labelled once
            drawn[note["x"]] = (html.unescape(note["text"]), note.get("textangle", 0))
    return [drawn[at] for at in sorted(drawn)]


# --- sections ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("variant", "key"),
    [
        ("gqa", "gqa_heads"),
        ("window", "window_heatmap"),
        ("rope", "rope_scores"),
        ("cross", "cross_heatmap"),
    ],
)
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_each_variant_draws_its_one_chart(variant, key, lang):
    """Only the open variant is drawn, under its contract key, in both languages."""
    at = open_app("variants", lang=lang, variant=variant, present="true")
    assert chart_keys(at) == [key]
    assert at.query_params["variant"] == variant


# --- GQA --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("q_heads", "kv_heads"), [(8, 2), (8, 1), (8, 8), (4, 2)])
def test_gqa_heads_of_one_group_share_k(q_heads, kv_heads):
    """Row h of the keys panel is k of the selected token (喜, row 2) in key/value head
    h // (q_heads / kv_heads): the lab's K, columns g·d_k … — equal within a group only."""
    at = open_app("variants", q_heads=str(q_heads), kv_heads=str(kv_heads))
    keys = decode(named(at, "gqa_heads", "keys")["z"])
    _, k, _ = make_qkv(tokenize("我喜欢人工智能"), 64, 0)
    d_k, group = 64 // q_heads, q_heads // kv_heads
    expected = np.array([k[2, (h // group) * d_k :][: min(8, d_k)] for h in range(q_heads)])
    assert_allclose(keys, expected)
    for h in range(1, q_heads):
        same = h // group == (h - 1) // group
        assert np.array_equal(keys[h], keys[h - 1]) == same, h


def test_gqa_weights_are_each_heads_own():
    """Right panel: head h's weights of row 2 = softmax(q_h · K_g(h)ᵀ / √d_k), by hand."""
    at = open_app("variants", q_heads="8", kv_heads="2")
    weights = decode(named(at, "gqa_heads", "weights")["z"])
    q, k, _ = make_qkv(tokenize("我喜欢人工智能"), 64, 0)
    for h in range(8):
        g = h // 4
        scores = k[:, g * 8 : g * 8 + 8] @ q[2, h * 8 : h * 8 + 8] / math.sqrt(8)
        assert_allclose(weights[h], plain_softmax(scores))


def test_gqa_cache_saving_is_computed():
    at = open_app("variants", lang="en", q_heads="16", kv_heads="4")
    text = " ".join(html_texts(at))
    assert f"2 × 4 × 4 = {2 * 4 * 4} numbers instead of 2 × 16 × 4 = {2 * 16 * 4}" in text
    assert "4 times less" in text and "(largest output difference 0)" in text


# --- sliding window ---------------------------------------------------------------------------


@pytest.mark.parametrize("window", [1, 3, 5, 9, 32])
def test_window_weights_are_zero_exactly_outside_the_window(window):
    """z of the window panel: 0.0 wherever not i − w < j ≤ i, and inside it the softmax over
    the window's keys (by hand)."""
    at = open_app("variants", variant="window", window=str(window))
    z = decode(named(at, "window_heatmap", "window")["z"])
    q, k, _ = make_qkv(tokenize("我喜欢人工智能"), 64, 0)
    i, j = np.indices((9, 9))
    inside = (j <= i) & (j > i - window)
    assert (z[~inside] == 0.0).all()
    scores = np.where(inside, q @ k.T / 8, -np.inf)
    assert_allclose(z, plain_softmax(scores), atol=1e-15)


def test_window_says_what_the_last_token_no_longer_sees():
    at = open_app("variants", lang="en", variant="window", window="3")
    text = " ".join(html_texts(at))
    assert "now sees 智 能 [SEP] and no longer sees [CLS] 我 喜 欢 人 工" in text
    assert f"the window cuts {45 - (1 + 2 + 3 * 7)}" in text  # 45 causal pairs, 24 kept


# --- RoPE -------------------------------------------------------------------------------------


def test_rope_scores_depend_on_the_distance_only():
    """The RoPE points: one value per distance, and at distance 0 the plain q·k/√d (q, k of 喜);
    the added-positions points spread at one distance."""
    at = open_app("variants", lang="en", variant="rope")
    rope = named(at, "rope_scores", "RoPE")
    absolute = named(at, "rope_scores", "positions added")
    distance, values = decode(rope["x"]), decode(rope["y"]).astype(float)
    q, k, _ = make_qkv(tokenize("我喜欢人工智能"), 64, 0)
    assert_allclose(values[distance == 0], q[2] @ k[2] / 8, rtol=1e-6)
    for delta in np.unique(distance):
        assert np.ptp(values[distance == delta]) < 1e-5  # float32 on the wire
    spread = decode(absolute["y"]).astype(float)
    assert max(np.ptp(spread[distance == delta]) for delta in np.unique(distance)) > 0.1


def test_wo_ai_wo_jia_two_wo_differ_only_with_positions():
    """Rows 0, 1 (我₁, 我₃ without positions) are equal; rows 2, 3 (with RoPE) are not."""
    at = open_app("variants", variant="rope")
    demo = decode(named(at, "rope_scores", "demo")["z"])
    assert demo.shape == (4, 6)
    assert np.array_equal(demo[0], demo[1])
    assert np.abs(demo[2] - demo[3]).max() > 0.05


def test_rope_needs_two_dimensions():
    at = open_app("variants", variant="rope", d="1")
    assert chart_keys(at) == [] and at.info


# --- cross-attention --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "query",
    [
        {"text_b": "I like AI"},
        {"text_b": "Hello, world!", "d": "16", "seed": "5", "scale": "false", "special": "false"},
        {"text": "我爱我家", "text_b": "I love my home and family", "d": "3", "seed": "2147483647"},
    ],
)
def test_cross_heatmap_is_queries_of_a_over_keys_of_b(query):
    """z = softmax(q_A k_Bᵀ / √d) with q_A from make_qkv(tokenize(text), d, seed) and k_B from
    make_qkv(tokenize(text_b), d, seed + 1): n × m, rows sum to 1."""
    at = open_app("variants", variant="cross", cross_source="random", **query)
    special = query.get("special", "true") == "true"
    d, seed = int(query.get("d", 64)), int(query.get("seed", 0))
    tokens_a = tokenize(query.get("text", "我喜欢人工智能"), special_tokens=special)
    tokens_b = tokenize(query["text_b"], special_tokens=special)
    q_a, _, _ = make_qkv(tokens_a, d, seed)
    _, k_b, _ = make_qkv(tokens_b, d, seed + 1)
    divisor = math.sqrt(d) if query.get("scale", "true") == "true" else 1.0
    (heatmap,) = [tr for tr in figure(at, "cross_heatmap")["data"] if tr["type"] == "heatmap"]
    z = decode(heatmap["z"])
    assert z.shape == (len(tokens_a), len(tokens_b))
    assert_allclose(z, plain_softmax(q_a @ k_b.T / divisor), rtol=1e-12)
    assert [text for text, _ in key_labels(figure(at, "cross_heatmap"))] == tokens_b


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("present", ["false", "true"])
def test_the_translator_s_one_character_keys_are_drawn_upright(lang, present):
    """④ on the translator reading "I like artificial intelligence.": "intelligence" is too
    wide for its cell, so the long words are turned, whole; "i" and "." are drawn upright
    (angle 0), not turned into dot-like glyphs, and every key is labelled once."""
    at = open_app("variants", lang=lang, variant="cross", present=present)
    labels = key_labels(figure(at, "cross_heatmap"))
    assert [text for text, _ in labels] == ["i", "like", "artificial", "intelligence", ".", "[EOS]"]
    angles = dict(labels)
    assert angles["i"] == 0 and angles["."] == 0
    assert angles["intelligence"] == -90


def test_cross_says_where_k_and_v_come_from():
    at = open_app("variants", lang="en", variant="cross", seed="7", cross_source="random",
                  text_b="I like AI")  # fmt: skip
    text = " ".join(html_texts(at))
    assert "second sentence's 9 tokens (seeded random vectors, seed 8)" in text and "9 × 9" in text
    assert "make_qkv" not in text  # no code names on the page


def test_an_empty_second_sentence_asks_for_one():
    for source in ("random", "trained"):
        query = {"text_b": "   ", "special": "false", "cross_source": source}
        at = open_app("variants", variant="cross", **query)
        assert chart_keys(at) == [] and at.info


# --- bad input --------------------------------------------------------------------------------

HOSTILE = ["x7#q%", "1e400", "nan", "-5", "字" * 10_000, "<script>alert(1)</script>**b**"]
IDS = ["garbage", "1e400", "nan", "-5", "long", "html"]
# What each hostile value becomes: the default, or for -5 the lowest allowed value.
USED = {
    "variant": {"-5": "gqa"},
    "q_heads": {"-5": "1"},
    "kv_heads": {"-5": "1"},
    "window": {"-5": "1"},
}
DEFAULTS = {"variant": "gqa", "q_heads": "8", "kv_heads": "2", "window": "3"}
SECTION = {"variant": "gqa", "q_heads": "gqa", "kv_heads": "gqa", "window": "window"}


@pytest.mark.parametrize("key", sorted(DEFAULTS))
@pytest.mark.parametrize("value", HOSTILE, ids=IDS)
def test_hostile_values_are_replaced_with_a_note_naming_key_and_value(key, value):
    query = {"variant": SECTION[key], key: value}
    at = open_app("variants", lang="en", **query)
    used = USED[key].get(value, DEFAULTS[key])
    assert any(f"`{key}`" in note and f"using {used} instead" in note for note in notes(at))
    assert at.query_params[key] == used


@pytest.mark.parametrize("value", HOSTILE, ids=IDS)
def test_hostile_second_sentence_is_used_as_text_or_cut_with_a_note(value):
    """text_b is free text: shown escaped; 10,000 characters are cut to 500 with a note."""
    at = open_app("variants", lang="en", variant="cross", text_b=value, cross_source="random")
    if len(value) > 500:
        assert any("`text_b`" in note and "using 500 instead" in note for note in notes(at))
        assert len(at.query_params["text_b"]) == 500
    (heatmap,) = [tr for tr in figure(at, "cross_heatmap")["data"] if tr["type"] == "heatmap"]
    layout = figure(at, "cross_heatmap")["layout"]
    drawn = layout["xaxis"]["ticktext"] + [note["text"] for note in layout.get("annotations", [])]
    assert "<" not in "".join(drawn)  # < is shown as &lt;, never drawn as a tag
    assert decode(heatmap["z"]).shape[1] == min(len(tokenize(value[:500])), 32)


@pytest.mark.parametrize(
    ("query", "key", "used"),
    [
        ({"kv_heads": "3"}, "kv_heads", "2"),  # 3 does not divide 8 query heads
        ({"q_heads": "7"}, "q_heads", "4"),  # 7 does not divide d = 64
        ({"q_heads": "12", "kv_heads": "6", "d": "96"}, None, None),  # fine: no note
        ({"q_heads": "64", "kv_heads": "64", "d": "6"}, "q_heads", "6"),
        ({"q_heads": "6", "kv_heads": "4", "d": "6"}, "kv_heads", "2"),  # the default divides
        ({"q_heads": "64", "kv_heads": "32", "d": "6"}, "kv_heads", "6"),  # after q_heads → 6
    ],
)
def test_heads_that_do_not_divide_are_replaced_with_a_note(query, key, used):
    at = open_app("variants", lang="en", **query)
    if key is None:
        assert not notes(at)
        return
    assert any(f"`{key}`" in note and f"using {used} instead" in note for note in notes(at))
    assert at.query_params[key] == used
    assert chart_keys(at) == ["gqa_heads"]


def test_hostile_lab_sentence_is_shown_as_text():
    text = "<img src=x onerror=alert(1)>**b**"
    at = open_app("variants", variant="window", text=text)
    bodies = [element.proto.body for element in at.get("html")]
    assert not any("<img" in body for body in bodies) and any("&lt;" in body for body in bodies)


# --- budgets ----------------------------------------------------------------------------------

HEAVIEST = {
    "text": LONG_TEXT,
    "text_b": LONG_TEXT[::-1] + "x" * 460,
    "d": "8192",
    "seed": "123456789",
    "q_heads": "64",
    "kv_heads": "1",
    "window": "1",
}


@pytest.mark.parametrize("variant", ["gqa", "window", "rope", "cross"])
def test_heaviest_urls_send_under_500_kb_of_figures(variant):
    """32 tokens, d = 8192, 64 query heads: one rerun's figures stay under 500 kB."""
    at = open_app("variants", variant=variant, **HEAVIEST)
    assert chart_keys(at)
    sent = sum(len(chart.proto.spec) for chart in at.get("plotly_chart"))
    assert sent < 500_000, f"{sent / 1000:.0f} kB"


def test_heaviest_variants_call_stays_within_the_budgets():
    """The one core call at the heaviest setting: under 150 MB at its peak, and the result it
    keeps in the shared cache a small fraction of the cache's 8 MB."""
    from ui.kit.cache import kept_bytes
    from ui.lab.settings import LabParams
    from ui.variants.compute import _variants, compute_variants
    from ui.variants.settings import VariantsParams

    lab = LabParams(text=LONG_TEXT, special=True, d=8192, seed=123456789, scale=True, row=10**9)
    params = VariantsParams(q_heads=64, kv_heads=1, window=1, text_b=HEAVIEST["text_b"])
    tracemalloc.start()
    try:
        result = compute_variants(params, lab)
        peak = tracemalloc.get_traced_memory()[1] / MB
    finally:
        tracemalloc.stop()
    assert len(result.tokens) == 32 and result.row == 31
    assert peak < 150, f"{peak:.0f} MB"
    assert kept_bytes(result) < MB
    assert _variants.cache.total <= 8 * MB


@pytest.mark.parametrize("variant", ["gqa", "window", "rope", "cross"])
@pytest.mark.parametrize("value", list(FUZZ.values()), ids=list(FUZZ))
def test_one_hostile_value_in_every_key(variant, value):
    """The lab's keys and ours all carry the same hostile value: the page runs, and nothing
    from the link is rendered as Markdown."""
    keys = ["q_heads", "kv_heads", "window", "text_b", "text", "special", "d", "seed", "row"]
    at = open_app("variants", variant=variant, **dict.fromkeys(keys, value))
    for element in [*at.markdown, *at.caption, *at.info, *at.subheader]:
        assert "**b**" not in element.value and "![x]" not in element.value
