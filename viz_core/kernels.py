"""How real models compute attention: a streaming softmax, FlashAttention's tiles, a KV cache.

Each gives the same numbers as ``attention()``; what changes is the order of the work and how
much is held at once. Online softmax: Milakov & Gimelshein, 2018. FlashAttention: Dao et al.,
2022, with the loop order of FlashAttention-2 (Dao, 2023).
"""

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from viz_core.attention import (
    BoolArray,
    FloatArray,
    Mask,
    check_qkv,
    frozen,
    resolve_mask,
    softmax,
)

TileMask = Callable[[slice, slice], BoolArray]


def _whole(value: int, name: str, least: int = 1) -> int:
    """``value`` as an int, or a ValueError when it is not a whole number ≥ ``least``."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < least:
        raise ValueError(f"{name} must be a whole number, {least} or more.")
    return int(value)


def _blocks(size: int, block: int) -> list[slice]:
    """slice(0, block), slice(block, 2·block), …, up to ``size``: the last one may be shorter."""
    return [slice(start, min(start + block, size)) for start in range(0, size, block)]


def _shift(m: FloatArray) -> FloatArray:
    """The running max to subtract, or 0 where only −∞ has been seen (−∞ − (−∞) would be NaN)."""
    return np.where(np.isfinite(m), m, 0.0)


def _check_max(m: FloatArray) -> None:
    """Refuse NaN and +∞: the running max cannot rescale them the way softmax() special-cases."""
    if not np.all(m < np.inf):  # NaN and +inf both fail the comparison
        raise ValueError("Got NaN or +inf: every score must be a finite number or -inf.")


def _normalised(acc: FloatArray, ell: FloatArray) -> FloatArray:
    """acc / ℓ row by row, with 0 for rows that have nothing allowed yet (ℓ = 0)."""
    out = np.zeros_like(acc)
    np.divide(acc, ell[..., None], out=out, where=ell[..., None] > 0)
    return out


# --- online softmax ---------------------------------------------------------------------------


@dataclass(frozen=True)
class SoftmaxBlock:
    """The running state of an online softmax after reading one block of the last axis."""

    columns: slice  # which entries of the last axis the block holds
    m: FloatArray  # x.shape[:-1], running max: the largest entry read so far (−∞ if none)
    l: FloatArray  # noqa: E741  x.shape[:-1], running sum Σ e^(x_j − m) over the entries read so far
    rescale: FloatArray  # x.shape[:-1], e^(m_old − m) the old sum was multiplied by; 0 at first


@dataclass(frozen=True)
class OnlineSoftmax:
    """Softmax computed in one streaming pass for the max and sum, then one for the weights."""

    x: FloatArray  # (..., n), the input
    block: int
    trace: tuple[SoftmaxBlock, ...]  # one record per block, in reading order
    m: FloatArray  # x.shape[:-1], the max of each row
    l: FloatArray  # noqa: E741  x.shape[:-1], Σ e^(x − m): the softmax denominator after the shift
    weights: FloatArray  # (..., n), e^(x − m) / l, equal to softmax(x)


def online_softmax(x: npt.ArrayLike, block: int = 3) -> OnlineSoftmax:
    """Softmax along the last axis, reading it ``block`` entries at a time.

    Only a running max m and running sum l are kept. When a block brings a larger max, the sum
    so far is multiplied by e^(m_old − m_new): "subtract the max" without knowing the max in
    advance. Like ``softmax``, −∞ entries get 0 and a row of only −∞ gets all zeros; unlike it,
    NaN or +∞ raises ValueError.

    Args:
        x: scores, any shape (..., n).
        block: how many entries of the last axis to read at a time, 1 or more.

    Returns:
        An ``OnlineSoftmax`` with the per-block trace, the final m and l, and the weights.

    Example:
        >>> run = online_softmax([1.0, 3.0, 2.0, 5.0], block=2)
        >>> [float(b.m) for b in run.trace]
        [3.0, 5.0]
    """
    block = _whole(block, "block")
    x = frozen(np.array(x, dtype=np.float64, ndmin=1))
    rows = x.reshape(math.prod(x.shape[:-1]), x.shape[-1])  # (r, n): one row per softmax
    with np.errstate(over="ignore"):  # x − m may round to −∞ for x ≈ −1e308: e^−∞ = 0 is right
        m, ell, trace = _max_and_sum_pass(rows, block, x.shape[:-1])
        weights = _normalised(np.exp(rows - _shift(m)[:, None]), ell)
    return OnlineSoftmax(
        x=x,
        block=block,
        trace=tuple(trace),
        m=frozen(m.reshape(x.shape[:-1])),
        l=frozen(ell.reshape(x.shape[:-1])),
        weights=frozen(weights.reshape(x.shape)),
    )


def _max_and_sum_pass(
    rows: FloatArray, block: int, batch_shape: tuple[int, ...]
) -> tuple[FloatArray, FloatArray, list[SoftmaxBlock]]:
    """The streaming pass over rows (r, n): each row's m and ℓ, and the trace in x's shape."""
    m = np.full(len(rows), -np.inf)  # (r,)
    ell = np.zeros(len(rows))  # (r,), the papers' ℓ (a lone l is ruff's E741)
    trace = []
    for columns in _blocks(rows.shape[1], block):
        m, ell, rescale = _fold_block(rows[:, columns], m, ell)
        state = (frozen(a.reshape(batch_shape)) for a in (m, ell, rescale))
        trace.append(SoftmaxBlock(columns, *state))
    return m, ell, trace


def _fold_block(
    x_blk: FloatArray, m: FloatArray, ell: FloatArray
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Fold one block (r, b) into the running max m and sum ℓ: new m, new ℓ and the rescale."""
    m_new = np.maximum(m, x_blk.max(axis=1))  # (r,)
    _check_max(m_new)
    shift = _shift(m_new)
    rescale = np.exp(m - shift)  # e^(m_old − m_new); 0 until a finite entry, when ℓ is 0
    ell_new = rescale * ell + np.exp(x_blk - shift[:, None]).sum(axis=1)
    return m_new, ell_new, rescale


