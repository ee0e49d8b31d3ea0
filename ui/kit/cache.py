"""Core results shared by every session of the server, bounded in bytes rather than in entries.

A Streamlit server is one process for a whole class: a cache sized in entries holds 16 small
results or 16 huge ones alike. These caches count the bytes each result keeps and drop the least
recently used results until their total is within budget. Results must be immutable (frozen
dataclasses of read-only arrays), since every session gets the same object.
"""

import dataclasses
import inspect
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Generic, ParamSpec, TypeVar

import numpy as np

R = TypeVar("R")
# At most two core computations at once across every session: the server has a core or two, so
# more at once only multiplies the memory in use (twenty students asking together once needed a
# gigabyte); the rest wait their turn for a fraction of a second each.
COMPUTING = threading.BoundedSemaphore(2)
_held = threading.local()  # how deep this thread is in computations: nested ones take no slot


@contextmanager
def computing() -> Iterator[None]:
    """One of the two computation slots, held for the outermost computation of a thread only: a
    cached call made while computing another must not wait for a slot it already holds."""
    if getattr(_held, "depth", 0):
        _held.depth += 1
        try:
            yield
        finally:
            _held.depth -= 1
        return
    with COMPUTING:
        _held.depth = 1
        try:
            yield
        finally:
            _held.depth = 0


P = ParamSpec("P")
MB = 1 << 20
# What a result costs besides its arrays (the object, its numbers, the key): results with no
# arrays at all still count, so that a flood of small ones cannot grow a cache without bound.
ENTRY_BYTES = 1024


def _owner(array: np.ndarray) -> np.ndarray:
    """The array that owns the memory behind a view."""
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array


def _walk(value: object, seen: set[int]) -> int:
    """Bytes of the arrays and text reachable from ``value``, arrays not already counted in
    ``seen``."""
    if isinstance(value, np.ndarray):
        owner = _owner(value)
        if id(owner) in seen:
            return 0
        seen.add(id(owner))
        # A broadcast view (a mask of all True) owns a few bytes however large it looks.
        return int(owner.nbytes) if owner.strides.count(0) == 0 else int(owner.itemsize)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = (getattr(value, f.name) for f in dataclasses.fields(value))
        return sum(_walk(field, seen) for field in fields)
    if isinstance(value, str | bytes):  # tokens, labels: text as Python keeps it
        return sys.getsizeof(value)  # CJK text takes 2-4 bytes a character
    if isinstance(value, dict):
        return sum(_walk(item, seen) for item in value.values())
    if isinstance(value, list | tuple):
        return sum(_walk(item, seen) for item in value)
    return 0


def kept_bytes(value: object) -> int:
    """Bytes of every array (each memory block counted once) and text a result keeps alive."""
    return _walk(value, set())


