"""The kernel page's own settings (the sentence, d, seed, … are the lab's)."""

from dataclasses import dataclass
from typing import ClassVar

from viz_core.settings import Settings, choice, integer

SECTIONS = ("softmax", "flash", "cache")
# The seventh article's 喜 row, keys in the order it prints them ([CLS] and [SEP] last), ÷ √64.
XI_ROW = (15.3, 22.7, 18.2, 2.1, 1.8, 3.2, 2.9, 5.6, 4.1)
XI_TOKENS = ("我", "喜", "欢", "人", "工", "智", "能", "[CLS]", "[SEP]")
XI_DIVISOR = 8.0
TILE = 4  # FlashAttention's block of queries and of keys: 4 × 4 tiles of scores
# 32 tokens padded to 36 make ⌈36 / 4⌉² = 81 tiles: the most a link can ask for. The sentence's
# own count is applied once the tokens are known (with a note).
MAX_TILES = 81


@dataclass(frozen=True)
class KernelParams(Settings):
    """``section`` is the part on screen; ``block`` the online softmax's block; ``tile`` the
    FlashAttention tile shown (0 … tiles − 1)."""

    PAGE: ClassVar[str] = "kernel"

    section: str = choice("softmax", SECTIONS)
    block: int = integer(1, 1, len(XI_ROW))
    tile: int = integer(0, 0, MAX_TILES - 1)