# --- FlashAttention ---------------------------------------------------------------------------


@dataclass(frozen=True)
class FlashTile:
    """One query block after one key block: a single pass of FlashAttention's inner loop."""

    qi: int  # query block index
    kj: int  # key block index
    rows: slice  # the queries of block qi
    cols: slice  # the keys of block kj
    skipped: bool  # every pair masked out: no score computed, m, l and output unchanged
    m: FloatArray  # (rows,), running max of each query's scaled scores over keys 0 … cols.stop − 1
    l: FloatArray  # noqa: E741  (rows,), running Σ e^(s − m) over those keys
    output: FloatArray  # (rows, d_v), acc / l: attention over the keys read so far, normalised


@dataclass(frozen=True)
class FlashRun:
    """FlashAttention's result, its per-tile states, and how much it held at once."""

    output: FloatArray  # (n, d_v), equal to attention(q, k, v, scale, mask).output
    m: FloatArray  # (n,), each query's largest allowed scaled score; −∞ if nothing is allowed
    l: FloatArray  # noqa: E741  (n,), Σ e^(s − m); m + ln l is the log-sum-exp kept for training
    tiles: tuple[FlashTile, ...]  # query block outer, key block inner; () when record=False
    tile_count: int  # (query block, key block) pairs: ⌈n / block_q⌉ · ⌈m / block_k⌉
    skipped_tiles: int  # tiles masked out entirely, which real kernels skip as well
    block_q: int
    block_k: int
    scratch_floats: int  # held at once besides q, k, v, output: a score tile, acc, m and l
    plain_floats: int  # n · m: the score matrix a plain computation holds at once


