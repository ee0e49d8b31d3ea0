"""Online softmax, FlashAttention and the KV cache: attention()'s numbers, by other routes."""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from numpy.testing import assert_allclose, assert_array_equal

from viz_core.attention import attention, causal_mask, softmax
from viz_core.kernels import (
    KV_CACHE_MODELS,
    flash_attention,
    kv_cache_bytes,
    kv_cache_decode,
    online_softmax,
)

FAST = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
RNG = np.random.default_rng(2024)


def qkv(n, m, d_k=5, d_v=3, seed=0):
    """Random q (n, d_k), k (m, d_k), v (m, d_v)."""
    rng = np.random.default_rng(seed)
    return (
        rng.standard_normal((n, d_k)),
        rng.standard_normal((m, d_k)),
        rng.standard_normal((m, d_v)),
    )


def loop_attention(q, k, v, scale, allowed):
    """The formula with plain loops over queries and keys: no numpy softmax, no tiles."""
    n, m, d_v = len(q), len(k), v.shape[1]
    output = np.zeros((n, d_v))
    for i in range(n):
        scores = {}
        for j in range(m):
            if allowed[i][j]:
                dot = sum(float(a) * float(b) for a, b in zip(q[i], k[j], strict=True))
                scores[j] = dot / math.sqrt(q.shape[1]) if scale else dot
        if not scores:
            continue  # nothing allowed: the output row stays 0
        top = max(scores.values())
        exps = {j: math.exp(s - top) for j, s in scores.items()}
        total = sum(exps.values())
        for j, e in exps.items():
            output[i] += e / total * v[j]
    return output


# --- online softmax ---------------------------------------------------------------------------


def test_online_softmax_hand_case():
    """x = [1, 3, 2, 5, 0] in blocks of 2: the max grows twice, and l is rescaled each time."""
    run = online_softmax([1.0, 3.0, 2.0, 5.0, 0.0], block=2)
    assert [b.columns for b in run.trace] == [slice(0, 2), slice(2, 4), slice(4, 5)]
    assert [float(b.m) for b in run.trace] == [3.0, 5.0, 5.0]
    l1 = math.exp(1 - 3) + 1
    l2 = l1 * math.exp(3 - 5) + math.exp(2 - 5) + 1
    l3 = l2 + math.exp(0 - 5)
    assert_allclose([float(b.l) for b in run.trace], [l1, l2, l3], rtol=1e-15)
    assert_allclose([float(b.rescale) for b in run.trace], [0.0, math.exp(-2), 1.0], rtol=1e-15)
    exps = np.exp(np.array([1.0, 3.0, 2.0, 5.0, 0.0]) - 5)
    assert_allclose(run.weights, exps / exps.sum(), rtol=1e-15)
    assert float(run.m) == 5.0 and float(run.l) == pytest.approx(l3, rel=1e-15)


def test_online_softmax_infinities_follow_softmax():
    """−∞ entries get 0; an all −∞ row (even one that stays −∞ over several blocks) gets zeros."""
    x = np.array([[-np.inf, 1.0, -np.inf, 2.0], [-np.inf] * 4, [-np.inf, -np.inf, -np.inf, 0.0]])
    run = online_softmax(x, block=2)
    assert_allclose(run.weights, softmax(x), rtol=1e-15)
    assert_array_equal(run.weights[1], 0.0)
    assert_array_equal(run.weights[2], [0.0, 0.0, 0.0, 1.0])
    assert not np.isnan(run.weights).any()
    assert run.trace[0].m.tolist() == [1.0, -np.inf, -np.inf] and run.trace[0].l[1] == 0


@pytest.mark.parametrize("bad", [np.inf, np.nan])
def test_online_softmax_refuses_nan_and_plus_infinity(bad):
    """+∞ and NaN raise ValueError (softmax() special-cases +∞; a running max cannot)."""
    with pytest.raises(ValueError, match="NaN or \\+inf"):
        online_softmax([1.0, bad, 2.0], block=1)


@pytest.mark.parametrize("block", [0, -1, 1.5, True, "3"])
def test_online_softmax_block_must_be_whole_and_positive(block):
    """A block of 0, a fraction or a bool is a ValueError."""
    with pytest.raises(ValueError, match="block"):
        online_softmax([1.0, 2.0], block=block)


