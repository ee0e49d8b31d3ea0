"""The training page's cached core calls, and the numbers its sentences are built from.

Pure Python and numpy (no ``st.*``): the verdicts are functions of the runs, tested directly.
"""

import dataclasses
import json
import math
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from ui.kit.cache import Call, shared
from ui.kit.figures import scientific
from ui.kit.text import t
from ui.train.settings import TrainParams
from viz_core import (
    NEVER,
    ONE_HOT,
    OPTIMIZERS,
    Sweep,
    TrainRun,
    forward,
    held_out_batch,
    init_params,
    steps_to_accuracy,
    train_head,
)
from viz_core.attention import frozen
from viz_core.train import MAX_CHECKPOINTS, SWEEP_D_KS, N, batch_score_std, targets_for

Report = Callable[[float], None] | None
TARGET = 0.9  # the accuracy both runs race to
AS_WELL = 1.5  # unscaled needing at most 1.5× the scaled steps counts as learning as well
SWEEP_SEEDS = 3  # the page's seed and the next two
SWEEP_MAX_STEPS = 300
SWEEP_EVAL_EVERY = 10
STUCK_GRADIENT = 0.01  # a late gradient below 1 % of the early one has vanished
STUCK_LOSS = 0.1  # ... while the loss is still above this: the head is stuck, not done
VERDICT_LEAD = 2  # the verdict's finding: this run's outcome, then the seeds' median beside it
# The scaled run's first steps are trained and drawn on their own before the rest: its curve is
# on screen in a fraction of a second. Same init and batches, so they are the run's first steps.
FIRST_STEPS = 50
# The cached functions take no callback (it cannot be part of a cache key): the page sets
# the progress report of its own thread here, and only a computation that runs calls it.
_REPORT: ContextVar[Report] = ContextVar("train_report", default=None)


@contextmanager
def reporting(report: Report) -> Iterator[None]:
    """Within this block, a training or sweep that actually runs reports its progress."""
    token = _REPORT.set(report)
    try:
        yield
    finally:
        _REPORT.reset(token)


def _part(start: float, share: float) -> Report:
    """The current report, for the part of the work from ``start`` to ``start + share``."""
    report = _REPORT.get()
    if report is None:
        return None
    return lambda done: report(start + share * done)


