"""Train one tiny attention head on toy tasks, with and without ÷√d_k.

x = E[tokens] + P, q = x W_q, k = x W_k, v = x W_v, weights = softmax(q kᵀ / √d_k),
logits = (weights v) W_o, loss = mean cross-entropy. Backpropagation is derived by hand.
"""

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np
import numpy.typing as npt

from viz_core.attention import FloatArray, frozen, softmax

IntArray = npt.NDArray[np.int64]
Params = dict[str, FloatArray]
Progress = Callable[[float], None] | None  # called with the fraction done, 0 … 1

TASKS = ("previous", "reverse", "max")
OPTIMIZERS = ("sgd", "adam")
VOCAB = 10  # the digits 0 … 9
N = 8  # tokens per sequence
D_MODEL = 16  # width of x and v: fixed, so only W_q and W_k grow with d_k
D_K_MAX = 1024
PARAM_NAMES = ("E", "P", "W_q", "W_k", "W_v", "W_o")
PROBE = (3, 1, 4, 1, 5, 9, 2, 6)  # π's digits: one clear maximum, and a repeated 1
HELD_OUT_SIZE = 256  # sequences, so accuracy is measured on 2048 positions
# Tuned on the scaled head at d_k = 64: SGD at 0.5 passes 90 % well within 300 steps on every
# task and seed tried.
DEFAULT_STEPS = 300
DEFAULT_LR = {"sgd": 0.5, "adam": 0.01}
MAX_STEPS = 2000  # about 2 s at d_k = 1024 with the default batch
MAX_BATCH = 128
MAX_CHECKPOINTS = 64
SWEEP_D_KS = (16, 64, 256, 1024)
NEVER = -1  # steps to a target accuracy that was not reached in the steps trained
# One (d_k, seed) of a sweep: steps to target, then score std at init, each (scaled, unscaled).
SweepCell = Callable[[int, int], tuple[Sequence[int], Sequence[float]]]

# Every random stream of a run is [seed, stream]: the same seed gives the same init and the
# same batches whether scale is on or off, and held-out sequences never come from training.
_INIT, _TRAIN, _HELD_OUT = 0, 1, 2


def _check_int(name: str, value: int, low: int, high: int) -> None:
    is_int = isinstance(value, int | np.integer) and not isinstance(value, bool)
    if not (is_int and low <= value <= high):
        raise ValueError(f"{name} must be a whole number from {low} to {high}, got {value!r}.")


def _check_task(task: str) -> None:
    if task not in TASKS:
        raise ValueError(f"Unknown task {task!r}: use one of {', '.join(TASKS)}.")


# --- tasks ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Batch:
    """Sequences of digits, and the digit the head should output at every position."""

    task: str
    tokens: IntArray  # (size, n)
    targets: IntArray  # (size, n)


def targets_for(task: str, tokens: IntArray) -> IntArray:
    """previous: token i − 1 (position 0 copies itself); reverse: token n − 1 − i; max: the max.

    The attention that solves each: the sub-diagonal, the anti-diagonal, a vertical stripe.
    """
    _check_task(task)
    if task == "previous":
        return np.concatenate([tokens[:, :1], tokens[:, :-1]], axis=1)
    if task == "reverse":
        return tokens[:, ::-1].copy()
    largest = tokens.max(axis=1, keepdims=True)  # (size, 1)
    return np.repeat(largest, tokens.shape[1], axis=1)


def _batch(task: str, tokens: IntArray) -> Batch:
    targets = targets_for(task, tokens)
    tokens.setflags(write=False)
    targets.setflags(write=False)
    return Batch(task=task, tokens=tokens, targets=targets)


def _draw_batch(task: str, size: int, rng: np.random.Generator) -> Batch:
    return _batch(task, rng.integers(0, VOCAB, (size, N), dtype=np.int64))


def make_batch(task: str, size: int = 32, seed: int = 0) -> Batch:
    """``size`` random sequences of N digits, and their targets for ``task``.

    Example:
        >>> batch = make_batch("reverse", size=1)
        >>> batch.targets[0].tolist() == batch.tokens[0].tolist()[::-1]
        True
    """
    _check_task(task)
    _check_int("The batch size", size, 1, 4096)
    _check_int("The seed", seed, 0, 2**63 - 1)
    return _draw_batch(task, size, np.random.default_rng(seed))


