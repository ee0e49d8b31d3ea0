"""The lab's one core call, shared by every session (the steps page reuses it)."""

from ui.kit.cache import shared
from viz_core import LabResult, run_lab

LAB_CACHE_MB = 60  # the heaviest lab result keeps 14 MB: four of those, or a thousand 9 × 9 ones


@shared(max_mb=LAB_CACHE_MB)
def compute_lab(**settings: object) -> LabResult:
    """run_lab, shared by every session and bounded in bytes.

    The result is immutable (a frozen dataclass of read-only arrays), so every session shares
    one object instead of unpickling a private copy on every rerun; thirty students on one link
    then hold one result, not thirty.
    """
    return run_lab(**settings)  # type: ignore[arg-type]
