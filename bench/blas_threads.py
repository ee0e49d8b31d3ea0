"""The model's forward pass and fill-in with OpenBLAS's default threads and with one, alone and
with one core kept busy (as a browser or another session keeps it). By hand:

    python -m bench.blas_threads

Each setting runs in a fresh interpreter: OpenBLAS reads its thread count when numpy loads it.
Prints the median and the third-slowest of 30 calls, in ms.
"""

import json
import os
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TIMED = """
import json, time
from viz_core import fill_mask, run_model
def ms(call):
    times = []
    for _ in range(30):
        start = time.perf_counter(); call(); times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return round(times[15], 1), round(times[-3], 1)
run_model("热身"); fill_mask("我[MASK]")
model = ms(lambda: run_model("今天天气很好呀"))
print(json.dumps([model, ms(lambda: fill_mask("我喜[MASK]人工智能"))]))
"""


@contextmanager
def busy_core(on: bool):
    """A process spinning on one core while the block runs (if ``on``)."""
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if on else None
    try:
        yield
    finally:
        if spinner is not None:
            spinner.kill()
            spinner.wait()


def timed(threads: str | None) -> list[list[float]]:
    env = {key: value for key, value in os.environ.items() if key != "OPENBLAS_NUM_THREADS"}
    env |= {"OPENBLAS_NUM_THREADS": threads} if threads else {}
    out = subprocess.run(
        [sys.executable, "-c", TIMED], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> None:
    print(f"## OpenBLAS threads ({os.cpu_count()} cores): ms, median and third-slowest of 30")
    print("other core | threads | run_model | fill_mask")
    for busy in (False, True):
        for threads in (None, "1"):
            with busy_core(busy):
                (model, fill) = timed(threads)
            where = "busy" if busy else "idle"
            each = f"{model[0]} / {model[1]} | {fill[0]} / {fill[1]}"
            print(f"{where} | {threads or 'default'} | {each}")


if __name__ == "__main__":
    main()
