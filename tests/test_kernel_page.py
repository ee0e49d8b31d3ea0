"""The /kernel page under AppTest: online softmax, FlashAttention's tiles, the KV cache.

Every expected number is computed here with plain numpy (a softmax, a loop), not by the page's
own functions.
"""

import math
import re
import tracemalloc

import numpy as np
import pytest
from conftest import FUZZ, chart_keys, decode, figure, open_app
from numpy.testing import assert_allclose

from viz_core import make_qkv, tokenize

MB = 1 << 20
XI = np.array([15.3, 22.7, 18.2, 2.1, 1.8, 3.2, 2.9, 5.6, 4.1]) / 8
LONG_TEXT = "".join(chr(0x4E00 + 7 * i) for i in range(40))  # 40 characters: capped to 32
HEAVIEST = {"text": LONG_TEXT, "d": "8192", "mask": "padding", "seed": "123456789"}


def plain_softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def html_texts(at):
    """Text written with safe_text (st.html), without its style sheet."""
    return [element.proto.body.split("</style>")[-1] for element in at.get("html")]


def trace(at, key, name):
    (found,) = [tr for tr in figure(at, key)["data"] if tr.get("name") == name]
    return found


def lab_scaled(text="我喜欢人工智能", d=64, seed=0, special=True):
    """The lab's scaled scores and output for one head, by hand: (QKᵀ/√d, softmax · V)."""
    tokens = tokenize(text, special_tokens=special)
    q, k, v = make_qkv(tokens, d, seed)
    s = q @ k.T / math.sqrt(d)
    return tokens, s, plain_softmax(s) @ v


# --- sections ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("section", "key"),
    [("softmax", "online_softmax_steps"), ("flash", "flash_tiles"), ("cache", "kv_cache")],
)
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_each_section_draws_its_one_chart(section, key, lang):
    """Only the open section is drawn: one chart, under its contract key, in both languages."""
    at = open_app("kernel", lang=lang, section=section, present="true")
    assert chart_keys(at) == [key]
    assert at.query_params["section"] == section and at.query_params["lang"] == lang


def test_default_section_is_online_softmax():
    at = open_app("kernel")
    assert chart_keys(at) == ["online_softmax_steps"]


# --- online softmax ---------------------------------------------------------------------------


@pytest.mark.parametrize("block", [1, 2, 4, 9])
def test_online_softmax_running_state_and_final_weights(block):
    """After block b: m = max of what was read, ℓ = Σ e^(x − m) over it; the final weights are
    the ordinary softmax of the article's 喜 row ÷ 8."""
    at = open_app("kernel", lang="en", block=str(block))
    stops = [*range(block, len(XI), block), len(XI)]
    m = [XI[:stop].max() for stop in stops]
    ell = [np.exp(XI[:stop] - XI[:stop].max()).sum() for stop in stops]
    assert_allclose(decode(trace(at, "online_softmax_steps", "m max so far")["y"]), m)
    assert_allclose(decode(trace(at, "online_softmax_steps", "ℓ sum so far")["y"]), ell)
    bars = [tr for tr in figure(at, "online_softmax_steps")["data"] if tr.get("xaxis") == "x2"]
    weights, reference = (decode(tr["y"]) for tr in bars)
    assert_allclose(weights, plain_softmax(XI), rtol=1e-12)
    assert_allclose(reference, plain_softmax(XI), rtol=1e-12)


def test_online_softmax_names_the_rescale_and_the_article_sum():
    """Block of 1: the max rises at 喜, by e^(1.9125 − 2.8375) = 0.397; ℓ·e^m is Σ e^x = 42.74."""
    at = open_app("kernel", lang="en")
    text = " ".join(html_texts(at))
    assert f"{math.exp(XI[0] - XI[1]):.3f}" in text and "at 喜" in text
    assert f"{np.exp(XI).sum():.2f}" in text and "42.73" in text  # computed, and as printed
    assert "largest difference from the ordinary softmax: 0" in text


# --- FlashAttention ---------------------------------------------------------------------------


