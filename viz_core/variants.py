"""Attention as recent models vary it: shared key/value heads, a sliding window, rotary positions.

Grouped-query attention: Ainslie et al., 2023 (multi-query: Shazeer, 2019). Sliding window:
Beltagy et al., 2020 (Longformer), as in Mistral-7B. RoPE: Su et al., 2021 (RoFormer).
"""

import math

import numpy as np
import numpy.typing as npt

from viz_core.attention import (
    AttentionSteps,
    BoolArray,
    FloatArray,
    Mask,
    _read_only,
    attend,
    frozen,
    resolve_mask,
)
from viz_core.kernels import _whole


def _split_heads(x: FloatArray, heads: int) -> FloatArray:
    """(n, heads · w) -> (heads, n, w): head h is columns h·w … (h+1)·w − 1, as in heads.py."""
    return x.reshape(x.shape[0], heads, x.shape[1] // heads).transpose(1, 0, 2)


def grouped_query_attention(
    q: npt.ArrayLike,
    k: npt.ArrayLike,
    v: npt.ArrayLike,
    heads: int,
    kv_heads: int,
    scale: bool = True,
    mask: Mask = None,
) -> list[AttentionSteps]:
    """Multi-head attention where each group of heads // kv_heads query heads shares one K and V.

    Query head h uses key/value head h // (heads // kv_heads). kv_heads = heads is ordinary
    multi-head attention; kv_heads = 1 is multi-query attention. The KV cache shrinks by
    heads / kv_heads while every query head still has its own weights.

    Args:
        q: queries, (n, heads · d_k).
        k: keys, (m, kv_heads · d_k).
        v: values, (m, kv_heads · d_v).
        heads: query heads, a multiple of kv_heads.
        kv_heads: key/value heads, 1 or more.
        scale: divide each head's scores by √d_k.
        mask: None, "causal", or a boolean (n, m) array with True = may attend.

    Returns:
        One ``AttentionSteps`` per query head; heads of one group hold equal k and v.

    Example:
        >>> steps = grouped_query_attention(np.ones((2, 8)), np.ones((2, 4)), np.ones((2, 4)), 4, 2)
        >>> len(steps), steps[0].k.shape
        (4, (2, 2))
    """
    q, k, v = _check_gqa(q, k, v, heads, kv_heads)
    group = heads // kv_heads
    shared = np.arange(heads) // group  # (heads,): the kv head each query head reads
    k_heads = frozen(_split_heads(k, kv_heads)[shared])  # (heads, m, d_k), a copy per head
    v_heads = frozen(_split_heads(v, kv_heads)[shared])  # (heads, m, d_v)
    allowed = resolve_mask(mask, q.shape[0], k.shape[0])
    return attend(_split_heads(q, heads), k_heads, v_heads, scale, allowed, 1.0)


def _check_gqa(
    q: npt.ArrayLike, k: npt.ArrayLike, v: npt.ArrayLike, heads: int, kv_heads: int
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Read-only q, k, v whose widths split into the heads, or a ValueError saying why not."""
    heads, kv_heads = _whole(heads, "The number of heads"), _whole(kv_heads, "kv_heads")
    if heads % kv_heads:
        raise ValueError(f"{heads} query heads cannot share {kv_heads} kv heads evenly.")
    q, k, v = _read_only(q), _read_only(k), _read_only(v)
    if q.ndim != 2 or k.ndim != 2 or v.ndim != 2:
        raise ValueError("q, k and v must be matrices: one row per token.")
    if k.shape[0] != v.shape[0]:
        raise ValueError(f"k and v need one row per key, got {k.shape[0]} and {v.shape[0]}.")
    if q.shape[1] % heads:
        raise ValueError(f"q's width {q.shape[1]} cannot be split into {heads} heads.")
    d_k = q.shape[1] // heads
    if k.shape[1] != kv_heads * d_k:
        raise ValueError(f"k needs kv_heads · d_k = {kv_heads * d_k} columns, got {k.shape[1]}.")
    if v.shape[1] % kv_heads:
        raise ValueError(f"v's width {v.shape[1]} cannot be split into {kv_heads} kv heads.")
    return q, k, v


def sliding_window_mask(n: int, window: int) -> BoolArray:
    """Causal attention within a window: True where i − window < j ≤ i.

    Query i sees itself and the window − 1 tokens before it (fewer near the start); a window of
    n or more is the causal mask. Read-only, (n, n).

    Example:
        >>> sliding_window_mask(4, window=2).astype(int).tolist()
        [[1, 0, 0, 0], [1, 1, 0, 0], [0, 1, 1, 0], [0, 0, 1, 1]]
    """
    n, window = _whole(n, "n", least=0), _whole(window, "The window")
    causal = np.tri(n, dtype=np.bool_)  # j ≤ i
    too_old = np.tri(n, k=-window, dtype=np.bool_)  # j ≤ i − window
    return frozen(causal & ~too_old)


def rope(
    x: npt.ArrayLike, positions: npt.ArrayLike | None = None, base: float = 10000.0
) -> FloatArray:
    """Rotary position embedding: rotate each pair of columns by an angle set by the position.

    Pair (2i, 2i+1) of row p turns by p · base^(−2i/d), the interleaved pairs of the RoFormer
    paper and Meta's Llama code (Hugging Face's port pairs column i with i + d/2 instead: the
    same rotations, columns in another order). Rotations keep norms, and rope(q)[a] · rope(k)[b]
    depends on the positions only through a − b, which is why RoPE turns q and k but not v.

    Args:
        x: rows to rotate, (n, d) with d even: queries or keys.
        positions: each row's position, (n,); 0, 1, …, n − 1 by default.
        base: the wavelength scale; pair i turns base^(2i/d) times slower than pair 0.

    Returns:
        The rotated rows, read-only (n, d).

    Example:
        >>> rope([[1.0, 0.0]], positions=[np.pi / 2]).round(12).tolist()
        [[0.0, 1.0]]
    """
    x = _read_only(x)
    if x.ndim != 2 or x.shape[1] % 2:
        raise ValueError(f"RoPE turns pairs of columns: x must be (n, d), d even, not {x.shape}.")
    if not (math.isfinite(base) and base > 0):
        raise ValueError("The base must be a positive number.")
    n, d = x.shape
    position = np.arange(n) if positions is None else np.asarray(positions, dtype=np.float64)
    if position.shape != (n,) or not np.isfinite(position).all():
        raise ValueError(f"Give one finite position per row: shape ({n},), got {position.shape}.")
    frequency = base ** (-np.arange(0, d, 2) / d)  # (d/2,), θ_i = base^(−2i/d)
    angles = position[:, None] * frequency  # (n, 1) x (d/2,) -> (n, d/2)
    cos, sin = np.cos(angles), np.sin(angles)
    even, odd = x[:, 0::2], x[:, 1::2]  # (n, d/2) each: the two coordinates of every pair
    rotated = np.empty((n, d))
    rotated[:, 0::2] = even * cos - odd * sin
    rotated[:, 1::2] = even * sin + odd * cos
    return frozen(rotated)
