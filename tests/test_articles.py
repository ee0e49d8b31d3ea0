"""The articles' worked examples (../shared/seeds/), recomputed by the core.

Where an article printed a number the computation does not give, the test asserts the computed
value and its docstring quotes what the article printed.
"""

import math

import numpy as np
from numpy.testing import assert_allclose

from viz_core import attention, cross_entropy_gradient, run_lab, softmax, softmax_breakdown

XI_RAW = [15.3, 22.7, 18.2, 2.1, 1.8, 3.2, 2.9, 5.6, 4.1]  # "喜" row of the 9×9 example


def test_softmax_of_2_1_01():
    """Article 1: e^2 = 7.389, e^1 = 2.718, e^0.1 = 1.105, Σ = 11.212 → [0.659, 0.242, 0.099].

    Σ is 11.2125 (11.212 is the sum of the rounded exps); the weights agree to 3 dp.
    """
    breakdown = softmax_breakdown([2.0, 1.0, 0.1])  # the softmax lesson's table
    assert_allclose(breakdown.naive_exps, [7.389, 2.718, 1.105], atol=5e-4)
    assert math.isclose(breakdown.naive_total, 11.2125, abs_tol=1e-4)
    assert_allclose(breakdown.probs, [0.659, 0.242, 0.099], atol=5e-4)


def test_xi_row_scaled_by_8():
    """Article 2, "喜" row ÷ √64: scaled, exps, Σ = 42.73 and weights [0.16, 0.40, 0.23, …].

    The article prints Σ = 42.73; the sum is 42.7354 (it truncated). The weights agree to 2 dp.
    """
    breakdown = softmax_breakdown(XI_RAW, divisor=8)  # the softmax lesson's table
    scaled = breakdown.scaled
    assert_allclose(scaled, [1.9125, 2.8375, 2.275, 0.2625, 0.225, 0.4, 0.3625, 0.7, 0.5125])
    exps = [6.77, 17.07, 9.73, 1.30, 1.25, 1.49, 1.44, 2.01, 1.67]
    assert_allclose(breakdown.naive_exps, exps, atol=6e-3)
    assert math.isclose(breakdown.naive_total, 42.7354, abs_tol=1e-4)
    weights = breakdown.probs
    assert_allclose(weights, [0.16, 0.40, 0.23, 0.03, 0.03, 0.03, 0.03, 0.05, 0.04], atol=5e-3)
    assert_allclose(weights.sum(), 1.0)


def test_xi_row_raw_is_nearly_one_hot():
    """Without ÷8 the "喜" row puts 98.8 % on 喜 itself: "winner takes all"."""
    weights = softmax(XI_RAW)
    assert_allclose(weights[:3], [0.000604, 0.988415, 0.010980], atol=1e-6)
    assert weights[3:].max() < 4e-8


def test_code_example_unscaled_five_scores():
    """Article 2's code prints [0.001, 0.997, 0.002, ≈0, ≈0] for [15.3, 22.7, 18.2, 2.1, 1.8].

    Computed: [0.0006, 0.9884, 0.0110, ≈0, ≈0]; the article's 0.997 and 0.002 are wrong.
    """
    weights = softmax([15.3, 22.7, 18.2, 2.1, 1.8])
    assert_allclose(weights[:3], [0.000604, 0.988416, 0.010980], atol=1e-6)


def test_code_example_scaled_five_scores():
    """Article 2 prints [0.187, 0.473, 0.270, 0.036, 0.035]; the third is 0.2693, so 0.269."""
    weights = softmax(np.array([15.3, 22.7, 18.2, 2.1, 1.8]) / 8)
    assert_allclose(weights, [0.187413, 0.472630, 0.269297, 0.035993, 0.034668], atol=1e-6)


def test_winner_takes_all_20_10_1():
    """Article 1 prints softmax([20, 10, 1]) ≈ [0.99998, 0.00005, 0.00000]; the first is 0.99995."""
    weights = softmax([20.0, 10.0, 1.0])
    assert math.isclose(math.exp(20), 485_165_195, rel_tol=1e-9)
    assert_allclose(weights, [0.999955, 0.0000454, 0.0000000056], rtol=1e-3)


def test_near_uniform_002_001_001():
    """Article 1 prints [0.337, 0.332, 0.332]; computed [0.3356, 0.3322, 0.3322], so 0.336."""
    assert_allclose(softmax([0.02, 0.01, 0.01]), [0.335559, 0.332220, 0.332220], atol=1e-6)


