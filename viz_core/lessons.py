"""What the lesson pages compute: softmax shown step by step, and the √d experiments."""

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, TypeVar

import numpy as np
import numpy.typing as npt

from viz_core.attention import FloatArray, row_stats, softmax

_Result = TypeVar("_Result")


def _read_only(result: _Result) -> _Result:
    """Make every array field of a frozen result read-only: results are shared between sessions."""
    for name in getattr(result, "__dataclass_fields__", {}):
        value = getattr(result, name)
        if isinstance(value, np.ndarray):
            value.setflags(write=False)
    return result


Distribution = Literal["normal", "uniform"]
DISTRIBUTIONS: tuple[Distribution, ...] = ("normal", "uniform")
MAX_FLOATS = 1 << 20  # random numbers drawn at once: 8 MB, whatever d and the sample count
EXPERIMENT_DS: tuple[int, ...] = tuple(2**p for p in range(14))  # 1, 2, 4, … 8192


@dataclass(frozen=True)
class SoftmaxBreakdown:
    """Every column of the articles' softmax table, plus the naive formula for comparison."""

    x: FloatArray  # (n,), the input
    divisor: float
    scaled: FloatArray  # (n,), x / divisor
    shifted: FloatArray  # (n,), scaled − max(scaled): the largest is 0, so exp cannot overflow
    exps: FloatArray  # (n,), e^shifted
    total: float  # Σ exps
    probs: FloatArray  # (n,), exps / total: non-negative, sums to 1
    naive_exps: FloatArray  # (n,), e^scaled without the shift: may be inf
    naive_probs: FloatArray  # (n,), naive_exps / Σ naive_exps: NaN when that is inf / inf
    naive_total: float  # Σ naive_exps: may be inf


def softmax_breakdown(values: Sequence[float], divisor: float = 1.0) -> SoftmaxBreakdown:
    """Softmax of ``values / divisor`` with every intermediate, stable and naive side by side.

    Example:
        >>> softmax_breakdown([2.0, 1.0, 0.1]).probs.round(3).tolist()
        [0.659, 0.242, 0.099]
    """
    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 1 or x.size == 0 or not np.isfinite(x).all():
        raise ValueError("Give at least one number, and only finite numbers.")
    if not (math.isfinite(divisor) and divisor > 0):
        raise ValueError("The divisor must be a positive number.")
    scaled = x / divisor
    shifted = scaled - scaled.max()
    exps = np.exp(shifted)
    total = float(exps.sum())
    probs = exps / total
    with np.errstate(over="ignore", invalid="ignore"):
        naive_exps = np.exp(scaled)
        naive_total = float(naive_exps.sum())
        naive_probs = naive_exps / naive_total
    result = SoftmaxBreakdown(
        x=x,
        divisor=float(divisor),
        scaled=scaled,
        shifted=shifted,
        exps=exps,
        total=total,
        probs=probs,
        naive_exps=naive_exps,
        naive_probs=naive_probs,
        naive_total=naive_total,
    )
    return _read_only(result)


def softmax_jacobian(p: npt.ArrayLike) -> FloatArray:
    """∂p_i/∂x_j = p_i (δ_ij − p_j): near one-hot, every entry is near 0."""
    p = np.asarray(p, dtype=np.float64)
    jacobian: FloatArray = np.diag(p) - np.outer(p, p)
    return jacobian


def cross_entropy_gradient(p: npt.ArrayLike, target: int) -> FloatArray:
    """∂(−ln p_target)/∂x = p − one-hot(target): the gradient the second article computes."""
    gradient = np.array(p, dtype=np.float64)
    if not 0 <= target < gradient.size:
        raise ValueError(f"The target must be a position from 0 to {gradient.size - 1}.")
    gradient[target] -= 1.0
    return gradient


def jacobian_norm(p: npt.ArrayLike) -> FloatArray:
    """Frobenius norm of each row's softmax Jacobian, without building it.

    ‖diag(p) − p pᵀ‖² = Σp² − 2Σp³ + (Σp²)²: how much the weights still respond to the scores.
    """
    p = np.asarray(p, dtype=np.float64)
    p2 = (p**2).sum(axis=-1)
    p3 = (p**3).sum(axis=-1)
    norm: FloatArray = np.sqrt(np.maximum(p2 - 2 * p3 + p2**2, 0.0))
    return norm


