"""Training a tiny attention head, with and without ÷√d_k: gradients, fairness, learning."""

import itertools
import math
import tracemalloc

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from viz_core.train import (
    D_K_MAX,
    DEFAULT_LR,
    MAX_BATCH,
    MAX_STEPS,
    NEVER,
    PARAM_NAMES,
    PROBE,
    TASKS,
    VOCAB,
    N,
    batch_stream,
    forward,
    held_out_batch,
    init_params,
    loss_and_grads,
    make_batch,
    steps_to_accuracy,
    train_head,
)

ARRAY_FIELDS = ("loss", "grad_norm", "checkpoint_steps", "weights", "accuracy_curve")


def plain_targets(task, row):
    """The targets of one sequence, in plain Python."""
    if task == "previous":
        return [row[0]] + [row[i - 1] for i in range(1, len(row))]
    if task == "reverse":
        return [row[len(row) - 1 - i] for i in range(len(row))]
    return [max(row)] * len(row)


def numeric_gradient(params, batch, scale, name, eps=1e-6):
    """Central differences of the loss for every entry of params[name]."""
    numeric = np.zeros_like(params[name])
    for index in np.ndindex(params[name].shape):
        kept = params[name][index]
        params[name][index] = kept + eps
        up = loss_and_grads(params, batch, scale)[0]
        params[name][index] = kept - eps
        down = loss_and_grads(params, batch, scale)[0]
        params[name][index] = kept
        numeric[index] = (up - down) / (2 * eps)
    return numeric


# --- tasks ----------------------------------------------------------------------------------


@pytest.mark.parametrize("task", TASKS)
def test_targets_match_a_plain_python_computation(task):
    """previous copies token i − 1 (token 0 copies itself), reverse mirrors, max broadcasts."""
    batch = make_batch(task, size=40, seed=3)
    assert batch.tokens.shape == batch.targets.shape == (40, N)
    assert batch.tokens.min() >= 0 and batch.tokens.max() < VOCAB
    for row, targets in zip(batch.tokens.tolist(), batch.targets.tolist(), strict=True):
        assert targets == plain_targets(task, row)


def test_batches_are_seeded_and_read_only():
    """One seed, one batch; another seed, another batch; nobody can edit a batch."""
    assert_array_equal(make_batch("max", seed=5).tokens, make_batch("max", seed=5).tokens)
    assert not np.array_equal(make_batch("max", seed=5).tokens, make_batch("max", seed=6).tokens)
    batch = make_batch("previous")
    with pytest.raises(ValueError):
        batch.tokens[0, 0] = 1
    with pytest.raises(ValueError):
        batch.targets[0, 0] = 1


# --- the head and its gradients -------------------------------------------------------------


@pytest.mark.parametrize(("task", "scale"), list(itertools.product(TASKS, (True, False))))
def test_gradients_match_central_differences_for_every_parameter(task, scale):
    """Hand-derived backprop, softmax Jacobian included, against finite differences."""
    params = init_params(d_k=4, seed=1)
    batch = make_batch(task, size=3, seed=2)
    _, grads = loss_and_grads(params, batch, scale)
    assert set(grads) == set(params) == set(PARAM_NAMES)
    for name in PARAM_NAMES:
        assert grads[name].shape == params[name].shape, name
        numeric = numeric_gradient(params, batch, scale, name)
        assert_allclose(grads[name], numeric, rtol=1e-5, atol=1e-9, err_msg=name)


def test_init_gives_unit_q_and_k_so_unscaled_scores_start_saturated():
    """q, k entries have variance ≈ 1, so raw scores have std ≈ √d_k and softmax is one-hot."""
    params = init_params(d_k=D_K_MAX, seed=0)
    tokens = held_out_batch("previous").tokens
    x = params["E"][tokens] + params["P"]  # (b, n, d_model)
    assert 0.8 < (x @ params["W_q"]).var() < 1.25 and 0.8 < (x @ params["W_k"]).var() < 1.25
    raw = forward(params, tokens, scale=False)
    scaled = forward(params, tokens, scale=True)
    assert 0.75 < raw.scores.std() / math.sqrt(D_K_MAX) < 1.25
    assert raw.weights.max(axis=2).mean() > 0.9  # saturated: almost all weight on one key
    assert scaled.weights.max(axis=2).mean() < 0.6


def test_scaling_is_the_only_difference():
    """Unscaled attention with W_q ÷ √d_k is exactly the scaled head: nothing else changes."""
    d_k = 256
    params = init_params(d_k, seed=4)
    batch = make_batch("reverse", size=8, seed=9)
    shrunk = dict(params, W_q=params["W_q"] / math.sqrt(d_k))
    scaled_loss = loss_and_grads(params, batch, scale=True)[0]
    assert math.isclose(loss_and_grads(shrunk, batch, scale=False)[0], scaled_loss, rel_tol=1e-12)
    assert not math.isclose(loss_and_grads(params, batch, scale=False)[0], scaled_loss)