def probe_batch(task: str) -> Batch:
    """The one fixed sequence, PROBE, whose attention weights a run records."""
    _check_task(task)
    return _batch(task, np.array([PROBE], dtype=np.int64))


def held_out_batch(task: str, seed: int = 0) -> Batch:
    """A run's fixed evaluation sequences, from a stream its training batches never use."""
    _check_task(task)
    return _draw_batch(task, HELD_OUT_SIZE, np.random.default_rng([seed, _HELD_OUT]))


# --- the head -------------------------------------------------------------------------------


def init_params(d_k: int = 64, seed: int = 0) -> Params:
    """Random parameters; the same seed gives the same matrices whether scale is on or off.

    E, P ~ N(0, 1/2), so x = E[t] + P has entries of variance 1; every W ~ N(0, 1/D_MODEL),
    so q, k and v entries have variance about 1 and q·k has variance about d_k: unscaled
    scores start with std ≈ √d_k, scaled ones with std ≈ 1.
    """
    _check_int("d_k", d_k, 1, D_K_MAX)
    _check_int("The seed", seed, 0, 2**63 - 1)
    rng = np.random.default_rng([seed, _INIT])
    x_std = math.sqrt(0.5)
    w_std = 1.0 / math.sqrt(D_MODEL)
    return {
        "E": rng.normal(0.0, x_std, (VOCAB, D_MODEL)),
        "P": rng.normal(0.0, x_std, (N, D_MODEL)),
        "W_q": rng.normal(0.0, w_std, (D_MODEL, d_k)),
        "W_k": rng.normal(0.0, w_std, (D_MODEL, d_k)),
        "W_v": rng.normal(0.0, w_std, (D_MODEL, D_MODEL)),
        "W_o": rng.normal(0.0, w_std, (D_MODEL, VOCAB)),
    }


@dataclass(frozen=True)
class Forward:
    """The intermediates of the head on a batch of size b that backpropagation needs.

    q and k themselves are never formed: the scores come from W_q W_kᵀ (see ``forward``).
    """

    x: FloatArray  # (b, n, d_model), E[tokens] + P
    w_qk: FloatArray  # (d_model, d_model), W_q W_kᵀ
    v: FloatArray  # (b, n, d_model), x W_v
    divisor: float  # √d_k when scale, else 1
    scores: FloatArray  # (b, n, n), q kᵀ, before the divisor
    weights: FloatArray  # (b, n, n), softmax(scores / divisor): rows sum to 1
    output: FloatArray  # (b·n, d_model), weights v, one row per token
    logits: FloatArray  # (b·n, vocab), output W_o


def forward(params: Params, tokens: IntArray, scale: bool = True) -> Forward:
    """The head on ``tokens`` (b, n), with no mask: reverse and max need the whole sequence."""
    b, n = tokens.shape
    d_k = params["W_q"].shape[1]
    x = params["E"][tokens] + params["P"][:n]  # (b, n, d_model)
    # q kᵀ = x W_q W_kᵀ xᵀ: forming W_q W_kᵀ first gives the same scores, and no array of the
    # batch has a d_k axis, so d_k = 1024 costs what d_k = 16 does.
    w_qk = params["W_q"] @ params["W_k"].T  # (d_model, d_k) x (d_k, d_model)
    v = x @ params["W_v"]  # (b, n, d_model)
    scores = (x @ w_qk) @ x.transpose(0, 2, 1)  # (b, n, d_model) x (b, d_model, n)
    divisor = math.sqrt(d_k) if scale else 1.0
    weights = softmax(scores / divisor)
    output = (weights @ v).reshape(b * n, -1)  # (b, n, n) x (b, n, d_model)
    logits = output @ params["W_o"]  # (b·n, vocab)
    return Forward(
        x=frozen(x),
        w_qk=frozen(w_qk),
        v=frozen(v),
        divisor=divisor,
        scores=frozen(scores),
        weights=frozen(weights),
        output=frozen(output),
        logits=frozen(logits),
    )


