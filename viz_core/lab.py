"""The whole computation behind the lab page, in one call."""

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from viz_core.attention import MASK_KINDS, AttentionSteps, RowStats, attention, padding_mask
from viz_core.attention import row_stats as _row_stats
from viz_core.qkv import make_qkv
from viz_core.tokenize import CLS, SEP, pad_tokens, tokenize

MAX_TOKENS = 32  # a 32 × 32 heatmap is the most a projector shows readably


@dataclass(frozen=True)
class LabResult:
    """Tokens, both scaling variants of one attention computation, and their row statistics."""

    tokens: tuple[str, ...]  # (n,), after the cap, with [PAD]s when mask == "padding"
    n_content: int  # characters of the text that made it in
    n_dropped: int  # characters cut by the cap
    mask: str  # "none", "causal" or "padding"
    steps: AttentionSteps  # as chosen: scaled when scale is on
    contrast: AttentionSteps  # the same Q, K, V with scaling toggled
    stats: RowStats  # of steps.weights
    contrast_stats: RowStats  # of contrast.weights
    std_scores: float  # std of the raw scores QKᵀ: about √d
    std_scaled: float  # std of QKᵀ / √d: about 1
    row_sum_error: float  # max |Σ_j weights[i, j] − 1| over rows that attend to something

    @property
    def scaled(self) -> AttentionSteps:
        """The run divided by √d."""
        return self.steps if self.steps.scale else self.contrast

    @property
    def unscaled(self) -> AttentionSteps:
        """The run without division by √d."""
        return self.contrast if self.steps.scale else self.steps


def cap_tokens(tokens: list[str], max_tokens: int) -> tuple[list[str], int]:
    """Keep at most ``max_tokens`` tokens, [CLS] and [SEP] included; return how many were cut."""
    has_special = len(tokens) >= 2 and tokens[0] == CLS and tokens[-1] == SEP
    room = max_tokens - 2 if has_special else max_tokens
    content = tokens[1:-1] if has_special else tokens
    kept = content[:room]
    dropped = len(content) - len(kept)
    return ([CLS, *kept, SEP] if has_special else kept), dropped


def run_lab(
    text: str,
    special: bool = True,
    d: int = 64,
    scale: bool = True,
    mask: str = "none",
    seed: int = 0,
    max_tokens: int = MAX_TOKENS,
) -> LabResult:
    """Tokenize, draw Q/K/V, and run attention with and without scaling.

    Q, K, V are exactly ``make_qkv(tokens, d, seed)``; with ``mask="padding"`` the tokens are
    first padded with ``[PAD]`` and no query attends to a pad key.
    """
    if mask not in MASK_KINDS:
        raise ValueError(f"Unknown mask {mask!r}: use one of {', '.join(MASK_KINDS)}.")
    tokens, dropped = cap_tokens(tokenize(text, special_tokens=special), max_tokens)
    n_content = len(tokens) - (2 if special else 0)
    if mask == "padding":
        tokens = pad_tokens(tokens)
    q, k, v = make_qkv(tokens, d=d, seed=seed)
    allowed = padding_mask(tokens) if mask == "padding" else mask
    steps = attention(q, k, v, scale=scale, mask=allowed)
    contrast = attention(q, k, v, scale=not scale, mask=allowed)
    stats = _row_stats(steps.weights)
    attending = stats.row_sum[steps.allowed.any(axis=1)]
    return LabResult(
        tokens=tuple(tokens),
        n_content=n_content,
        n_dropped=dropped,
        mask=mask,
        steps=steps,
        contrast=contrast,
        stats=stats,
        contrast_stats=_row_stats(contrast.weights),
        std_scores=score_std(steps.scores),
        std_scaled=score_std(steps.scaled if scale else contrast.scaled),
        row_sum_error=float(np.abs(attending - 1.0).max(initial=0.0)),
    )


def score_std(scores: npt.NDArray[np.float64]) -> float:
    """Standard deviation of the finite entries of a score matrix (0 when there are none)."""
    finite = scores[np.isfinite(scores)]
    return float(finite.std()) if finite.size else 0.0
