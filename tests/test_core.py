"""The core contract: tokenize, make_qkv, attention, softmax, masks and row statistics."""

import math
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from viz_core import (
    CLS,
    PAD,
    SEP,
    attention,
    causal_mask,
    make_qkv,
    pad_tokens,
    padding_mask,
    row_stats,
    run_lab,
    softmax,
    tokenize,
)


def reference_attention(q, k, v, scale, allowed):
    """Plain loops, straight from the formula, for comparison with the vectorised core."""
    n, d_k = len(q), len(q[0])
    m, d_v = len(k), len(v[0])
    weights = [[0.0] * m for _ in range(n)]
    output = [[0.0] * d_v for _ in range(n)]
    for i in range(n):
        row = []
        for j in range(m):
            score = sum(q[i][t] * k[j][t] for t in range(d_k))
            if scale:
                score /= math.sqrt(d_k)
            row.append(score if allowed[i][j] else None)
        finite = [s for s in row if s is not None]
        if not finite:
            continue
        top = max(finite)
        exps = [math.exp(s - top) if s is not None else 0.0 for s in row]
        total = sum(exps)
        for j in range(m):
            weights[i][j] = exps[j] / total
            for t in range(d_v):
                output[i][t] += weights[i][j] * v[j][t]
    return np.array(weights), np.array(output)


# --- tokenize -------------------------------------------------------------------------------


def test_tokenize_contract_examples():
    """The two examples of the contract, verbatim."""
    assert tokenize("我喜欢人工智能") == [CLS, "我", "喜", "欢", "人", "工", "智", "能", SEP]
    content = ["我", "喜", "欢", "人", "工", "智", "能"]
    assert tokenize("我喜欢人工智能", special_tokens=False) == content


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Hi you", ["H", "i", "y", "o", "u"]),  # Latin letters, whitespace dropped
        ("我爱我家", ["我", "爱", "我", "家"]),  # repeated characters stay separate tokens
        ("👍🏽", ["👍🏽"]),  # emoji with a skin tone
        ("🇨🇳🇬🇧", ["🇨🇳", "🇬🇧"]),  # two flags, not four regional indicators
        ("👨\u200d👩\u200d👧", ["👨\u200d👩\u200d👧"]),  # ZWJ family
        ("e\u0301a", ["e\u0301", "a"]),  # combining acute accent stays on its letter
        ("한국어", ["한", "국", "어"]),  # Hangul syllables
        (" \t\n\u3000\u00a0", []),  # every kind of blank, the ideographic space included
        ("", []),
        ("a\u202eb\x00c", ["a", "b", "c"]),  # bidi override and NUL are invisible: dropped
        ("\ud800x", ["x"]),  # a lone surrogate cannot reach a browser: dropped
        ("<b>&", ["<", "b", ">", "&"]),  # markup is just characters
    ],
)
def test_tokenize_cases(text, expected):
    """One token per user-perceived character; blanks and invisible characters dropped."""
    assert tokenize(text, special_tokens=False) == expected
    assert tokenize(text) == [CLS, *expected, SEP]


def test_pad_tokens_reaches_a_multiple_with_at_least_two_pads():
    """9 tokens → 12, 10 → 12, 11 → 16 (at least two pads, so padding is always visible)."""
    for n, padded in [(9, 12), (10, 12), (11, 16), (2, 4)]:
        tokens = pad_tokens(["x"] * n)
        assert len(tokens) == padded
        assert tokens[:n] == ["x"] * n
        assert set(tokens[n:]) == {PAD}


# --- make_qkv -------------------------------------------------------------------------------


def test_make_qkv_shapes_and_determinism():
    """Three (n, d) arrays, identical for the same (tokens, d, seed), different for another seed."""
    tokens = tokenize("我喜欢人工智能")
    q, k, v = make_qkv(tokens, d=64, seed=0)
    assert q.shape == k.shape == v.shape == (9, 64)
    again = make_qkv(tokens, d=64, seed=0)
    for a, b in zip((q, k, v), again, strict=True):
        assert_array_equal(a, b)
    other = make_qkv(tokens, d=64, seed=1)
    assert not np.allclose(q, other[0])
    assert not np.allclose(q, k) and not np.allclose(k, v)