# --- training -------------------------------------------------------------------------------


@pytest.mark.parametrize("scale", [True, False])
def test_scaled_and_unscaled_runs_share_init_and_batches(scale):
    """With lr = 0 every recorded loss is the init's loss on the next batch of one stream."""
    d_k, seed, steps = 64, 7, 5
    run = train_head("max", d_k, scale, seed, steps=steps, lr=0.0, checkpoints=2)
    params = init_params(d_k, seed)
    batches = itertools.islice(batch_stream("max", seed), steps + 1)
    expected = [loss_and_grads(params, batch, scale)[0] for batch in batches]
    assert run.loss.tolist() == expected


def test_at_d_k_1_scaling_changes_nothing_bit_for_bit():
    """√1 = 1: scaled and unscaled runs from one seed are the same run."""
    on, off = (train_head("previous", d_k=1, scale=s, steps=40) for s in (True, False))
    for name in ARRAY_FIELDS:
        assert_array_equal(getattr(on, name), getattr(off, name), err_msg=name)


def test_first_loss_is_loss_and_grads_on_the_first_batch():
    """loss[0] is the untrained head on the first batch of the run's stream."""
    run = train_head("reverse", d_k=32, scale=False, seed=2, steps=10, checkpoints=2)
    first = next(batch_stream("reverse", seed=2))
    assert run.loss[0] == loss_and_grads(init_params(32, seed=2), first, scale=False)[0]


def test_one_sgd_step_and_one_adam_step_move_the_parameters_as_documented():
    """SGD: θ − lr·g. Adam's first step: θ − lr·g/(|g| + ε/√(1 − β₂)), nearly lr·sign(g)."""
    params = init_params(16, seed=0)
    first, second = itertools.islice(batch_stream("previous", seed=0), 2)
    _, grads = loss_and_grads(params, first)
    sgd = {name: params[name] - 0.1 * grads[name] for name in params}
    eps = 1e-8 / math.sqrt(0.001)  # ε after the bias correction of √v
    adam = {name: params[name] - 0.01 * g / (np.abs(g) + eps) for name, g in grads.items()}
    sgd_run = train_head("previous", 16, steps=1, lr=0.1, checkpoints=2)
    adam_run = train_head("previous", 16, steps=1, optimizer="adam", lr=0.01, checkpoints=2)
    assert math.isclose(sgd_run.loss[1], loss_and_grads(sgd, second)[0], rel_tol=1e-12)
    assert math.isclose(adam_run.loss[1], loss_and_grads(adam, second)[0], rel_tol=1e-9)


def test_runs_are_deterministic_bit_for_bit():
    """The same arguments give the same run, array for array."""
    first, second = (train_head("max", d_k=128, scale=False, steps=60) for _ in range(2))
    for name in ARRAY_FIELDS:
        assert_array_equal(getattr(first, name), getattr(second, name), err_msg=name)
    assert first.accuracy == second.accuracy and first.loss.tobytes() == second.loss.tobytes()


@pytest.mark.parametrize("task", TASKS)
def test_defaults_reach_95_percent_held_out_accuracy(task):
    """With its defaults (SGD, d_k = 64, ÷√d_k) the head learns every task."""
    run = train_head(task)
    assert run.accuracy >= 0.95, (task, run.accuracy)
    assert run.loss[-1] < 0.5 * run.loss[0]
    assert run.diverged_at == NEVER


def test_adam_learns_too():
    """Adam with its default learning rate also passes the bar at d_k = 64."""
    assert train_head("previous", optimizer="adam").accuracy >= 0.95


def test_learned_pattern_is_the_sub_diagonal():
    """After training on previous, probe row i puts most of its weight on key i − 1."""
    weights = train_head("previous").weights[-1]  # (n, n)
    assert_array_equal(weights.argmax(axis=1), [0, 0, 1, 2, 3, 4, 5, 6])


def test_run_fields_have_documented_shapes_and_are_read_only():
    """Shapes follow steps and checkpoints; weights are softmax rows; nothing is writable."""
    steps, checkpoints = 50, 11
    run = train_head("reverse", d_k=8, steps=steps, checkpoints=checkpoints)
    assert run.loss.shape == (steps + 1,) and run.grad_norm.shape == (steps,)
    assert run.checkpoint_steps.tolist() == list(range(0, steps + 1, 5))
    assert run.weights.shape == (checkpoints, N, N)
    assert run.accuracy_curve.shape == (checkpoints,)
    assert_allclose(run.weights.sum(axis=2), 1.0)
    assert 0.0 <= run.accuracy <= 1.0 and run.accuracy == run.accuracy_curve[-1]
    assert run.probe == PROBE and run.lr == DEFAULT_LR["sgd"]
    assert np.isfinite(run.loss).all() and (run.grad_norm > 0).all()
    for name in ARRAY_FIELDS:
        with pytest.raises(ValueError):
            getattr(run, name)[0] = 0


