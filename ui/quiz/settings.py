"""The quiz's settings: its seed, so that a class can share one set of numbers, and the section
on screen."""

from dataclasses import dataclass
from typing import ClassVar

from viz_core import SEED_MAX
from viz_core.settings import Settings, choice, integer

# One section at a time: the numeric questions (their first answer box on a projector's first
# screen), or the articles' questions without scrolling past the numeric ones.
SECTIONS = ("numbers", "article")


@dataclass(frozen=True)
class QuizParams(Settings):
    """Field names are the URL names and the widget keys; ``section`` is the part on screen."""

    PAGE: ClassVar[str] = "quiz"

    quiz_seed: int = integer(0, 0, SEED_MAX)
    section: str = choice("numbers", SECTIONS)
