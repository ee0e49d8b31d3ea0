"""The variants page's own settings (the sentence, d, seed, scaling and row are the lab's)."""

from dataclasses import dataclass
from typing import Any, ClassVar

from viz_core import MAX_HEADS, MAX_TOKENS
from viz_core.settings import Settings, choice, integer, text
from viz_core.translator import translator_config

TRANSLATOR = translator_config()  # the shipped translator's shape
CROSS_SOURCES = ("trained", "random")  # the translator's cross-attention, or seeded random Q, K, V
CROSS_HEADS = ("mean", *(str(h) for h in range(TRANSLATOR.heads)))  # the heads averaged, or one

VARIANTS = ("gqa", "window", "rope", "cross")
MAX_TEXT_B_CHARS = 500  # as the lab's sentence; at most 32 tokens are used
DEFAULT_TEXT_B = "I like artificial intelligence."  # 我喜欢人工智能 in English


def _divides_q_heads(kv_heads: int, values: dict[str, Any]) -> bool:
    return int(values["q_heads"]) % kv_heads == 0


@dataclass(frozen=True)
class VariantsParams(Settings):
    """``variant`` is the section on screen; ``q_heads`` and ``kv_heads`` the query and key/value
    heads of grouped-query attention (q_heads must also divide the lab's d: checked on the page);
    ``window`` the sliding window; ``text_b`` the sentence that gives K and V to cross-attention
    (with ``cross_source`` "trained", the English the translator reads; the lab's sentence is its
    Chinese translation), ``cross_layer`` and ``cross_head`` the decoder layer and head shown."""

    PAGE: ClassVar[str] = "variants"

    variant: str = choice("gqa", VARIANTS)
    q_heads: int = integer(8, 1, MAX_HEADS)
    kv_heads: int = integer(2, 1, MAX_HEADS, valid=_divides_q_heads)
    window: int = integer(3, 1, MAX_TOKENS)
    text_b: str = text(DEFAULT_TEXT_B, MAX_TEXT_B_CHARS)
    cross_source: str = choice("trained", CROSS_SOURCES)
    cross_layer: int = integer(TRANSLATOR.decoder_layers - 1, 0, TRANSLATOR.decoder_layers - 1)
    cross_head: str = choice("mean", CROSS_HEADS)
