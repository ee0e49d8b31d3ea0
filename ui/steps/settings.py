"""The six-steps lesson's setting: which step is on screen (the rest are the lab's)."""

from dataclasses import dataclass
from typing import ClassVar

from viz_core.settings import Settings, choice, integer

STEPS = 6


@dataclass(frozen=True)
class StepsParams(Settings):
    """``step`` is the URL name and the widget key; ``matrix``: which of Q, K, V step 1 shows."""

    PAGE: ClassVar[str] = "steps"

    step: int = integer(1, 1, STEPS)
    matrix: str = choice("q", ("q", "k", "v"))