def flash_attention(
    q: npt.ArrayLike,
    k: npt.ArrayLike,
    v: npt.ArrayLike,
    block_q: int = 4,
    block_k: int = 4,
    scale: bool = True,
    mask: Mask = None,
    *,
    record: bool = True,
) -> FlashRun:
    """Attention one block_q × block_k tile of scores at a time, never the whole n × m matrix.

    Each query block reads the key blocks in turn, each tile updating a running max m, sum l and
    unnormalised output acc (the old ones rescaled by e^(m_old − m_new)); output = acc / l, or 0
    where nothing is allowed. NaN or +∞ scores raise ValueError; attention() shares the weight.

    Args:
        q: queries, (n, d_k).
        k: keys, (m, d_k).
        v: values, (m, d_v).
        block_q: queries per block, 1 or more; need not divide n.
        block_k: keys per block, 1 or more; need not divide m.
        scale: divide the scores by √d_k.
        mask: None, "causal" (made tile by tile) or a boolean (n, m) array, True = may attend.
        record: keep every tile's m, l and normalised output; pass False for large n, where
            they would take about n · m · (d_v + 2) / block_k floats.

    Returns:
        A ``FlashRun`` with the output, the final m and l, the tiles and memory counts.

    Example:
        >>> run = flash_attention(np.eye(3), np.eye(3), np.eye(3), block_q=2, block_k=2)
        >>> run.tile_count, len(run.tiles)
        (4, 4)
    """
    block_q, block_k = _whole(block_q, "block_q"), _whole(block_k, "block_k")
    q, k, v = check_qkv(q, k, v, 1.0)
    keys = _keys(k, v, len(q), block_k, scale, mask, record)
    return _flash_run(q, block_q, block_k, keys)


@dataclass(frozen=True)
class _Keys:
    """What every query block of one flash_attention call reads."""

    k: FloatArray  # (m, d_k)
    v: FloatArray  # (m, d_v)
    divisor: float  # √d_k, or 1 without scaling
    tile_mask: TileMask
    blocks: tuple[slice, ...]  # the key blocks
    record: bool


def _keys(
    k: FloatArray, v: FloatArray, n: int, block_k: int, scale: bool, mask: Mask, record: bool
) -> _Keys:
    """The key side of a flash_attention call over n queries: divisor, tile mask, key blocks."""
    divisor = math.sqrt(k.shape[1]) if scale else 1.0  # k has q's width d_k
    tile_mask = _tile_mask(mask, n, len(k))
    key_blocks = tuple(_blocks(len(k), block_k))
    return _Keys(k, v, divisor, tile_mask, key_blocks, record)


def _flash_run(q: FloatArray, block_q: int, block_k: int, keys: _Keys) -> FlashRun:
    """Run every query block over the keys; add the tile and memory counts."""
    query_blocks = _blocks(len(q), block_q)
    output, m, ell, tiles, skipped = _query_blocks(q, query_blocks, keys)
    return FlashRun(
        output=frozen(output),
        m=frozen(m),
        l=frozen(ell),
        tiles=tuple(tiles),
        tile_count=len(query_blocks) * len(keys.blocks),
        skipped_tiles=skipped,
        block_q=block_q,
        block_k=block_k,
        scratch_floats=flash_scratch_floats(len(q), len(keys.k), keys.v.shape[1], block_q, block_k),
        plain_floats=len(q) * len(keys.k),
    )


def flash_scratch_floats(n: int, m: int, d_v: int, block_q: int, block_k: int) -> int:
    """Floats FlashAttention holds at once for n queries over m keys: one score tile, the
    accumulator and the running m and ℓ of one query block (q, k, v and the output aside).

    Example:
        >>> flash_scratch_floats(4096, 4096, 64, 64, 64)  # against n · m = 16,777,216
        8320
    """
    tile_q, tile_k = min(block_q, n), min(block_k, m)
    return tile_q * tile_k + tile_q * d_v + 2 * tile_q


def _query_blocks(
    q: FloatArray, query_blocks: list[slice], keys: _Keys
) -> tuple[FloatArray, FloatArray, FloatArray, list[FlashTile], int]:
    """Every query block over every key block: output, m, ℓ, tiles and skipped tile count."""
    output = np.zeros((len(q), keys.v.shape[1]))  # (n, d_v)
    m = np.full(len(q), -np.inf)  # (n,)
    ell = np.zeros(len(q))  # (n,)
    tiles: list[FlashTile] = []
    skipped = 0
    for qi, rows in enumerate(query_blocks):
        # Only this block's acc, m and ℓ live through the inner loop (FlashAttention-2's order).
        m[rows], ell[rows], output[rows], block_tiles, block_skipped = _flash_rows(
            q[rows], qi, rows, keys
        )
        tiles += block_tiles
        skipped += block_skipped
    return output, m, ell, tiles, skipped


