"""Property-based tests of the core (Hypothesis): no input makes it produce NaN or crash."""

import unicodedata

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from viz_core import CLS, SEP, attention, make_qkv, run_lab, softmax, tokenize

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
magnitudes = st.sampled_from([1e-300, 1e-8, 1.0, 1e8, 1e100])


@FAST
@given(st.text())
def test_tokenize_never_raises_and_wraps_visible_characters(text):
    """Any Unicode text: [CLS] … [SEP], no blank tokens, and the tokens, joined, are the text
    with only whitespace and invisible characters left out: nothing added, reordered or lost."""
    tokens = tokenize(text)
    assert tokens[0] == CLS and tokens[-1] == SEP
    content = tokens[1:-1]
    assert all(token.strip() for token in content)
    joined = "".join(content)
    rest = iter(text)
    assert all(ch in rest for ch in joined)  # the tokens, in order, are the text's own
    visible = [ch for ch in text if unicodedata.category(ch)[0] in "LNPS"]
    assert all(ch in joined for ch in visible)  # and no letter, digit or sign is lost
    assert tokenize(text) == tokens
    assert tokenize(text, special_tokens=False) == content


@st.composite
def problems(draw):
    """q, k, v with any small shapes, magnitudes from tiny to huge, and any kind of mask."""
    n = draw(st.integers(1, 7))
    m = draw(st.integers(1, 7))
    d = draw(st.integers(1, 12))
    scale = draw(magnitudes)
    elements = st.floats(-1, 1, allow_nan=False)
    q = draw(hnp.arrays(np.float64, (n, d), elements=elements)) * scale
    k = draw(hnp.arrays(np.float64, (m, d), elements=elements)) * scale
    v = draw(hnp.arrays(np.float64, (m, draw(st.integers(1, 5))), elements=elements))
    kind = draw(st.sampled_from(["none", "causal", "random", "empty_row"]))
    mask = {"none": None, "causal": "causal"}.get(kind)
    if kind in ("random", "empty_row"):
        mask = draw(hnp.arrays(np.bool_, (n, m)))
        if kind == "empty_row":
            mask[draw(st.integers(0, n - 1))] = False
    return q, k, v, mask


@FAST
@given(problems(), st.booleans(), st.sampled_from([0.05, 1.0, 20.0]))
def test_attention_never_gives_nan_and_rows_sum_to_one_or_zero(problem, scale, temperature):
    """Every shape, magnitude and mask: right shapes, no NaN, rows sum to 1 or are all 0."""
    q, k, v, mask = problem
    steps = attention(q, k, v, scale=scale, mask=mask, temperature=temperature)
    n, m = len(q), len(k)
    assert steps.weights.shape == (n, m) and steps.output.shape == (n, v.shape[1])
    assert not np.isnan(steps.weights).any() and not np.isnan(steps.output).any()
    sums = steps.weights.sum(axis=1)
    allowed_rows = steps.allowed.any(axis=1)
    np.testing.assert_allclose(sums[allowed_rows], 1.0, rtol=1e-12)
    assert (sums[~allowed_rows] == 0).all()
    assert (steps.weights[~steps.allowed] == 0).all()
    again = attention(q, k, v, scale=scale, mask=mask, temperature=temperature)
    np.testing.assert_array_equal(again.weights, steps.weights)


@FAST
@given(
    hnp.arrays(
        np.float64,
        hnp.array_shapes(min_dims=1, max_dims=2, max_side=6),
        elements=st.floats(allow_nan=False, allow_infinity=True),
    )
)
def test_softmax_of_any_numbers_and_infinities(x):
    """Any finite or infinite scores: no NaN; each row sums to 1, or 0 when all are −∞."""
    p = softmax(x)
    assert p.shape == x.shape and not np.isnan(p).any()
    assert (p >= 0).all()
    sums = p.sum(axis=-1)
    all_minus_inf = np.isneginf(x).all(axis=-1)
    np.testing.assert_allclose(sums[~all_minus_inf], 1.0, rtol=1e-12)
    assert (sums[all_minus_inf] == 0).all()


@settings(max_examples=40, deadline=None)
@given(
    st.text(max_size=60),
    st.integers(1, 8192),
    st.sampled_from(["none", "causal", "padding"]),
    st.integers(0, 2**31 - 1),
    st.booleans(),
)
def test_the_lab_computation_for_any_settings(text, d, mask, seed, special):
    """run_lab with any text, d, mask and seed: no NaN, rows sum to 1, deterministic."""
    result = run_lab(text, special=special, d=d, mask=mask, seed=seed)
    weights = result.steps.weights
    assert weights.shape == (len(result.tokens),) * 2
    assert not np.isnan(weights).any()
    attends = result.steps.allowed.any(axis=1)  # only [PAD]s (blank text, padding): nothing
    np.testing.assert_allclose(weights.sum(axis=1)[attends], 1.0, rtol=1e-12)
    assert (weights[~attends] == 0).all()
    np.testing.assert_array_equal(
        run_lab(text, special=special, d=d, mask=mask, seed=seed).steps.weights, weights
    )


@FAST
@given(st.lists(st.text(max_size=3), max_size=5), st.integers(1, 64), st.integers(0, 10**6))
def test_make_qkv_is_deterministic_with_unit_scale(tokens, d, seed):
    """Same (tokens, d, seed) → same arrays; finite values."""
    first = make_qkv(tokens, d=d, seed=seed)
    second = make_qkv(tokens, d=d, seed=seed)
    for a, b in zip(first, second, strict=True):
        np.testing.assert_array_equal(a, b)
        assert a.shape == (len(tokens), d) and np.isfinite(a).all()
