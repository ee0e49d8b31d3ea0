"""The lab's one core call, shared by every session (/steps, /kernel and /variants reuse it)."""

from ui.kit.cache import shared
from ui.lab.settings import LabParams
from viz_core import LabResult, run_lab

LAB_CACHE_MB = 60  # the heaviest lab result keeps 14 MB: four of those, or a thousand 9 × 9 ones


def compute_lab(params: LabParams) -> LabResult:
    """run_lab at the lab's settings, shared by every session and bounded in bytes.

    The result is immutable (a frozen dataclass of read-only arrays), so every session shares
    one object instead of unpickling a private copy on every rerun; thirty students on one link
    then hold one result, not thirty. Every row and stage of one computation share it.
    """
    return _run_lab(params.computed())


@shared(max_mb=LAB_CACHE_MB)
def _run_lab(params: LabParams) -> LabResult:
    """The core call, keyed by the settings that change what it computes."""
    return run_lab(
        text=params.text,
        special=params.special,
        d=params.d,
        scale=params.scale,
        mask=params.mask,
        seed=params.seed,
        heads=params.heads,
        head=params.head,
        source=params.source,
        position=params.position,
        temperature=params.temperature,
        layer=params.layer,
    )
