"""How the server's C heap behaves: one process serves a whole class, on as little as 690 MB.

Every script run has a thread of its own, and glibc gives busy threads arenas of their own, each
keeping what it once held: two arenas and a trim after each run keep the resident memory near
what is in use. Blocks up to 4 MB come from the heap, not from a fresh mapping each time, so that
training a head does not page-fault on every step. Elsewhere than glibc these calls are skipped.

Python's collector walks every tracked object when it collects the oldest generation, which a
rerun sets off often: the modules live as long as the process, so after the run that imported
them they are frozen and no collection walks them again. The numbers behind both are in
docs/history.md ("Memory and the collector").
"""

import ctypes
import ctypes.util
import gc
import sys
import threading
from functools import cache

from ui.kit.cache import CACHES

# mallopt's parameter numbers, from glibc's malloc.h
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD, M_ARENA_MAX = -1, -3, -8
ARENAS = 2
MMAP_THRESHOLD = 4 << 20  # bytes: smaller blocks are reused from the heap, not mapped anew
TRIM_THRESHOLD = 16 << 20  # bytes free at the heap's top before glibc returns them by itself


def _libc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name)
        libc.mallopt  # noqa: B018 - glibc only
        libc.malloc_trim  # noqa: B018
    except (OSError, AttributeError, TypeError):
        return None
    return libc


LIBC = _libc()


@cache
def tune() -> bool:
    """Set the arenas and thresholds above, once per process; False where they cannot be set."""
    if LIBC is None:
        return False
    settings = [(M_ARENA_MAX, ARENAS), (M_MMAP_THRESHOLD, MMAP_THRESHOLD)]
    settings.append((M_TRIM_THRESHOLD, TRIM_THRESHOLD))
    return all(LIBC.mallopt(parameter, value) == 1 for parameter, value in settings)


def trim() -> bool:
    """Return free heap pages to the system; True when glibc released some."""
    return bool(LIBC is not None and LIBC.malloc_trim(0))


_last_freeze = {"modules": 0}  # how many modules were loaded at the last freeze
_freezing = threading.Lock()


def freeze_modules() -> bool:
    """After a run that loaded modules: collect once, then freeze everything alive, so that later
    collections walk only what runs create. True when it froze."""
    with _freezing:
        if len(sys.modules) == _last_freeze["modules"]:
            return False
        _last_freeze["modules"] = len(sys.modules)
        for kept in CACHES:  # a frozen result with cycles (a go.Figure) would outlive its cache
            if kept.cycles:
                kept.clear()
        gc.collect()  # garbage frozen now would never be collected
        gc.freeze()
        return True