def _tile_mask(mask: Mask, n: int, m: int) -> TileMask:
    """The mask's (rows, cols) tile. A causal one is made per tile, never as an n × m array."""
    if isinstance(mask, str) and mask == "causal":

        def causal(rows: slice, cols: slice) -> BoolArray:
            """j ≤ i, like causal_mask(n, m)[rows, cols]."""
            return np.arange(cols.start, cols.stop) <= np.arange(rows.start, rows.stop)[:, None]

        return causal
    allowed = resolve_mask(mask, n, m)  # None is a free broadcast of True
    return lambda rows, cols: allowed[rows, cols]


def _flash_rows(
    q_blk: FloatArray, qi: int, rows: slice, keys: _Keys
) -> tuple[FloatArray, FloatArray, FloatArray, list[FlashTile], int]:
    """One query block over every key block: its m, l, output, tiles and skipped tile count."""
    m, ell = np.full(len(q_blk), -np.inf), np.zeros(len(q_blk))
    acc = np.zeros((len(q_blk), keys.v.shape[1]))  # Σ e^(s − m) v, normalised only at the end
    tiles, skipped = [], 0
    for kj, cols in enumerate(keys.blocks):
        allowed = keys.tile_mask(rows, cols)
        is_skipped = not allowed.any()
        if is_skipped:
            skipped += 1
        else:
            m, ell, acc = _flash_tile(q_blk, keys, cols, allowed, m, ell, acc)
        if keys.record:
            state = frozen(m), frozen(ell), frozen(_normalised(acc, ell))
            tiles.append(FlashTile(qi, kj, rows, cols, is_skipped, *state))
    return m, ell, _normalised(acc, ell), tiles, skipped


