"""The lab's settings: each field is a URL name, a widget (keyed ``lab_<field>``) and a parameter
of run_lab, which ``compute_lab`` passes by name."""

from dataclasses import asdict, dataclass, replace
from typing import Any, ClassVar

from viz_core import (
    D_MAX,
    D_MIN,
    MASK_KINDS,
    MAX_HEADS,
    SEED_MAX,
    SOURCES,
    TEMPERATURE_RANGE,
)
from viz_core.model import model_config
from viz_core.settings import Note, Query, Settings, choice, flag, integer, number, text

TRAINED = model_config()  # the shipped model's shape: layers, heads, d_model, d_k

MAX_TEXT_CHARS = 500  # the text box's limit; 32 tokens fit many times over
DEFAULT_TEXT = "我喜欢人工智能"
# The stages the large heatmap can show, in the order of the computation, and their overview.
STAGES = ("scores", "scaled", "masked", "weights", "output", "all")


def _divides_d(heads: int, values: dict[str, Any]) -> bool:
    return int(values["d"]) % heads == 0


def _last_head(values: dict[str, Any]) -> float:
    return (TRAINED.heads if values["source"] == "trained" else int(values["heads"])) - 1


@dataclass(frozen=True)
class Computing(Settings):
    """What the lab computes on: run_lab's arguments (with source "trained", d and heads are the
    model's, and layer picks its layer). Declared once for A (``LabParams``) and B
    (``CompareParams``)."""

    text: str = text(DEFAULT_TEXT, MAX_TEXT_CHARS)
    special: bool = flag(True)
    d: int = integer(64, D_MIN, D_MAX)
    scale: bool = flag(True)
    mask: str = choice("none", MASK_KINDS)
    seed: int = integer(0, 0, SEED_MAX)
    source: str = choice("random", SOURCES)
    heads: int = integer(1, 1, MAX_HEADS, valid=_divides_d)
    head: int = integer(0, 0, _last_head)
    layer: int = integer(0, 0, TRAINED.layers - 1)  # of the trained model
    position: bool = flag(True)
    temperature: float = number(1.0, *TEMPERATURE_RANGE)


@dataclass(frozen=True)
class LabParams(Computing):
    """Every setting of the lab: what it computes on, and the views of it: the selected ``row``,
    the ``stage`` shown, and whether B is shown beside it (``compare``).

    ``row`` is checked to be a whole number ≥ 0 here: its upper bound depends on the sentence,
    and ``ui.lab.body.selected_row`` applies it once the tokens are known.
    """

    PAGE: ClassVar[str] = "lab"

    row: int = integer(2, 0, 10**9)
    stage: str = choice("weights", STAGES)  # which stage the large heatmap shows
    compare: bool = flag(False)  # B's settings beside these (A's)

    def computed(self) -> "LabParams":
        """These settings with the views (row, stage, compare) at their defaults: every row and
        stage of one computation share one result."""
        return replace(self, row=VIEW.row, stage=VIEW.stage, compare=VIEW.compare)

    def with_b(self, b: "CompareParams") -> "LabParams":
        """B's computation with these views: what the lab computes for B."""
        return replace(self, **asdict(b))


@dataclass(frozen=True)
class CompareParams(Computing):
    """B, beside the lab's settings (A) when ``compare`` is on: the computing settings, in the
    URL as b_<name> where they differ from A's (a key B does not set is A's), in widgets keyed
    lab_b_<name>. The row and the stage are A's: one for both."""

    PAGE: ClassVar[str] = "lab"
    PREFIX: ClassVar[str] = "b_"


VIEW = LabParams()


def parse_lab(query: Query) -> tuple[LabParams, list[Note]]:
    """The lab's settings from a URL query; anything unusable becomes the default, with a note."""
    return LabParams.parse(query)
