"""The softmax lesson's settings: the numbers (as typed), the divisor, the gradient's target and
the section below the bars."""

from dataclasses import dataclass
from typing import ClassVar

from viz_core.settings import MAX_VALUES, VALUE_LIMIT, Settings, choice, integer, number, numbers

DEFAULT_VALUES = "2.0, 1.0, 0.1"
LARGEST = -1  # target: the largest entry, as the article assumes, whatever the numbers
# Below the bars one section at a time: a new set of numbers redraws the bars and that one.
SECTIONS = ("table", "stability", "jacobian", "gradient")


@dataclass(frozen=True)
class SoftmaxParams(Settings):
    """Field names are the URL names and the widget keys."""

    PAGE: ClassVar[str] = "softmax"

    values: str = numbers(DEFAULT_VALUES)
    divisor: float = number(1.0, 0.001, VALUE_LIMIT)
    target: int = integer(LARGEST, LARGEST, MAX_VALUES - 1)  # the right answer's position
    section: str = choice("table", SECTIONS)
