"""Write ui/train/need_sweeps.json, the sweeps behind every page's "does a head need ÷√d_k?":
/train's sweep of its default task and seed, for each optimizer (a few seconds).

    python -m ui.train.make_need

Training without ÷√d_k is chaotic in the last bits of exp and matmul, and a processor picks its
own kernels for both: the same code reached 90 % at other steps on AVX2 and AVX-512 machines. So
the file is made in a child process that uses kernels every x86-64 processor runs alike
(``PORTABLE``), and any machine makes it again bit for bit (tests/test_need_scale.py does).
"""

import json
import os
import subprocess
import sys
from pathlib import Path

from ui.train.compute import NEED_FILE, need_sweep, sweep_to_json
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


def portable(code: str) -> str:
    """Run Python ``code`` with the portable kernels (they are chosen when numpy loads, so in a
    child process); what it prints."""
    env = os.environ | PORTABLE | {"PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True
    )
    if done.returncode:
        raise RuntimeError(done.stderr)
    return done.stdout


def sweeps_json() -> str:
    """Both optimizers' sweeps as the file holds them, trained with the portable kernels."""
    return portable("from ui.train.make_need import _print; _print()")


def _print() -> None:
    stored = {optimizer: sweep_to_json(need_sweep(optimizer)) for optimizer in OPTIMIZERS}
    print(json.dumps(stored, indent=1))


def main() -> None:
    """Train both optimizers' sweeps with the portable kernels and write them."""
    NEED_FILE.write_text(sweeps_json(), encoding="utf-8")
    print(f"wrote {NEED_FILE}")


if __name__ == "__main__":
    main()
