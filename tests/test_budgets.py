"""No setting a link can ask for may take the server down: memory, payload and cache budgets.

Each page's core call runs at the heaviest setting its controls or URL allow, under tracemalloc
(numpy reports its buffers to it). Time is measured in bench/, not here: it depends on the machine.
"""

import gc
import tracemalloc
import weakref

import numpy as np
import pytest
from conftest import open_app

from ui.kit import cache
from ui.kit.cache import ByteCache, arrays, kept_bytes
from viz_core import D_MAX, MAX_HEADS, MAX_TOKENS, run_lab

MB = 1 << 20
REQUEST_MB = 150  # extra peak memory of one request
FIGURES_KB = 500  # figure JSON sent per rerun
ALL_CACHES_MB = 100  # every shared cache together (the README states it)
# 40 different characters: more than the 32-token cap, so the cap and the padding both apply.
LONG_TEXT = "".join(chr(0x4E00 + 7 * i) for i in range(40))
HEAVIEST_LAB = {
    "text": LONG_TEXT,
    "special": True,
    "d": D_MAX,
    "heads": MAX_HEADS,
    "head": MAX_HEADS - 1,
    "mask": "padding",
    "seed": 123456789,
    "temperature": 0.05,
}


def peak_mb(call):
    """Run ``call()``; return its result and the peak of memory allocated during it, in MB."""
    tracemalloc.start()
    try:
        result = call()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return result, peak / MB


@pytest.mark.parametrize("source", ["random", "embedding", "trained"])
def test_heaviest_lab_call_stays_within_the_request_budget(source):
    """d = 8192, 64 heads, 32 tokens + padding: under 150 MB at its peak, under 40 MB kept."""
    heaviest = HEAVIEST_LAB | ({"head": 3} if source == "trained" else {})  # the model has 4
    result, peak = peak_mb(lambda: run_lab(**heaviest, source=source))
    assert len(result.tokens) > MAX_TOKENS  # capped to 32, then padded
    assert peak < REQUEST_MB, f"run_lab peaked at {peak:.0f} MB"
    assert kept_bytes(result) < 40 * MB, f"the result keeps {kept_bytes(result) / MB:.0f} MB"


def test_embedding_width_does_not_grow_with_d():
    """X is n × d_model and each W is d_model × d (only its first 8 columns, which the page
    shows, are kept): memory grows with d, not with d²."""
    result = run_lab("我喜欢人工智能", d=D_MAX, source="embedding")
    projection = result.projection
    assert projection is not None
    d_model = projection.x.shape[1]
    assert d_model <= 128
    assert projection.w_q.shape == (d_model, 8) and projection.q.shape == (9, D_MAX)
    # The kept columns of W_Q are the ones that made Q's first columns.
    np.testing.assert_allclose(projection.q[:, :8], projection.x @ projection.w_q)
    assert abs(projection.q.var() - 1) < 0.1  # W ~ N(0, 1/d_model) keeps unit variance


def test_every_array_of_a_cached_lab_result_is_read_only():
    """The lab's result is shared by every session: no array reachable from it can be written."""
    result = run_lab(**HEAVIEST_LAB, source="embedding")
    found = arrays(result)
    assert len(found) > 64 * 5  # every head's steps, the projections, the stats
    writable = [a.shape for a in found if a.flags.writeable]
    assert not writable, f"writable arrays in the result: {writable[:5]}"


def test_lesson_results_are_read_only():
    """Lesson results are shared between sessions too."""
    from ui.scaling.body import dot_samples, saturation_curves, sharpening_rows, variance_experiment
    from ui.softmax.body import compute
    from ui.softmax.settings import SoftmaxParams

    results = [
        dot_samples(64, "normal"),
        saturation_curves("uniform"),
        sharpening_rows("uniform"),
        variance_experiment("uniform"),
        compute(SoftmaxParams(values="1, 2", divisor=1.0)),
    ]
    for result in results:
        assert all(not a.flags.writeable for a in arrays(result)), type(result).__name__


def test_heaviest_scaling_calls_stay_within_the_budget():
    """The √d lesson at d = 8192, both distributions: every core call under 150 MB at its peak."""
    from viz_core import dot_product_variance, sample_dot_products, saturation, sharpening

    calls = [
        lambda: dot_product_variance(samples=2000, distribution="uniform"),
        lambda: sample_dot_products(D_MAX, 2000, "uniform"),
        lambda: saturation(n=9, trials=200, distribution="normal"),
        lambda: sharpening(n=9),
    ]
    for call in calls:
        result, peak = peak_mb(call)
        assert peak < REQUEST_MB
        assert kept_bytes(result) < MB


def test_heaviest_softmax_and_quiz_calls_are_small():
    """Twelve numbers of a million, and a quiz: a few kilobytes."""
    from viz_core import make_quiz, softmax_breakdown

    for call in [lambda: softmax_breakdown([1e6] * 12, 0.001), lambda: make_quiz(2**31 - 1)]:
        result, peak = peak_mb(call)
        assert peak < 1 and kept_bytes(result) < 64 * 1024