def test_make_qkv_entries_have_mean_0_and_variance_1():
    """Entries are standard: over 3 × 200 × 512 draws, mean ≈ 0 and variance ≈ 1."""
    q, k, v = make_qkv(["x"] * 200, d=512, seed=3)
    x = np.stack([q, k, v])
    assert abs(x.mean()) < 0.01
    assert abs(x.var() - 1) < 0.01


def test_make_qkv_rows_do_not_depend_on_later_tokens():
    """Appending [PAD]s leaves the earlier rows as they were."""
    short = make_qkv(["a", "b", "c"], d=8, seed=5)
    long = make_qkv(["a", "b", "c", PAD, PAD], d=8, seed=5)
    for a, b in zip(short, long, strict=True):
        assert_array_equal(a, b[:3])


@pytest.mark.parametrize("d", [0, -1, 8193, 2.5, True])
def test_make_qkv_rejects_bad_d(d):
    """d must be a whole number in 1 … 8192: a ValueError with a sentence, not a crash."""
    with pytest.raises(ValueError, match="d must be"):
        make_qkv(["a"], d=d)


# --- softmax --------------------------------------------------------------------------------


def test_softmax_is_stable_for_huge_inputs():
    """softmax([1000, 999]) is finite and exact: [1/(1+e^-1), e^-1/(1+e^-1)]."""
    expected = [1 / (1 + math.exp(-1)), math.exp(-1) / (1 + math.exp(-1))]
    assert_allclose(softmax([1000.0, 999.0]), expected, rtol=1e-15)


def test_softmax_of_the_largest_floats_is_exact_and_silent():
    """Scores a float's whole range apart: x − max overflows to −∞, and e^−∞ = 0 is the exact
    weight, so numpy's overflow warning would be noise (hypothesis found such inputs)."""
    big = np.finfo(np.float64).max
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        weights = softmax([-big, big, big / 2])
    assert_array_equal(weights, [0.0, 1.0, 0.0])


def test_softmax_minus_inf_gives_zero_and_all_minus_inf_gives_zeros():
    """-inf entries get exactly 0; a row of only -inf gets all zeros, never NaN."""
    assert_array_equal(softmax([0.0, -np.inf, 0.0]), [0.5, 0.0, 0.5])
    assert_array_equal(softmax([-np.inf, -np.inf]), [0.0, 0.0])


def test_softmax_plus_inf_shares_the_weight():
    """+inf entries share all the weight (the limit), instead of inf/inf = NaN."""
    assert_array_equal(softmax([np.inf, 3.0, np.inf]), [0.5, 0.0, 0.5])


def test_softmax_along_an_axis():
    """axis=0 normalises columns."""
    x = np.array([[1.0, 2.0], [3.0, 2.0]])
    assert_allclose(softmax(x, axis=0).sum(axis=0), [1.0, 1.0])
    assert_allclose(softmax(x, axis=0), softmax(x.T, axis=-1).T)


def test_softmax_rejects_nan():
    """NaN has no meaning as a score: a clear ValueError."""
    with pytest.raises(ValueError, match="NaN"):
        softmax([1.0, np.nan])


def test_softmax_is_shift_invariant():
    """Adding a constant to every score changes nothing: why subtracting the max is allowed."""
    x = np.array([0.3, -1.2, 2.5])
    assert_allclose(softmax(x), softmax(x + 100.0), rtol=1e-12)


# --- attention ------------------------------------------------------------------------------


def _random_mask(rng, n, m):
    allowed = rng.random((n, m)) < 0.6
    allowed[0] = False  # one row with nothing allowed
    return allowed


@pytest.mark.parametrize("scale", [True, False])
@pytest.mark.parametrize("mask_kind", ["none", "causal", "padding", "random"])
def test_attention_matches_plain_loop_reference(scale, mask_kind):
    """The vectorised core equals a plain-loop implementation for every mask and scaling."""
    rng = np.random.default_rng(7)
    n, d_k, d_v = 6, 5, 4
    q, k, v = rng.normal(size=(n, d_k)), rng.normal(size=(n, d_k)), rng.normal(size=(n, d_v))
    mask = {
        "none": None,
        "causal": "causal",
        "padding": padding_mask(["a", "b", "c", "d", PAD, PAD]),
        "random": _random_mask(rng, n, n),
    }[mask_kind]
    steps = attention(q, k, v, scale=scale, mask=mask)
    weights, output = reference_attention(q.tolist(), k.tolist(), v.tolist(), scale, steps.allowed)
    assert_allclose(steps.weights, weights, rtol=1e-12, atol=1e-15)
    assert_allclose(steps.output, output, rtol=1e-12, atol=1e-15)


