"""Scaled dot-product attention, step by step, keeping every intermediate.

Attention(Q, K, V) = softmax(Q Kᵀ / √d_k) V  (Vaswani et al., 2017).
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from viz_core.tokenize import PAD

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]
Mask = str | BoolArray | None  # None / "none", "causal", or True = may attend
_Array = TypeVar("_Array", bound=npt.NDArray[np.generic])

# The mask names attention() and resolve_mask() accept as strings; None means "none" too. A
# padding mask needs the tokens, so callers build it with padding_mask() and pass the array.
ATTENTION_MASKS = ("none", "causal")
ONE_HOT = 0.9  # a row whose largest weight is above this reads as "nearly one-hot"


def _read_only(x: npt.ArrayLike) -> FloatArray:
    """A read-only float64 matrix of ``x``: a view when x already is one, so no copy is made."""
    array = np.asarray(x, dtype=np.float64)
    if array.ndim < 2:
        array = array.reshape(1, -1) if array.ndim == 1 else array.reshape(1, 1)
    view = array.view()
    view.setflags(write=False)
    return view


def frozen(array: _Array) -> _Array:
    """Make an array read-only, so that a frozen result really cannot change."""
    array.setflags(write=False)
    return array


def softmax(x: npt.ArrayLike, axis: int = -1) -> FloatArray:
    """Softmax along ``axis``: every slice is non-negative and sums to 1.

    Numerically stable: the max is subtracted before ``exp``, so ``softmax([1000, 999])`` is
    exact. ``-inf`` entries get 0; a slice of only ``-inf`` gets all zeros (nothing to attend
    to), never NaN. ``+inf`` entries share the whole weight.

    Example:
        >>> softmax([2.0, 1.0, 0.1]).round(3)
        array([0.659, 0.242, 0.099])
    """
    x = np.asarray(x, dtype=np.float64)
    x_max = np.max(x, axis=axis, keepdims=True, initial=-np.inf)  # NaN propagates into the max
    if np.isfinite(x_max).all():
        # The usual case: every slice holds e^0 = 1 after the shift, so no total is 0. Scores a
        # float's whole range apart overflow to −∞ here, and e^−∞ = 0 is then the exact weight.
        with np.errstate(over="ignore"):
            shifted = x - x_max
        e: FloatArray = np.exp(shifted)
        e /= e.sum(axis=axis, keepdims=True)
        return e
    if np.isnan(x_max).any():
        raise ValueError("softmax got NaN: every score must be a number or ±infinity.")
    if np.isposinf(x_max).any():
        # exp(inf - inf) is NaN; the limit puts all weight evenly on the +inf entries.
        is_top = np.isposinf(x)
        x = np.where(np.isposinf(x_max), np.where(is_top, 0.0, -np.inf), x)
        x_max = np.max(x, axis=axis, keepdims=True, initial=-np.inf)
    x_max = np.where(np.isfinite(x_max), x_max, 0.0)  # a slice of only -inf stays -inf - 0
    e = np.exp(x - x_max)
    total = e.sum(axis=axis, keepdims=True)
    weights: FloatArray = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    return weights


def causal_mask(n: int, m: int | None = None) -> BoolArray:
    """Mask out future positions: query i may attend to keys 0 … i."""
    return np.tri(n, n if m is None else m, dtype=np.bool_)


def padding_mask(tokens: Sequence[str], pad: str = PAD) -> BoolArray:
    """Mask out padding keys: no query attends to a ``[PAD]`` key."""
    is_real = np.array([token != pad for token in tokens], dtype=np.bool_)
    return np.broadcast_to(is_real, (len(tokens), len(tokens))).copy()


def resolve_mask(mask: Mask, n: int, m: int) -> BoolArray:
    """Turn a mask argument into a boolean (n, m) array, True = may attend."""
    if mask is None or (isinstance(mask, str) and mask == "none"):
        return np.broadcast_to(np.True_, (n, m))  # read-only and free, whatever n and m
    if isinstance(mask, str):
        if mask == "causal":
            return causal_mask(n, m)
        names = ", ".join(repr(name) for name in ATTENTION_MASKS)
        raise ValueError(f"Unknown mask {mask!r}: use None, {names} or a boolean (n, m) array.")
    allowed = np.asarray(mask)
    if allowed.dtype != np.bool_:
        raise ValueError("A mask array must be boolean: True where attention is allowed.")
    if allowed.shape != (n, m):
        raise ValueError(f"The mask has shape {allowed.shape}, but the scores are {(n, m)}.")
    return allowed.copy()


@dataclass(frozen=True)
class AttentionSteps:
    """Every intermediate of one attention computation, n queries over m keys."""

    q: FloatArray  # (n, d_k)
    k: FloatArray  # (m, d_k)
    v: FloatArray  # (m, d_v)
    d_k: int
    scale: bool
    temperature: float
    allowed: BoolArray  # (n, m), True = may attend
    scores: FloatArray  # (n, m), q @ k.T
    scaled: FloatArray  # (n, m), scores / (√d_k · T) when scale, else scores / T; T = temperature
    masked: FloatArray  # (n, m), scaled with -inf where not allowed
    weights: FloatArray  # (n, m), rows sum to 1, or are all 0 when nothing is allowed
    output: FloatArray  # (n, d_v), weights @ v

    def contributions(self, row: int) -> FloatArray:
        """What each key adds to the output of query ``row``: weights[row, j] · v[j], (m, d_v).

        The rows sum to ``output[row]``: the article's "喜 = 0.16·V(我) + 0.40·V(喜) + …".
        """
        contribution: FloatArray = self.weights[row][:, None] * self.v  # (m, 1) x (m, d_v)
        return contribution

    @property
    def divisor(self) -> float:
        """What the raw scores were divided by: √d_k · temperature, or the temperature alone."""
        return (math.sqrt(self.d_k) if self.scale else 1.0) * self.temperature


def attention(
    q: npt.ArrayLike,
    k: npt.ArrayLike,
    v: npt.ArrayLike,
    scale: bool = True,
    mask: Mask = None,
    temperature: float = 1.0,
) -> AttentionSteps:
    """Scaled dot-product attention, returning every step.

    Args:
        q: queries, (n, d_k).
        k: keys, (m, d_k).
        v: values, (m, d_v).
        scale: divide the scores by √d_k.
        mask: None, "causal", or a boolean (n, m) array with True = may attend (PyTorch's
            convention). A row with nothing allowed gets weights of 0 and an output of 0.
        temperature: a further divisor T > 0 of the scores; T = 1 changes nothing.

    Returns:
        An ``AttentionSteps`` holding scores, scaled, masked, weights and output.

    Example:
        >>> steps = attention(np.eye(2), np.eye(2), np.eye(2), scale=False, mask="causal")
        >>> steps.weights[0].tolist()
        [1.0, 0.0]
    """
    q, k, v = check_qkv(q, k, v, temperature)
    allowed = resolve_mask(mask, q.shape[0], k.shape[0])
    return attend(q, k, v, scale, allowed, temperature)[0]


def check_qkv(
    q: npt.ArrayLike, k: npt.ArrayLike, v: npt.ArrayLike, temperature: float
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Read-only float matrices of matching shapes, or a ValueError that says what is wrong."""
    q, k, v = _read_only(q), _read_only(k), _read_only(v)
    if q.ndim != 2 or k.ndim != 2 or v.ndim != 2:
        raise ValueError("q, k and v must be matrices: one row per token.")
    if q.shape[1] != k.shape[1]:
        raise ValueError(f"q and k need the same width d_k, got {q.shape[1]} and {k.shape[1]}.")
    if k.shape[0] != v.shape[0]:
        raise ValueError(f"k and v need one row per key, got {k.shape[0]} and {v.shape[0]}.")
    if not (math.isfinite(temperature) and temperature > 0):
        raise ValueError("The temperature must be a positive number.")
    return q, k, v


