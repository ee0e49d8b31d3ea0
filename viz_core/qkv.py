"""Seeded random queries, keys and values, as in the articles' ``torch.randn`` examples."""

from collections.abc import Sequence

import numpy as np

from viz_core.attention import FloatArray

D_MIN = 1
D_MAX = 8192
SEED_MAX = 2**31 - 1


def make_qkv(
    tokens: Sequence[str], d: int = 64, seed: int = 0
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Random Q, K, V of shape (len(tokens), d), entries i.i.d. with mean 0 and variance 1.

    Row i depends only on (i, d, seed): appending tokens, e.g. ``[PAD]``, leaves earlier rows
    as they were. The characters themselves do not matter: these are random vectors.

    Example:
        >>> q, k, v = make_qkv(["a", "b"], d=4, seed=0)
        >>> q.shape
        (2, 4)
    """
    if isinstance(d, bool) or not isinstance(d, int | np.integer) or not D_MIN <= d <= D_MAX:
        raise ValueError(f"d must be a whole number from {D_MIN} to {D_MAX}.")
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ValueError("The seed must be a whole number, 0 or more.")
    rng = np.random.default_rng(int(seed))
    # C order fills row 0 first, so row i is the same whatever the number of tokens.
    x = rng.standard_normal((len(tokens), 3, int(d)))  # (n, 3, d)
    q = x[:, 0, :]  # views, not copies: at d = 8192 a copy would double the memory
    k = x[:, 1, :]
    v = x[:, 2, :]
    return q, k, v
