"""Core functions of the lesson pages: softmax breakdown, gradients, the √d experiments, quiz."""

import math
import tracemalloc

import numpy as np
import pytest
from numpy.testing import assert_allclose

from viz_core import (
    QUESTION_KINDS,
    cross_entropy_gradient,
    dot_product_variance,
    jacobian_norm,
    make_quiz,
    sample_dot_products,
    saturation,
    sharpening,
    softmax,
    softmax_breakdown,
    softmax_jacobian,
)

# --- softmax breakdown ----------------------------------------------------------------------


def test_breakdown_columns_of_the_articles_table():
    """x, x − max, eˣ, Σ and p for [2.0, 1.0, 0.1]: the stable columns times e^max are eˣ."""
    b = softmax_breakdown([2.0, 1.0, 0.1])
    assert_allclose(b.shifted, [0.0, -1.0, -1.9])
    assert_allclose(b.exps * math.exp(2.0), [7.389056, 2.718282, 1.105171], atol=1e-6)
    assert_allclose(b.naive_exps, np.exp([2.0, 1.0, 0.1]))
    assert math.isclose(b.naive_total, 11.212509, abs_tol=1e-6)
    assert_allclose(b.probs, [0.659001, 0.242433, 0.098566], atol=1e-6)
    assert_allclose(b.probs, b.naive_probs, rtol=1e-15)


def test_breakdown_with_a_divisor_is_the_xi_row_over_8():
    """divisor 8: the "喜" row scaled as in the article, Σ e^(x/8) = 42.7354."""
    b = softmax_breakdown([15.3, 22.7, 18.2, 2.1, 1.8, 3.2, 2.9, 5.6, 4.1], divisor=8)
    assert_allclose(b.scaled[:3], [1.9125, 2.8375, 2.275])
    assert math.isclose(b.naive_total, 42.7354, abs_tol=1e-4)
    assert_allclose(b.probs.sum(), 1.0)


def test_naive_softmax_overflows_where_the_stable_one_is_exact():
    """[1000, 999]: e^1000 overflows to inf and inf/inf is NaN; the shifted form is exact."""
    b = softmax_breakdown([1000.0, 999.0])
    assert np.isinf(b.naive_exps).all() and math.isinf(b.naive_total)
    assert np.isnan(b.naive_probs).all()
    assert_allclose(b.probs, [1 / (1 + math.exp(-1)), 1 / (1 + math.exp(1))], rtol=1e-15)


@pytest.mark.parametrize(
    ("values", "divisor"), [([], 1.0), ([1.0, float("nan")], 1.0), ([1.0], 0.0), ([1.0], -2.0)]
)
def test_breakdown_rejects_bad_input(values, divisor):
    """Empty lists, NaN and non-positive divisors are ValueErrors with a sentence."""
    with pytest.raises(ValueError):
        softmax_breakdown(values, divisor)


# --- gradients ------------------------------------------------------------------------------


@pytest.mark.parametrize("x", [[2.0, 1.0, 0.1], [2.5, -1.25, 0.625], [0.3, 0.3, 0.3, -4.0]])
def test_jacobian_matches_finite_differences(x):
    """∂p_i/∂x_j from the formula equals central finite differences of softmax."""
    x = np.array(x)
    h = 1e-6
    numeric = np.column_stack(
        [(softmax(x + h * e) - softmax(x - h * e)) / (2 * h) for e in np.eye(len(x))]
    )
    assert_allclose(softmax_jacobian(softmax(x)), numeric, atol=1e-9)


def test_jacobian_norm_is_the_frobenius_norm_of_the_jacobian():
    """The closed form equals the norm of the explicit matrix, row by row."""
    p = softmax(np.random.default_rng(0).normal(size=(5, 7)) * 3)
    expected = [np.linalg.norm(softmax_jacobian(row)) for row in p]
    assert_allclose(jacobian_norm(p), expected, rtol=1e-12)


def test_gradient_is_p_minus_one_hot_and_vanishes_near_one_hot():
    """Article 2: ÷8 gives [−0.150, 0.020, 0.130]; raw [20, −10, 5] gives ≈ 0 everywhere."""
    assert_allclose(
        cross_entropy_gradient(softmax([2.5, -1.25, 0.625]), 0),
        [-0.150290, 0.019983, 0.130307],
        atol=1e-6,
    )
    assert np.abs(cross_entropy_gradient(softmax([20.0, -10.0, 5.0]), 0)).max() < 1e-6
    with pytest.raises(ValueError):
        cross_entropy_gradient([0.5, 0.5], 2)


# --- the √d experiment ----------------------------------------------------------------------


def test_variance_of_q_dot_k_is_d_for_standard_normal_entries():
    """Var(q·k) ≈ d (within 10 % at 4,000 samples) and Var(q·k/√d) ≈ 1, for d = 1 … 8192."""
    experiment = dot_product_variance(samples=4000, seed=1)
    assert_allclose(experiment.var_raw / np.array(experiment.ds), 1.0, rtol=0.1)
    assert_allclose(experiment.var_scaled, 1.0, rtol=0.1)
    assert_allclose(experiment.theory_raw, experiment.ds)


