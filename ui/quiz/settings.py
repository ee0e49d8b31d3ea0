"""The quiz's setting: its seed, so that a class can share one set of numbers."""

from dataclasses import dataclass
from typing import ClassVar

from viz_core import SEED_MAX
from viz_core.settings import Settings, integer


@dataclass(frozen=True)
class QuizParams(Settings):
    """``quiz_seed`` is the URL name and the widget key."""

    PAGE: ClassVar[str] = "quiz"

    quiz_seed: int = integer(0, 0, SEED_MAX)
