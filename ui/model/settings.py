"""The model page's settings: which character of the lab's sentence is masked, and T."""

from dataclasses import dataclass
from typing import ClassVar

from ui.kit.settings import Settings, integer, number

MAX_CHARS = 46  # the model's positions less [CLS] and [SEP]


@dataclass(frozen=True)
class ModelParams(Settings):
    """``mask_at``: the masked character's place in the sentence (0 = first), clamped to its
    length once the sentence is known; ``fill_temperature`` divides the model's logits."""

    STORE: ClassVar[str] = "_model_params"

    mask_at: int = integer(2, 0, MAX_CHARS - 1)
    fill_temperature: float = number(1.0, 0.05, 20.0)