def test_attention_steps_are_the_formula():
    """scores = q kᵀ, scaled = scores / √d_k, masked = scaled with -inf, output = weights v."""
    rng = np.random.default_rng(0)
    q, k, v = rng.normal(size=(4, 16)), rng.normal(size=(4, 16)), rng.normal(size=(4, 3))
    steps = attention(q, k, v, mask="causal")
    assert_allclose(steps.scores, q @ k.T)
    assert_allclose(steps.scaled, q @ k.T / 4.0)
    assert np.isneginf(steps.masked[np.triu_indices(4, 1)]).all()
    assert_array_equal(steps.masked[np.tril_indices(4)], steps.scaled[np.tril_indices(4)])
    assert_allclose(steps.output, steps.weights @ v)
    assert steps.d_k == 16 and steps.divisor == 4.0


def test_unscaled_attention_leaves_scores_alone():
    """scale=False: scaled is exactly scores."""
    rng = np.random.default_rng(1)
    q, k = rng.normal(size=(3, 8)), rng.normal(size=(3, 8))
    steps = attention(q, k, k, scale=False)
    assert_array_equal(steps.scaled, steps.scores)


def test_rows_sum_to_one_and_masked_cells_are_exactly_zero():
    """Each row sums to 1; every masked cell is exactly 0."""
    q, k, v = make_qkv(tokenize("我喜欢人工智能"), d=64, seed=0)
    steps = attention(q, k, v, mask="causal")
    assert_allclose(steps.weights.sum(axis=1), 1.0, rtol=1e-15)
    assert (steps.weights[~causal_mask(9)] == 0.0).all()


def test_fully_masked_row_gives_zero_weights_and_zero_output():
    """A row with nothing allowed: weights exactly 0, output exactly 0, never NaN."""
    allowed = np.ones((3, 3), dtype=bool)
    allowed[1] = False
    q, k, v = make_qkv(["a", "b", "c"], d=4)
    steps = attention(q, k, v, mask=allowed)
    assert_array_equal(steps.weights[1], 0.0)
    assert_array_equal(steps.output[1], 0.0)
    assert not np.isnan(steps.weights).any() and not np.isnan(steps.output).any()


def test_result_is_frozen():
    """The result cannot be changed: neither its fields nor its arrays."""
    q, k, v = make_qkv(["a", "b"], d=4)
    steps = attention(q, k, v)
    with pytest.raises(AttributeError):
        steps.weights = None  # type: ignore[misc]
    with pytest.raises(ValueError):
        steps.weights[0, 0] = 1.0


def test_temperature_one_changes_nothing_and_two_halves_the_scores():
    """temperature=1 is the plain computation; temperature=2 divides the scaled scores by 2."""
    q, k, v = make_qkv(["a", "b", "c"], d=8, seed=2)
    plain = attention(q, k, v)
    assert_array_equal(attention(q, k, v, temperature=1.0).weights, plain.weights)
    assert_allclose(attention(q, k, v, temperature=2.0).scaled, plain.scaled / 2)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"mask": "future"}, "Unknown mask"),
        ({"mask": np.ones((2, 2), dtype=int)}, "boolean"),
        ({"mask": np.ones((3, 3), dtype=bool)}, "shape"),
        ({"temperature": 0.0}, "temperature"),
        ({"temperature": float("nan")}, "temperature"),
    ],
)
def test_attention_rejects_bad_arguments_with_a_sentence(kwargs, message):
    """Bad masks and temperatures raise ValueError that says what is wrong."""
    q, k, v = make_qkv(["a", "b"], d=4)
    with pytest.raises(ValueError, match=message):
        attention(q, k, v, **kwargs)


def test_attention_rejects_mismatched_shapes():
    """q and k must share d_k; k and v one row per key."""
    with pytest.raises(ValueError, match="same width"):
        attention(np.ones((2, 3)), np.ones((2, 4)), np.ones((2, 4)))
    with pytest.raises(ValueError, match="one row per key"):
        attention(np.ones((2, 3)), np.ones((2, 3)), np.ones((3, 3)))


