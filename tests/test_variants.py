"""Grouped-query attention, the sliding-window mask and RoPE, against loops and their properties."""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

from viz_core.attention import attention, causal_mask
from viz_core.heads import multi_head_attention
from viz_core.variants import grouped_query_attention, rope, sliding_window_mask

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def gqa_problem(n, m, heads, kv_heads, d_k=3, d_v=2, seed=0):
    """q (n, heads·d_k), k (m, kv_heads·d_k), v (m, kv_heads·d_v)."""
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((n, heads * d_k))
    k = rng.standard_normal((m, kv_heads * d_k))
    v = rng.standard_normal((m, kv_heads * d_v))
    return q, k, v


# --- grouped-query attention ------------------------------------------------------------------


@pytest.mark.parametrize(("heads", "kv_heads"), [(1, 1), (4, 1), (4, 2), (6, 3), (8, 2), (4, 4)])
@pytest.mark.parametrize("mask", [None, "causal"])
def test_gqa_matches_a_loop_over_heads(heads, kv_heads, mask):
    """Query head h is plain attention of its q columns over kv head h // (heads // kv_heads)."""
    d_k, d_v = 3, 2
    q, k, v = gqa_problem(5, 5, heads, kv_heads, d_k, d_v, seed=heads + kv_heads)
    per_head = grouped_query_attention(q, k, v, heads=heads, kv_heads=kv_heads, mask=mask)
    assert len(per_head) == heads
    group = heads // kv_heads
    for h, steps in enumerate(per_head):
        g = h // group
        q_h = q[:, h * d_k : (h + 1) * d_k]
        k_g, v_g = k[:, g * d_k : (g + 1) * d_k], v[:, g * d_v : (g + 1) * d_v]
        expected = attention(q_h, k_g, v_g, mask=mask)
        assert steps.d_k == d_k
        assert_array_equal(steps.k, k_g)
        assert_array_equal(steps.v, v_g)
        assert_allclose(steps.weights, expected.weights, rtol=1e-12, atol=1e-15)
        assert_allclose(steps.output, expected.output, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("heads", [1, 2, 4])
def test_gqa_with_as_many_kv_heads_is_multi_head(heads):
    """kv_heads = heads: exactly multi_head_attention."""
    q, k, v = gqa_problem(6, 6, heads, heads, seed=heads)
    gqa = grouped_query_attention(q, k, v, heads=heads, kv_heads=heads, mask="causal")
    mha = multi_head_attention(q, k, v, heads, mask="causal")
    for ours, theirs in zip(gqa, mha, strict=True):
        assert_allclose(ours.weights, theirs.weights, rtol=1e-14, atol=1e-16)
        assert_allclose(ours.output, theirs.output, rtol=1e-14, atol=1e-16)


def test_gqa_with_one_kv_head_is_multi_query():
    """kv_heads = 1 (MQA): every head reads the same K and V but keeps its own weights."""
    q, k, v = gqa_problem(4, 6, heads=4, kv_heads=1, seed=9)
    per_head = grouped_query_attention(q, k, v, heads=4, kv_heads=1)
    for steps in per_head:
        assert_array_equal(steps.k, k)
        assert_array_equal(steps.v, v)
    assert not np.allclose(per_head[0].weights, per_head[1].weights)


def test_gqa_cross_attention_mask_and_read_only():
    """n ≠ m works with a boolean mask; a row with nothing allowed is 0; results are frozen."""
    q, k, v = gqa_problem(3, 5, heads=4, kv_heads=2)
    allowed = np.ones((3, 5), dtype=bool)
    allowed[1] = False
    per_head = grouped_query_attention(q, k, v, 4, 2, scale=False, mask=allowed)
    for steps in per_head:
        assert not steps.scale
        assert_array_equal(steps.output[1], 0.0)
        for array in (steps.q, steps.k, steps.v, steps.weights):
            with pytest.raises(ValueError):
                array[...] = 0


@pytest.mark.parametrize(
    ("heads", "kv_heads", "widths", "message"),
    [
        (4, 3, (12, 9, 9), "share"),
        (0, 1, (4, 4, 4), "heads"),
        (2, 1.0, (4, 2, 2), "kv_heads"),
        (True, 1, (4, 4, 4), "heads"),
        (3, 1, (8, 8, 8), "split into 3 heads"),
        (4, 2, (8, 6, 4), "kv_heads · d_k = 4"),
        (4, 2, (8, 4, 3), "v's width"),
    ],
)
def test_gqa_explains_bad_shapes(heads, kv_heads, widths, message):
    """Heads that do not share evenly, or widths that do not split, are clear ValueErrors."""
    q, k, v = (np.ones((2, w)) for w in widths)
    with pytest.raises(ValueError, match=message):
        grouped_query_attention(q, k, v, heads=heads, kv_heads=kv_heads)


def test_gqa_needs_one_value_per_key():
    """k and v of different lengths are refused."""
    with pytest.raises(ValueError, match="one row per key"):
        grouped_query_attention(np.ones((2, 4)), np.ones((3, 2)), np.ones((2, 2)), 2, 1)


# --- sliding window ---------------------------------------------------------------------------


@pytest.mark.parametrize("n", [0, 1, 5, 9])
@pytest.mark.parametrize("window", [1, 2, 3, 9, 20])
def test_sliding_window_matches_a_loop(n, window):
    """True exactly where i − window < j ≤ i."""
    expected = [[i - window < j <= i for j in range(n)] for i in range(n)]
    allowed = sliding_window_mask(n, window)
    assert allowed.dtype == np.bool_ and allowed.shape == (n, n)
    assert_array_equal(allowed, np.array(expected, dtype=bool).reshape(n, n))
    assert (allowed.sum(axis=1) == np.minimum(np.arange(1, n + 1), window)).all()


def test_sliding_window_edges():
    """window 1 is the diagonal; window ≥ n is causal; usable as an attention mask; read-only."""
    assert_array_equal(sliding_window_mask(6, 1), np.eye(6, dtype=bool))
    assert_array_equal(sliding_window_mask(6, 6), causal_mask(6))
    q = np.random.default_rng(0).standard_normal((6, 4))
    steps = attention(q, q, q, mask=sliding_window_mask(6, 2))
    assert_array_equal(steps.weights[5, :4], 0.0)
    with pytest.raises(ValueError):
        sliding_window_mask(3, 2)[0, 0] = False


@pytest.mark.parametrize(("n", "window"), [(4, 0), (4, -1), (4, 1.5), (-1, 2), (4, True)])
def test_sliding_window_validates(n, window):
    """A window of at least 1 and a whole n ≥ 0."""
    with pytest.raises(ValueError):
        sliding_window_mask(n, window)


# --- RoPE -------------------------------------------------------------------------------------


def test_rope_by_hand_in_two_dimensions():
    """d = 2: one pair, turned by exactly the position in radians (base^0 = 1)."""
    x = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 2.0]])
    rotated = rope(x)  # positions 0, 1, 2
    expected = [[1.0, 0.0], [math.cos(1), math.sin(1)], [-2 * math.sin(2), 2 * math.cos(2)]]
    assert_allclose(rotated, expected, rtol=1e-15, atol=1e-15)


