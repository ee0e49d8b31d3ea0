"""need_sweeps.json read here, apart from ui.train.compute: per optimizer and d_k, the scaled
median (the same under every kernel set), and per kernel set the unscaled median, the unscaled
runs short of 90 % and the verdict they give. A run short of 90 % counts as infinitely many
steps."""

import json
import math
import statistics
from dataclasses import dataclass

from conftest import ROOT

from viz_core import NEVER

NEED_FILE = ROOT / "ui" / "train" / "need_sweeps.json"
NAMES = {"sgd": "SGD", "adam": "Adam"}
D_KS = (16, 64, 256, 1024)
SEEDS = tuple(range(12))
MAX_STEPS = 300


def median(row):
    return statistics.median(math.inf if n == NEVER else n for n in row)


def kind(scaled, unscaled):
    """Stuck (the median unscaled run never got there), slower (over 1.5× the scaled median's
    steps), or as well."""
    if math.isinf(unscaled):
        return "stuck"
    return "as_well" if unscaled <= 1.5 * scaled else "slower"


@dataclass(frozen=True)
class Cell:
    scaled: float
    unscaled: tuple  # per kernel set
    never: tuple  # per kernel set
    kinds: frozenset


def stored():
    return json.loads(NEED_FILE.read_text(encoding="utf-8"))


def cells(made=None):
    """(optimizer, d_k) -> ``Cell`` of the file (or of ``made``, the file's form)."""
    made = made or stored()
    table = {}
    for optimizer in NAMES:
        sweeps = [one[optimizer] for one in made.values()]
        for i, d_k in enumerate(sweeps[0]["d_ks"]):
            scaled = {median(sweep["scaled"][i]) for sweep in sweeps}
            assert len(scaled) == 1  # the scaled runs are the same under every kernel set
            (s,) = scaled
            unscaled = tuple(median(sweep["unscaled"][i]) for sweep in sweeps)
            never = tuple(sweep["unscaled"][i].count(NEVER) for sweep in sweeps)
            kinds = frozenset(kind(s, u) for u in unscaled)
            table[optimizer, d_k] = Cell(s, unscaled, never, kinds)
    return table


def span(values, form="{:g}"):
    """ "40–60" over the finite values, "40" where they agree."""
    finite = [v for v in values if math.isfinite(v)]
    low, high = form.format(min(finite)), form.format(max(finite))
    return low if low == high else f"{low}–{high}"


WAYS = {
    "en": {"as_well": "as well", "slower": "more slowly",
           "stuck": f"not at all within {MAX_STEPS} steps"},
    "zh": {"as_well": "一样好", "slower": "更慢", "stuck": f"在 {MAX_STEPS} 步内学不会"},
}  # fmt: skip


def ways(cell, lang):
    order = ["as_well", "slower", "stuck"]
    return (" or " if lang == "en" else "或").join(WAYS[lang][k] for k in order if k in cell.kinds)


def ratio(cell):
    return span([u / cell.scaled for u in cell.unscaled], "{:.1f}")
