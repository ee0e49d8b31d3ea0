"""Freed memory goes back to the system after a run (ui/kit/memory.py), where glibc allows it."""

import subprocess
import sys

import pytest

from ui.kit import memory

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
    from conftest import ROOT

    done = subprocess.run(
        [sys.executable, "-c", TRIM_CHECK], cwd=ROOT, capture_output=True, text=True, check=True
    )
    released, dropped_mb = done.stdout.split()
    assert released == "True"
    assert float(dropped_mb) > 40, "the freed blocks stayed resident"


@pytest.mark.skipif(memory.LIBC is None, reason="NOT glibc: malloc_trim and mallopt do not exist")
def test_arenas_and_thresholds_can_be_set():
    assert memory.tune()


def test_the_app_limits_arenas_and_trims_after_every_run():
    """The entry point calls both, the trim even when a page stops or reruns."""
    from conftest import ROOT

    source = (ROOT / "streamlit_app.py").read_text()
    assert "memory.tune()" in source
    run, trim = source.index("st.navigation(pages).run()"), source.index("memory.trim()")
    assert "finally:" in source[run:trim]
