"""Freed memory goes back to the system after a run (ui/kit/memory.py), where glibc allows it,
and the collector does not walk the loaded modules on every run."""

import subprocess
import sys

import pytest

from ui.kit import memory

pytestmark = pytest.mark.slow  # measures fresh interpreters


def fresh_python(code: str) -> list[str]:
    """The words ``code`` prints, run in a fresh interpreter in the project's root."""
    from conftest import ROOT

    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return done.stdout.split()


TRIM_CHECK = """
import gc, psutil
from ui.kit import memory
memory.tune()
rss = lambda: psutil.Process().memory_info().rss / 1e6
blocks = [bytes(8000) + bytes([i % 256]) for i in range(8000)]
kept = blocks[::100]
del blocks
gc.collect()
before = rss()
released = memory.trim()
print(released, before - rss())
"""


@pytest.mark.skipif(memory.LIBC is None, reason="NOT glibc: malloc_trim and mallopt do not exist")
def test_trim_returns_a_fragmented_heap_to_the_system():
    """64 MB of 8 kB blocks, one in a hundred kept: the heap cannot shrink from its top, and
    without a trim the freed pages stay resident (even with the app's thresholds). In a fresh
    interpreter, whose heap holds nothing else."""
    released, dropped_mb = fresh_python(TRIM_CHECK)
    assert released == "True"
    assert float(dropped_mb) > 40, "the freed blocks stayed resident"


@pytest.mark.skipif(memory.LIBC is None, reason="NOT glibc: malloc_trim and mallopt do not exist")
def test_arenas_and_thresholds_can_be_set():
    assert memory.tune()


def test_the_app_limits_arenas_and_trims_after_every_run():
    """The entry point calls both, the trim even when a page stops or reruns, after the freeze
    (whose collection frees what the trim then returns)."""
    from conftest import ROOT

    source = (ROOT / "dashboard.py").read_text()
    assert "memory.tune()" in source
    run, trim = source.index("st.navigation("), source.index("memory.trim()")
    assert "finally:" in source[run:trim]
    assert run < source.index("memory.freeze_modules()") < trim


FREEZE_CHECK = """
import gc, sys, weakref
from ui.kit import memory

class Node:
    pass

def cycle():
    node = Node()
    node.self = node
    return weakref.ref(node)

garbage = cycle()  # unreachable, but only a collection frees a cycle
first = memory.freeze_modules()
frozen = gc.get_freeze_count()
again = memory.freeze_modules()
import plotly.graph_objects  # a page's modules, loaded by a later run
later = memory.freeze_modules()
print(first, again, later, garbage() is None, frozen, gc.get_freeze_count() - frozen)
"""


def test_freeze_modules_freezes_after_each_run_that_loaded_modules_and_collects_first():
    """In a fresh interpreter: the first call freezes, a second with no new module does not, one
    after an import does and adds the new objects; a cycle that was garbage before the freeze is
    collected, not frozen forever."""
    first, again, later, collected, frozen, added = fresh_python(FREEZE_CHECK)
    assert (first, again, later) == ("True", "False", "True")
    assert collected == "True", "a garbage cycle was frozen instead of collected"
    assert int(frozen) > 1000 and int(added) > 1000


APP_HEAP = """
import gc
from streamlit.testing.v1 import AppTest

app = AppTest.from_file("dashboard.py", default_timeout=60)
for _ in range(3):
    app.run()
assert not app.exception, app.exception
print(gc.get_freeze_count(), len(gc.get_objects(generation=2)))
"""


def test_after_a_few_lab_runs_the_oldest_generation_holds_little_of_the_heap():
    """A full collection walks the oldest generation: after the app's runs, the modules it loaded
    are frozen and no longer there. Without the freeze the generation holds them all."""
    frozen, oldest = (int(n) for n in fresh_python(APP_HEAP))
    assert frozen > 50_000, frozen
    assert oldest < frozen / 4, (oldest, frozen)
