"""URL query values → sane, typed settings, with a note for every value that had to be replaced.

Pure Python: no streamlit here, so every hostile URL can be tested directly.
"""

import math
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace

from viz_core import D_MAX, D_MIN, MASK_KINDS, SEED_MAX

LANGS = ("zh", "en")
MAX_TEXT_CHARS = 500  # the text box's limit; 30 tokens fit many times over
DEFAULT_TEXT = "我喜欢人工智能"
QueryValue = str | list[str]
_DIGITS = re.compile(r"[+-]?[0-9]+")


@dataclass(frozen=True)
class Note:
    """A URL value that was replaced: which key, and what is used instead."""

    key: str
    used: str


@dataclass(frozen=True)
class LabParams:
    """Every setting of the lab; field names are the URL names and the widget keys."""

    text: str = DEFAULT_TEXT
    special: bool = True
    d: int = 64
    scale: bool = True
    mask: str = "none"
    seed: int = 0
    row: int = 2

    def to_query(self) -> dict[str, str]:
        """The URL query that restores these settings."""
        return {key: _format(value) for key, value in asdict(self).items()}


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
        raw = self.raw(key)
        if raw is None:
            return default
        number = _to_int(raw)
        if number is None:
            self.replaced(key, default)
            return default
        clamped = min(max(number, low), high)
        if clamped != number:
            self.replaced(key, clamped)
        return clamped

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
    return str(value)


def parse_lang(query: Mapping[str, QueryValue], default: str) -> tuple[str, list[Note]]:
    """The interface language from ``?lang=``, else ``default``."""
    parser = _Parser(query)
    return parser.choice("lang", default, LANGS), parser.notes


def parse_lab(query: Mapping[str, QueryValue]) -> tuple[LabParams, list[Note]]:
    """The lab's settings from a URL query; anything unusable becomes the default, with a note.

    ``row`` is only checked to be a whole number ≥ 0 here: its upper bound depends on the
    sentence, and ``clamp_row`` applies it once the tokens are known.
    """
    parser = _Parser(query)
    defaults = LabParams()
    params = LabParams(
        text=parser.text("text", defaults.text),
        special=parser.boolean("special", defaults.special),
        d=parser.integer("d", defaults.d, D_MIN, D_MAX),
        scale=parser.boolean("scale", defaults.scale),
        mask=parser.choice("mask", defaults.mask, MASK_KINDS),
        seed=parser.integer("seed", defaults.seed, 0, SEED_MAX),
        row=parser.integer("row", defaults.row, 0, 10**9),
    )
    return params, parser.notes


def clamp_row(params: LabParams, n_tokens: int) -> LabParams:
    """Keep the selected row inside the matrix."""
    row = min(params.row, max(n_tokens - 1, 0))
    return params if row == params.row else replace(params, row=row)


def locale_to_lang(locale: str | None) -> str:
    """The browser's language if the app speaks it, else Chinese."""
    if locale and locale.lower().startswith("en"):
        return "en"
    return "zh"