def _draw(rng: np.random.Generator, shape: tuple[int, ...], distribution: str) -> FloatArray:
    """Independent entries: standard normal, or uniform on [−1, 1] (variance 1/3)."""
    if distribution == "normal":
        return rng.standard_normal(shape)
    if distribution == "uniform":
        return rng.uniform(-1.0, 1.0, shape)
    raise ValueError(f"Unknown distribution {distribution!r}: use 'normal' or 'uniform'.")


def entry_variance(distribution: str) -> float:
    """Var of one entry of q or k: 1 for standard normal, 1/3 for uniform on [−1, 1]."""
    if distribution not in ("normal", "uniform"):
        raise ValueError(f"Unknown distribution {distribution!r}: use 'normal' or 'uniform'.")
    return 1.0 if distribution == "normal" else 1.0 / 3.0


def _check_d(d: int) -> None:
    if not 1 <= d <= 8192:
        raise ValueError("d must be a whole number from 1 to 8192.")


def sample_dot_products(
    d: int,
    samples: int,
    distribution: str = "normal",
    seed: int = 0,
    max_floats: int = MAX_FLOATS,
) -> FloatArray:
    """``samples`` values of q·k for random q, k in d dimensions, drawn in bounded chunks.

    At most ``max_floats`` random numbers exist at once, so d = 8192 with 20,000 samples needs
    8 MB, not 2.6 GB.
    """
    _check_d(d)
    if samples < 1:
        raise ValueError("Draw at least one sample.")
    rng = np.random.default_rng(seed)
    rows = max(1, max_floats // (2 * d))
    dots = np.empty(samples)
    for start in range(0, samples, rows):
        stop = min(start + rows, samples)
        q = _draw(rng, (stop - start, d), distribution)  # (rows, d)
        k = _draw(rng, (stop - start, d), distribution)  # (rows, d)
        dots[start:stop] = np.einsum("ij,ij->i", q, k)  # one q·k per row
    dots.setflags(write=False)
    return dots


@dataclass(frozen=True)
class VarianceExperiment:
    """Monte Carlo Var(q·k) against d, before and after dividing by √d."""

    ds: tuple[int, ...]
    distribution: str
    samples: int
    var_raw: FloatArray  # (len(ds),), ≈ d · Var(entry)²: d for normal, d/9 for uniform
    var_scaled: FloatArray  # (len(ds),), ≈ Var(entry)²: 1 for normal, 1/9 for uniform
    entry_variance: float  # 1 for normal, 1/3 for uniform on [−1, 1]

    @property
    def theory_raw(self) -> FloatArray:
        """Var(q·k) = d · Var(q_i) · Var(k_i)."""
        theory: FloatArray = np.asarray(self.ds, dtype=np.float64) * self.entry_variance**2
        return theory


def dot_product_variance(
    ds: Sequence[int] = EXPERIMENT_DS,
    samples: int = 2000,
    distribution: str = "normal",
    seed: int = 0,
    max_floats: int = MAX_FLOATS,
    draw: Callable[[int, int], FloatArray] | None = None,
) -> VarianceExperiment:
    """Var(q·k) and Var(q·k / √d) for each d, from ``samples`` random pairs per d. ``draw``
    (d, seed), if given, supplies one d's samples instead of ``sample_dot_products``: an
    experiment assembled from samples drawn, and kept, apart."""
    var_raw = np.empty(len(ds))
    var_scaled = np.empty(len(ds))
    for i, d in enumerate(ds):
        if draw is None:
            dots = sample_dot_products(d, samples, distribution, seed + i, max_floats)
        else:
            dots = draw(d, seed + i)
        var_raw[i] = dots.var()
        var_scaled[i] = (dots / math.sqrt(d)).var()
    result = VarianceExperiment(
        ds=tuple(int(d) for d in ds),
        distribution=distribution,
        samples=samples,
        var_raw=var_raw,
        var_scaled=var_scaled,
        entry_variance=entry_variance(distribution),
    )
    return _read_only(result)


@dataclass(frozen=True)
class Saturation:
    """How peaked softmax rows of n random scores get as d grows, with and without ÷√d."""

    ds: tuple[int, ...]
    n: int
    max_raw: FloatArray  # (len(ds),), mean largest weight, unscaled
    max_scaled: FloatArray  # (len(ds),), the same after ÷√d
    entropy_raw: FloatArray  # (len(ds),), mean entropy in nats (ln n = uniform, 0 = one-hot)
    entropy_scaled: FloatArray
    gradient_raw: FloatArray  # (len(ds),), mean ‖softmax Jacobian‖_F: ≈ 0 means no learning
    gradient_scaled: FloatArray


def saturation(
    ds: Sequence[int] = EXPERIMENT_DS,
    n: int = 9,
    trials: int = 200,
    distribution: str = "normal",
    seed: int = 0,
    max_floats: int = MAX_FLOATS,
) -> Saturation:
    """For each d, ``trials`` rows of n scores q·k_j: their softmax statistics, raw and scaled."""
    if n < 2 or trials < 1:
        raise ValueError("Use at least 2 keys per row and at least one trial.")
    names = ("max", "entropy", "gradient")
    raw_stats = {name: np.empty(len(ds)) for name in names}
    scaled_stats = {name: np.empty(len(ds)) for name in names}
    for i, d in enumerate(ds):
        _check_d(d)
        rng = np.random.default_rng(seed + i)
        scores = _score_rows(rng, trials, n, d, distribution, max_floats)  # (trials, n)
        _record_means(raw_stats, i, softmax(scores))
        _record_means(scaled_stats, i, softmax(scores / math.sqrt(d)))
    result = Saturation(
        ds=tuple(int(d) for d in ds),
        n=n,
        max_raw=raw_stats["max"],
        max_scaled=scaled_stats["max"],
        entropy_raw=raw_stats["entropy"],
        entropy_scaled=scaled_stats["entropy"],
        gradient_raw=raw_stats["gradient"],
        gradient_scaled=scaled_stats["gradient"],
    )
    return _read_only(result)


def _score_rows(
    rng: np.random.Generator, trials: int, n: int, d: int, distribution: str, max_floats: int
) -> FloatArray:
    """``trials`` rows of n scores q·k_j, drawn in chunks of at most about ``max_floats``."""
    # A row needs one q and n keys of d numbers each.
    chunk = max(1, max_floats // ((n + 1) * d))
    scores = np.empty((trials, n))
    for start in range(0, trials, chunk):
        stop = min(start + chunk, trials)
        q = _draw(rng, (stop - start, d), distribution)  # (rows, d)
        k = _draw(rng, (stop - start, n, d), distribution)  # (rows, n, d)
        scores[start:stop] = np.einsum("td,tnd->tn", q, k)  # (rows, n)
    return scores


def _record_means(stats: dict[str, FloatArray], i: int, weights: FloatArray) -> None:
    """Store entry ``i`` of the mean max weight, entropy and Jacobian norm over weights' rows."""
    rows = row_stats(weights)
    stats["max"][i] = rows.max_weight.mean()
    stats["entropy"][i] = rows.entropy.mean()
    stats["gradient"][i] = jacobian_norm(weights).mean()


@dataclass(frozen=True)
class Sharpening:
    """One row of n scores as d grows: the first d dimensions of one fixed q and K."""

    ds: tuple[int, ...]
    raw: FloatArray  # (len(ds), n), softmax(q·k_j) using the first d dimensions
    scaled: FloatArray  # (len(ds), n), softmax(q·k_j / √d)


def sharpening(
    ds: Sequence[int] = EXPERIMENT_DS, n: int = 9, seed: int = 0, distribution: str = "normal"
) -> Sharpening:
    """Softmax of one row of scores computed from the first d dimensions, for each d."""
    top = max(ds)
    _check_d(top)
    rng = np.random.default_rng(seed)
    q = _draw(rng, (top,), distribution)  # (d_max,)
    k = _draw(rng, (n, top), distribution)  # (n, d_max)
    raw = np.empty((len(ds), n))
    scaled = np.empty((len(ds), n))
    for i, d in enumerate(ds):
        scores = k[:, :d] @ q[:d]  # (n,)
        raw[i] = softmax(scores)
        scaled[i] = softmax(scores / math.sqrt(d))
    return _read_only(Sharpening(ds=tuple(int(d) for d in ds), raw=raw, scaled=scaled))
