"""The variants page's one core call: four changes to the lab's attention, display-sized.

Q, K, V are the lab's random ones, ``make_qkv(tokens, d, seed)`` for its sentence (capped like
the lab's); sentence B of cross-attention gets ``make_qkv(tokens_b, d, seed + 1)``. Only what
the page shows is kept, read-only, so a result is a few kilobytes whatever d is.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypedDict

import numpy as np

from ui.kit.cache import shared
from ui.lab.settings import LabParams
from ui.variants.settings import VariantsParams
from viz_core import (
    MAX_TOKENS,
    attention,
    embed_qkv,
    grouped_query_attention,
    make_qkv,
    multi_head_attention,
    rope,
    sinusoidal_positions,
    sliding_window_mask,
    tokenize,
)
from viz_core.attention import frozen
from viz_core.lab import cap_tokens
from viz_core.translator import Translation, align, translate

DIMS = 8  # key dimensions shown per head
DEMO_TEXT = "我爱我家"  # two 我 that differ only by their position
VARIANTS_CACHE_MB = 8


@dataclass(frozen=True)
class GqaView:
    """Grouped-query attention of the sentence: which heads share K and V."""

    q_heads: int
    kv_heads: int
    d_k: int
    keys: np.ndarray  # (q_heads, min(DIMS, d_k)), the selected token's key in each query head
    weights: np.ndarray  # (q_heads, n), the selected token's weights in each query head
    loop_error: float  # max |GQA − plain attention of each head with its group's K, V|
    mha_change: float  # max |GQA weights − multi-head weights|: 0 when kv_heads = q_heads


@dataclass(frozen=True)
class WindowView:
    """A sliding window next to the causal mask."""

    window: int
    allowed: np.ndarray  # (n, n) bool, i − window < j ≤ i
    causal: np.ndarray  # (n, n), weights under the causal mask
    weights: np.ndarray  # (n, n), weights under the window: 0 outside it
    renorm_error: float  # max |weights − causal weights cut to the window and renormalised|


@dataclass(frozen=True)
class RopeView:
    """One q, k pair placed at every pair of positions, with RoPE and with added positions."""

    d_rope: int  # the even number of columns RoPE turns (d, or d − 1 when d is odd)
    distance: np.ndarray  # (P·P,), m − n: query position minus key position
    rope: np.ndarray  # (P·P,), rope(q, m) · rope(k, n) / √d
    absolute: np.ndarray  # (P·P,), (q + p_m) · (k + p_n) / √d, p = sinusoidal positions
    rope_spread: float  # largest range of RoPE scores at one distance (0 up to rounding)
    absolute_spread: float  # the same for added positions
    plain: float  # q · k / √d: RoPE's score at distance 0
    demo_tokens: tuple[str, ...]  # tokenize("我爱我家")
    demo_rows: tuple[int, int]  # the two 我
    demo_plain: np.ndarray  # (2, n_demo), their scaled scores from embeddings without positions
    demo_rope: np.ndarray  # (2, n_demo), the same with RoPE on q and k
    demo_weight_gaps: tuple[float, float]  # max |weights of 我 − weights of 我|: plain, RoPE


@dataclass(frozen=True)
class CrossView:
    """Queries from the lab's sentence, keys and values from sentence B."""

    tokens_b: tuple[str, ...]
    dropped_b: int  # characters of B beyond the token cap
    weights: np.ndarray  # (n, m), rows sum to 1


@dataclass(frozen=True)
class VariantsResult:
    """Everything the page draws, for one setting."""

    tokens: tuple[str, ...]
    n_content: int
    row: int  # the lab's selected query, inside the sentence
    gqa: GqaView
    window: WindowView
    rope: RopeView | None  # None when d = 1: RoPE turns pairs of columns
    cross: CrossView | None  # None when sentence B has no tokens


def sentence(text: str, special: bool) -> tuple[list[str], int]:
    """The tokens as the lab caps them (32, [CLS] and [SEP] included) and the count cut."""
    return cap_tokens(tokenize(text, special_tokens=special), MAX_TOKENS)


def compute_variants(params: VariantsParams, lab: LabParams) -> VariantsResult:
    """The page's core call: the four variants on the lab's sentence, d, seed, scaling and row,
    with this page's heads, window and second sentence."""
    return _variants(
        text=lab.text,
        special=lab.special,
        d=lab.d,
        seed=lab.seed,
        scale=lab.scale,
        row=lab.row,
        q_heads=params.q_heads,
        kv_heads=params.kv_heads,
        window=params.window,
        text_b=params.text_b,
    )