def loss_and_grads(params: Params, batch: Batch, scale: bool = True) -> tuple[float, Params]:
    """Mean cross-entropy over positions and batch, and its gradient for every parameter."""
    f = forward(params, batch.tokens, scale)
    b, n, d_model = f.x.shape
    rows = np.arange(b * n)
    targets = batch.targets.ravel()  # (b·n,)
    shifted = f.logits - f.logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    loss = -float(log_probs[rows, targets].mean())
    d_logits = np.exp(log_probs)  # becomes (p − one-hot(target)) / (b·n)
    d_logits[rows, targets] -= 1.0
    d_logits /= b * n
    d_output = (d_logits @ params["W_o"].T).reshape(b, n, d_model)
    d_weights = d_output @ f.v.transpose(0, 2, 1)  # (b, n, d_model) x (b, d_model, n)
    d_v = f.weights.transpose(0, 2, 1) @ d_output  # (b, n, n) x (b, n, d_model)
    # The softmax Jacobian diag(w) − w wᵀ, applied row by row without building it.
    along_row = (d_weights * f.weights).sum(axis=2, keepdims=True)  # (b, n, 1)
    d_scores = f.weights * (d_weights - along_row) / f.divisor  # (b, n, n)
    x_t = f.x.transpose(0, 2, 1)  # (b, d_model, n)
    d_w_qk = (x_t @ d_scores @ f.x).sum(axis=0)  # Σ_b xᵀ d_scores x, (d_model, d_model)
    d_x = d_scores @ f.x @ f.w_qk.T  # through the queries, (b, n, d_model)
    d_x += d_scores.transpose(0, 2, 1) @ f.x @ f.w_qk  # through the keys
    d_x += d_v @ params["W_v"].T  # through the values
    one_hot = np.eye(VOCAB)[batch.tokens.ravel()]  # (b·n, vocab)
    grads = {
        "E": one_hot.T @ d_x.reshape(b * n, d_model),
        "P": d_x.sum(axis=0),
        "W_q": d_w_qk @ params["W_k"],  # w_qk = W_q W_kᵀ
        "W_k": d_w_qk.T @ params["W_q"],
        "W_v": (x_t @ d_v).sum(axis=0),
        "W_o": f.output.T @ d_logits,
    }
    return loss, grads


def accuracy(params: Params, batch: Batch, scale: bool = True) -> float:
    """The share of positions whose most likely digit is the target."""
    f = forward(params, batch.tokens, scale)
    guesses = f.logits.argmax(axis=1)  # (b·n,): the largest logit is the likeliest digit
    return float((guesses == batch.targets.ravel()).mean())


def batch_score_std(params: Params, batch: Batch, scale: bool = True) -> float:
    """The std of what the softmax sees, q kᵀ / divisor: ≈ 1 scaled, ≈ √d_k unscaled at init."""
    f = forward(params, batch.tokens, scale)
    return float((f.scores / f.divisor).std())


# --- training -------------------------------------------------------------------------------


def _stream(task: str, seed: int, batch_size: int) -> Iterator[Batch]:
    rng = np.random.default_rng([seed, _TRAIN])
    while True:
        yield _draw_batch(task, batch_size, rng)


def batch_stream(task: str, seed: int = 0, batch_size: int = 32) -> Iterator[Batch]:
    """The endless training batches of a run with this seed: one per step, whatever scale is."""
    _check_task(task)
    _check_int("The seed", seed, 0, 2**63 - 1)
    _check_int("The batch size", batch_size, 1, MAX_BATCH)
    return _stream(task, seed, batch_size)


class _Optimizer:
    """Plain SGD, or Adam (Kingma & Ba, 2015) with its usual β₁ = 0.9, β₂ = 0.999, ε = 1e-8."""

    def __init__(self, kind: str, lr: float, params: Params) -> None:
        self.kind, self.lr, self.t = kind, lr, 0
        self.m = {name: np.zeros_like(p) for name, p in params.items()}
        self.s = {name: np.zeros_like(p) for name, p in params.items()}

    def step(self, params: Params, grads: Params) -> None:
        """Update ``params`` in place."""
        if self.kind == "sgd":
            for name, g in grads.items():
                params[name] -= self.lr * g
            return
        self.t += 1
        # The bias corrections folded into the step size, as in the paper's Algorithm 1.
        lr = self.lr * math.sqrt(1 - 0.999**self.t) / (1 - 0.9**self.t)
        for name, g in grads.items():
            self.m[name] *= 0.9
            self.m[name] += 0.1 * g
            self.s[name] *= 0.999
            self.s[name] += 0.001 * g * g
            params[name] -= lr * self.m[name] / (np.sqrt(self.s[name]) + 1e-8)


