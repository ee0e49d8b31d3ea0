"""The whole computation behind the lab page, in one call."""

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from viz_core.attention import (
    ATTENTION_MASKS,
    AttentionSteps,
    FloatArray,
    RowStats,
    attention,
    frozen,
    padding_mask,
)
from viz_core.attention import row_stats as _row_stats
from viz_core.heads import Projection, embed_qkv, multi_head_attention
from viz_core.model import model_config, run_tokens
from viz_core.qkv import make_qkv
from viz_core.tokenize import CLS, SEP, is_special, pad_tokens, tokenize

MAX_TOKENS = 32  # a 32 × 32 heatmap is the most a projector shows readably
SOURCES = ("random", "embedding", "trained")
TEMPERATURE_RANGE = (0.05, 20.0)
# The masks run_lab accepts: attention()'s, plus "padding", which needs the tokens: run_lab pads
# them with [PAD] and passes attention() a padding_mask array.
MASK_KINDS = (*ATTENTION_MASKS, "padding")


@dataclass(frozen=True)
class LabResult:
    """Tokens, both scaling variants of one attention computation, and their row statistics."""

    tokens: tuple[str, ...]  # (n,), after the cap, with [PAD]s when mask == "padding"
    n_content: int  # characters of the text that made it in
    n_dropped: int  # characters cut by the cap
    mask: str  # "none", "causal" or "padding"
    source: str  # where Q, K, V come from: "random", "embedding" or "trained"
    steps: AttentionSteps  # as chosen: scaled when scale is on
    contrast: AttentionSteps  # the same Q, K, V with scaling toggled
    stats: RowStats  # of steps.weights
    contrast_stats: RowStats  # of contrast.weights
    std_scores: float  # std of the raw scores QKᵀ: about √d
    std_scaled: float  # std of QKᵀ / √d: about 1
    row_sum_error: float  # max |Σ_j weights[i, j] − 1| over rows that attend to something
    per_head: tuple[AttentionSteps, ...]  # every head; steps is per_head[head]
    head: int  # the head that steps and contrast show
    mean_weights: FloatArray  # (n, n), the heads' weights averaged
    output: FloatArray  # (n, d), the heads' outputs side by side: the layer's output
    projection: Projection | None  # X, W and the projections when source == "embedding"
    repeats: tuple[tuple[str, tuple[int, ...], float], ...]  # (token, positions, max row gap)

    @property
    def scaled(self) -> AttentionSteps:
        """The run divided by √d."""
        return self.steps if self.steps.scale else self.contrast

    @property
    def unscaled(self) -> AttentionSteps:
        """The run without division by √d."""
        return self.contrast if self.steps.scale else self.steps

    @property
    def d(self) -> int:
        """The layer's width: the d asked for, or a trained model's own d_model."""
        return int(self.output.shape[1])

    @property
    def heads(self) -> int:
        """How many heads the layer has: those asked for, or a trained model's own."""
        return len(self.per_head)


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
    heads: int = 1,
    head: int = 0,
    source: str = "random",
    position: bool = True,
    temperature: float = 1.0,
    layer: int = 0,
) -> LabResult:
    """Tokenize, make Q/K/V, and run attention (every head) with and without scaling.

    With ``source="random"`` Q, K, V are exactly ``make_qkv(tokens, d, seed)``; with
    ``"embedding"`` they are projected from seeded character embeddings (plus sinusoidal positions
    when ``position``); with ``"trained"`` they are the shipped model's, layer ``layer``, on these
    tokens, and d and heads are the model's (d_model, its heads). With ``mask="padding"`` the
    tokens are first padded with ``[PAD]`` and no query attends to a pad key. ``steps`` and
    ``contrast`` show head ``head``.
    """
    if source == "trained":
        d, heads = model_config().d_model, model_config().heads
    _check_lab(mask, source, heads, head, layer)
    lab_tokens = _lab_tokens(text, special, max_tokens, pad=mask == "padding")
    tokens = lab_tokens.tokens
    q, k, v, projection = _lab_qkv(tokens, d, seed, source, position, layer)
    allowed = padding_mask(tokens) if mask == "padding" else mask
    per_head = multi_head_attention(
        q, k, v, heads, scale=scale, mask=allowed, temperature=temperature
    )
    steps = per_head[head]
    contrast = attention(
        steps.q, steps.k, steps.v, scale=not scale, mask=allowed, temperature=temperature
    )
    return _lab_result(lab_tokens, mask, source, per_head, head, contrast, projection)


