"""Pure numpy core of the attention dashboard: no streamlit, no plotly."""

from viz_core.attention import (
    MASK_KINDS,
    AttentionSteps,
    RowStats,
    attention,
    causal_mask,
    padding_mask,
    resolve_mask,
    row_stats,
    softmax,
)
from viz_core.lab import MAX_TOKENS, LabResult, run_lab, score_std
from viz_core.qkv import D_MAX, D_MIN, SEED_MAX, make_qkv
from viz_core.tokenize import CLS, PAD, SEP, is_special, pad_tokens, tokenize

__all__ = [
    "CLS", "D_MAX", "D_MIN", "MASK_KINDS", "MAX_TOKENS", "PAD", "SEED_MAX", "SEP",
    "AttentionSteps", "LabResult", "RowStats",
    "attention", "causal_mask", "is_special", "make_qkv", "pad_tokens", "padding_mask",
    "resolve_mask", "row_stats", "run_lab", "score_std", "softmax", "tokenize",
]  # fmt: skip
