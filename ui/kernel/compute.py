"""The kernel page's computations: the lab's Q, K, V run tile by tile and token by token.

Pure numpy on top of viz_core; every result keeps only what the page shows (V's first DIMS
columns for the tiles' partial outputs), read-only.
"""

from dataclasses import dataclass

import numpy as np

from ui.kernel.settings import TILE, XI_DIVISOR, XI_ROW
from viz_core import (
    AttentionSteps,
    FlashRun,
    KVCacheRun,
    OnlineSoftmax,
    attention,
    flash_attention,
    kv_cache_decode,
    online_softmax,
)

DIMS = 8  # output dimensions kept per tile: what the page shows
UNITS = ("B", "KiB", "MiB", "GiB", "TiB")


def online_row(block: int) -> OnlineSoftmax:
    """The articles' 喜 row ÷ 8, read ``block`` entries at a time."""
    return online_softmax(np.array(XI_ROW) / XI_DIVISOR, block=block)


@dataclass(frozen=True)
class FlashView:
    """FlashAttention on the lab's head, beside the lab's own (plain) computation."""

    tiles: FlashRun  # recorded over V's first DIMS columns: each tile's m, ℓ, partial output
    full: FlashRun  # every column of V, not recorded: the output compared
    masked: np.ndarray  # (n, n), the lab's scaled scores with −∞ where masked: what tiles compute
    plain: np.ndarray  # (n, d_v), the lab's output
    error: float  # max |full.output − plain| over every entry


def flash_view(steps: AttentionSteps) -> FlashView:
    """Tiles of 4 × 4 over the lab's Q, K, V with its scaling, mask and temperature.

    The temperature T divides the scores: (q / T) · k / √d_k is the lab's scaled score, so
    FlashAttention, which knows no temperature, gets q / T.
    """
    q, k, scale, allowed = steps.q / steps.temperature, steps.k, steps.scale, steps.allowed
    # V's columns are independent, so the first DIMS give the tiles' exact partial outputs.
    tiles = flash_attention(q, k, steps.v[:, :DIMS], TILE, TILE, scale, allowed)
    full = flash_attention(q, k, steps.v, TILE, TILE, scale, allowed, record=False)
    error = float(np.abs(full.output - steps.output).max(initial=0.0))
    return FlashView(tiles, full, steps.masked, steps.output, error)


def state_before(run: FlashRun, index: int) -> tuple[np.ndarray, np.ndarray]:
    """The running m and ℓ of tile ``index``'s query rows before it: the previous tile's, or
    −∞ and 0 when it is the first key block."""
    tile = run.tiles[index]
    if tile.kj == 0:
        rows = tile.rows.stop - tile.rows.start
        return np.full(rows, -np.inf), np.zeros(rows)
    previous = run.tiles[index - 1]
    return previous.m, previous.l


@dataclass(frozen=True)
class CacheView:
    """Generation token by token with a KV cache, beside plain causal attention."""

    run: KVCacheRun
    plain: np.ndarray  # (n, d_v), attention(q, k, v, mask="causal").output
    error: float  # max |run.output − plain|


def cache_view(steps: AttentionSteps) -> CacheView:
    """Decode the lab's head with a KV cache (always causal: a model generates left to right)."""
    run = kv_cache_decode(steps.q / steps.temperature, steps.k, steps.v, steps.scale)
    plain = attention(steps.q, steps.k, steps.v, steps.scale, "causal", steps.temperature)
    error = float(np.abs(run.output - plain.output).max(initial=0.0))
    return CacheView(run, plain.output, error)


def human_bytes(count: int) -> str:
    """Bytes in binary units with three significant digits: 18 MiB, 2 GiB, 512 KiB."""
    value = float(count)
    for unit in UNITS:
        if value < 1024 or unit == UNITS[-1]:
            return f"{value:.3g} {unit}" if unit != "B" else f"{count} B"
        value /= 1024
    return f"{count} B"  # not reached: the loop returns at the last unit