def attend(
    q: FloatArray,
    k: FloatArray,
    v: FloatArray,
    scale: bool,
    allowed: BoolArray,
    temperature: float,
) -> list[AttentionSteps]:
    """The computation itself, for one head or for a stack of heads along a leading axis.

    q (h, n, d_k) or (n, d_k), k (…, m, d_k), v (…, m, d_v), allowed (n, m); one AttentionSteps
    per head, each holding read-only views into the stacked arrays.
    """
    d_k = q.shape[-1]
    divisor = (math.sqrt(d_k) if scale else 1.0) * temperature
    stacks = _stacked_steps(q, k, v, divisor, allowed)
    allowed = frozen(allowed)
    if q.ndim == 2:
        # One head: give it a head axis of 1, so the per-head split below serves both shapes.
        q, k, v, stacks = q[None], k[None], v[None], [x[None] for x in stacks]
    return [
        AttentionSteps(
            q=q[h],
            k=k[h],
            v=v[h],
            d_k=d_k,
            scale=scale,
            temperature=float(temperature),
            allowed=allowed,
            scores=stacks[0][h],
            scaled=stacks[1][h],
            masked=stacks[2][h],
            weights=stacks[3][h],
            output=stacks[4][h],
        )
        for h in range(q.shape[0])
    ]


def _stacked_steps(
    q: FloatArray, k: FloatArray, v: FloatArray, divisor: float, allowed: BoolArray
) -> list[FloatArray]:
    """Read-only scores, scaled, masked, weights and output, with q's leading head axis if any."""
    scores = q @ np.swapaxes(k, -1, -2)  # (h, n, d_k) x (h, d_k, m) -> (h, n, m)
    scaled = scores / divisor
    # Skip the copy when everything is allowed; e^-inf = 0 gives masked keys no weight.
    masked = scaled if allowed.all() else np.where(allowed, scaled, -np.inf)
    weights = softmax(masked, axis=-1)
    output = weights @ v  # (h, n, m) x (h, m, d_v) -> (h, n, d_v)
    return [frozen(x) for x in (scores, scaled, masked, weights, output)]


@dataclass(frozen=True)
class RowStats:
    """How concentrated each row of attention weights is."""

    max_weight: FloatArray  # (n,), the largest weight of each row
    entropy: FloatArray  # (n,), -Σ p ln p in nats; 0 for a one-hot or empty row
    effective_tokens: FloatArray  # (n,), e^entropy: how many keys a row spreads over; 0 if empty
    row_sum: FloatArray  # (n,), 1, or 0 for a row with nothing allowed


def row_stats(weights: npt.ArrayLike) -> RowStats:
    """Max weight, entropy and effective number of attended tokens of each row."""
    p = np.array(weights, dtype=np.float64, ndmin=2)
    row_sum = p.sum(axis=-1)
    p_log_p = np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0)
    entropy = np.maximum(-p_log_p.sum(axis=-1), 0.0)  # rounding can give -1e-17 for one-hot
    effective = np.where(row_sum > 0, np.exp(entropy), 0.0)
    max_weight = p.max(axis=-1, initial=0.0)
    return RowStats(
        max_weight=frozen(max_weight),
        entropy=frozen(entropy),
        effective_tokens=frozen(effective),
        row_sum=frozen(row_sum),
    )