def test_byte_cache_drops_the_oldest_results_past_its_budget():
    """Three 1 MB results in a 2.5 MB cache: the first is dropped; a 3 MB result is not kept."""
    store = ByteCache("test", int(2.5 * MB))
    calls = []

    def make(size_mb):
        calls.append(size_mb)
        return np.zeros(size_mb * MB // 8)

    for key in "abc":
        store.get(key, lambda: make(1))
    assert len(store) == 2 and store.total == 2 * (MB + cache.ENTRY_BYTES)
    store.get("b", lambda: make(1))  # still cached: no new call
    assert calls == [1, 1, 1]
    store.get("a", lambda: make(1))  # dropped earlier: computed again
    assert calls == [1, 1, 1, 1]
    store.get("huge", lambda: make(3))
    assert "huge" not in store._entries and store.total <= 2.5 * MB


def test_results_without_arrays_still_count():
    """A flood of tiny results (numbers, no arrays) cannot grow a cache past its budget."""
    store = ByteCache("test", 100 * cache.ENTRY_BYTES)
    for key in range(1000):
        store.get(key, lambda key=key: (key, float(key)))
        assert store.total <= store.max_bytes
    assert len(store) == 100 and 999 in store and 0 not in store


def test_a_call_is_one_entry_however_its_arguments_are_spelled():
    """f(1), f(1, 2), f(a=1) and f(b=2, a=1) are one call: one computation, one entry, and
    ``kept`` knows it whichever way it is asked (a page and ``advance`` spell calls differently)."""
    from ui.kit.cache import shared

    computed = []

    @shared(max_mb=1)
    def f(a, b=2):
        computed.append((a, b))
        return np.full(3, a + b)

    assert not f.kept(a=1)
    spellings = [f(1), f(1, 2), f(a=1), f(b=2, a=1), f(1, b=2)]
    assert computed == [(1, 2)] and len(f.cache) == 1
    assert all((result == 3).all() for result in spellings)
    assert f.kept(1) and f.kept(a=1, b=2) and not f.kept(a=1, b=3)


def test_kept_bytes_counts_a_shared_buffer_once():
    """Views into one stacked array (the heads) are one block of memory, not one per view."""
    stack = np.zeros((8, 100, 100))
    views = [stack[h] for h in range(8)]
    assert kept_bytes(views) == stack.nbytes
    assert kept_bytes(np.broadcast_to(np.True_, (4096, 4096))) == 1


def test_kept_bytes_counts_text_as_python_keeps_it():
    """A figure as sent keeps its arrays as base64 text, and its labels may be Chinese (two bytes
    a character in Python's memory): both count."""
    assert kept_bytes({"data": ["A" * 3000]}) >= 3000
    assert kept_bytes({"labels": ("喜" * 3000,)}) >= 6000


def test_all_caches_together_are_bounded():
    """Every page's shared cache is declared with a byte budget; together at most 100 MB."""
    import importlib

    from conftest import ROOT

    from ui.lab.compute import _run_lab

    for body in sorted((ROOT / "ui").glob("*/body.py")):  # importing a page declares its caches
        importlib.import_module(f"ui.{body.parent.name}.body")
    assert _run_lab.cache in cache.CACHES
    assert {"train_run", "_variants", "_breakdown"} <= {c.name for c in cache.CACHES}
    assert "figures" in {c.name for c in cache.CACHES}
    # caches that other tests declare inside their functions are not the app's
    declared = [c for c in cache.CACHES if "<locals>" not in c.name]
    assert sum(c.max_bytes for c in declared) <= ALL_CACHES_MB * MB


def test_the_lab_cache_stays_within_its_budget_whatever_arrives():
    """Twelve different heaviest settings: the lab cache never keeps more than its budget."""
    from ui.lab.compute import LAB_CACHE_MB, _run_lab, compute_lab
    from ui.lab.settings import LabParams

    for seed in range(12):
        compute_lab(LabParams(**{**HEAVIEST_LAB, "seed": seed, "source": "embedding"}))
        assert _run_lab.cache.total <= LAB_CACHE_MB * MB
    assert 1 <= len(_run_lab.cache) < 12


def figure_bytes(at):
    """Bytes of figure JSON a rerun sends."""
    return sum(len(chart.proto.spec) for chart in at.get("plotly_chart"))


@pytest.mark.parametrize("source", ["random", "embedding", "trained"])
def test_heaviest_lab_url_sends_at_most_500_kb_of_figures(source):
    """The heaviest link a student can make: the figures of one rerun fit the payload budget."""
    query = {key: str(value).lower() for key, value in HEAVIEST_LAB.items()} | {"source": source}
    at = open_app(**query)
    assert at.query_params["heads"] == str(MAX_HEADS)  # kept, though a trained head uses its 4
    sent = figure_bytes(at)
    assert sent < FIGURES_KB * 1000, f"{sent / 1000:.0f} kB of figures"


@pytest.mark.parametrize(
    ("page", "query"),
    [
        ("scaling", {"d": str(D_MAX), "distribution": "uniform"}),
        ("softmax", {"values": ",".join(["1000000"] * 12), "divisor": "0.001"}),
        ("steps", {**{k: str(v).lower() for k, v in HEAVIEST_LAB.items()}, "step": "4"}),
        ("quiz", {"quiz_seed": str(2**31 - 1)}),
        ("model", {"text": "我喜欢人工智能" * 70, "mask_at": "999"}),
        ("variants", {"variant": "cross", "text": "字" * 500, "text_b": "attention " * 50}),
    ],
)
def test_heaviest_lesson_urls_send_at_most_500_kb_of_figures(page, query):
    """Every lesson page at its heaviest link sends under 500 kB of figures per rerun."""
    at = open_app(page, **query)
    assert figure_bytes(at) < FIGURES_KB * 1000


def test_nested_cached_calls_never_wait_for_their_own_slot():
    """Two sessions at once, each computing a cached result that needs another cached result:
    both finish (the two computation slots are held by the outer calls only)."""
    import threading

    from ui.kit.cache import shared

    both_computing = threading.Barrier(2, timeout=5)

    @shared(max_mb=1)
    def inner(x):
        return np.full(3, x)

    @shared(max_mb=1)
    def outer(x):
        both_computing.wait()  # both slots are now held by outer calls
        return inner(x=x) + 1

    results = {}
    threads = [
        threading.Thread(target=lambda i=i: results.update({i: outer(x=i)})) for i in range(2)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert not any(thread.is_alive() for thread in threads)
    assert all((results[i] == i + 1).all() for i in range(2))


def _weak(value: object) -> list[weakref.ref]:
    """Weak references to a result, or to the parts of a tuple of results."""
    if isinstance(value, list | tuple):
        return [ref for item in value for ref in _weak(item)]
    try:
        return [weakref.ref(value)]
    except TypeError:  # numbers, strings: nothing large
        return []


@pytest.mark.parametrize(
    ("page", "query"),
    [
        ("lab", {"heads": "4", "source": "embedding", "mask": "causal", "stage": "output"}),
        ("steps", {"step": "4", "heads": "2"}),
        ("train", {"steps": "50"}),
        ("kernel", {}),
        ("variants", {"variant": "gqa"}),
        ("scaling", {}),
        ("softmax", {}),
    ],
)
def test_a_session_pins_no_result_the_shared_cache_let_go(page, query):
    """A session lives two minutes after its tab closes, and keeps its widgets' functions and its
    fragments' arguments. Once the caches forget a result, no session may still hold it: twenty
    closed tabs once kept twenty heaviest results, 300 MB past the caches' budget."""
    at = open_app(page, **query)
    held = [ref for c in cache.CACHES for result in c.results() for ref in _weak(result)]
    assert held, "the page cached nothing: the test would prove nothing"
    cache.clear_all()
    gc.collect()
    alive = [type(ref()).__name__ for ref in held if ref() is not None]
    assert not alive, f"still held by the session: {alive}"
    assert not at.exception


@pytest.mark.parametrize("text", ["我喜欢人工智能", "注意力机制让每个字看见整个句子" * 2])
def test_a_shared_figure_counts_the_memory_it_keeps(text):
    """The figure cache counts a ``go.Figure`` as Python keeps it (its properties and a Plotly
    object for each of their dicts), not only its text: never less than tracemalloc sees it
    hold, at most three times as much."""
    import plotly.graph_objects as go

    from ui.kit.cache import ENTRY_BYTES
    from ui.kit.display import FIGURES, shown
    from ui.kit.heatmap import Matrix, heatmap

    result = run_lab(text, mask="causal")
    matrix = Matrix(result.steps.weights, result.tokens, result.tokens, "weights", clickable=True)

    def build():
        return go.Figure(heatmap(matrix, lang="zh"))

    build()  # warm: label widths and the like are cached once
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    kept = build()
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    assert held > 0 and kept
    cache.clear_all()
    shown(heatmap, matrix, lang="zh")
    counted = FIGURES.total - ENTRY_BYTES
    assert held <= counted <= 3 * held


def test_the_trained_models_heaviest_calls_stay_within_the_request_budget():
    """The model on its longest input, and the translator aligning and translating its longest:
    each under 150 MB at its peak (weights loaded before, as a server holds them)."""
    from viz_core import align, load_model, load_translator, run_model, translate

    load_model(), load_translator()
    for call in (
        lambda: run_model("字" * 500),
        lambda: align("attention " * 60, "字" * 60),
        lambda: translate("attention " * 60),
    ):
        _, peak = peak_mb(call)
        assert peak < REQUEST_MB, f"peaked at {peak:.0f} MB"