def test_10_11_9_is_mild():
    """Article 2: Σ = 90003, P = [0.245, 0.665, 0.090]."""
    breakdown = softmax_breakdown([10.0, 11.0, 9.0])
    assert math.isclose(breakdown.naive_total, 90003.69, abs_tol=0.01)
    assert_allclose(breakdown.probs, [0.245, 0.665, 0.090], atol=5e-4)


def test_40_44_36_is_nearly_one_hot():
    """Article 2: e^40 ≈ 2.35e17, e^44 ≈ 1.29e19, Σ ≈ 1.31e19, P = [0.018, 0.982, 0.0003]."""
    breakdown = softmax_breakdown([40.0, 44.0, 36.0])
    assert_allclose(breakdown.naive_exps, [2.35e17, 1.29e19, 4.31e15], rtol=4e-3)
    weights = breakdown.probs
    printed = [round(weights[0], 3), round(weights[1], 3), round(weights[2], 4)]
    assert printed == [0.018, 0.982, 0.0003]
    # exp(44) / exp(36) ≈ e⁸ ≈ 2980: the stable table's e^(x − max) holds the same ratio.
    assert math.isclose(breakdown.exps[1] / breakdown.exps[2], 2981, rel_tol=1e-3)


def test_20_minus10_5_raw_and_gradient():
    """Article 2 prints [0.9999, 0.0000, 0.0001] and gradient ≈ [-0.0001, 0, 0].

    Computed: [0.9999997, 9e-14, 3.1e-7]: the third weight is 3e-7, not 1e-4, and the gradient is
    [-3.1e-7, 9e-14, 3.1e-7], even closer to zero than printed.
    """
    weights = softmax([20.0, -10.0, 5.0])
    assert_allclose(weights, [1 - 3.059023e-7, 9.357623e-14, 3.059022e-7], rtol=1e-6)
    gradient = cross_entropy_gradient(weights, target=0)  # the softmax lesson's gradient
    assert_allclose(gradient, weights - np.array([1.0, 0.0, 0.0]))
    assert np.abs(gradient).max() < 1e-6


def test_20_minus10_5_scaled_by_8():
    """Article 2 prints [2.5, -1.25, 0.625] → [0.76, 0.02, 0.22], gradient [-0.24, 0.02, 0.22].

    Computed: [0.850, 0.020, 0.130], gradient [-0.150, 0.020, 0.130]. The article is wrong;
    its conclusion (distinct but not extreme) still holds.
    """
    scaled = np.array([20.0, -10.0, 5.0]) / 8
    assert_allclose(scaled, [2.5, -1.25, 0.625])
    weights = softmax(scaled)
    assert_allclose(weights, [0.849710, 0.019983, 0.130307], atol=1e-6)
    gradient = cross_entropy_gradient(weights, target=0)
    assert_allclose(gradient, [-0.150290, 0.019983, 0.130307], atol=1e-6)


def test_dot_products_of_halves_grow_with_d():
    """Article 2: q = k = [0.5, …]: q·k = 0.5 for d = 2, 1.0 for d = 4, 16.0 for d = 64."""
    for d, expected in [(2, 0.5), (4, 1.0), (64, 16.0)]:
        steps = attention(np.full((1, d), 0.5), np.full((1, d), 0.5), np.ones((1, 1)), scale=False)
        assert steps.scores[0, 0] == expected


def test_sqrt_d_figures():
    """Article 1: the lab divides by √d ≈ 39.2 at d = 1536 and ≈ 78.4 at 6144, and the scores it
    divides spread that much; BERT-base's heads (768 / 12) divide by √64 = 8."""
    for d, printed in [(1536, 39.2), (6144, 78.4)]:
        result = run_lab("我喜欢人工智能", d=d)
        assert round(result.steps.divisor, 1) == printed
        assert abs(result.std_scores / printed - 1) < 0.35  # 81 scores: a rough spread
    assert run_lab("我喜欢人工智能", d=768, heads=12).steps.divisor == 8


def test_weighted_sum_of_values():
    """Article 2: 0.16·V(我) + 0.40·V(喜) + 0.23·V(欢), first three dimensions, as printed."""
    v = np.array([[0.31, -0.12, 0.45], [0.42, 0.15, -0.08], [0.05, 0.28, -0.18]])
    contributions = np.array([0.16, 0.40, 0.23])[:, None] * v
    assert_allclose(
        contributions,
        [[0.050, -0.019, 0.072], [0.168, 0.060, -0.032], [0.012, 0.064, -0.041]],
        atol=6e-4,
    )
