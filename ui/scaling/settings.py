"""The √d lesson's settings: the d of the histogram, the entries' distribution and the section on
screen."""

from dataclasses import dataclass
from typing import ClassVar

from viz_core import D_MAX, D_MIN, DISTRIBUTIONS
from viz_core.settings import Settings, choice, integer

# One section at a time, each with its figure on the first screen; the histogram first, as links
# from before the sections open it.
SECTIONS = ("histogram", "variance", "saturation", "animation")


@dataclass(frozen=True)
class ScalingParams(Settings):
    """Field names are the URL names and the widget keys (``d`` is shared with the lab);
    ``section`` is the part on screen."""

    PAGE: ClassVar[str] = "scaling"

    d: int = integer(1536, D_MIN, D_MAX)
    distribution: str = choice("normal", DISTRIBUTIONS)
    section: str = choice("histogram", SECTIONS)