@pytest.mark.parametrize(("tile", "mask"), [(0, "none"), (5, "none"), (7, "causal"), (8, "none")])
def test_flash_tiles_highlights_the_tile_and_its_running_state(tile, mask):
    """Tile t of the 3 × 3 grid of 4 × 4 tiles over 9 tokens: only its cells carry scores, an
    orange frame surrounds it, and m, ℓ of its rows are the running max and sum of the keys
    read so far (by hand)."""
    at = open_app("kernel", lang="en", section="flash", tile=str(tile), mask=mask)
    _, s, _ = lab_scaled()
    if mask == "causal":
        s = np.where(np.tri(9, dtype=bool), s, -np.inf)
    qi, kj = divmod(tile, 3)
    rows, cols = slice(4 * qi, min(4 * qi + 4, 9)), slice(4 * kj, min(4 * kj + 4, 9))
    z = decode(trace(at, "flash_tiles", "tile")["z"])
    expected = np.full((9, 9), np.nan)
    expected[rows, cols] = s[rows, cols]
    expected[~np.isfinite(expected)] = np.nan
    assert_allclose(z, expected, rtol=1e-6)  # float32 on the wire
    frame = figure(at, "flash_tiles")["layout"]["shapes"][-1]
    assert (frame["x0"], frame["x1"]) == (cols.start - 0.5, cols.stop - 0.5)
    assert (frame["y0"], frame["y1"]) == (rows.start - 0.5, rows.stop - 0.5)
    read = s[rows, : cols.stop]
    m = read.max(axis=1)
    ell = np.exp(read - m[:, None]).sum(axis=1)
    running = np.array(trace(at, "flash_tiles", "m and ℓ after this tile")["customdata"])
    assert_allclose(running, np.column_stack([m, ell]))


def test_flash_output_equals_the_plain_output_and_says_so():
    """The tiled output beside the plain one: the number shown is the computed max difference
    (tiny), and the plain column is softmax(QKᵀ/√d)V by hand."""
    at = open_app("kernel", lang="en", section="flash")
    text = " ".join(html_texts(at))
    shown = re.search(r"Largest \|O_flash − O_plain\| over all 9 × 64 outputs: ([^,]+),", text)
    assert shown is not None
    assert float(shown.group(1).replace("−", "-")) < 1e-12
    tokens, _, output = lab_scaled()
    table = at.dataframe[-1].value
    assert list(table.iloc[:, 0]) == tokens
    first = [float(x.replace("−", "-")) for x in table.iloc[2, 2].split(", ")]
    assert_allclose(first, output[2, :3], rtol=2e-3)
    assert (table.iloc[:, 1] == table.iloc[:, 2]).all()


def test_flash_memory_numbers_are_computed_and_honest():
    """9 tokens, d_v = 64, 4 × 4 tiles: 16 + 4·64 + 2·4 = 280 floats held, more than 81, and
    the page says so; at n = 4,096 with 64 × 64 tiles: 64² + 64·64 + 128 = 8,320."""
    at = open_app("kernel", lang="en", section="flash")
    text = " ".join(html_texts(at))
    assert "280 floats" in text and "81 scores" in text and "more than" in text
    assert f"{64 * 64 + 64 * 64 + 2 * 64:,} floats instead of {4096**2:,}" in text


@pytest.mark.parametrize(("query", "used"), [({"tile": "80"}, "8"), ({"tile": "-5"}, "0")])
def test_a_tile_outside_the_grid_is_replaced_with_a_note(query, used):
    at = open_app("kernel", lang="en", section="flash", **query)
    notes = [info.value for info in at.info]
    assert any("`tile`" in note and f"using {used} instead" in note for note in notes), notes
    assert at.query_params["tile"] == used


def test_the_tile_buttons_step_through_the_tiles():
    at = open_app("kernel", section="flash", tile="3")
    at.button(key="kernel_tile_next").click().run()
    assert at.slider(key="kernel_tile").value == 4
    at.button(key="kernel_tile_prev").click().run().button(key="kernel_tile_prev").click().run()
    assert at.slider(key="kernel_tile").value == 2


# --- KV cache ---------------------------------------------------------------------------------


def test_kv_cache_steps_are_causal_attention():
    """Row i of the decode weights is softmax over keys 0 … i (by hand); the rest is not drawn."""
    at = open_app("kernel", section="cache")
    _, s, _ = lab_scaled()
    causal = plain_softmax(np.where(np.tri(9, dtype=bool), s, -np.inf))
    z = decode(trace(at, "kv_cache", "weights")["z"])
    lower = np.tri(9, dtype=bool)
    assert_allclose(z[lower], causal[lower])
    assert np.isnan(z[~lower]).all()


def test_kv_cache_bytes_match_hand_arithmetic():
    """2 · layers · kv_heads · d_k · tokens · 2 bytes, for each model, by hand."""
    at = open_app("kernel", lang="en", section="cache")
    table = at.dataframe[0].value
    sizes = dict(zip(table.iloc[:, 0], table.iloc[:, 6], strict=True))
    per_token = dict(zip(table.iloc[:, 0], table.iloc[:, 7], strict=True))
    assert 2 * 12 * 12 * 64 * 512 * 2 == 18 * 2**20 and sizes["BERT-base"] == "18 MiB"
    assert 2 * 32 * 32 * 128 * 4096 * 2 == 2 * 2**30 and sizes["Llama-2-7B"] == "2 GiB"
    gqa = "Llama-3-8B / Mistral-7B"
    assert 2 * 32 * 8 * 128 * 4096 * 2 == 512 * 2**20 and sizes[gqa] == "512 MiB"
    assert per_token["Llama-2-7B"] == f"{2 * 32 * 32 * 128 * 2 // 1024} KiB"
    text = " ".join(html_texts(at))
    assert f"{2 * 12 * 12 * 64 * 9 * 2 // 1024} KiB" in text  # this sentence in BERT's shape
    assert "4× smaller: 512 MiB instead of 2 GiB" in text


