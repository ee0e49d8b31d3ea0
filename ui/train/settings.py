"""The training page's settings: each field is a URL name, a widget key and a core parameter."""

from dataclasses import dataclass
from typing import ClassVar

from viz_core import OPTIMIZERS, SEED_MAX, TASKS
from viz_core.settings import Settings, choice, integer
from viz_core.train import D_K_MAX, DEFAULT_STEPS

D_K_MIN = 4
D_PRESETS = (16, 64, 256, 1024)
# The most steps whose two runs stay within 1 s of script time at d_k = 1024 (docs/history.md);
# wherever a run learns at all it passes 90 % well before 300 steps.
STEPS_MIN, STEPS_MAX = 50, 400


@dataclass(frozen=True)
class TrainParams(Settings):
    """Both runs (with and without ÷√d_k) share every one of these; ``d`` is the head's d_k."""

    PAGE: ClassVar[str] = "train"

    task: str = choice("previous", TASKS)
    d: int = integer(64, D_K_MIN, D_K_MAX)
    steps: int = integer(DEFAULT_STEPS, STEPS_MIN, STEPS_MAX)
    optimizer: str = choice("sgd", OPTIMIZERS)
    seed: int = integer(0, 0, SEED_MAX)
