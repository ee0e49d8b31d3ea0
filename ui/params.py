"""URL query values → sane, typed settings, with a note for every value that had to be replaced.

Pure Python: no streamlit here, so every hostile URL can be tested directly.
"""

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, replace

from viz_core import (
    D_MAX,
    D_MIN,
    DISTRIBUTIONS,
    MASK_KINDS,
    MAX_HEADS,
    SEED_MAX,
    SOURCES,
    TEMPERATURE_RANGE,
)

LANGS = ("zh", "en")
MAX_TEXT_CHARS = 500  # the text box's limit; 30 tokens fit many times over
DEFAULT_TEXT = "我喜欢人工智能"
QueryValue = str | list[str]
_DIGITS = re.compile(r"[+-]?[0-9]+")
_SEPARATORS = re.compile(r"[,，;；\s]+")
MAX_VALUES = 12  # numbers in the softmax lesson's input
VALUE_LIMIT = 1e6
DEFAULT_VALUES = "2.0, 1.0, 0.1"
STEPS = 6


@dataclass(frozen=True)
class Note:
    """A URL value that was replaced: which key, and what is used instead."""

    key: str
    used: str


class Settings:
    """A page's settings; its dataclass fields are the URL names, so the link is derived."""

    def to_query(self) -> dict[str, str]:
        """The URL query that restores these settings."""
        return {key: _format(value) for key, value in asdict(self).items()}  # type: ignore[call-overload]


@dataclass(frozen=True)
class LabParams(Settings):
    """Every setting of the lab; field names are the URL names and the widget keys."""

    text: str = DEFAULT_TEXT
    special: bool = True
    d: int = 64
    scale: bool = True
    mask: str = "none"
    seed: int = 0
    row: int = 2
    heads: int = 1
    head: int = 0
    source: str = "random"
    position: bool = True
    temperature: float = 1.0

    def core_kwargs(self) -> dict[str, object]:
        """The settings run_lab takes, by the same names (the row is only a view)."""
        settings = asdict(self)
        del settings["row"]
        return settings


@dataclass
class _Parser:
    query: Mapping[str, QueryValue]
    notes: list[Note] = field(default_factory=list)

    def raw(self, key: str) -> str | None:
        value = self.query.get(key)
        if isinstance(value, list):  # ?d=1&d=2: the last one wins, as in Streamlit
            value = value[-1] if value else None
        return value

    def replaced(self, key: str, used: object) -> None:
        self.notes.append(Note(key, _format(used)))

    def boolean(self, key: str, default: bool) -> bool:
        raw = self.raw(key)
        if raw is None:
            return default
        word = raw.strip().lower()
        if word in ("true", "1", "yes", "on"):
            return True
        if word in ("false", "0", "no", "off"):
            return False
        self.replaced(key, default)
        return default

    def integer(self, key: str, default: int, low: int, high: int) -> int:
        return int(self._bounded(key, default, low, high, _to_int))

    def number(self, key: str, default: float, low: float, high: float) -> float:
        return float(self._bounded(key, default, low, high, _to_float))

    def _bounded(
        self,
        key: str,
        default: float,
        low: float,
        high: float,
        convert: Callable[[str], float | None],
    ) -> float:
        """A number in [low, high]: unreadable → the default, out of range → the nearest end."""
        raw = self.raw(key)
        if raw is None:
            return default
        number = convert(raw)
        if number is None:
            self.replaced(key, default)
            return default
        clamped = min(max(number, low), high)
        if clamped != number:
            self.replaced(key, clamped)
        return clamped

    def values(self, key: str, default: str) -> str:
        raw = self.raw(key)
        if raw is None:
            return default
        if parse_values(raw) is None:
            self.replaced(key, default)
            return default
        return raw

    def choice(self, key: str, default: str, options: tuple[str, ...]) -> str:
        raw = self.raw(key)
        if raw is None:
            return default
        word = raw.strip().lower()
        if word in options:
            return word
        self.replaced(key, default)
        return default

    def text(self, key: str, default: str) -> str:
        raw = self.raw(key)
        if raw is None:
            return default
        if len(raw) > MAX_TEXT_CHARS:
            self.replaced(key, f"{MAX_TEXT_CHARS}")
            return raw[:MAX_TEXT_CHARS]
        return raw


def _to_float(raw: str) -> float | None:
    """A finite number from plain ASCII text; None otherwise (no 'nan', 'inf', '1_0')."""
    text = raw.strip()
    if not text.isascii() or "_" in text:
        return None
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def parse_values(text: str) -> tuple[float, ...] | None:
    """1 to 12 numbers separated by commas, semicolons or spaces; None when that is not so."""
    parts = [part for part in _SEPARATORS.split(text.strip()) if part]
    numbers = [_to_float(part) for part in parts]
    if not 1 <= len(numbers) <= MAX_VALUES:
        return None
    if any(number is None or abs(number) > VALUE_LIMIT for number in numbers):
        return None
    return tuple(float(number) for number in numbers if number is not None)


