"""Seeded numeric quiz questions: the same seed gives a class the same numbers."""

import math
from dataclasses import dataclass, field

import numpy as np

from viz_core.attention import softmax

QUESTION_KINDS = (
    "softmax_by_hand",
    "spread_growth",
    "scaled_score",
    "causal_count",
    "gradient",
    "uniform_variance",
    "entropy_uniform",
    "two_scores",
)


@dataclass(frozen=True)
class Question:
    """One question: its kind (the prompt's id), its numbers, the answer and the tolerance."""

    kind: str
    numbers: dict[str, float] = field(hash=False)
    answer: float
    tolerance: float

    def is_correct(self, value: float | None) -> bool:
        """True when ``value`` is within the tolerance of the answer."""
        return (
            value is not None
            and math.isfinite(value)
            and abs(value - self.answer) <= self.tolerance
        )


def _round(values: np.ndarray, digits: int = 1) -> list[float]:
    return [round(float(v), digits) for v in values]


def make_quiz(seed: int) -> list[Question]:
    """One question of each kind, its numbers drawn from ``seed``."""
    rng = np.random.default_rng(seed)
    x = _round(rng.uniform(-2, 3, 3))
    p = softmax(x)
    d1 = int(rng.choice([64, 96, 128, 256]))
    factor = int(rng.choice([4, 9, 16]))
    d_scaled = int(rng.choice([16, 64, 256, 1024, 4096]))
    raw = int(rng.integers(8, 81))
    n_causal = int(rng.integers(4, 13))
    g = _round(rng.uniform(-1, 2, 3))
    target = int(rng.integers(0, 3))
    p_g = softmax(g)
    d_uniform = int(rng.choice([9, 90, 576, 900, 1536]))
    n_entropy = int(rng.integers(2, 11))
    delta = round(float(rng.uniform(0.5, 4.0)), 1)
    return [
        Question("softmax_by_hand", {"x0": x[0], "x1": x[1], "x2": x[2]}, float(p[0]), 0.005),
        Question("spread_growth", {"d": d1, "d2": d1 * factor}, math.sqrt(factor), 0.05),
        Question("scaled_score", {"d": d_scaled, "s": raw}, raw / math.sqrt(d_scaled), 0.01),
        Question("causal_count", {"n": n_causal}, n_causal * (n_causal - 1) / 2, 0.5),
        Question(
            "gradient",
            {"x0": g[0], "x1": g[1], "x2": g[2], "t": target},
            float(p_g[target] - 1.0),
            0.005,
        ),
        Question("uniform_variance", {"d": d_uniform}, d_uniform / 9, max(0.01, d_uniform / 900)),
        Question("entropy_uniform", {"n": n_entropy}, math.log(n_entropy), 0.005),
        Question("two_scores", {"delta": delta}, 1 / (1 + math.exp(-delta)), 0.005),
    ]
