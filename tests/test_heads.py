"""Multi-head attention, embeddings with positions, temperature: the core contract."""

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from test_core import reference_attention

from viz_core import (
    attention,
    embed_qkv,
    head_choices,
    make_qkv,
    multi_head_attention,
    run_lab,
    sinusoidal_positions,
    token_embedding,
    tokenize,
)


@pytest.mark.parametrize(("d", "heads"), [(12, 1), (12, 3), (12, 4), (16, 16), (24, 6)])
@pytest.mark.parametrize("mask", [None, "causal"])
def test_multi_head_matches_reshape_and_loop(d, heads, mask):
    """Head h is plain attention on columns h·d_k … of a (n, heads, d_k) reshape, scaled by √d_k."""
    q, k, v = make_qkv(list("abcdefg"), d=d, seed=d + heads)
    n, d_k = len(q), d // heads
    allowed = np.tri(n, dtype=bool) if mask == "causal" else np.ones((n, n), dtype=bool)
    per_head = multi_head_attention(q, k, v, heads, mask=mask)
    q_h, k_h, v_h = (x.reshape(n, heads, d_k) for x in (q, k, v))
    outputs = []
    for h, steps in enumerate(per_head):
        weights, output = reference_attention(
            q_h[:, h].tolist(), k_h[:, h].tolist(), v_h[:, h].tolist(), True, allowed
        )
        assert steps.d_k == d_k
        assert_allclose(steps.weights, weights, rtol=1e-12, atol=1e-15)
        assert_allclose(steps.output, output, rtol=1e-12, atol=1e-15)
        outputs.append(output)
    assert_allclose(np.hstack([s.output for s in per_head]), np.hstack(outputs), atol=1e-15)


def test_one_head_is_plain_attention():
    """heads=1 is exactly attention(q, k, v)."""
    q, k, v = make_qkv(list("abc"), d=8)
    assert_array_equal(multi_head_attention(q, k, v, 1)[0].weights, attention(q, k, v).weights)


@pytest.mark.parametrize("heads", [5, 0, -2, 2.0, True])
def test_heads_must_divide_d(heads):
    """d = 64 with 5 heads (or a non-number) is a clear ValueError."""
    q, k, v = make_qkv(list("ab"), d=64)
    with pytest.raises(ValueError, match="head"):
        multi_head_attention(q, k, v, heads)


def test_temperature_in_every_head():
    """T = 1 changes nothing; T = 2 halves every head's scaled scores."""
    q, k, v = make_qkv(list("abcd"), d=16, seed=1)
    plain = multi_head_attention(q, k, v, 4)
    hot = multi_head_attention(q, k, v, 4, temperature=2.0)
    for a, b in zip(plain, multi_head_attention(q, k, v, 4, temperature=1.0), strict=True):
        assert_array_equal(a.weights, b.weights)
    for a, b in zip(plain, hot, strict=True):
        assert_allclose(b.scaled, a.scaled / 2)


def test_head_choices_are_the_divisors_up_to_64():
    """768 splits into 12 heads of 64 (BERT-base); 1536 into 16 of 96."""
    assert head_choices(768) == [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64]
    assert 16 in head_choices(1536) and max(head_choices(8192)) == 64
    assert head_choices(7) == [1, 7]


def test_sinusoidal_positions_follow_the_paper():
    """PE[pos, 2i] = sin(pos/10000^(2i/d)), PE[pos, 2i+1] = cos(…); odd d works too."""
    pe = sinusoidal_positions(5, 8)
    assert_allclose(pe[0], [0, 1] * 4, atol=1e-15)
    assert math.isclose(pe[3, 2], math.sin(3 / 10000 ** (2 / 8)))
    assert math.isclose(pe[3, 3], math.cos(3 / 10000 ** (2 / 8)))
    assert sinusoidal_positions(4, 7).shape == (4, 7)


def test_same_character_same_embedding():
    """A character's embedding depends on the character and the seed only."""
    assert_array_equal(token_embedding("我", 16, 0), token_embedding("我", 16, 0))
    assert not np.allclose(token_embedding("我", 16, 0), token_embedding("爱", 16, 0))
    assert not np.allclose(token_embedding("我", 16, 0), token_embedding("我", 16, 1))


def test_positions_break_the_tie_between_repeated_characters():
    """我爱我家: without positions both 我 have the same q, k, v; with positions they differ."""
    tokens = tokenize("我爱我家")
    plain = embed_qkv(tokens, d=32, position=False)
    for matrix in (plain.q, plain.k, plain.v):
        assert_array_equal(matrix[1], matrix[3])
    placed = embed_qkv(tokens, d=32, position=True)
    assert not np.allclose(placed.q[1], placed.q[3])


def test_projections_keep_unit_variance():
    """X has entries of mean square ≈ 1 and X·W entries of variance ≈ 1, with and without
    positions. (Var(q_j) = Σ_i x_i² Var(W_ij) = E[x²]: the mean square is what carries over; the
    slow position columns are nearly constant, so x's variance alone is a little under 1.)"""
    tokens = [chr(0x4E00 + i) for i in range(400)]
    for position in (False, True):
        projection = embed_qkv(tokens, d=256, seed=3, position=position)
        assert abs((projection.x**2).mean() - 1) < 0.05
        for matrix in (projection.q, projection.k, projection.v):
            assert abs(matrix.var() - 1) < 0.08


def test_lab_with_heads_shows_the_chosen_head():
    """heads=12 at d=768: twelve heads of 64; steps is head 5; output is all heads side by side."""
    result = run_lab("我喜欢人工智能", d=768, heads=12, head=5)
    assert len(result.per_head) == 12 and result.steps is result.per_head[5]
    assert result.steps.d_k == 64
    assert result.output.shape == (9, 768)
    assert_allclose(result.mean_weights, np.mean([s.weights for s in result.per_head], axis=0))
    assert_array_equal(result.contrast.scores, result.steps.scores)
    assert not result.contrast.scale


def test_lab_embedding_source_and_the_two_wo():
    """source=embedding: the two 我 attend identically without positions, differently with them."""
    alike = run_lab("我爱我家", source="embedding", position=False)
    apart = run_lab("我爱我家", source="embedding", position=True)
    random = run_lab("我爱我家")
    assert alike.repeats == (("我", (1, 3), 0.0),)
    assert apart.repeats[0][2] > 1e-3 and random.repeats[0][2] > 1e-3
    assert alike.projection is not None and random.projection is None


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"heads": 2, "head": 2}, "head"),
        ({"source": "glove"}, "source"),
        ({"d": 10, "heads": 3}, "heads"),
    ],
)
def test_lab_rejects_bad_head_settings(kwargs, message):
    """A head outside the heads, an unknown source, or heads not dividing d: ValueError."""
    with pytest.raises(ValueError, match=message):
        run_lab("我", **kwargs)