def _flash_tile(
    q_blk: FloatArray,
    keys: _Keys,
    cols: slice,
    allowed: BoolArray,
    m: FloatArray,
    ell: FloatArray,
    acc: FloatArray,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Fold one tile of scores into the running max m, sum ℓ and accumulator; returns new ones."""
    s = q_blk @ keys.k[cols].T  # (bq, d_k) x (d_k, bk) -> (bq, bk), the only score tile held
    s /= keys.divisor
    if not allowed.all():
        np.copyto(s, -np.inf, where=~allowed)
    m_new = np.maximum(m, s.max(axis=1))
    _check_max(m_new)
    shift = _shift(m_new)
    rescale = np.exp(m - shift)  # e^(m_old − m_new): acc and ℓ were summed under the old max
    s -= shift[:, None]
    p = np.exp(s, out=s)  # the tile's unnormalised weights, in place of its scores
    ell_new = rescale * ell + p.sum(axis=1)
    acc_new = rescale[:, None] * acc + p @ keys.v[cols]  # (bq, bk) x (bk, d_v) -> (bq, d_v)
    return m_new, ell_new, acc_new


# --- KV cache ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class KVCacheRun:
    """Causal attention generated token by token, each step reading the keys cached so far."""

    output: FloatArray  # (n, d_v), row i made at step i; equal to the causal attention output
    weights: FloatArray  # (n, n), row i: step i's weights over cached keys 0 … i, then zeros
    cache_lengths: tuple[int, ...]  # (1, 2, …, n): keys in the cache when token i is generated
    k_cache: FloatArray  # (n, d_k), the cache at the end: each key computed and stored once
    v_cache: FloatArray  # (n, d_v)


def kv_cache_decode(
    q: npt.ArrayLike, k: npt.ArrayLike, v: npt.ArrayLike, scale: bool = True
) -> KVCacheRun:
    """Decode like a language model: at step i, cache k[i] and v[i], then attend q[i] over it.

    Earlier keys and values are read from the cache, never recomputed, so step i does i + 1
    dot products instead of a whole causal score matrix.

    Args:
        q: queries, (n, d_k), one per generated token.
        k: keys, (n, d_k), one per token.
        v: values, (n, d_v).
        scale: divide the scores by √d_k.

    Returns:
        A ``KVCacheRun`` whose output equals ``attention(q, k, v, scale, mask="causal").output``.

    Example:
        >>> kv_cache_decode(np.eye(3), np.eye(3), np.eye(3)).cache_lengths
        (1, 2, 3)
    """
    q, k, v = check_qkv(q, k, v, 1.0)
    if len(q) != len(k):
        raise ValueError(f"One query per token: q has {len(q)} rows but k has {len(k)}.")
    divisor = math.sqrt(q.shape[1]) if scale else 1.0
    k_cache, v_cache = np.zeros_like(k), np.zeros_like(v)  # allocated once, filled step by step
    weights = np.zeros((len(q), len(q)))
    output = np.zeros((len(q), v.shape[1]))
    for i in range(len(q)):
        k_cache[i], v_cache[i] = k[i], v[i]  # append this token's key and value
        scores = k_cache[: i + 1] @ q[i] / divisor  # (i + 1, d_k) x (d_k,) -> (i + 1,)
        weights[i, : i + 1] = softmax(scores)
        output[i] = weights[i, : i + 1] @ v_cache[: i + 1]  # (i + 1,) x (i + 1, d_v) -> (d_v,)
    return KVCacheRun(
        output=frozen(output),
        weights=frozen(weights),
        cache_lengths=tuple(range(1, len(q) + 1)),
        k_cache=frozen(k_cache),
        v_cache=frozen(v_cache),
    )


def kv_cache_bytes(
    layers: int,
    kv_heads: int,
    d_k: int,
    tokens: int,
    batch: int = 1,
    bytes_per_value: int = 2,
) -> int:
    """Bytes a KV cache takes: 2 (K and V) · layers · kv_heads · d_k · tokens · batch · bytes.

    bytes_per_value is 2 for fp16 or bf16, 4 for fp32, 1 for an 8-bit cache.

    Example:
        >>> kv_cache_bytes(layers=32, kv_heads=32, d_k=128, tokens=4096) // 2**30  # GiB
        2
    """
    sizes = {"layers": layers, "kv_heads": kv_heads, "d_k": d_k, "batch": batch}
    sizes |= {"bytes_per_value": bytes_per_value}
    factors = [_whole(value, name) for name, value in sizes.items()]
    return 2 * math.prod(factors) * _whole(tokens, "tokens", least=0)


@dataclass(frozen=True)
class CacheShape:
    """The shape of one real model's KV cache; the bytes follow from it."""

    name: str
    layers: int
    heads: int  # query heads
    kv_heads: int  # key/value heads: heads for multi-head attention, fewer with GQA
    d_k: int
    tokens: int  # the context the cache is sized for
    bytes_per_value: int = 2  # fp16

    @property
    def total_bytes(self) -> int:
        """The whole cache for one sequence: kv_cache_bytes of this shape."""
        return kv_cache_bytes(
            self.layers, self.kv_heads, self.d_k, self.tokens, 1, self.bytes_per_value
        )


# All in fp16, so the sizes differ only by shape. BERT is an encoder and keeps no cache when
# it runs; its row shows what one would take for its 512 positions. Llama-3-8B and Mistral-7B
# (v0.1) share one cache shape, 32 layers of 8 KV heads of 128 (grouped-query attention); their
# contexts are 8,192 tokens, cut here to Llama-2-7B's 4,096 to compare like with like.
KV_CACHE_MODELS: tuple[CacheShape, ...] = (
    CacheShape("BERT-base", layers=12, heads=12, kv_heads=12, d_k=64, tokens=512),
    CacheShape("Llama-2-7B", layers=32, heads=32, kv_heads=32, d_k=128, tokens=4096),
    CacheShape("Llama-3-8B / Mistral-7B", layers=32, heads=32, kv_heads=8, d_k=128, tokens=4096),
)