def test_online_softmax_shapes_and_read_only():
    """Any leading shape: m and l are x.shape[:-1]; an empty last axis gives no blocks."""
    x = RNG.standard_normal((2, 3, 7))
    run = online_softmax(x, block=3)
    assert len(run.trace) == 3 and run.trace[-1].columns == slice(6, 7)
    assert run.m.shape == run.l.shape == run.trace[1].l.shape == (2, 3)
    for array in (run.x, run.weights, run.m, run.l, run.trace[0].m, run.trace[0].rescale):
        with pytest.raises(ValueError):
            array[...] = 0
    empty = online_softmax(np.zeros((2, 0)))
    assert empty.trace == () and empty.weights.shape == (2, 0)
    assert float(online_softmax(4.0).weights[0]) == 1.0  # a scalar is a row of one


finite_or_minus_inf = st.floats(allow_nan=False, allow_infinity=False) | st.just(-np.inf)


@FAST
@given(
    hnp.arrays(
        np.float64,
        hnp.array_shapes(min_dims=1, max_dims=3, max_side=9),
        elements=finite_or_minus_inf,
    ),
    st.integers(1, 10),
)
def test_online_softmax_equals_softmax(x, block):
    """Any finite or −∞ input and any block: the weights are softmax(x); the trace's last state
    is the true max and the true sum, and every state describes the prefix read so far."""
    run = online_softmax(x, block=block)
    assert_allclose(run.weights, softmax(x), rtol=1e-12, atol=1e-300)
    assert len(run.trace) == math.ceil(x.shape[-1] / block)
    for record in run.trace:
        prefix = x[..., : record.columns.stop]
        assert_array_equal(record.m, prefix.max(axis=-1))
        shift = np.where(np.isfinite(record.m), record.m, 0.0)
        with np.errstate(over="ignore"):  # −1e308 − 1e308 is −∞, and e^−∞ = 0 is right
            sums = np.exp(prefix - shift[..., None]).sum(axis=-1)
        assert_allclose(record.l, sums, rtol=1e-12)


# --- FlashAttention -------------------------------------------------------------------------


def empty_rows_mask(n, m, seed=0):
    """A random boolean mask with row 0 and the last row fully masked."""
    allowed = np.random.default_rng(seed).random((n, m)) < 0.6
    allowed[0] = allowed[-1] = False
    return allowed


@pytest.mark.parametrize(("n", "m"), [(1, 1), (7, 7), (9, 5), (4, 11)])
@pytest.mark.parametrize(("block_q", "block_k"), [(1, 1), (2, 3), (4, 4), (5, 2), (64, 64)])
@pytest.mark.parametrize("mask", [None, "causal", "empty_rows"])
@pytest.mark.parametrize("scale", [True, False])
def test_flash_equals_attention_and_loops(n, m, block_q, block_k, mask, scale):
    """Blocks that do not divide n or m, every mask kind, both scalings: the same output."""
    q, k, v = qkv(n, m, seed=n * m + block_q)
    mask = empty_rows_mask(n, m) if mask == "empty_rows" else mask
    run = flash_attention(q, k, v, block_q=block_q, block_k=block_k, scale=scale, mask=mask)
    steps = attention(q, k, v, scale=scale, mask=mask)
    assert_allclose(run.output, steps.output, rtol=1e-12, atol=1e-12)
    assert_allclose(
        run.output, loop_attention(q, k, v, scale, steps.allowed), rtol=1e-12, atol=1e-12
    )
    rows = steps.allowed.any(axis=1)
    assert_array_equal(run.output[~rows], 0.0)
    assert_allclose(run.m, steps.masked.max(axis=1), rtol=1e-12, atol=1e-14)  # ulps of matmul
    sums = np.exp(steps.masked[rows] - run.m[rows, None]).sum(axis=1)
    assert_allclose(run.l[rows], sums, rtol=1e-12)
    assert_array_equal(run.l[~rows], 0.0)


@st.composite
def flash_problems(draw):
    """Any small n, m, widths, block sizes, scaling and mask, magnitudes up to 100."""
    n, m = draw(st.integers(1, 12)), draw(st.integers(1, 12))
    d_k, d_v = draw(st.integers(1, 6)), draw(st.integers(1, 4))
    elements = st.floats(-100, 100, allow_nan=False)
    q = draw(hnp.arrays(np.float64, (n, d_k), elements=elements))
    k = draw(hnp.arrays(np.float64, (m, d_k), elements=elements))
    v = draw(hnp.arrays(np.float64, (m, d_v), elements=st.floats(-1, 1, allow_nan=False)))
    kind = draw(st.sampled_from(["none", "causal", "random"]))
    mask = {"none": None, "causal": "causal"}.get(kind)
    if kind == "random":
        mask = draw(hnp.arrays(np.bool_, (n, m)))
    blocks = draw(st.integers(1, 13)), draw(st.integers(1, 13))
    return q, k, v, mask, blocks, draw(st.booleans())