@dataclass
class _Trainer:
    """One run between steps: its parameters, optimizer and stream of training batches."""

    scale: bool
    params: Params
    optimizer: _Optimizer
    stream: Iterator[Batch]
    diverged_at: int = NEVER
    steps_done: int = 0

    def step(self) -> tuple[float, float]:
        """One update on the next batch: the loss before it and the size of W_q, W_k's gradient.

        A step that overflows ends training: too large a learning rate is an outcome to show,
        not an error. Later steps return NaN and change nothing.
        """
        batch = next(self.stream)
        self.steps_done += 1
        if self.diverged_at != NEVER:
            return math.nan, math.nan
        try:
            with np.errstate(over="raise", invalid="raise"):
                loss, grads = loss_and_grads(self.params, batch, self.scale)
                norm = math.sqrt(float((grads["W_q"] ** 2).sum() + (grads["W_k"] ** 2).sum()))
                self.optimizer.step(self.params, grads)
                finite = all(np.isfinite(p).all() for p in self.params.values())
        except (FloatingPointError, ValueError):  # softmax raises ValueError on NaN scores
            finite = False
        if not finite:
            self.diverged_at = self.steps_done - 1
            return math.nan, math.nan
        return loss, norm

    def next_loss(self) -> float:
        """The loss on the next batch of the stream, without an update; NaN once diverged."""
        batch = next(self.stream)
        if self.diverged_at != NEVER:
            return math.nan
        return loss_and_grads(self.params, batch, self.scale)[0]

    def attention(self, probe: Batch) -> FloatArray:
        """The weights on the probe's one sequence, (n, n); NaN once diverged."""
        if self.diverged_at != NEVER:
            return np.full((N, N), np.nan)
        weights: FloatArray = forward(self.params, probe.tokens, self.scale).weights[0]
        return weights

    def accuracy(self, held_out: Batch) -> float:
        """Accuracy on the held-out batch; 0 once diverged, as the head predicts nothing."""
        if self.diverged_at != NEVER:
            return 0.0
        return accuracy(self.params, held_out, self.scale)


def _trainer(
    task: str, d_k: int, scale: bool, seed: int, optimizer: str, lr: float, batch_size: int
) -> _Trainer:
    """A fresh run: everything but ``scale`` decides its init and its batches."""
    params = init_params(d_k, seed)
    return _Trainer(
        scale=scale,
        params=params,
        optimizer=_Optimizer(optimizer, lr, params),
        stream=batch_stream(task, seed, batch_size),
    )


def _check_training(task: str, d_k: int, seed: int, optimizer: str, lr: float | None) -> float:
    """Raise a ValueError naming a bad argument; return ``lr``, or the optimizer's default."""
    _check_task(task)
    _check_int("d_k", d_k, 1, D_K_MAX)
    _check_int("The seed", seed, 0, 2**63 - 1)
    if optimizer not in OPTIMIZERS:
        raise ValueError(f"Unknown optimizer {optimizer!r}: use 'sgd' or 'adam'.")
    lr = DEFAULT_LR[optimizer] if lr is None else float(lr)
    if not (math.isfinite(lr) and lr >= 0):
        raise ValueError(f"The learning rate must be a number ≥ 0, got {lr!r}.")
    return lr


def checkpoint_steps(steps: int, checkpoints: int) -> IntArray:
    """About ``checkpoints`` steps spread evenly from 0 to ``steps``, both ends, no repeats."""
    _check_int("steps", steps, 1, MAX_STEPS)
    _check_int("checkpoints", checkpoints, 2, MAX_CHECKPOINTS)
    spread = np.linspace(0, steps, checkpoints).round().astype(np.int64)
    return np.unique(spread)


