"""Write ui/train/need_sweeps.json, the sweeps behind every page's "does a head need ÷√d_k?":
/train's sweep of its default task, 12 seeds, for each optimizer and each of three kernel sets
(about two minutes).

    python -m ui.train.make_need

Training without ÷√d_k is chaotic in the last bits of exp and matmul, and a processor picks its
own kernels for both: the same code reached 90 % at other steps on AVX2 and AVX-512 machines.
So each sweep is made in a child process that uses one set of kernels, as processors of one
generation run them (``KERNELS``): the pages state each verdict with its spread over seeds and
over these kernel sets, and any machine makes the file again bit for bit.
"""

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ui.train.compute import NEED_FILE, NEED_SEEDS, need_sweep, sweep_to_json
from viz_core import OPTIMIZERS

ROOT = Path(__file__).resolve().parents[2]
# OpenBLAS's Nehalem kernels on one thread, numpy's baseline loops (no AVX2/AVX-512 dispatch),
# glibc's SSE2 exp and log: each is the variant every x86-64 processor since 2008 runs.
PORTABLE = {
    "OPENBLAS_CORETYPE": "Nehalem",
    "OPENBLAS_NUM_THREADS": "1",
    "NPY_DISABLE_CPU_FEATURES": "X86_V3,X86_V4,AVX512_ICL,AVX512_SPR",
    "GLIBC_TUNABLES": "glibc.cpu.hwcaps=-AVX2,-FMA,-FMA4,-AVX512F",
}
# The kernels of three processor generations, each run alike by every processor that has it:
# SSE2 (any x86-64), AVX (Sandy Bridge, 2011) and AVX2 with FMA (Haswell, 2013; AMD Zen).
KERNELS = {
    "sse2": PORTABLE,
    "avx": PORTABLE | {"OPENBLAS_CORETYPE": "Sandybridge"},
    "avx2": PORTABLE
    | {
        "OPENBLAS_CORETYPE": "Haswell",
        "NPY_DISABLE_CPU_FEATURES": "X86_V4,AVX512_ICL,AVX512_SPR",
        "GLIBC_TUNABLES": "glibc.cpu.hwcaps=-AVX512F",
    },
    # What a processor with AVX-512 runs natively (CI's since December 2026): made only on one.
    "avx512": PORTABLE | {"OPENBLAS_CORETYPE": "SkylakeX", "NPY_DISABLE_CPU_FEATURES": ""},
}
NEEDS_FLAG = {"avx512": "avx512f"}  # a kernel set only a processor with this cpuinfo flag runs


def runs_here(kernels: str) -> bool:
    """Whether this processor can run a kernel set (Linux's /proc/cpuinfo; else only those
    that need no flag)."""
    flag = NEEDS_FLAG.get(kernels)
    if flag is None:
        return True
    try:
        return flag in Path("/proc/cpuinfo").read_text().split()
    except OSError:
        return False


def portable(code: str, kernels: str = "sse2") -> str:
    """Run Python ``code`` with one set of ``KERNELS`` (they are chosen when numpy loads, so in
    a child process); what it prints."""
    env = os.environ | KERNELS[kernels] | {"PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True
    )
    if done.returncode:
        raise RuntimeError(done.stderr)
    return done.stdout


def sweeps(kernels: str, seeds: int = NEED_SEEDS) -> dict[str, dict[str, object]]:
    """Both optimizers' sweeps of seeds 0 … ``seeds`` − 1 as JSON values, trained with one set
    of ``KERNELS``."""
    code = f"from ui.train.make_need import _print; _print({seeds})"
    made: dict[str, dict[str, object]] = json.loads(portable(code, kernels))
    return made


def _print(seeds: int) -> None:
    stored = {optimizer: sweep_to_json(need_sweep(optimizer, seeds)) for optimizer in OPTIMIZERS}
    print(json.dumps(stored))


def main() -> None:
    """Train both optimizers' sweeps with each set of kernels, side by side, and write them; a
    set this processor cannot run keeps the file's runs of it."""
    stored = json.loads(NEED_FILE.read_text(encoding="utf-8")) if NEED_FILE.exists() else {}
    here = [kernels for kernels in KERNELS if runs_here(kernels)]
    with ThreadPoolExecutor() as pool:
        fresh = dict(zip(here, pool.map(sweeps, here), strict=True))
    made = {kernels: fresh.get(kernels) or stored[kernels] for kernels in KERNELS}
    NEED_FILE.write_text(json.dumps(made, indent=1), encoding="utf-8")
    print(f"wrote {NEED_FILE}")


if __name__ == "__main__":
    main()