def deep_bytes(value: object) -> int:
    """Bytes of a tree of plain values (dicts, lists, text, numbers, arrays) as Python keeps it,
    every container and item counted: a figure is thousands of small objects."""
    if isinstance(value, np.ndarray):  # an array of objects (text) keeps its items too
        items = sum(deep_bytes(item) for item in value.flat) if value.dtype == object else 0
        return int(value.nbytes) + sys.getsizeof(np.empty(0)) + items
    size = sys.getsizeof(value)
    if isinstance(value, dict):
        return size + sum(deep_bytes(k) + deep_bytes(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return size + sum(deep_bytes(item) for item in value)
    return size


def arrays(value: object) -> list[np.ndarray]:
    """Every array reachable from a result (dataclass fields, tuples, lists, dict values)."""
    found: list[np.ndarray] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, np.ndarray):
            found.append(item)
        elif dataclasses.is_dataclass(item) and not isinstance(item, type):
            stack += [getattr(item, f.name) for f in dataclasses.fields(item)]
        elif isinstance(item, dict):
            stack += list(item.values())
        elif isinstance(item, list | tuple):
            stack += list(item)
    return found


class ByteCache:
    """A least-recently-used cache whose results together keep at most ``max_bytes``."""

    def __init__(
        self,
        name: str,
        max_bytes: int,
        measure: Callable[[Any], int] = kept_bytes,
        cycles: bool = False,
    ) -> None:
        self.name = name
        self.max_bytes = max_bytes
        self.measure = measure  # what a result keeps, in bytes
        self.cycles = cycles  # results hold reference cycles: only the collector frees them
        self.total = 0
        self._entries: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self._lock = threading.Lock()

    def _hit(self, key: Hashable) -> tuple[bool, Any]:
        with self._lock:
            if key not in self._entries:
                return False, None
            self._entries.move_to_end(key)
            return True, self._entries[key][0]

    def get(self, key: Hashable, compute: Callable[[], R]) -> R:
        """The cached result for ``key``; if new, computed (two at a time at most) and stored."""
        found, result = self._hit(key)
        if found:
            return result  # type: ignore[no-any-return]
        with computing():
            found, result = self._hit(key)  # a session that waited may find it computed
            if found:
                return result  # type: ignore[no-any-return]
            result = compute()
        size = self.measure(result) + ENTRY_BYTES
        if size > self.max_bytes:
            return result  # too large to keep: served once, never cached
        with self._lock:
            if key not in self._entries:
                self._entries[key] = (result, size)
                self.total += size
            while self.total > self.max_bytes:
                _, (_, dropped) = self._entries.popitem(last=False)
                self.total -= dropped
        return result

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: Hashable) -> bool:
        with self._lock:
            return key in self._entries

    def results(self) -> list[Any]:
        """Every result kept now, oldest first."""
        with self._lock:
            return [result for result, _ in self._entries.values()]

    def clear(self) -> None:
        """Forget every result."""
        with self._lock:
            self._entries.clear()
            self.total = 0


CACHES: list[ByteCache] = []


class Shared(Generic[P, R]):
    """A pure core call taking keyword arguments, one result per argument set, shared by every
    session within a byte budget of its own (``@shared(max_mb=…)``)."""

    def __init__(self, function: Callable[P, R], max_mb: int) -> None:
        self.function = function
        self.cache = ByteCache(function.__qualname__, max_mb * MB)
        self.signature = inspect.signature(function)
        self.__doc__ = function.__doc__
        CACHES.append(self.cache)

    def key(self, *args: P.args, **kwargs: P.kwargs) -> Hashable:
        """Every argument by name, defaults filled in: f(1) and f(a=1) are one entry."""
        bound = self.signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return bound.args, tuple(sorted(bound.kwargs.items()))

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        return self.cache.get(self.key(*args, **kwargs), lambda: self.function(*args, **kwargs))

    def kept(self, *args: P.args, **kwargs: P.kwargs) -> bool:
        """Whether this call's result is kept now (a call would cost nothing)."""
        return self.key(*args, **kwargs) in self.cache


def shared(max_mb: int) -> Callable[[Callable[P, R]], Shared[P, R]]:
    """Decorate a pure core call: one result per argument set, shared by every session, within
    ``max_mb`` megabytes for this function."""

    def wrap(function: Callable[P, R]) -> Shared[P, R]:
        return Shared(function, max_mb)

    return wrap


Call = tuple[Shared[..., Any], dict[str, Any]]  # a ``@shared`` function and its keyword arguments


def advance(calls: Sequence[Call], seconds: float) -> int:
    """Make cached ``calls`` (a ``@shared`` function and its keyword arguments) in order until
    ``seconds`` have passed, at least one not yet kept per call; how many are kept now.

    Work too long for one script run is spread over several: a page calls this once per run and
    reruns itself while work is left, so that each run stays within the time budget and other
    sessions get their turn in between.
    """
    started, made = time.perf_counter(), False
    for done, (function, kwargs) in enumerate(calls):
        if function.kept(**kwargs):
            continue
        if made and time.perf_counter() - started > seconds:
            return done
        function(**kwargs)
        made = True
    return len(calls)


def budget_bytes() -> int:
    """What all the shared caches together may keep."""
    return sum(cache.max_bytes for cache in CACHES)


def clear_all() -> None:
    """Empty every shared cache (tests start from a clean server)."""
    for cache in CACHES:
        cache.clear()