def test_held_out_sequences_never_appear_in_training():
    """Accuracy is measured on sequences from another stream than the training batches."""
    held_out = {tuple(row) for row in held_out_batch("max", seed=0).tokens.tolist()}
    batches = itertools.islice(batch_stream("max", seed=0), 300)
    seen = {tuple(row) for batch in batches for row in batch.tokens.tolist()}
    assert held_out.isdisjoint(seen)


def test_progress_goes_from_0_to_1():
    """The callback gets non-decreasing fractions, starting at 0 and ending at 1."""
    seen = []
    train_head("max", steps=20, checkpoints=5, progress=seen.append)
    assert seen[0] == 0.0 and seen[-1] == 1.0 and seen == sorted(seen)


def test_a_diverging_run_is_reported_not_raised():
    """Too large a learning rate overflows: the run says when, and stops updating."""
    run = train_head("previous", lr=1e4, steps=40, checkpoints=5)
    assert 0 <= run.diverged_at < 40
    assert np.isnan(run.loss[run.diverged_at + 1 :]).all()
    assert np.isfinite(run.loss[: run.diverged_at]).all()
    assert run.accuracy == 0.0


def test_memory_stays_small_at_d_k_1024():
    """The most steps and the largest batch allowed stay far below 150 MB; the result is small."""
    for steps, batch_size in [(MAX_STEPS, 32), (50, MAX_BATCH)]:
        tracemalloc.start()
        run = train_head("max", d_k=1024, steps=steps, batch_size=batch_size, checkpoints=64)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak < 150e6, peak
        assert sum(getattr(run, name).nbytes for name in ARRAY_FIELDS) < 100_000


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"task": "copy"}, "Unknown task"),
        ({"d_k": 0}, "d_k"),
        ({"d_k": D_K_MAX + 1}, "d_k"),
        ({"d_k": 2.5}, "d_k"),
        ({"d_k": True}, "d_k"),
        ({"optimizer": "rmsprop"}, "Unknown optimizer"),
        ({"lr": -1.0}, "learning rate"),
        ({"lr": float("nan")}, "learning rate"),
        ({"steps": 0}, "steps"),
        ({"steps": MAX_STEPS + 1}, "steps"),
        ({"batch_size": MAX_BATCH + 1}, "batch size"),
        ({"checkpoints": 1}, "checkpoints"),
        ({"seed": -1}, "seed"),
    ],
)
def test_bad_arguments_raise_a_clear_value_error(kwargs, message):
    """Every bad argument is a ValueError that names it, raised before any training."""
    with pytest.raises(ValueError, match=message):
        train_head(**kwargs)


def test_other_entry_points_validate_too():
    """make_batch, init_params and the sweep reject what train_head rejects."""
    with pytest.raises(ValueError, match="Unknown task"):
        make_batch("sort")
    with pytest.raises(ValueError, match="d_k"):
        init_params(d_k=4096)
    with pytest.raises(ValueError, match="Unknown optimizer"):
        steps_to_accuracy(optimizer="lion")
    with pytest.raises(ValueError, match="target"):
        steps_to_accuracy(target=1.5)


# --- the sweep ------------------------------------------------------------------------------


def test_sweep_agrees_with_train_head_and_starts_unscaled_runs_saturated():
    """Steps to 90 % match train_head's checkpoints; unscaled scores start with std ≈ √d_k."""
    d_ks, seeds, max_steps, every = (8, 1024), (0, 1), 150, 10
    sweep = steps_to_accuracy("previous", "sgd", d_ks, seeds, max_steps=max_steps)
    assert sweep.scaled.shape == sweep.unscaled.shape == (len(d_ks), len(seeds))
    for steps in (sweep.scaled, sweep.unscaled):
        assert ((steps == NEVER) | ((steps % every == 0) & (steps <= max_steps))).all()
    assert_allclose(sweep.score_std_scaled, 1.0, atol=0.25)
    assert_allclose(sweep.score_std_unscaled / np.sqrt(d_ks), 1.0, atol=0.25)
    for (i, d_k), (j, seed) in itertools.product(enumerate(d_ks), enumerate(seeds)):
        for scale, found in [(True, sweep.scaled), (False, sweep.unscaled)]:
            run = train_head("previous", d_k, scale, seed, steps=max_steps, checkpoints=16)
            assert run.steps_to(0.9) == found[i, j], (d_k, seed, scale)
    medians = sweep.median_steps(scale=True)
    assert medians.shape == (len(d_ks),) and np.isfinite(medians).all()