def _check_lab(mask: str, source: str, heads: int, head: int, layer: int) -> None:
    """A ValueError that names the bad choice, before any work is done."""
    if mask not in MASK_KINDS:
        raise ValueError(f"Unknown mask {mask!r}: use one of {', '.join(MASK_KINDS)}.")
    if source not in SOURCES:
        raise ValueError(f"Unknown source {source!r}: use one of {', '.join(SOURCES)}.")
    if not 0 <= head < heads:
        raise ValueError(f"The head must be a number from 0 to {heads - 1}.")
    if source == "trained" and not 0 <= layer < model_config().layers:
        raise ValueError(f"The layer must be a number from 0 to {model_config().layers - 1}.")


class _LabTokens(NamedTuple):
    """The tokens run_lab attends over, and how many characters of the text made it in."""

    tokens: list[str]  # (n,), after the cap, with [PAD]s when padded
    n_content: int  # characters of the text that made it in
    n_dropped: int  # characters cut by the cap


def _lab_tokens(text: str, special: bool, max_tokens: int, pad: bool) -> _LabTokens:
    """Tokenize, cap at ``max_tokens``, then pad with [PAD] when ``pad``."""
    tokens, dropped = cap_tokens(tokenize(text, special_tokens=special), max_tokens)
    n_content = len(tokens) - (2 if special else 0)
    if pad:
        tokens = pad_tokens(tokens)
    return _LabTokens(tokens, n_content, dropped)


def _lab_qkv(
    tokens: list[str], d: int, seed: int, source: str, position: bool, layer: int
) -> tuple[FloatArray, FloatArray, FloatArray, Projection | None]:
    """Q, K, V, each (n, d): seeded random rows, projected embeddings with their Projection, or
    the trained model's heads of ``layer`` side by side."""
    if source == "trained":
        heads = run_tokens(tokens).layers[layer]
        q, k, v = (np.hstack([getattr(h, name) for h in heads]) for name in "qkv")
        return q, k, v, None
    if source == "random":
        q, k, v = make_qkv(tokens, d, seed)
        return q, k, v, None
    projection = embed_qkv(tokens, d, seed, position)
    return projection.q, projection.k, projection.v, projection


def _lab_result(
    lab_tokens: _LabTokens,
    mask: str,
    source: str,
    per_head: list[AttentionSteps],
    head: int,
    contrast: AttentionSteps,
    projection: Projection | None,
) -> LabResult:
    """Gather head ``head``, its contrast and every head into a LabResult with statistics."""
    steps = per_head[head]
    stats = _row_stats(steps.weights)
    # A row with nothing allowed sums to 0 on purpose, so it is no rounding error.
    attending = stats.row_sum[steps.allowed.any(axis=1)]
    return LabResult(
        tokens=tuple(lab_tokens.tokens),
        n_content=lab_tokens.n_content,
        n_dropped=lab_tokens.n_dropped,
        mask=mask,
        source=source,
        steps=steps,
        contrast=contrast,
        stats=stats,
        contrast_stats=_row_stats(contrast.weights),
        std_scores=score_std(steps.scores),
        std_scaled=score_std(steps.scaled if steps.scale else contrast.scaled),
        row_sum_error=float(np.abs(attending - 1.0).max(initial=0.0)),
        per_head=tuple(per_head),
        head=head,
        mean_weights=frozen(np.mean([s.weights for s in per_head], axis=0)),
        output=frozen(np.hstack([s.output for s in per_head])),
        projection=projection,
        repeats=repeated_rows(lab_tokens.tokens, steps.weights),
    )


def repeated_rows(
    tokens: list[str], weights: FloatArray
) -> tuple[tuple[str, tuple[int, ...], float], ...]:
    """For each character that occurs more than once: its positions and how far apart its rows are.

    A gap of 0 means the repeated character attends exactly alike wherever it stands.
    """
    places: dict[str, list[int]] = {}
    for i, token in enumerate(tokens):
        if not is_special(token):
            places.setdefault(token, []).append(i)
    return tuple(
        (token, tuple(rows), float(np.abs(weights[rows] - weights[rows[0]]).max()))
        for token, rows in places.items()
        if len(rows) > 1
    )


def score_std(scores: npt.NDArray[np.float64]) -> float:
    """Standard deviation of the finite entries of a score matrix (0 when there are none)."""
    finite = scores[np.isfinite(scores)]
    return float(finite.std()) if finite.size else 0.0