@shared(max_mb=VARIANTS_CACHE_MB)
def _variants(
    text: str,
    special: bool,
    d: int,
    seed: int,
    scale: bool,
    row: int,
    q_heads: int,
    kv_heads: int,
    window: int,
    text_b: str,
) -> VariantsResult:
    """The four variants for one setting; ``q_heads`` must divide d and ``kv_heads`` q_heads."""
    tokens, _ = sentence(text, special)
    q, k, v = make_qkv(tokens, d, seed)
    row = min(max(row, 0), len(tokens) - 1)
    return VariantsResult(
        tokens=tuple(tokens),
        n_content=len(tokens) - (2 if special else 0),
        row=row,
        gqa=gqa_view(q, k, v, q_heads, kv_heads, scale, row),
        window=window_view(q, k, v, window, scale),
        rope=rope_view(q[row], k[row], len(tokens), d, seed, special, scale) if d > 1 else None,
        cross=cross_view(q, text_b, special, d, seed, scale),
    )


def gqa_view(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    q_heads: int,
    kv_heads: int,
    scale: bool,
    row: int,
) -> GqaView:
    """Query head h reads key/value head h // (q_heads / kv_heads): the first kv_heads · d_k
    columns of the lab's K and V, one slice per key/value head."""
    d_k = q.shape[1] // q_heads
    width = kv_heads * d_k
    steps = grouped_query_attention(q, k[:, :width], v[:, :width], q_heads, kv_heads, scale)
    group = q_heads // kv_heads
    loop_error = 0.0
    for h, head in enumerate(steps):
        g = slice((h // group) * d_k, (h // group + 1) * d_k)
        plain = attention(q[:, h * d_k : (h + 1) * d_k], k[:, g], v[:, g], scale)
        loop_error = max(loop_error, float(np.abs(head.output - plain.output).max()))
    mha = multi_head_attention(q, k, v, q_heads, scale)
    change = max(
        float(np.abs(a.weights - b.weights).max()) for a, b in zip(steps, mha, strict=True)
    )
    return GqaView(
        q_heads=q_heads,
        kv_heads=kv_heads,
        d_k=d_k,
        keys=frozen(np.array([head.k[row, :DIMS] for head in steps])),
        weights=frozen(np.array([head.weights[row] for head in steps])),
        loop_error=loop_error,
        mha_change=change,
    )


def window_view(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, window: int, scale: bool
) -> WindowView:
    """Causal weights, window weights, and the check that the window renormalises the causal
    weights it keeps."""
    allowed = sliding_window_mask(len(q), window)
    causal = attention(q, k, v, scale, "causal").weights
    weights = attention(q, k, v, scale, allowed).weights
    kept = np.where(allowed, causal, 0.0)
    renormalised = kept / kept.sum(axis=1, keepdims=True)
    return WindowView(
        window=window,
        allowed=allowed,
        causal=causal,
        weights=weights,
        renorm_error=float(np.abs(weights - renormalised).max()),
    )


def _spread(distance: np.ndarray, scores: np.ndarray) -> float:
    """The largest range (max − min) of the scores that share one distance."""
    return max(float(np.ptp(scores[distance == delta])) for delta in np.unique(distance))


def rope_view(
    q_row: np.ndarray,
    k_row: np.ndarray,
    n: int,
    d: int,
    seed: int,
    special: bool,
    scale: bool,
) -> RopeView:
    """q and k of the selected token at positions 0 … P − 1 (P = n, at least 2), both ways."""
    d_rope = d - d % 2
    positions = max(n, 2)
    divisor = math.sqrt(d_rope) if scale else 1.0
    q_at = np.tile(q_row[:d_rope], (positions, 1))  # (P, d): the same q at every position
    k_at = np.tile(k_row[:d_rope], (positions, 1))
    rotated = rope(q_at) @ rope(k_at).T / divisor  # (P, P)
    pe = sinusoidal_positions(positions, d_rope)
    added = (q_at + pe) @ (k_at + pe).T / divisor
    distance = np.subtract.outer(np.arange(positions), np.arange(positions)).ravel()
    demo = _demo(d_rope, seed, special, scale)
    return RopeView(
        d_rope=d_rope,
        distance=frozen(distance),
        rope=frozen(rotated.ravel()),
        absolute=frozen(added.ravel()),
        rope_spread=_spread(distance, rotated.ravel()),
        absolute_spread=_spread(distance, added.ravel()),
        plain=float(q_row[:d_rope] @ k_row[:d_rope] / divisor),
        **demo,
    )


def _demo(d: int, seed: int, special: bool, scale: bool) -> "Demo":
    """我爱我家 from seeded character embeddings without positions: the two 我 attend alike;
    with RoPE on q and k they no longer do."""
    tokens = tokenize(DEMO_TEXT, special_tokens=special)
    projection = embed_qkv(tokens, d, seed, position=False)
    q, k, v = projection.q, projection.k, projection.v
    rows = [i for i, token in enumerate(tokens) if token == DEMO_TEXT[0]]
    plain = attention(q, k, v, scale)
    turned = attention(rope(q), rope(k), v, scale)
    gaps = tuple(
        float(np.abs(s.weights[rows[0]] - s.weights[rows[1]]).max()) for s in (plain, turned)
    )
    return Demo(
        demo_tokens=tuple(tokens),
        demo_rows=(rows[0], rows[1]),
        demo_plain=frozen(plain.scaled[rows]),
        demo_rope=frozen(turned.scaled[rows]),
        demo_weight_gaps=(gaps[0], gaps[1]),
    )


class Demo(TypedDict):
    """RoPE's demonstration on 我爱我家: RopeView's demo fields."""

    demo_tokens: tuple[str, ...]
    demo_rows: tuple[int, int]
    demo_plain: np.ndarray
    demo_rope: np.ndarray
    demo_weight_gaps: tuple[float, float]


def cross_view(
    q: np.ndarray, text_b: str, special: bool, d: int, seed: int, scale: bool
) -> CrossView | None:
    """The lab's queries over sentence B's keys and values (made with seed + 1)."""
    tokens_b, dropped = sentence(text_b, special)
    if not tokens_b:
        return None
    _, k_b, v_b = make_qkv(tokens_b, d, seed + 1)
    weights = attention(q, k_b, v_b, scale).weights
    return CrossView(tokens_b=tuple(tokens_b), dropped_b=dropped, weights=frozen(weights))


@dataclass(frozen=True)
class AlignView:
    """The translator's cross-attention of one decoder layer: rows are the characters it
    produces (then [EOS]), columns the English words it reads (then [EOS])."""

    source: tuple[str, ...]  # (S,)
    target: tuple[str, ...]  # (T,)
    weights: np.ndarray  # (T, S): the chosen head's, or the layer's heads averaged; rows sum to 1
    unknown: tuple[str, ...]  # English words the model never saw
    unknown_target: tuple[str, ...]  # given characters it never saw
    dropped: int  # English words past the encoder's last position
    text: str  # the Chinese, without [EOS]


def _align_view(run: Translation, layer: int, head: str) -> AlignView:
    heads = run.cross[layer]
    weights = np.mean(heads, axis=0) if head == "mean" else heads[int(head)]
    return AlignView(
        source=run.source_tokens,
        target=run.target_tokens,
        weights=frozen(np.array(weights)),
        unknown=run.unknown,
        unknown_target=run.unknown_target,
        dropped=run.dropped,
        text=run.text,
    )


@shared(max_mb=1)  # a view is at most 48 × 40 weights: 15 kB
def aligned(english: str, chinese: str, layer: int, head: str) -> AlignView | None:
    """The translator teacher-forced on the lab's sentence as the translation of ``english``;
    None when either has nothing to read."""
    try:
        return _align_view(align(english, chinese), layer, head)
    except ValueError:
        return None


@shared(max_mb=1)
def translated(english: str, layer: int, head: str) -> AlignView | None:
    """The translator's own greedy translation of ``english``, its attention step by step."""
    try:
        return _align_view(translate(english), layer, head)
    except ValueError:
        return None


def same_token_row(tokens: Sequence[str], row: int, rows: Sequence[str]) -> int | None:
    """The row of ``rows`` that holds the token at ``row`` of ``tokens`` (the same occurrence of
    a repeated one); None when ``rows`` has no such token ([CLS] among characters)."""
    if not 0 <= row < len(tokens):
        return None
    token = tokens[row]
    occurrence = list(tokens[:row]).count(token)
    places = [i for i, other in enumerate(rows) if other == token]
    return places[occurrence] if occurrence < len(places) else None


def strongest(view: AlignView) -> list[tuple[str, str, float]]:
    """(character, the word it attends to most, that weight) for every row."""
    best = view.weights.argmax(axis=1)
    return [
        (character, view.source[j], float(view.weights[i, j]))
        for i, (character, j) in enumerate(zip(view.target, best, strict=True))
    ]
