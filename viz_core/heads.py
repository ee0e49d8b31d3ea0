"""Multi-head attention, and Q, K, V projected from token embeddings with positions."""

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from viz_core.attention import (
    AttentionSteps,
    FloatArray,
    Mask,
    attend,
    check_qkv,
    frozen,
    resolve_mask,
)
from viz_core.qkv import D_MAX, D_MIN

MAX_HEADS = 64
W_SHOWN = 8  # columns of each W kept in the result: the page shows the first 8
D_MODEL = 64  # embedding width: fixed, so W is d_model × d and memory grows with d, not d²


def multi_head_attention(
    q: FloatArray,
    k: FloatArray,
    v: FloatArray,
    heads: int,
    scale: bool = True,
    mask: Mask = None,
    temperature: float = 1.0,
) -> list[AttentionSteps]:
    """Split d into ``heads`` slices of d_k = d // heads and attend in each, scaled by √d_k.

    Head h uses columns h·d_k … (h+1)·d_k − 1 of q, k and v; the layer's output is the
    concatenation of the heads' outputs, ``np.hstack([s.output for s in per_head])``.

    Example:
        >>> q = np.ones((2, 4))
        >>> [s.d_k for s in multi_head_attention(q, q, q, heads=2)]
        [2, 2]
    """
    if isinstance(heads, bool) or not isinstance(heads, int | np.integer) or heads < 1:
        raise ValueError("The number of heads must be a whole number, 1 or more.")
    q, k, v = check_qkv(q, k, v, temperature)
    d = q.shape[1]
    if d % heads or v.shape[1] % heads:
        raise ValueError(f"d = {d} cannot be split into {heads} equal heads: pick a divisor of d.")
    allowed = resolve_mask(mask, q.shape[0], k.shape[0])

    def by_head(x: FloatArray) -> FloatArray:
        """(n, d) -> (heads, n, d // heads): head h is columns h·d_k … (h+1)·d_k − 1."""
        return x.reshape(x.shape[0], heads, x.shape[1] // heads).transpose(1, 0, 2)

    return attend(by_head(q), by_head(k), by_head(v), scale, allowed, temperature)


def head_choices(d: int, limit: int = MAX_HEADS) -> list[int]:
    """The head counts that split d evenly, up to ``limit``."""
    return [h for h in range(1, min(d, limit) + 1) if d % h == 0]


def sinusoidal_positions(n: int, d: int) -> FloatArray:
    """PE[pos, 2i] = sin(pos / 10000^(2i/d)), PE[pos, 2i+1] = cos(…) (Vaswani et al., 2017)."""
    position = np.arange(n)[:, None]  # (n, 1)
    frequency = 10000.0 ** (-(np.arange(0, d, 2)) / d)  # (ceil(d/2),)
    angles = position * frequency  # (n, ceil(d/2))
    pe = np.empty((n, d))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles[:, : d // 2])
    return pe


def token_embedding(token: str, d: int, seed: int) -> FloatArray:
    """A seeded embedding for one token: the same token always gets the same vector."""
    rng = np.random.default_rng([seed, len(token), *map(ord, token)])
    return rng.standard_normal(d)


@dataclass(frozen=True)
class Projection:
    """X = embedding (+ positions), and Q, K, V = X·W_Q, X·W_K, X·W_V."""

    embeddings: FloatArray  # (n, d_model), one seeded vector per character, entries ~ N(0, 1)
    positions: FloatArray | None  # (n, d_model) sinusoidal encoding, or None when positions are off
    x: FloatArray  # (n, d_model), (E + PE) / √1.5 with positions, else E: entries of variance ≈ 1
    # W_Q, W_K, W_V are d_model × d with entries ~ N(0, 1/d_model); only their first 8 columns,
    # what the page shows, are kept: (d_model, min(d, 8)). All of them are 12 MB at d = 8192.
    w_q: FloatArray
    w_k: FloatArray
    w_v: FloatArray
    q: FloatArray  # (n, d)
    k: FloatArray
    v: FloatArray


def embed_qkv(
    tokens: Sequence[str],
    d: int = 64,
    seed: int = 0,
    position: bool = True,
    d_model: int = D_MODEL,
) -> Projection:
    """Q, K, V the way a model makes them: embeddings, plus positions, times seeded weights.

    The embeddings are ``d_model`` wide whatever d is (as in a Transformer, where d_model is fixed
    and each projection maps it to the heads' width), so d = 8192 needs three 64 × 8192 weight
    matrices (12 MB), not three 8192 × 8192 ones (1.5 GB).
    """
    if isinstance(d, bool) or not isinstance(d, int | np.integer) or not D_MIN <= d <= D_MAX:
        raise ValueError(f"d must be a whole number from {D_MIN} to {D_MAX}.")
    n = len(tokens)
    embeddings = np.array([token_embedding(token, d_model, seed) for token in tokens])
    embeddings = embeddings.reshape(n, d_model)
    positions = sinusoidal_positions(n, d_model) if position else None
    # sin² + cos² = 1 per pair of columns, so PE adds variance 1/2 on average: rescale to 1.
    x = (embeddings + positions) / math.sqrt(1.5) if positions is not None else embeddings
    rng = np.random.default_rng([seed, 1])  # the weights do not depend on the sentence
    projected, shown = [], []
    for _ in range(3):  # one W at a time: only its first columns outlive the loop
        weights = _weights(rng, d_model, d)
        projected.append(x @ weights)  # (n, d_model) x (d_model, d) -> (n, d)
        shown.append(weights[:, :W_SHOWN].copy())
    q, k, v = projected
    w_q, w_k, w_v = shown
    return Projection(
        embeddings=frozen(embeddings),
        positions=None if positions is None else frozen(positions),
        x=frozen(x),
        w_q=frozen(w_q),
        w_k=frozen(w_k),
        w_v=frozen(w_v),
        q=frozen(q),
        k=frozen(k),
        v=frozen(v),
    )


def _weights(rng: np.random.Generator, d_model: int, d: int) -> FloatArray:
    """A d_model × d projection with entries ~ N(0, 1/d_model), so X·W keeps unit variance."""
    weights: FloatArray = rng.standard_normal((d_model, d)) / math.sqrt(d_model)
    return weights