def test_rope_by_hand_in_four_dimensions():
    """d = 4, base 10000: pair 0 turns by p radians, pair 1 (columns 2 and 3) by p / 100."""
    x = np.array([[1.0, 0.0, 1.0, 0.0]])
    rotated = rope(x, positions=[3.0])
    expected = [[math.cos(3), math.sin(3), math.cos(0.03), math.sin(0.03)]]
    assert_allclose(rotated, expected, rtol=1e-14, atol=1e-15)
    assert_allclose(rope(x, positions=[3.0], base=100.0)[0, 2:], [math.cos(0.3), math.sin(0.3)])


@FAST
@given(
    st.integers(1, 8),
    st.integers(1, 6),
    st.integers(-1000, 1000),
    st.sampled_from([10.0, 10000.0, 500000.0]),
    st.integers(0, 2**32 - 1),
)
def test_rope_scores_depend_only_on_relative_position(n, half_d, offset, base, seed):
    """Shifting every position by the same amount leaves every q·k unchanged; norms are kept."""
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal((2, n, 2 * half_d))
    positions = rng.integers(0, 512, n).astype(float)
    q_rot, k_rot = rope(q, positions, base), rope(k, positions, base)
    q_shift, k_shift = rope(q, positions + offset, base), rope(k, positions + offset, base)
    assert_allclose(q_shift @ k_shift.T, q_rot @ k_rot.T, rtol=1e-9, atol=1e-9)
    assert_allclose(np.linalg.norm(q_rot, axis=1), np.linalg.norm(q, axis=1), rtol=1e-12)


def test_rope_relative_position_between_two_tokens():
    """rope(q)[a] · rope(k)[b] is the same for (a, b) = (5, 2) and (13, 10): both are 3 apart."""
    rng = np.random.default_rng(1)
    q, k = rng.standard_normal((2, 1, 8))
    first = rope(q, [5.0]) @ rope(k, [2.0]).T
    second = rope(q, [13.0]) @ rope(k, [10.0]).T
    other = rope(q, [13.0]) @ rope(k, [9.0]).T
    assert_allclose(first, second, rtol=1e-12)
    assert not np.allclose(first, other)


def test_rope_position_zero_is_identity_and_default_positions():
    """Position 0 changes nothing; positions default to 0, 1, …, n − 1; read-only output."""
    x = np.random.default_rng(2).standard_normal((5, 6))
    assert_array_equal(rope(x, positions=np.zeros(5)), x)
    assert_array_equal(rope(x)[0], x[0])
    assert_array_equal(rope(x), rope(x, positions=np.arange(5)))
    with pytest.raises(ValueError):
        rope(x)[0, 0] = 1.0


@pytest.mark.parametrize(
    ("shape", "positions", "base", "message"),
    [
        ((3, 5), None, 10000.0, "d even"),
        ((2, 2, 2), None, 10000.0, "d even"),
        ((3, 4), [0.0, 1.0], 10000.0, "one finite position per row"),
        ((3, 4), [0.0, np.nan, 1.0], 10000.0, "one finite position per row"),
        ((3, 4), None, 0.0, "base"),
        ((3, 4), None, float("inf"), "base"),
    ],
)
def test_rope_validates(shape, positions, base, message):
    """Odd widths, wrong or NaN positions and a bad base are clear ValueErrors."""
    with pytest.raises(ValueError, match=message):
        rope(np.ones(shape), positions, base)