def test_variance_is_d_over_9_for_uniform_entries():
    """Entries uniform on [−1, 1] have variance 1/3, so Var(q·k) = d/9 (the first article)."""
    experiment = dot_product_variance(ds=(16, 256, 4096), samples=4000, distribution="uniform")
    assert_allclose(experiment.var_raw / (np.array(experiment.ds) / 9), 1.0, rtol=0.1)
    assert_allclose(experiment.var_scaled, 1 / 9, rtol=0.1)


def test_sampling_is_memory_bounded():
    """d = 8192 with 3,000 samples never holds more than max_floats random numbers at once."""
    max_floats = 1 << 16
    tracemalloc.start()
    dots = sample_dot_products(8192, 3000, max_floats=max_floats)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert dots.shape == (3000,)
    assert peak < 3 * 8 * max_floats + 8 * 3000 + 100_000  # q and k chunks, the result, slack
    assert 0.85 < dots.var() / 8192 < 1.15


def test_sampling_is_deterministic():
    """The same seed gives the same samples; another seed different ones."""
    a = sample_dot_products(64, 100, seed=3)
    assert_allclose(a, sample_dot_products(64, 100, seed=3))
    assert not np.allclose(a, sample_dot_products(64, 100, seed=4))


def test_unknown_distribution_and_bad_d_are_errors():
    """Distribution and d are checked with a sentence."""
    with pytest.raises(ValueError, match="distribution"):
        sample_dot_products(4, 10, distribution="cauchy")
    with pytest.raises(ValueError, match="d must be"):
        sample_dot_products(0, 10)


def test_without_scaling_softmax_saturates_and_gradients_vanish():
    """Unscaled: mean max weight → 1 and gradient → 0 as d grows; scaled: both stay level."""
    curve = saturation(ds=(1, 64, 4096), n=9, trials=300, seed=2)
    assert curve.max_raw[0] < 0.5 < 0.9 < curve.max_raw[-1]
    assert curve.gradient_raw[-1] < 0.1 * curve.gradient_raw[0]
    assert np.ptp(curve.max_scaled) < 0.1 and np.ptp(curve.gradient_scaled) < 0.1
    assert curve.entropy_raw[-1] < 0.2 < 1.5 < curve.entropy_scaled[-1] < math.log(9)


def test_sharpening_rows():
    """One row as d grows: the unscaled row turns into a spike, the scaled one does not."""
    rows = sharpening(ds=(1, 16, 8192), n=9, seed=0)
    assert_allclose(rows.raw.sum(axis=1), 1.0)
    assert_allclose(rows.scaled.sum(axis=1), 1.0)
    assert rows.raw[-1].max() > 0.99
    assert rows.scaled[-1].max() < 0.7


# --- quiz -----------------------------------------------------------------------------------


def test_quiz_is_the_same_for_the_same_seed():
    """A class sharing a seed gets the same numbers; another seed other numbers."""
    assert make_quiz(5) == make_quiz(5)
    assert make_quiz(5) != make_quiz(6)
    assert [q.kind for q in make_quiz(5)] == list(QUESTION_KINDS)


@pytest.mark.parametrize("seed", range(20))
def test_quiz_answers_follow_from_their_numbers(seed):
    """Every answer is recomputed here from the question's numbers, independently."""
    by_kind = {q.kind: q for q in make_quiz(seed)}
    n = by_kind["softmax_by_hand"].numbers
    x = [n["x0"], n["x1"], n["x2"]]
    assert math.isclose(by_kind["softmax_by_hand"].answer, math.exp(x[0]) / sum(map(math.exp, x)))
    spread = by_kind["spread_growth"].numbers
    assert math.isclose(by_kind["spread_growth"].answer, math.sqrt(spread["d2"] / spread["d"]))
    causal = by_kind["causal_count"]
    cells = np.triu(np.ones((int(causal.numbers["n"]),) * 2), k=1).sum()
    assert causal.answer == cells
    grad = by_kind["gradient"].numbers
    g = [grad["x0"], grad["x1"], grad["x2"]]
    p_t = math.exp(g[int(grad["t"])]) / sum(map(math.exp, g))
    assert math.isclose(by_kind["gradient"].answer, p_t - 1)
    two = by_kind["two_scores"]
    assert math.isclose(two.answer, 1 / (1 + math.exp(-two.numbers["delta"])))
    scaled = by_kind["scaled_score"].numbers
    assert math.isclose(by_kind["scaled_score"].answer, scaled["s"] / math.sqrt(scaled["d"]))
    uniform = by_kind["uniform_variance"]
    assert math.isclose(uniform.answer, uniform.numbers["d"] * (1 / 3) ** 2)
    entropy = by_kind["entropy_uniform"]
    n_keys = int(entropy.numbers["n"])
    assert math.isclose(
        entropy.answer, -sum(1 / n_keys * math.log(1 / n_keys) for _ in range(n_keys))
    )
    assert set(by_kind) == set(QUESTION_KINDS)  # every kind was recomputed above


def test_answers_are_checked_with_a_tolerance():
    """A rounded answer is right; a wrong one, None and NaN are not."""
    question = make_quiz(0)[0]
    assert question.is_correct(round(question.answer, 3))
    assert not question.is_correct(question.answer + 0.1)
    assert not question.is_correct(None)
    assert not question.is_correct(float("nan"))