def _to_int(raw: str) -> int | None:
    """A whole number from ASCII text such as "64", " 64 ", "64.0" or "6.4e1"; None otherwise."""
    text = raw.strip()
    if not text.isascii() or "_" in text:
        return None  # Python would read "٦٤" and "1_000"; a link should be plain
    if _DIGITS.fullmatch(text):
        # int("9" * 5000) raises (Python's 4300-digit limit); so big a number only needs its sign.
        return int(text) if len(text) <= 18 else (-(10**18) if text[0] == "-" else 10**18)
    try:
        number = float(text)
    except ValueError:
        return None
    if not math.isfinite(number) or number != int(number):
        return None
    return int(number)


def _format(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def parse_lang(query: Mapping[str, QueryValue], default: str) -> tuple[str, list[Note]]:
    """The interface language from ``?lang=``, else ``default``."""
    parser = _Parser(query)
    return parser.choice("lang", default, LANGS), parser.notes


def parse_present(query: Mapping[str, QueryValue]) -> tuple[bool, list[Note]]:
    """Presenter mode from ``?present=``: off unless the link says true."""
    parser = _Parser(query)
    return parser.boolean("present", False), parser.notes


def parse_lab(query: Mapping[str, QueryValue]) -> tuple[LabParams, list[Note]]:
    """The lab's settings from a URL query; anything unusable becomes the default, with a note.

    ``row`` is only checked to be a whole number ≥ 0 here: its upper bound depends on the
    sentence, and ``clamp_row`` applies it once the tokens are known.
    """
    parser = _Parser(query)
    defaults = LabParams()
    d = parser.integer("d", defaults.d, D_MIN, D_MAX)
    heads = parser.integer("heads", defaults.heads, 1, MAX_HEADS)
    if d % heads:
        parser.replaced("heads", defaults.heads)
        heads = defaults.heads
    params = LabParams(
        text=parser.text("text", defaults.text),
        special=parser.boolean("special", defaults.special),
        d=d,
        scale=parser.boolean("scale", defaults.scale),
        mask=parser.choice("mask", defaults.mask, MASK_KINDS),
        seed=parser.integer("seed", defaults.seed, 0, SEED_MAX),
        row=parser.integer("row", defaults.row, 0, 10**9),
        heads=heads,
        head=parser.integer("head", defaults.head, 0, heads - 1),
        source=parser.choice("source", defaults.source, SOURCES),
        position=parser.boolean("position", defaults.position),
        temperature=parser.number("temperature", defaults.temperature, *TEMPERATURE_RANGE),
    )
    return params, parser.notes


@dataclass(frozen=True)
class SoftmaxParams(Settings):
    """The softmax lesson: the numbers (as typed), the divisor, and the gradient's target."""

    values: str = DEFAULT_VALUES
    divisor: float = 1.0
    target: int = 0


def parse_softmax(query: Mapping[str, QueryValue]) -> tuple[SoftmaxParams, list[Note]]:
    """The softmax lesson's settings from a URL query."""
    parser = _Parser(query)
    defaults = SoftmaxParams()
    params = SoftmaxParams(
        values=parser.values("values", defaults.values),
        divisor=parser.number("divisor", defaults.divisor, 0.001, VALUE_LIMIT),
        target=parser.integer("target", defaults.target, 0, MAX_VALUES - 1),
    )
    return params, parser.notes


@dataclass(frozen=True)
class ScalingParams(Settings):
    """The √d lesson: the d of the histogram and the entries' distribution."""

    d: int = 1536
    distribution: str = "normal"


def parse_scaling(query: Mapping[str, QueryValue]) -> tuple[ScalingParams, list[Note]]:
    """The √d lesson's settings from a URL query."""
    parser = _Parser(query)
    defaults = ScalingParams()
    params = ScalingParams(
        d=parser.integer("d", defaults.d, D_MIN, D_MAX),
        distribution=parser.choice("distribution", defaults.distribution, DISTRIBUTIONS),
    )
    return params, parser.notes


@dataclass(frozen=True)
class StepsParams(Settings):
    """The six-steps lesson: which step is on screen."""

    step: int = 1


def parse_steps(query: Mapping[str, QueryValue]) -> tuple[StepsParams, list[Note]]:
    """The step from a URL query."""
    parser = _Parser(query)
    return StepsParams(step=parser.integer("step", 1, 1, STEPS)), parser.notes


@dataclass(frozen=True)
class QuizParams(Settings):
    """The quiz: its seed, so that a class can share one set of numbers."""

    quiz_seed: int = 0


def parse_quiz(query: Mapping[str, QueryValue]) -> tuple[QuizParams, list[Note]]:
    """The quiz seed from a URL query."""
    parser = _Parser(query)
    return QuizParams(quiz_seed=parser.integer("quiz_seed", 0, 0, SEED_MAX)), parser.notes


def clamp_row(params: LabParams, n_tokens: int) -> LabParams:
    """Keep the selected row inside the matrix."""
    row = min(params.row, max(n_tokens - 1, 0))
    return params if row == params.row else replace(params, row=row)


def locale_to_lang(locale: str | None) -> str:
    """The browser's language if the app speaks it, else Chinese."""
    if locale and locale.lower().startswith("en"):
        return "en"
    return "zh"
