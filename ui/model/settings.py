"""The model page's settings: the sentence (the lab's, which follows the user), which of its
characters is masked, and T."""

from dataclasses import dataclass
from typing import ClassVar

from ui.lab.settings import DEFAULT_TEXT, MAX_TEXT_CHARS
from viz_core.settings import Settings, integer, number, text

MAX_CHARS = 46  # the model's positions less [CLS] and [SEP]


@dataclass(frozen=True)
class ModelParams(Settings):
    """``text``: the sentence the model reads; ``mask_at``: the masked character's place in the
    sentence (0 = first), clamped to its length once the sentence is known;
    ``fill_temperature`` divides the model's logits."""

    PAGE: ClassVar[str] = "model"

    text: str = text(DEFAULT_TEXT, MAX_TEXT_CHARS)  # the sentence, carried from page to page
    mask_at: int = integer(2, 0, MAX_CHARS - 1)
    fill_temperature: float = number(1.0, 0.05, 20.0)
