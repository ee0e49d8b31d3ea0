"""Time and memory of training the tiny attention head, and the steps-to-90 % sweep. By hand:

    python -m bench.train_bench [--seeds 3] [--tasks previous,reverse,max]

Prints: seconds per train_head at its defaults and at d_k = 1024 with the most steps allowed,
the tracemalloc peak of that largest run, and for each task and optimizer the steps each
(d_k, seed) needed to reach 90 % held-out accuracy, scaled vs unscaled, with the sweep's time.
"""

import argparse
import time
import tracemalloc

import numpy as np

from viz_core.train import (
    MAX_BATCH,
    MAX_STEPS,
    NEVER,
    OPTIMIZERS,
    TASKS,
    steps_to_accuracy,
    train_head,
)


def seconds(**kwargs: object) -> tuple[float, float]:
    """The best of three wall times of one train_head call, and its held-out accuracy."""
    best, accuracy = float("inf"), 0.0
    for _ in range(3):
        start = time.perf_counter()
        accuracy = train_head(**kwargs).accuracy  # type: ignore[arg-type]
        best = min(best, time.perf_counter() - start)
    return best, accuracy


def timing() -> None:
    """Seconds per run at the defaults, and at d_k = 1024 with the most steps allowed."""
    print("\n## train_head: seconds (best of 3) and held-out accuracy")
    print("task | optimizer | d_k | steps | batch | seconds | accuracy")
    cases = [{"task": task, "optimizer": "sgd"} for task in TASKS]
    cases += [{"task": "previous", "optimizer": "adam"}, {"task": "previous", "d_k": 1024}]
    cases += [{"d_k": 1024, "steps": MAX_STEPS, "optimizer": opt} for opt in OPTIMIZERS]
    cases += [{"d_k": 1024, "steps": MAX_STEPS, "batch_size": MAX_BATCH, "optimizer": "adam"}]
    for case in cases:
        run = train_head(**case)  # type: ignore[arg-type]
        wall, accuracy = seconds(**case)
        setting = f"{run.task} | {run.optimizer} | {run.d_k} | {run.steps} | {run.batch_size}"
        print(f"{setting} | {wall:.2f} | {accuracy:.3f}")


def memory() -> None:
    """The tracemalloc peak of the largest run allowed."""
    tracemalloc.start()
    largest = {"d_k": 1024, "steps": MAX_STEPS, "batch_size": MAX_BATCH, "checkpoints": 64}
    run = train_head(optimizer="adam", **largest)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    kept = sum(a.nbytes for a in (run.loss, run.grad_norm, run.weights, run.accuracy_curve))
    print(f"\n## Memory at d_k = 1024, {MAX_STEPS} steps, batch {MAX_BATCH}, 64 checkpoints")
    print(f"tracemalloc peak {peak / 1e6:.1f} MB; the result's arrays {kept / 1e3:.0f} kB")


def cell(steps: np.ndarray) -> str:
    """One table cell: the steps of each seed."""
    return " ".join("never" if s == NEVER else str(s) for s in steps.tolist())


def sweeps(tasks: list[str], seeds: int) -> None:
    """One steps-to-90 % table per task and optimizer."""
    for task in tasks:
        for optimizer in OPTIMIZERS:
            start = time.perf_counter()
            sweep = steps_to_accuracy(task, optimizer, seeds=tuple(range(seeds)))
            wall = time.perf_counter() - start
            print(
                f"\n## Steps to 90 % held-out accuracy: {task}, {optimizer} lr {sweep.lr}, "
                f"seeds {sweep.seeds}, at most {sweep.max_steps} steps, checked every "
                f"{sweep.eval_every} ({wall:.1f} s)"
            )
            print("d_k | score std at init (scaled / unscaled) | ÷√d_k | no ÷√d_k")
            for i, d_k in enumerate(sweep.d_ks):
                stds = f"{sweep.score_std_scaled[i]:.2f} / {sweep.score_std_unscaled[i]:.1f}"
                print(f"{d_k} | {stds} | {cell(sweep.scaled[i])} | {cell(sweep.unscaled[i])}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--tasks", default="previous,reverse,max")
    parser.add_argument("--skip-timing", action="store_true")
    args = parser.parse_args()
    if not args.skip_timing:
        timing()
        memory()
    sweeps(args.tasks.split(","), args.seeds)


if __name__ == "__main__":
    main()