@FAST
@given(flash_problems())
def test_flash_equals_attention_for_any_problem(problem):
    """Property: whatever the shapes, blocks and mask, flash_attention's output is attention's."""
    q, k, v, mask, (block_q, block_k), scale = problem
    run = flash_attention(q, k, v, block_q, block_k, scale=scale, mask=mask)
    expected = attention(q, k, v, scale=scale, mask=mask).output
    assert_allclose(run.output, expected, rtol=1e-10, atol=1e-12)
    assert run.tile_count == math.ceil(len(q) / block_q) * math.ceil(len(k) / block_k)


def test_flash_tiles_trace_the_running_state():
    """Each tile's m and l are the max and sum over the keys read so far, and its output is
    attention over those keys alone; the last tile of a query block is the final answer."""
    q, k, v = qkv(7, 10, seed=3)
    run = flash_attention(q, k, v, block_q=3, block_k=4, mask="causal")
    full = attention(q, k, v, mask="causal")
    assert run.tile_count == len(run.tiles) == 3 * 3
    assert [(t.qi, t.kj) for t in run.tiles[:4]] == [(0, 0), (0, 1), (0, 2), (1, 0)]
    for tile in run.tiles:
        seen = slice(0, tile.cols.stop)
        masked = full.masked[tile.rows, seen]
        assert_allclose(tile.m, masked.max(axis=1), rtol=1e-12, atol=1e-14)
        assert_allclose(tile.l, np.exp(masked - tile.m[:, None]).sum(axis=1), rtol=1e-12)
        partial = attention(q[tile.rows], k[seen], v[seen], mask=full.allowed[tile.rows, seen])
        assert_allclose(tile.output, partial.output, rtol=1e-12, atol=1e-12)
        if tile.cols.stop == len(k):
            assert_allclose(tile.output, run.output[tile.rows], rtol=1e-15)


def test_flash_skips_tiles_above_the_causal_diagonal():
    """Causal with 8 queries and keys in blocks of 2: the 6 tiles above the diagonal are skipped
    and leave m, l and the output as they were."""
    q, k, v = qkv(8, 8, seed=4)
    run = flash_attention(q, k, v, block_q=2, block_k=2, mask="causal")
    skipped = [(t.qi, t.kj) for t in run.tiles if t.skipped]
    assert skipped == [(qi, kj) for qi in range(4) for kj in range(qi + 1, 4)]
    assert run.skipped_tiles == 6 and run.tile_count == 16
    before = {(t.qi, t.kj): t for t in run.tiles}
    for qi, kj in skipped:
        assert_array_equal(before[qi, kj].output, before[qi, kj - 1].output)
        assert_array_equal(before[qi, kj].l, before[qi, kj - 1].l)
    assert flash_attention(q, k, v, 2, 2, mask=causal_mask(8)).skipped_tiles == 6
    assert flash_attention(q, k, v, 2, 2).skipped_tiles == 0


def test_flash_memory_counts():
    """Scratch: a block_q × block_k tile, a block_q × d_v accumulator, m and l; plain: n · m."""
    q, k, v = qkv(9, 11, d_k=6, d_v=5)
    run = flash_attention(q, k, v, block_q=4, block_k=3)
    assert run.scratch_floats == 4 * 3 + 4 * 5 + 2 * 4 and run.plain_floats == 9 * 11
    assert (run.block_q, run.block_k, run.tile_count) == (4, 3, 3 * 4)
    small = flash_attention(q[:2], k[:2], v[:2], block_q=64, block_k=64)
    assert small.scratch_floats == 2 * 2 + 2 * 5 + 2 * 2  # blocks larger than n shrink to n


def test_flash_without_recording_keeps_no_tiles():
    """record=False: the same output and counts, no tile records."""
    q, k, v = qkv(10, 10, seed=5)
    recorded = flash_attention(q, k, v, 3, 3, mask="causal")
    bare = flash_attention(q, k, v, 3, 3, mask="causal", record=False)
    assert bare.tiles == () and bare.tile_count == recorded.tile_count == 16
    assert bare.skipped_tiles == recorded.skipped_tiles
    assert_array_equal(bare.output, recorded.output)