# --- bad input --------------------------------------------------------------------------------

HOSTILE = ["x7#q%", "1e400", "nan", "-5", "字" * 10_000, "<script>alert(1)</script>**b**"]
DEFAULTS = {"section": "softmax", "block": "1", "tile": "0"}


@pytest.mark.parametrize("key", sorted(DEFAULTS))
@pytest.mark.parametrize("value", HOSTILE, ids=["garbage", "1e400", "nan", "-5", "long", "html"])
def test_hostile_values_are_replaced_with_a_note_naming_key_and_value(key, value):
    """Every new key, every hostile value: the page runs, and a note names the key and the
    value used (-5 becomes the lowest allowed, 1 for the block and 0 for the tile)."""
    query = {"section": "flash" if key == "tile" else "softmax", key: value}
    at = open_app("kernel", lang="en", **query)
    notes = [info.value for info in at.info]
    used = DEFAULTS[key]
    assert any(f"`{key}`" in note and f"using {used} instead" in note for note in notes), notes
    assert at.query_params[key] == used


def test_hostile_lab_sentence_is_shown_as_text():
    """The lab's sentence reaches the tile description as escaped text, never as HTML."""
    text = "<img src=x onerror=alert(1)>**b**"
    at = open_app("kernel", section="flash", text=text)
    bodies = [element.proto.body for element in at.get("html")]
    assert not any("<img" in body for body in bodies)
    assert any("&lt;" in body for body in bodies)


@pytest.mark.parametrize("text", ["", "   ", "\u200b"])
def test_empty_lab_sentence_asks_for_one(text):
    at = open_app("kernel", section="flash", text=text, special="false")
    assert chart_keys(at) == [] and at.info


# --- budgets ----------------------------------------------------------------------------------


@pytest.mark.parametrize("heads", ["1", "64"])
@pytest.mark.parametrize("section", ["softmax", "flash", "cache"])
def test_heaviest_urls_send_under_500_kb_of_figures(section, heads):
    """32 tokens padded to 36 (81 tiles), d = 8192: the figures of one rerun stay under 500 kB."""
    head = str(int(heads) - 1)
    at = open_app("kernel", section=section, tile="80", heads=heads, head=head, **HEAVIEST)
    sent = sum(len(chart.proto.spec) for chart in at.get("plotly_chart"))
    assert sent < 500_000, f"{sent / 1000:.0f} kB"


def test_heaviest_kernel_computations_stay_within_the_request_budget():
    """One head of d_k = 8192 over 36 tokens: the tiles, the full run and the cached decode
    together peak under 150 MB (the lab's own call is measured in test_budgets)."""
    from ui.kernel.compute import cache_view, flash_view
    from viz_core import run_lab

    steps = run_lab(LONG_TEXT, d=8192, mask="padding", seed=123456789).steps
    tracemalloc.start()
    try:
        flash, cache = flash_view(steps), cache_view(steps)
        peak = tracemalloc.get_traced_memory()[1] / MB
    finally:
        tracemalloc.stop()
    assert len(flash.tiles.tiles) == 81 and cache.run.weights.shape == (36, 36)
    assert peak < 150, f"{peak:.0f} MB"
    assert flash.error < 1e-12 and cache.error < 1e-12


@pytest.mark.parametrize("section", ["softmax", "flash", "cache"])
@pytest.mark.parametrize("value", list(FUZZ.values()), ids=list(FUZZ))
def test_one_hostile_value_in_every_key(section, value):
    """The lab's keys and ours all carry the same hostile value: the page runs, and nothing
    from the link is rendered as Markdown."""
    keys = ["block", "tile", "text", "special", "d", "scale", "mask", "seed", "heads", "head"]
    at = open_app("kernel", section=section, **dict.fromkeys(keys, value))
    for element in [*at.markdown, *at.caption, *at.info, *at.subheader]:
        assert "**b**" not in element.value and "![x]" not in element.value


def test_a_new_block_s_chart_is_given_time_to_draw_before_the_table(draw_waits):
    """/kernel waits (notes.let_draw) once after an online-softmax chart it has not sent before,
    so the browser draws it before the table below arrives; a rerun that shows the same chart
    does not wait."""
    waits = draw_waits
    at = open_app("kernel", lang="en")
    waits.clear()  # opening ran the lab, then this page: each waited for its first chart
    at.run()
    assert len(waits) == 0
    at.number_input(key="kernel_block").set_value(4).run()
    assert len(waits) == 1
    at.run()
    assert len(waits) == 1 and not at.exception
