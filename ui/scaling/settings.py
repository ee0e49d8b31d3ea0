"""The √d lesson's settings: the d of the histogram and the entries' distribution."""

from dataclasses import dataclass
from typing import ClassVar

from ui.kit.settings import Settings, choice, integer
from viz_core import D_MAX, D_MIN, DISTRIBUTIONS


@dataclass(frozen=True)
class ScalingParams(Settings):
    """Field names are the URL names and the widget keys (``d`` is shared with the lab)."""

    PAGE: ClassVar[str] = "scaling"

    d: int = integer(1536, D_MIN, D_MAX)
    distribution: str = choice("normal", DISTRIBUTIONS)