@dataclass(frozen=True)
class TrainRun:
    """One training run: its loss curve, attention on the probe, and held-out accuracy."""

    task: str
    d_k: int
    scale: bool
    optimizer: str
    lr: float
    steps: int
    batch_size: int
    seed: int
    probe: tuple[int, ...]  # (n,), PROBE: the sequence whose attention is recorded
    loss: FloatArray  # (steps + 1,), on each step's batch before it; last: the next batch
    grad_norm: FloatArray  # (steps,), ‖(∂loss/∂W_q, ∂loss/∂W_k)‖ at each step
    checkpoint_steps: IntArray  # (checkpoints,), from 0 to steps
    weights: FloatArray  # (checkpoints, n, n), attention on the probe after that many steps
    accuracy_curve: FloatArray  # (checkpoints,), held-out accuracy after that many steps
    accuracy: float  # held-out accuracy after training, in [0, 1]
    initial_score_std: float  # std of q kᵀ / divisor at init: ≈ 1 scaled, ≈ √d_k unscaled
    diverged_at: int  # the step that overflowed, or NEVER; from it on loss is NaN, accuracy 0

    def steps_to(self, target: float = 0.9) -> int:
        """The first checkpoint step with held-out accuracy ≥ target, or NEVER (−1)."""
        reached = np.flatnonzero(self.accuracy_curve >= target)
        return int(self.checkpoint_steps[reached[0]]) if reached.size else NEVER


@dataclass(frozen=True)
class _Curves:
    loss: FloatArray  # (steps + 1,)
    grad_norm: FloatArray  # (steps,)
    weights: FloatArray  # (checkpoints, n, n)
    accuracy: FloatArray  # (checkpoints,)
    initial_score_std: float


def _train(trainer: _Trainer, at: IntArray, task: str, seed: int, progress: Progress) -> _Curves:
    """Run to the last checkpoint, evaluating at each one."""
    steps = int(at[-1])
    probe, held_out = probe_batch(task), held_out_batch(task, seed)
    initial_std = batch_score_std(trainer.params, held_out, trainer.scale)
    loss, grad_norm = np.empty(steps + 1), np.empty(steps)
    weights, accuracy_curve = np.empty((at.size, N, N)), np.empty(at.size)
    for c, (start, stop) in enumerate(zip(at, [*at[1:], steps], strict=True)):
        weights[c] = trainer.attention(probe)
        accuracy_curve[c] = trainer.accuracy(held_out)
        if progress is not None:
            progress(start / steps)
        for step in range(start, stop):
            loss[step], grad_norm[step] = trainer.step()
    loss[steps] = trainer.next_loss()
    return _Curves(loss, grad_norm, weights, accuracy_curve, initial_std)


def train_head(
    task: str = "previous",
    d_k: int = 64,
    scale: bool = True,
    seed: int = 0,
    steps: int = DEFAULT_STEPS,
    optimizer: str = "sgd",
    lr: float | None = None,
    batch_size: int = 32,
    checkpoints: int = 31,
    progress: Progress = None,
) -> TrainRun:
    """Train the head for ``steps`` updates, each on the next batch of ``batch_stream``.

    ``lr`` None takes DEFAULT_LR[optimizer]. Runs that differ only in ``scale`` share their
    init and every batch. ``progress``, if given, gets the fraction done at each checkpoint.
    """
    lr = _check_training(task, d_k, seed, optimizer, lr)
    at = checkpoint_steps(steps, checkpoints)
    trainer = _trainer(task, d_k, scale, seed, optimizer, lr, batch_size)
    curves = _train(trainer, at, task, seed, progress)
    return TrainRun(
        task=task,
        d_k=d_k,
        scale=scale,
        optimizer=optimizer,
        lr=lr,
        steps=steps,
        batch_size=batch_size,
        seed=seed,
        probe=PROBE,
        loss=frozen(curves.loss),
        grad_norm=frozen(curves.grad_norm),
        checkpoint_steps=frozen(at),
        weights=frozen(curves.weights),
        accuracy_curve=frozen(curves.accuracy),
        accuracy=float(curves.accuracy[-1]),
        initial_score_std=curves.initial_score_std,
        diverged_at=trainer.diverged_at,
    )


# --- the sweep ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sweep:
    """Steps to a held-out accuracy for each d_k and seed, with and without ÷√d_k."""

    task: str
    optimizer: str
    lr: float
    target: float
    eval_every: int
    max_steps: int
    d_ks: tuple[int, ...]
    seeds: tuple[int, ...]
    scaled: IntArray  # (len(d_ks), len(seeds)), steps to target with ÷√d_k; NEVER = −1
    unscaled: IntArray  # (len(d_ks), len(seeds)), the same runs without ÷√d_k
    score_std_scaled: FloatArray  # (len(d_ks),), std of the scores at init, mean over seeds
    score_std_unscaled: FloatArray  # (len(d_ks),), ≈ √d_k: how saturated the softmax starts

    def median_steps(self, scale: bool) -> FloatArray:
        """Median over seeds of the steps to target, (len(d_ks),); NaN if the median run never."""
        steps = (self.scaled if scale else self.unscaled).astype(np.float64)
        steps[steps == NEVER] = np.inf
        median: FloatArray = np.median(steps, axis=1)
        median[np.isinf(median)] = np.nan
        return median