def test_masks():
    """Causal: lower triangle. Padding: every query sees exactly the non-pad keys."""
    assert_array_equal(causal_mask(3), [[1, 0, 0], [1, 1, 0], [1, 1, 1]])
    allowed = padding_mask(["a", "b", PAD])
    assert_array_equal(allowed, [[1, 1, 0]] * 3)


# --- row statistics -------------------------------------------------------------------------


def test_row_stats_of_uniform_one_hot_and_empty_rows():
    """Uniform over 4: entropy ln 4, 4 effective tokens; one-hot: 0 and 1; empty row: all 0."""
    stats = row_stats([[0.25] * 4, [0.0, 1.0, 0.0, 0.0], [0.0] * 4])
    assert_allclose(stats.entropy, [math.log(4), 0.0, 0.0], atol=1e-15)
    assert_allclose(stats.effective_tokens, [4.0, 1.0, 0.0])
    assert_allclose(stats.max_weight, [0.25, 1.0, 0.0])
    assert_allclose(stats.row_sum, [1.0, 1.0, 0.0])


# --- the lab computation --------------------------------------------------------------------


def test_run_lab_is_make_qkv_of_the_tokens():
    """The lab's Q/K/V are exactly make_qkv(tokenize(text, special), d, seed)."""
    result = run_lab("我喜欢人工智能", d=64, seed=4)
    q, k, v = make_qkv(tokenize("我喜欢人工智能"), d=64, seed=4)
    assert_array_equal(result.steps.q, q)
    assert_array_equal(result.steps.k, k)
    assert_array_equal(result.steps.v, v)
    assert result.n_content == 7 and result.n_dropped == 0


def test_run_lab_contrast_is_the_other_scaling_of_the_same_qk():
    """contrast uses the same Q and K with scaling toggled."""
    result = run_lab("我喜欢", scale=True)
    assert result.scaled is result.steps and result.unscaled is result.contrast
    assert_array_equal(result.contrast.scores, result.steps.scores)
    assert_array_equal(result.contrast.scaled, result.steps.scores)
    flipped = run_lab("我喜欢", scale=False)
    assert flipped.unscaled is flipped.steps
    assert_array_equal(flipped.scaled.weights, result.steps.weights)


def test_run_lab_padding_adds_pads_no_query_attends_to():
    """mask="padding": [PAD]s appended and every query gives them weight 0."""
    result = run_lab("我喜欢人工智能", mask="padding")
    assert result.tokens[-3:] == (PAD, PAD, PAD) and len(result.tokens) == 12
    assert (result.steps.weights[:, 9:] == 0.0).all()
    assert_allclose(result.steps.weights.sum(axis=1), 1.0)


def test_run_lab_caps_long_text():
    """20,000 characters are cut to the cap, [CLS] and [SEP] kept, and the cut is counted."""
    result = run_lab("字" * 20_000, d=8, max_tokens=32)
    assert len(result.tokens) == 32
    assert result.tokens[0] == CLS and result.tokens[-1] == SEP
    assert result.n_content == 30 and result.n_dropped == 19_970


def test_run_lab_rejects_unknown_mask():
    """An unknown mask id is a ValueError."""
    with pytest.raises(ValueError, match="Unknown mask"):
        run_lab("我", mask="sideways")


def test_contributions_sum_to_the_output_row():
    """weights[i, j] · v[j] summed over j is output[i]: the article's weighted sum."""
    steps = run_lab("我喜欢人工智能").steps
    contributions = steps.contributions(2)
    assert contributions.shape == (9, 64)
    assert_allclose(contributions.sum(axis=0), steps.output[2], rtol=1e-12, atol=1e-15)
    assert_allclose(contributions[1], steps.weights[2, 1] * steps.v[1])


def test_each_mask_vocabulary_lists_exactly_what_its_function_accepts():
    """attention() takes the names in ATTENTION_MASKS (padding needs the tokens, so it is an
    array there); run_lab takes those in MASK_KINDS. Every listed name works; others are refused
    with a message that lists the accepted ones."""
    from viz_core import ATTENTION_MASKS, MASK_KINDS

    q = np.eye(3)
    for kind in ATTENTION_MASKS:
        attention(q, q, q, mask=kind)
    for kind in MASK_KINDS:
        run_lab("我爱你", mask=kind)
    for kind in set(MASK_KINDS) - set(ATTENTION_MASKS):
        with pytest.raises(ValueError, match="use None, 'none', 'causal'"):
            attention(q, q, q, mask=kind)
