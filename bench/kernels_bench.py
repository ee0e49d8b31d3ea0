"""FlashAttention against the plain computation: tiles, peak memory, time. Run by hand:

    python -m bench.kernels_bench

For n = 9, 512 and 4096 queries and keys at d = 64: the tile count, the scratch floats
flash_attention counts against n · m, the tracemalloc peak of flash_attention (record=False),
of attention() (which keeps scores, scaled, masked and weights) and of a one-expression numpy
softmax(QKᵀ/√d)V, and the best-of time of each. Peaks exclude q, k and v, made beforehand.
"""

import math
import timeit
import tracemalloc
from collections.abc import Callable
from functools import partial

import numpy as np

from viz_core.attention import attention
from viz_core.kernels import flash_attention

D = 64
SIZES = (9, 512, 4096)


def block_for(n: int) -> int:
    """The page's teaching block of 4 for a sentence; 64, as GPU kernels use, for long inputs."""
    return 4 if n < 64 else 64


def plain(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
    """softmax(QKᵀ/√d)·V in one expression, keeping nothing: the least a plain version holds."""
    s = q @ k.T / math.sqrt(q.shape[1])
    e = np.exp(s - s.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True) @ v


def peak_mb(function: Callable[[], object]) -> float:
    """The tracemalloc peak of one call, in MB, counting only what the call allocates."""
    tracemalloc.start()
    function()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 1e6


def best_seconds(function: Callable[[], object]) -> float:
    """The best of 3 timed repeats, each of as many calls as fill about 0.2 s."""
    once = timeit.timeit(function, number=1)
    number = max(1, int(0.2 / max(once, 1e-6)))
    return min(timeit.repeat(function, number=number, repeat=3)) / number


def row(n: int) -> str:
    """One table row: n queries and n keys of width D."""
    q, k, v = np.random.default_rng(n).standard_normal((3, n, D))
    block = block_for(n)
    calls = [
        partial(flash_attention, q, k, v, block, block, record=False),
        partial(attention, q, k, v),
        partial(plain, q, k, v),
    ]
    run = flash_attention(q, k, v, block, block, record=False)
    causal = flash_attention(q, k, v, block, block, mask="causal", record=False)
    error = np.abs(run.output - attention(q, k, v).output).max()
    peaks = " | ".join(f"{peak_mb(call):.3f}" for call in calls)
    times = " | ".join(f"{1e3 * best_seconds(call):.2f}" for call in calls)
    counts = f"{run.tile_count} | {causal.skipped_tiles} | {run.scratch_floats:,}"
    return f"{n} | {block} | {counts} | {run.plain_floats:,} | {peaks} | {times} | {error:.1e}"


def main() -> None:
    print(f"## FlashAttention vs plain attention, d = {D} (peaks in MB, times in ms)")
    print(
        "n | block | tiles | causal skipped | scratch floats | n·m floats | "
        "peak flash | peak attention() | peak plain | ms flash | ms attention() | ms plain | "
        "max |Δ|"
    )
    for n in SIZES:
        print(row(n))


if __name__ == "__main__":
    main()
