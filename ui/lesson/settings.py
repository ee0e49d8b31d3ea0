"""The lessons page's setting: whose teacher's notes it shows as one printable page."""

from dataclasses import dataclass
from typing import ClassVar

from ui.kit.lessons import lessons
from viz_core.settings import Settings, choice

NONE = "none"  # the list of lessons, no notes open


@dataclass(frozen=True)
class LessonsParams(Settings):
    """``notes`` is the URL name and the widget key: a lesson's id, or none."""

    PAGE: ClassVar[str] = "lesson"

    notes: str = choice(NONE, (NONE, *lessons()))