def _steps_to(
    trainer: _Trainer, task: str, seed: int, target: float, max_steps: int, eval_every: int
) -> int:
    """Train until held-out accuracy ≥ target, checked every ``eval_every`` steps; or NEVER."""
    held_out = held_out_batch(task, seed)
    for step in range(0, max_steps + 1, eval_every):
        for _ in range(eval_every if step > 0 else 0):
            trainer.step()
        if trainer.diverged_at != NEVER:
            return NEVER
        if trainer.accuracy(held_out) >= target:
            return step
    return NEVER


def _sweep_runs(
    task: str, d_k: int, seed: int, optimizer: str, lr: float, rule: tuple[float, int, int]
) -> tuple[list[int], list[float]]:
    """Steps to target and initial score std of the scaled run, then of the unscaled one."""
    target, max_steps, eval_every = rule
    steps, std = [], []
    for scale in (True, False):
        trainer = _trainer(task, d_k, scale, seed, optimizer, lr, 32)
        std.append(batch_score_std(trainer.params, held_out_batch(task, seed), scale))
        steps.append(_steps_to(trainer, task, seed, target, max_steps, eval_every))
    return steps, std


def _check_sweep(
    task: str,
    optimizer: str,
    d_ks: Sequence[int],
    seeds: Sequence[int],
    lr: float | None,
    rule: tuple[float, int, int],
) -> float:
    """Raise a ValueError naming a bad argument; return ``lr``, or the optimizer's default."""
    target, max_steps, eval_every = rule
    if not d_ks or not seeds:
        raise ValueError("Give at least one d_k and one seed.")
    lrs = [_check_training(task, d_k, seed, optimizer, lr) for d_k in d_ks for seed in seeds]
    _check_int("max_steps", max_steps, 1, MAX_STEPS)
    _check_int("eval_every", eval_every, 1, max_steps)
    if not 0 < target <= 1:
        raise ValueError(f"The target accuracy must be in (0, 1], got {target!r}.")
    return lrs[0]


def steps_to_accuracy(
    task: str = "previous",
    optimizer: str = "sgd",
    d_ks: Sequence[int] = SWEEP_D_KS,
    seeds: Sequence[int] = (0, 1, 2),
    target: float = 0.9,
    max_steps: int = 300,
    eval_every: int = 10,
    lr: float | None = None,
    progress: Progress = None,
    cell: SweepCell | None = None,
) -> Sweep:
    """For each d_k and seed, a scaled and an unscaled run from one init on one batch stream.
    A run stops at ``target`` held-out accuracy; the steps match ``train_head(...).steps_to``
    with checkpoints every ``eval_every`` steps. ``cell`` (d_k, seed), if given, supplies one
    cell's numbers instead of training: a sweep assembled from cells swept, and kept, apart."""
    rule = (target, max_steps, eval_every)
    lr = _check_sweep(task, optimizer, d_ks, seeds, lr, rule)
    if cell is None:
        cell = partial(_sweep_runs, task, optimizer=optimizer, lr=lr, rule=rule)
    found = np.empty((2, len(d_ks), len(seeds)), dtype=np.int64)  # [scaled, unscaled]
    std = np.empty((2, len(d_ks), len(seeds)))
    for done, (i, j) in enumerate(np.ndindex(found.shape[1:])):
        found[:, i, j], std[:, i, j] = cell(d_ks[i], seeds[j])
        if progress is not None:
            progress((done + 1) / found[0].size)
    return Sweep(
        task=task,
        optimizer=optimizer,
        lr=lr,
        target=float(target),
        eval_every=eval_every,
        max_steps=max_steps,
        d_ks=tuple(int(d) for d in d_ks),
        seeds=tuple(int(s) for s in seeds),
        scaled=frozen(found[0]),
        unscaled=frozen(found[1]),
        score_std_scaled=frozen(std[0].mean(axis=1)),
        score_std_unscaled=frozen(std[1].mean(axis=1)),
    )