def checkpoints_for(steps: int) -> int:
    """Checkpoints every 10 steps (as the sweep checks), at most MAX_CHECKPOINTS of them."""
    return min(MAX_CHECKPOINTS, steps // SWEEP_EVAL_EVERY + 1)


@dataclass(frozen=True)
class TrainPair:
    """The two runs of one setting: same init, same batches, with and without ÷√d_k; and how
    saturated the softmax is before training, over the held-out rows, (scaled, unscaled)."""

    scaled: TrainRun
    unscaled: TrainRun
    initial_peak: tuple[float, float]  # mean largest weight of a row
    initial_one_hot: tuple[float, float]  # share of rows whose largest weight is ≥ ONE_HOT


def initial_softmax(task: str, d: int, seed: int) -> tuple[tuple[float, float], ...]:
    """Before any step, on the run's held-out sequences: the mean largest weight of a row and
    the share of nearly one-hot rows, scaled and unscaled (both runs share this init)."""
    params, tokens = init_params(d, seed), held_out_batch(task, seed).tokens
    peaks = [forward(params, tokens, scale).weights.max(axis=2) for scale in (True, False)]
    mean = (float(peaks[0].mean()), float(peaks[1].mean()))
    share = (float((peaks[0] >= ONE_HOT).mean()), float((peaks[1] >= ONE_HOT).mean()))
    return mean, share


@shared(max_mb=16)
def train_run(task: str, d: int, steps: int, optimizer: str, seed: int, scale: bool) -> TrainRun:
    """One of a setting's two runs, shared by every session: a class on one link trains once."""
    report = _part(0.0 if scale else 0.5, 0.5)
    checkpoints = checkpoints_for(steps)
    return train_head(
        task, d, scale, seed, steps, optimizer, checkpoints=checkpoints, progress=report
    )


def pair_calls(task: str, d: int, steps: int, optimizer: str, seed: int) -> list[Call]:
    """The two runs of a setting as cached calls, scaled first: what ``advance`` takes."""
    setting = {"task": task, "d": d, "steps": steps, "optimizer": optimizer, "seed": seed}
    return [(train_run, {**setting, "scale": scale}) for scale in (True, False)]


def drawing_calls(params: TrainParams) -> list[Call]:
    """The calls the page makes, one per script run, each drawn as it is done: the scaled
    run's first FIRST_STEPS steps (unless the scaled run is kept already), then both runs."""
    scaled, unscaled = pair_calls(
        params.task, params.d, params.steps, params.optimizer, params.seed
    )
    if params.steps <= FIRST_STEPS or train_run.kept(**scaled[1]):
        return [scaled, unscaled]
    return [(train_run, {**scaled[1], "steps": FIRST_STEPS}), scaled, unscaled]


def train_pair(params: TrainParams) -> TrainPair:
    """The page's core call: both runs of its setting (trained now where not kept yet), and the
    softmax before them."""
    setting = (params.task, params.d, params.steps, params.optimizer, params.seed)
    calls = pair_calls(*setting)
    scaled, unscaled = (call(**kwargs) for call, kwargs in calls)
    peak, one_hot = initial_softmax(params.task, params.d, params.seed)
    return TrainPair(scaled, unscaled, initial_peak=peak, initial_one_hot=one_hot)


def sweep_seeds(seed: int) -> tuple[int, ...]:
    """The sweep's seeds: the page's own and the next ones."""
    return tuple(range(seed, seed + SWEEP_SEEDS))


@shared(max_mb=1)
def sweep_cell(task: str, optimizer: str, d_k: int, seed: int) -> Sweep:
    """One (d_k, seed) of the sweep: at most two runs of SWEEP_MAX_STEPS steps, about 0.4 s."""
    return steps_to_accuracy(
        task,
        optimizer,
        d_ks=(d_k,),
        seeds=(seed,),
        target=TARGET,
        max_steps=SWEEP_MAX_STEPS,
        eval_every=SWEEP_EVAL_EVERY,
    )


def sweep_calls(task: str, optimizer: str, seed: int) -> list[Call]:
    """Every (d_k, seed) of the sweep as a cached call, in the order they are swept."""
    cells = [(d_k, s) for d_k in SWEEP_D_KS for s in sweep_seeds(seed)]
    return [
        (sweep_cell, {"task": task, "optimizer": optimizer, "d_k": d, "seed": s}) for d, s in cells
    ]


@shared(max_mb=1)
def sweep(task: str, optimizer: str, seed: int) -> Sweep:
    """Steps to 90 % for d_k = 16 … 1024 and three seeds, scaled and unscaled, from its cells
    (swept now where ``advance`` has not swept them yet)."""

    def cell(d_k: int, s: int) -> tuple[list[int], list[float]]:
        one = sweep_cell(task=task, optimizer=optimizer, d_k=d_k, seed=s)
        steps = [int(one.scaled[0, 0]), int(one.unscaled[0, 0])]
        return steps, [float(one.score_std_scaled[0]), float(one.score_std_unscaled[0])]

    return steps_to_accuracy(
        task,
        optimizer,
        d_ks=SWEEP_D_KS,
        seeds=sweep_seeds(seed),
        target=TARGET,
        max_steps=SWEEP_MAX_STEPS,
        eval_every=SWEEP_EVAL_EVERY,
        cell=cell,
    )


def ideal_keys(task: str, tokens: tuple[int, ...]) -> list[int]:
    """For each query position, the key position the task's rule reads."""
    n = len(tokens)
    if task == "previous":
        return [max(i - 1, 0) for i in range(n)]
    if task == "reverse":
        return [n - 1 - i for i in range(n)]
    return [int(np.argmax(tokens))] * n


# --- the numbers behind the sentences -------------------------------------------------------


@dataclass(frozen=True)
class Evidence:
    """What the page says about a pair of runs, measured on them."""

    steps: tuple[int, int]  # to 90 %, (scaled, unscaled); NEVER if not reached
    accuracy: tuple[float, float]  # held-out, after training
    score_std: tuple[float, float]  # of the scores the softmax sees, at the start
    peak: tuple[float, float]  # mean largest weight of a held-out row, at the start
    one_hot: tuple[float, float]  # share of held-out rows nearly one-hot, at the start
    on_ideal: tuple[float, float]  # mean weight on the key the task reads, after training
    early_gradient: tuple[float, float]  # median over the first tenth of the steps
    late_gradient: tuple[float, float]  # median over the last tenth
    late_loss: tuple[float, float]  # mean over the last tenth
    window: int  # steps in a tenth
    rise: float  # unscaled accuracy gained over the last third of its checkpoints
    diverged: tuple[int, int]  # step of overflow, NEVER if none
    wrong_rows: int  # unscaled probe rows ending one-hot on a key holding a wrong digit
    wrong_since: int  # the checkpoint step since which all of those rows have been so


def wrong_one_hot(run: TrainRun) -> tuple[int, int]:
    """Probe rows that end nearly one-hot on keys whose digit is not the row's target (largest
    weight ≥ 0.9, at most 0.1 on keys holding the target), and the checkpoint step since which
    every one of them has been so; (0, NEVER) when there are none."""
    probe = np.array(run.probe)
    targets = targets_for(run.task, probe[None, :])[0]
    w = run.weights  # (checkpoints, n, n); NaN after an overflow, which never counts
    right = (probe[None, :] == targets[:, None]).astype(float)  # (n, n): keys with the target
    on_right = (w * right).sum(axis=2)  # (checkpoints, n)
    stuck = (w.max(axis=2) >= ONE_HOT) & (on_right <= 1 - ONE_HOT)
    rows = stuck[-1]
    if not rows.any():
        return 0, NEVER
    broken = np.flatnonzero(~stuck[:, rows].all(axis=1))  # checkpoints where one was not
    first = int(broken[-1]) + 1 if broken.size else 0
    return int(rows.sum()), int(run.checkpoint_steps[first])


def _pair(function: Callable[[TrainRun], float], pair: TrainPair) -> tuple[float, float]:
    return function(pair.scaled), function(pair.unscaled)


def evidence(pair: TrainPair) -> Evidence:
    """The measurements every sentence of the page quotes."""
    window = max(1, pair.scaled.steps // 10)
    ideal = ideal_keys(pair.scaled.task, pair.scaled.probe)

    def on_ideal(run: TrainRun) -> float:
        return float(run.weights[-1][np.arange(N), ideal].mean())

    third = len(pair.unscaled.accuracy_curve) * 2 // 3
    wrong_rows, wrong_since = wrong_one_hot(pair.unscaled)
    return Evidence(
        steps=(pair.scaled.steps_to(TARGET), pair.unscaled.steps_to(TARGET)),
        accuracy=_pair(lambda run: run.accuracy, pair),
        score_std=_pair(lambda run: run.initial_score_std, pair),
        peak=pair.initial_peak,
        one_hot=pair.initial_one_hot,
        on_ideal=_pair(on_ideal, pair),
        early_gradient=_pair(lambda run: float(np.median(run.grad_norm[:window])), pair),
        late_gradient=_pair(lambda run: float(np.median(run.grad_norm[-window:])), pair),
        late_loss=_pair(lambda run: float(np.mean(run.loss[-window:])), pair),
        window=window,
        rise=float(pair.unscaled.accuracy - pair.unscaled.accuracy_curve[third]),
        diverged=(pair.scaled.diverged_at, pair.unscaled.diverged_at),
        wrong_rows=wrong_rows,
        wrong_since=wrong_since,
    )


def pct(value: float) -> str:
    """An accuracy as a percentage, without the sign (the strings add it)."""
    return f"{100 * value:.0f}" if value in (0.0, 1.0) else f"{100 * value:.1f}"


def num(value: float) -> str:
    """A measured number with three significant digits, small ones as 4.23 × 10⁻⁵; never
    'nan' on screen."""
    if not math.isfinite(value):
        return "—"
    if value == 0:
        return "0"
    if abs(value) >= 1e-3:  # "#" keeps trailing zeros: 0.200 beside 0.526, not 0.2
        return f"{value:#.3g}".rstrip(".")
    return scientific(value, 2)


def outcome(e: Evidence) -> str:
    """How the unscaled run fared against the scaled one, in one word."""
    scaled, unscaled = e.steps
    if scaled == NEVER and unscaled == NEVER:
        return "neither"
    if unscaled == NEVER:
        return "never"
    if scaled == NEVER:
        return "scaled_never"
    if unscaled * AS_WELL < scaled:
        return "faster"
    return "as_well" if unscaled <= AS_WELL * max(scaled, 1) else "slower"


def stuck_state(e: Evidence) -> str:
    """Why an unscaled run short of 90 % is short: vanished gradient, stalled, or still rising."""
    vanished = e.late_gradient[1] < STUCK_GRADIENT * e.early_gradient[1]
    if vanished and e.late_loss[1] > STUCK_LOSS:
        return "vanished"
    return "rising" if e.rise >= 0.01 else "stalled"


def _outcome_sentence(e: Evidence, run: TrainRun, lang: str) -> str:
    """What happened in this one run (its seed named): learns as well, slower, or not at all."""
    scaled, unscaled = e.steps
    ratio = f"{unscaled / max(scaled, 1):.1f}"
    fields = {"s": scaled, "u": unscaled, "steps": run.steps, "ratio": ratio, "seed": run.seed}
    acc = {"acc_s": pct(e.accuracy[0]), "acc_u": pct(e.accuracy[1])}
    return t(f"tr_v_{outcome(e)}", lang, **fields, **acc)


# A run's outcome in the words of the sweep's medians (``Need.kind``).
RUN_KIND = {
    "as_well": "as_well",
    "faster": "as_well",
    "slower": "slower",
    "never": "stuck",
    "scaled_never": "scaled_stuck",
    "neither": "neither",
}


def seed_agrees(e: Evidence, run: TrainRun) -> bool | None:
    """Whether this run's outcome is one the shipped sweep's median gives at its setting (under
    some kernel set); None where no shipped sweep covers it."""
    need = shipped_need(run.task, run.optimizer, run.d_k)
    return None if need is None else RUN_KIND[outcome(e)] in need.kinds


def _same_seed(e: Evidence, run: TrainRun, need: "Need", lang: str) -> str:
    """This server's unscaled run against the stored runs of the same seed, exactly: the same
    step under one kernel set, or elsewhere; "" where the two are not the same training."""
    stored = stored_steps(run.task, run.optimizer, run.d_k, run.seed)
    if stored is None or run.steps != need.max_steps:
        return ""
    mine = e.steps[1]
    words = {"seed": run.seed, "mine": _run_steps(mine, lang), "kernels": len(stored)}
    named = zip(shipped_kernels(), stored, strict=True)  # "SSE2 never, AVX never, AVX2 210"
    words |= {"stored": _d_list([f"{k.upper()} {_run_steps(s, lang)}" for k, s in named], lang)}
    return t("tr_v_seed_same" if mine in stored else "tr_v_seed_moved", lang, **words)


def _run_steps(step: int, lang: str) -> str:
    return t("tr_never", lang) if step == NEVER else str(step)


def _seeds_sentence(e: Evidence, run: TrainRun, lang: str) -> str:
    """The shipped sweep's median at this run's setting (the answer the page gives), this
    server's run against the stored runs of its own seed, and whether the run's outcome is the
    median's; where no shipped sweep covers the setting, that it is one seed."""
    sweep = shipped_sweeps()[run.optimizer]
    seeds = {"runs": len(sweep.seeds), "seeds": f"{sweep.seeds[0]}–{sweep.seeds[-1]}"}
    need = shipped_need(run.task, run.optimizer, run.d_k)
    if need is None:
        task = t(f"tr_task_{NEED_TASK}", lang)
        return t("tr_v_seeds_none", lang, task=task, ds=_d_list(list(sweep.d_ks), lang), **seeds)
    words = {"max_steps": need.max_steps, "kernels": len(need.unscaled), **seeds}
    text = t("tr_v_seeds", lang, **words)
    ratio = _median_range(_ratios(need), "{:.1f}")
    medians = {"s": _steps_text(need.scaled), "u": _median_range(need.unscaled), "ratio": ratio}
    text += t(f"tr_v_median_{need.kind}", lang, ways=_ways(need, lang), **medians, **words)
    if any(need.never):
        text += t("tr_v_median_never", lang, never=_counts(need.never), **words)
    text += _same_seed(e, run, need, lang)
    if seed_agrees(e, run):
        return text + t("tr_v_seed_agrees", lang)
    # a run of other length than the sweep's may differ for that alone: say so
    differs = "tr_v_seed_differs" if run.steps == need.max_steps else "tr_v_seed_steps"
    return text + t(differs, lang, steps=run.steps, max_steps=need.max_steps)


@cache  # d_k is one of the four swept ones: 38 ms a call, the same every /model run
def seed_stds(d_k: int) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """The score std at the start of each stored seed's run at ``d_k``, (scaled, unscaled):
    one seed's own, as /train shows it, where the sweep keeps only their mean."""
    seeds = shipped_sweeps()[OPTIMIZERS[0]].seeds
    found = [(init_params(d_k, seed), held_out_batch(NEED_TASK, seed)) for seed in seeds]
    scaled = tuple(batch_score_std(params, batch, True) for params, batch in found)
    unscaled = tuple(batch_score_std(params, batch, False) for params, batch in found)
    return scaled, unscaled


def _start_sentence(e: Evidence, d: int, lang: str) -> str:
    """How saturated the softmax starts: the score std and the largest weight per row."""
    return t(
        "tr_v_start",
        lang,
        std_s=num(e.score_std[0]),
        std_u=num(e.score_std[1]),
        sqrt_d=f"{math.sqrt(d):.3g}",
        peak_s=f"{e.peak[0]:.2f}",
        peak_u=f"{e.peak[1]:.2f}",
        share_s=pct(e.one_hot[0]),
        share_u=pct(e.one_hot[1]),
    )


def gradient_ratio(e: Evidence) -> float:
    """The unscaled run's early gradient over the scaled run's."""
    return e.early_gradient[1] / e.early_gradient[0] if e.early_gradient[0] > 0 else math.inf


def _gradient_sentence(e: Evidence, d: int, lang: str) -> str:
    """Did the gradient vanish at the start? Measured, not assumed."""
    ratio = gradient_ratio(e)
    key = "tr_v_grad_larger" if ratio >= 1 else "tr_v_grad_smaller"
    return t(key, lang, ratio=num(ratio), window=e.window, sqrt_d=f"{math.sqrt(d):.3g}")


def _reason_sentence(e: Evidence, d: int, optimizer: str, lang: str) -> str | None:
    """Why the unscaled run learned as well, or why it fell short; None when nothing to add."""
    result = outcome(e)
    if result in ("as_well", "faster"):
        share = pct(e.one_hot[1])
        if e.one_hot[1] < 0.5:
            return t("tr_v_why_not_one_hot", lang, d=d, share_u=share)
        return t("tr_v_why_adam" if optimizer == "adam" else "tr_v_why_sgd", lang, share_u=share)
    if optimizer == "adam" and result in ("slower", "never"):
        return t("tr_v_adam_no_help", lang)
    if result != "never":
        return None
    late = {"g_late": num(e.late_gradient[1]), "g_early": num(e.early_gradient[1])}
    return t(
        f"tr_v_{stuck_state(e)}",
        lang,
        loss=num(e.late_loss[1]),
        window=e.window,
        rise=pct(e.rise),
        **late,
    )


def verdict(pair: TrainPair, lang: str) -> list[str]:
    """What this pair of runs shows, every number measured: first this one run's outcome (its
    seed named), then how it compares with the median of the shipped sweep's seeds (VERDICT_LEAD
    sentences, the finding), then the why."""
    e = evidence(pair)
    run = pair.scaled
    sentences = [_outcome_sentence(e, run, lang), _seeds_sentence(e, run, lang)]
    sentences += [_start_sentence(e, run.d_k, lang), _gradient_sentence(e, run.d_k, lang)]
    reason = _reason_sentence(e, run.d_k, run.optimizer, lang)
    sentences += [reason] if reason else []
    if e.wrong_rows:
        rows = {"rows": e.wrong_rows, "n": N, "since": e.wrong_since}
        sentences.append(t("tr_v_wrong_rows", lang, **rows))
    for name, step in zip(("scaled", "unscaled"), e.diverged, strict=True):
        if step != NEVER:
            sentences.append(t("tr_v_diverged", lang, run=t(f"tr_{name}", lang), step=step))
    return sentences


# --- the sweep ------------------------------------------------------------------------------


def sweep_classes(result: Sweep) -> list[str]:
    """Per d_k, the unscaled median run against the scaled one: as_well, slower or fails."""
    scaled, unscaled = result.median_steps(True), result.median_steps(False)
    classes = []
    for s, u in zip(scaled.tolist(), unscaled.tolist(), strict=True):
        if math.isnan(u):
            classes.append("fails")
        elif math.isnan(s) or u <= AS_WELL * max(s, 1):
            classes.append("as_well")
        else:
            classes.append("slower")
    return classes


def _d_list(ds: Sequence[object], lang: str) -> str:
    return ("、" if lang == "zh" else ", ").join(str(d) for d in ds)


def _median_range(values: Sequence[float], form: str = "{:.0f}") -> str:
    """ "40–60" from the finite values, "40" when they agree, "—" when there are none."""
    finite = [v for v in values if math.isfinite(v)]
    if not finite:
        return "—"
    low, high = form.format(min(finite)), form.format(max(finite))
    return low if low == high else f"{low}–{high}"


def sweep_summary(result: Sweep, lang: str) -> list[str]:
    """What the sweep shows: scaled steps, unscaled by d_k, failures, and the conclusion."""
    classes = sweep_classes(result)
    runs = result.scaled.size
    fails = (int((result.scaled == NEVER).sum()), int((result.unscaled == NEVER).sum()))
    scaled = _median_range(result.median_steps(True).tolist())
    first = "tr_sw_scaled" if fails[0] else "tr_sw_scaled_all"
    sentences = [t(first, lang, range=scaled, fails=fails[0], runs=runs)]
    ratios = result.median_steps(False) / result.median_steps(True)
    for kind in ("as_well", "slower", "fails"):
        ds = [d for d, c in zip(result.d_ks, classes, strict=True) if c == kind]
        slower = [r for r, c in zip(ratios.tolist(), classes, strict=True) if c == "slower"]
        if ds:
            ratio = _median_range(slower, "{:.1f}")
            sentences.append(t(f"tr_sw_{kind}", lang, ds=_d_list(ds, lang), ratio=ratio))
    never = "tr_sw_never" if fails[1] else "tr_sw_never_none"
    sentences.append(t(never, lang, fails=fails[1], runs=runs, max_steps=result.max_steps))
    worse = sum(c != "as_well" for c in classes)
    conclusion = "none" if worse == 0 else "all" if worse == len(classes) else "some"
    sentences.append(t(f"tr_sw_conclusion_{conclusion}", lang))
    return sentences


# --- does a head need ÷√d_k? the sweeps every page quotes -----------------------------------
# /train's sweep of its default task and seed, for both optimizers, trained once and shipped:
# swept on request it would take some 3 s (python -m ui.train.make_need writes it; a test
# trains it again and compares).
NEED_TASK = "previous"
NEED_SEEDS = 12  # seeds 0–11: with 3, a verdict flipped between processors
NEED_FILE = Path(__file__).with_name("need_sweeps.json")
_SWEEP_ARRAYS = ("scaled", "unscaled", "score_std_scaled", "score_std_unscaled")


def need_sweep(optimizer: str, seeds: int = NEED_SEEDS) -> Sweep:
    """The sweep behind every page's answer, seeds 0 … ``seeds`` − 1, trained now."""
    return steps_to_accuracy(
        NEED_TASK,
        optimizer,
        d_ks=SWEEP_D_KS,
        seeds=tuple(range(seeds)),
        target=TARGET,
        max_steps=SWEEP_MAX_STEPS,
        eval_every=SWEEP_EVAL_EVERY,
    )


def sweep_to_json(result: Sweep) -> dict[str, Any]:
    """A sweep as plain JSON values."""
    plain = {name: getattr(result, name) for name in Sweep.__dataclass_fields__}
    return plain | {name: plain[name].tolist() for name in _SWEEP_ARRAYS}


def sweep_from_json(stored: dict[str, Any]) -> Sweep:
    """A sweep from ``sweep_to_json``'s values, its arrays read-only."""
    arrays = {name: frozen(np.array(stored[name])) for name in _SWEEP_ARRAYS}
    lists = {name: tuple(stored[name]) for name in ("d_ks", "seeds")}
    return Sweep(**(stored | arrays | lists))


@cache
def shipped_kernels() -> dict[str, dict[str, Sweep]]:
    """The shipped sweeps per kernel set (``make_need.KERNELS``) and optimizer, read once."""
    stored = json.loads(NEED_FILE.read_text(encoding="utf-8"))
    return {
        kernels: {optimizer: sweep_from_json(made[optimizer]) for optimizer in OPTIMIZERS}
        for kernels, made in stored.items()
    }


def shipped_sweeps() -> dict[str, Sweep]:
    """The first kernel set's sweeps (SSE2, which every x86-64 processor runs), one per
    optimizer: its scaled runs are every set's, exactly."""
    return next(iter(shipped_kernels().values()))


def _stored_runs(result: Sweep) -> list[Sweep] | None:
    """Each kernel set's sweep at this sweep's setting, cut to its seeds; None where the
    shipped sweeps do not hold them."""
    stored = [made[result.optimizer] for made in shipped_kernels().values()]
    settings = [n for n in Sweep.__dataclass_fields__ if n not in (*_SWEEP_ARRAYS, "seeds")]
    if any(getattr(result, n) != getattr(stored[0], n) for n in settings):
        return None
    if not set(result.seeds) <= set(stored[0].seeds):
        return None
    columns = [stored[0].seeds.index(seed) for seed in result.seeds]
    return [dataclasses.replace(one, scaled=one.scaled[:, columns],
                                unscaled=one.unscaled[:, columns]) for one in stored]  # fmt: skip


def moved_runs(result: Sweep) -> int | None:
    """How many of this sweep's runs reached 90 % at another step than the same seed's run
    under every shipped kernel set (unscaled runs are chaotic in the last bits of exp and
    matmul); None where the shipped sweeps do not hold this sweep's task and seeds."""
    stored = _stored_runs(result)
    if stored is None:
        return None
    moved = 0
    for name in ("scaled", "unscaled"):
        same = [getattr(result, name) == getattr(one, name) for one in stored]
        moved += int((~np.logical_or.reduce(same)).sum())
    return moved


def stored_steps(task: str, optimizer: str, d_k: int, seed: int) -> tuple[int, ...] | None:
    """One seed's unscaled steps to 90 % under each shipped kernel set; None if not held."""
    made = shipped_sweeps()[optimizer]
    if task != NEED_TASK or d_k not in made.d_ks or seed not in made.seeds:
        return None
    cell = (made.d_ks.index(d_k), made.seeds.index(seed))
    return tuple(int(one[optimizer].unscaled[cell]) for one in shipped_kernels().values())


def median_kind(scaled: float, unscaled: float) -> str:
    """as_well, slower, stuck (the unscaled median run never got there), scaled_stuck or
    neither, from the two medians (NaN = never): the thresholds of ``sweep_classes``."""
    stuck = (math.isnan(scaled), math.isnan(unscaled))
    if all(stuck):
        return "neither"
    if stuck[1] or stuck[0]:
        return "stuck" if stuck[1] else "scaled_stuck"
    return "as_well" if unscaled <= AS_WELL * max(scaled, 1) else "slower"


@dataclass(frozen=True)
class Need:
    """Without ÷√d_k against with it, at one d_k and optimizer: medians over the sweep's seeds,
    the unscaled ones under each kernel set (the scaled runs are the same under all)."""

    optimizer: str
    d_k: int
    scaled: float  # median steps to 90 %; NaN when the median run never got there
    unscaled: tuple[float, ...]  # per kernel set
    never: tuple[int, ...]  # unscaled runs short of 90 % within max_steps, per kernel set
    runs: int  # seeds
    max_steps: int
    std: tuple[float, float]  # score std at the start, (scaled, unscaled): ≈ 1 and ≈ √d_k

    @property
    def kinds(self) -> tuple[str, ...]:
        """The verdicts the kernel sets give, each once, in the order NEED_KINDS tells them."""
        found = {median_kind(self.scaled, u) for u in self.unscaled}
        return tuple(kind for kind in NEED_KINDS if kind in found)

    @property
    def kind(self) -> str:
        """The verdict every kernel set gives, or "varies" where they differ."""
        return self.kinds[0] if len(self.kinds) == 1 else "varies"


def needs(results: list[Sweep]) -> list[Need]:
    """One ``Need`` per d_k of one optimizer's sweeps, one sweep per kernel set."""
    first = results[0]
    scaled = first.median_steps(True).tolist()
    unscaled = list(zip(*(one.median_steps(False).tolist() for one in results), strict=True))
    counts = ((one.unscaled == NEVER).sum(axis=1).tolist() for one in results)
    never = list(zip(*counts, strict=True))
    stds = zip(first.score_std_scaled.tolist(), first.score_std_unscaled.tolist(), strict=True)
    return [
        Need(first.optimizer, d, s, u, n, len(first.seeds), first.max_steps, std)
        for d, s, u, n, std in zip(first.d_ks, scaled, unscaled, never, stds, strict=True)
    ]


def optimizer_needs(optimizer: str) -> list[Need]:
    """The shipped sweeps' ``Need`` per d_k for one optimizer, over every kernel set."""
    return needs([made[optimizer] for made in shipped_kernels().values()])


def shipped_need(task: str, optimizer: str, d_k: int) -> Need | None:
    """The shipped sweeps' medians at exactly this task, optimizer and d_k; None elsewhere."""
    if task != NEED_TASK:
        return None
    return next((need for need in optimizer_needs(optimizer) if need.d_k == d_k), None)


def nearest_swept(d_k: int) -> int:
    """The swept d_k nearest to ``d_k`` on a log scale (the smaller on a tie)."""
    return min(SWEEP_D_KS, key=lambda swept: (abs(math.log(swept / d_k)), swept))


def need_cells(d_k: int | None = None) -> list[Need]:
    """Every optimizer's ``Need`` at each swept d_k, or only at the one nearest ``d_k``."""
    cells = [need for optimizer in OPTIMIZERS for need in optimizer_needs(optimizer)]
    if d_k is None:
        return cells
    return [need for need in cells if need.d_k == nearest_swept(d_k)]


# The order verdicts are told; "varies" where the kernel sets give different ones.
NEED_KINDS = ("stuck", "slower", "as_well", "scaled_stuck", "neither", "varies")
WAYS = ("as_well", "slower", "stuck", "scaled_stuck", "neither")  # "as well or more slowly"


def _steps_text(steps: float) -> str:
    return f"{steps:g}"


def _ratios(need: Need) -> list[float]:
    """The unscaled median over the scaled one, per kernel set that reached 90 %."""
    return [u / max(need.scaled, 1) for u in need.unscaled if math.isfinite(u)]


def _counts(values: tuple[int, ...] | list[int]) -> str:
    """ "2–4" over the kernel sets, "2" where they agree."""
    return _median_range([float(v) for v in values])


def _ways(need: Need, lang: str) -> str:
    """ "as well or more slowly": the verdicts the kernel sets give, in words."""
    kinds = sorted(need.kinds, key=WAYS.index)
    words = [t(f"tr_need_way_{kind}", lang, max_steps=need.max_steps) for kind in kinds]
    return t("tr_need_or", lang).join(words)


def _need_cell(need: Need, lang: str) -> str:
    """One d_k of one optimizer: its kind, with both medians and the runs that never got there,
    each as the range over the kernel sets."""
    ratio = _median_range(_ratios(need), "{:.1f}")
    words = {"d": need.d_k, "s": _steps_text(need.scaled), "u": _median_range(need.unscaled)}
    words |= {"ways": _ways(need, lang)}
    text = t(f"tr_need_{need.kind}", lang, ratio=ratio, max_steps=need.max_steps, **words)
    never = {"never": _counts(need.never), "runs": need.runs, "max_steps": need.max_steps}
    if any(need.never) and need.kind != "stuck":
        text += t("tr_need_never", lang, **never)
    if need.kind == "stuck":
        text += t("tr_need_never_stuck", lang, **never)
    return text


def _where(cells: list[Need], lang: str) -> str:
    """ "SGD at d_k = 64, 1024 and Adam at d_k = 256": the settings of ``cells``."""
    parts = []
    for optimizer in OPTIMIZERS:
        ds = [need.d_k for need in cells if need.optimizer == optimizer]
        if ds:
            name = t(f"tr_optimizer_{optimizer}", lang)
            parts.append(t("tr_need_where", lang, optimizer=name, ds=_d_list(ds, lang)))
    return t("tr_need_and", lang).join(parts)


def _need_clauses(cells: list[Need], lang: str) -> str:
    """Learns or not, by setting: one clause per verdict, with its settings and ratios."""
    clauses = []
    # One clause per verdict; where the kernel sets differ, one per set of verdicts they give.
    groups: dict[tuple[str, tuple[str, ...]], list[Need]] = {}
    for need in cells:
        groups.setdefault((need.kind, need.kinds if need.kind == "varies" else ()), []).append(need)
    for (kind, _), group in sorted(groups.items(), key=lambda item: NEED_KINDS.index(item[0][0])):
        ratio = _median_range([r for need in group for r in _ratios(need)], "{:.1f}")
        words = {"where": _where(group, lang), "ratio": ratio, "max_steps": cells[0].max_steps}
        ways = _ways(group[0], lang)  # every cell of a group gives the same verdicts
        clauses.append(t(f"tr_need_c_{kind}", lang, ways=ways, **words))
    return t("tr_need_then", lang).join(clauses)


def _need_answer(cells: list[Need], lang: str) -> list[str]:
    """Learns or not, by setting, in one sentence; then what that says of "cannot learn"."""
    answer = t("tr_need_answer", lang, clauses=_need_clauses(cells, lang))
    kinds = {kind for need in cells for kind in need.kinds}
    so = "stuck" if "stuck" in kinds else "slower" if "slower" in kinds else "none"
    stuck_cells = [need for need in cells if "stuck" in need.kinds]
    stuck = _where(stuck_cells, lang)
    if stuck_cells and all(need.kind == "varies" for need in stuck_cells):
        so = "stuck_some"  # no setting is stuck under every kernel set
    max_steps = cells[0].max_steps
    sentences = [answer, t(f"tr_need_so_{so}", lang, where=stuck, max_steps=max_steps)]
    never = [sum(counts) for counts in zip(*(need.never for need in cells), strict=True)]
    if any(never) and not so.startswith("stuck"):  # the stuck settings' runs are told already
        runs = sum(need.runs for need in cells)
        words = {"never": _counts(never), "runs": runs, "max_steps": max_steps}
        sentences.append(t("tr_need_so_seeds", lang, **words))
    return sentences


def need_parts(lang: str, d_k: int | None = None) -> tuple[list[str], list[str]]:
    """Does a head still learn without ÷√d_k? The shipped sweeps' answer by d_k and optimizer
    (only at the swept d_k nearest ``d_k``, if given): the claims (the answer, then what it says
    of the articles' "cannot learn"), and the evidence (the runs, every setting's numbers)."""
    cells = need_cells(d_k)
    first = shipped_sweeps()[cells[0].optimizer]
    seeds = f"{first.seeds[0]}–{first.seeds[-1]}"
    task = t(f"tr_task_{NEED_TASK}", lang)
    runs = {"task": task, "seeds": seeds, "every": first.eval_every, "max_steps": first.max_steps}
    runs |= {"kernels": len(shipped_kernels())}
    evidence = [t("tr_need_runs", lang, **runs)]
    for optimizer in OPTIMIZERS:
        mine = [_need_cell(need, lang) for need in cells if need.optimizer == optimizer]
        name = t(f"tr_optimizer_{optimizer}", lang)
        line = t("tr_need_line", lang, optimizer=name, cells=t("tr_need_sep", lang).join(mine))
        evidence.append(line)
    return _need_answer(cells, lang), evidence


def sentences_text(sentences: list[str], lang: str) -> str:
    """Sentences as one paragraph: Chinese runs them together, English puts a space between."""
    return ("" if lang == "zh" else " ").join(sentences)