def test_flash_results_are_read_only_and_edge_shapes_work():
    """Frozen arrays; no keys at all gives zeros, like attention()."""
    q, k, v = qkv(3, 4)
    run = flash_attention(q, k, v, 2, 2)
    for array in (run.output, run.m, run.l, run.tiles[0].m, run.tiles[0].l, run.tiles[0].output):
        with pytest.raises(ValueError):
            array[...] = 0
    no_keys = flash_attention(q, k[:0], v[:0])
    assert_array_equal(no_keys.output, attention(q, k[:0], v[:0]).output)
    assert no_keys.tile_count == 0


def test_flash_refuses_bad_blocks_masks_and_overflow():
    """Clear ValueErrors: bad block sizes, a mask of the wrong shape, scores that overflow."""
    q, k, v = qkv(3, 4)
    with pytest.raises(ValueError, match="block_q"):
        flash_attention(q, k, v, block_q=0)
    with pytest.raises(ValueError, match="block_k"):
        flash_attention(q, k, v, block_k=2.5)
    with pytest.raises(ValueError, match="shape"):
        flash_attention(q, k, v, mask=np.ones((4, 3), dtype=bool))
    with pytest.raises(ValueError, match="Unknown mask"):
        flash_attention(q, k, v, mask="sideways")
    with pytest.raises(ValueError, match="NaN or \\+inf"), np.errstate(over="ignore"):
        flash_attention(q * 1e200, k * 1e200, v)


# --- KV cache ---------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 9])
@pytest.mark.parametrize("scale", [True, False])
def test_kv_cache_decode_is_causal_attention(n, scale):
    """Token by token over a growing cache: causal attention's output and weights."""
    q, k, v = qkv(n, n, seed=n)
    run = kv_cache_decode(q, k, v, scale=scale)
    steps = attention(q, k, v, scale=scale, mask="causal")
    assert_allclose(run.output, steps.output, rtol=1e-12, atol=1e-15)
    assert_allclose(run.weights, steps.weights, rtol=1e-12, atol=1e-15)
    assert run.cache_lengths == tuple(range(1, n + 1))
    assert_array_equal(np.triu(run.weights, 1), 0.0)
    assert_array_equal(run.k_cache, k)
    assert_array_equal(run.v_cache, v)
    with pytest.raises(ValueError):
        run.weights[0, 0] = 0.5


def test_kv_cache_decode_needs_one_query_per_key():
    """q and k of different lengths are not one decoding run."""
    q, k, v = qkv(3, 4)
    with pytest.raises(ValueError, match="One query per token"):
        kv_cache_decode(q, k, v)


def test_kv_cache_bytes_by_hand():
    """2 (K and V) · layers · kv_heads · d_k · tokens · batch · bytes per value."""
    assert kv_cache_bytes(1, 1, 1, 1) == 4
    assert kv_cache_bytes(2, 3, 5, 7, batch=11, bytes_per_value=4) == 2 * 2 * 3 * 5 * 7 * 11 * 4
    assert kv_cache_bytes(32, 32, 128, 0) == 0
    for bad in ({"layers": 0}, {"d_k": 1.5}, {"tokens": -1}, {"bytes_per_value": True}):
        arguments = {"layers": 1, "kv_heads": 1, "d_k": 1, "tokens": 1} | bad
        with pytest.raises(ValueError, match=next(iter(bad))):
            kv_cache_bytes(**arguments)


def test_real_model_caches():
    """BERT-base 18 MiB; Llama-2-7B 2 GiB at 4,096 tokens; 8 KV heads (GQA) make it 512 MiB."""
    sizes = {shape.name: shape.total_bytes for shape in KV_CACHE_MODELS}
    assert sizes == {
        "BERT-base": 2 * 12 * 12 * 64 * 512 * 2,  # 18,874,368 B = 18 MiB
        "Llama-2-7B": 2 * 32 * 32 * 128 * 4096 * 2,  # 2,147,483,648 B = 2 GiB
        "Llama-3-8B / Mistral-7B": 2 * 32 * 8 * 128 * 4096 * 2,  # 536,870,912 B = 512 MiB
    }
    assert sizes["BERT-base"] == 18 * 2**20
    assert sizes["Llama-2-7B"] == 2 * 2**30
    assert sizes["Llama-2-7B"] // sizes["Llama-3-8B / Mistral-7B"] == 32 // 8
    assert all(shape.heads % shape.kv_heads == 0 for shape in KV_CACHE_MODELS)
