"""URL settings, each field declared once: its default, and its bounds or its choices.

A page's settings are a frozen dataclass whose fields are the URL names, the widget keys and the
core's parameter names. Each field is declared with ``flag``, ``integer``, ``number``, ``choice``,
``text`` or ``numbers``; the URL parser, the link writer, the widgets' bounds and the notes for
replaced values all read that one declaration. Pure Python: hostile URLs are tested directly.
"""

import dataclasses
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, Self

LANGUAGES = ("zh", "en")  # the app speaks Chinese and English

QueryValue = str | list[str]
Query = Mapping[str, QueryValue]
Bound = float | Callable[[dict[str, Any]], float]  # a number, or one from the fields read so far
_DIGITS = re.compile(r"[+-]?[0-9]+")
_SEPARATORS = re.compile(r"[,，;；\s]+")
MAX_VALUES = 12  # numbers in a list of numbers (the softmax lesson's input)
VALUE_LIMIT = 1e6
SPEC = "url"


class Values(Protocol):
    """Widget values by session key (Streamlit's session state)."""

    def __getitem__(self, key: str) -> Any: ...


@dataclass(frozen=True)
class Note:
    """A URL value that was replaced: which key, and what is used instead."""

    key: str
    used: str
    carried: bool = False  # the value came from another page, not from the link
    kept: str | None = None  # a carried value this page could not use (it kept ``used``)
    page: str = ""  # the page that kept its own value
    limit: str = ""  # the largest value that page allows, when one was too large


@dataclass(frozen=True)
class Spec:
    """How one URL field is read: its kind, bounds or choices, and an optional validity rule."""

    kind: str  # "flag", "integer", "number", "choice", "text" or "numbers"
    low: Bound = 0
    high: Bound = 0
    choices: tuple[str, ...] = ()
    max_chars: int = 0
    valid: Callable[[Any, dict[str, Any]], bool] | None = None  # else the default, with a note
    secret: bool = False  # read from a link, never written into one (a teacher's key)

    def bounds(self, values: dict[str, Any]) -> tuple[float, float]:
        """(low, high) given the fields read before this one."""
        low = self.low(values) if callable(self.low) else self.low
        high = self.high(values) if callable(self.high) else self.high
        return low, high


def _declare(default: Any, spec: Spec) -> Any:
    return field(default=default, metadata={SPEC: spec})


def flag(default: bool) -> Any:
    """A true/false field."""
    return _declare(default, Spec("flag"))


def integer(default: int, low: Bound, high: Bound, valid: Any = None) -> Any:
    """A whole number in [low, high]: out of range → the nearest end, unreadable → the default."""
    return _declare(default, Spec("integer", low, high, valid=valid))


def number(default: float, low: float, high: float) -> Any:
    """A finite number in [low, high]."""
    return _declare(default, Spec("number", low, high))


def choice(default: str, choices: tuple[str, ...]) -> Any:
    """One of a few language-independent ids."""
    return _declare(default, Spec("choice", choices=choices))


def text(default: str, max_chars: int, secret: bool = False) -> Any:
    """Free text, cut to ``max_chars`` characters; a ``secret`` one is read from a link but
    never written into the URL or a share link."""
    return _declare(default, Spec("text", max_chars=max_chars, secret=secret))


NUMBERS_CHARS = 400  # the box of numbers: 12 numbers of any sensible length


def numbers(default: str) -> Any:
    """1 to 12 numbers as typed, kept as text (parse them with ``parse_values``)."""
    return _declare(default, Spec("numbers", max_chars=NUMBERS_CHARS))


@dataclass(frozen=True)
class Settings:
    """Base of every page's settings: parsing, the link, and widget keys and bounds from the
    fields. ``PAGE`` is the page's path in ``PAGES``: its widgets' session keys are scoped to it
    (``lab_d``), while the URL keeps the field's short name (``d``)."""

    PAGE: ClassVar[str]  # the page these settings belong to, as PAGES names it
    # A second set of settings on the same page (the lab's B) prefixes its URL names and widget
    # keys: b_d, lab_b_d.
    PREFIX: ClassVar[str] = ""

    @classmethod
    def store(cls) -> str:
        """The session key where the page keeps the settings it last used."""
        return f"_{cls.PAGE}_{cls.PREFIX}settings"

    @classmethod
    def widget_key(cls, name: str) -> str:
        """The session key of the widget for field ``name``: scoped to the page."""
        if name not in cls.specs():
            raise KeyError(f"{cls.__name__} has no field {name!r}")
        return f"{cls.PAGE}_{cls.PREFIX}{name}"

    @classmethod
    def url_names(cls) -> tuple[str, ...]:
        """Every field's name in the URL."""
        return tuple(cls.PREFIX + name for name in cls.specs())

    @classmethod
    def specs(cls) -> dict[str, Spec]:
        """Every field's declaration, by URL name (one dict per class: read it, never change it)."""
        return _specs(cls)

    @classmethod
    def spec(cls, name: str) -> Spec:
        """One field's declaration."""
        return cls.specs()[name]

    @classmethod
    def parse(cls, query: Query, base: object = None) -> tuple[Self, list[Note]]:
        """Settings from a URL query; anything unusable becomes a sane value, with a note. A
        field the query does not set is ``base``'s, when given (B's d is A's unless b_d says)."""
        reader = _Reader(query)
        values: dict[str, Any] = {}
        for item in dataclasses.fields(cls):
            default = getattr(base, item.name) if base is not None else item.default
            spec = item.metadata[SPEC]
            values[item.name] = reader.read(cls.PREFIX + item.name, default, spec, values)
        return cls(**values), reader.notes

    @classmethod
    def from_state(cls, state: Values) -> Self:
        """Settings from the widgets' values in session state (scoped keys), each coerced to its
        kind."""
        values = {}
        for name, spec in cls.specs().items():
            value = _COERCE[spec.kind](state[cls.widget_key(name)])
            values[name] = value[: spec.max_chars] if spec.kind == "text" else value
        return cls(**values)

    def to_query(self, secrets: bool = False, base: object = None) -> dict[str, str]:
        """The URL query that restores these settings; secret fields only when ``secrets``;
        only the fields that differ from ``base``'s, when given."""
        specs = self.specs()
        shown = {
            key: value
            for key, value in dataclasses.asdict(self).items()
            if (secrets or not specs[key].secret) and not (value == "" == _default(self, key))
        }  # a text left empty where empty is its default says nothing: ?room=X, not &me=
        if base is not None:
            shown = {key: value for key, value in shown.items() if getattr(base, key) != value}
        return {self.PREFIX + key: url_text(value) for key, value in shown.items()}

    def to_state(self) -> dict[str, Any]:
        """These settings as their widgets' session values, by scoped key."""
        fields = dataclasses.asdict(self)
        return {self.widget_key(name): value for name, value in fields.items()}


_SPECS: dict[type[Settings], dict[str, Spec]] = {}


def _specs(cls: type[Settings]) -> dict[str, Spec]:
    """Kept per class: a lab rerun asks some 300 times, and dataclasses.fields took 5 ms of it."""
    if cls not in _SPECS:
        _SPECS[cls] = {f.name: f.metadata[SPEC] for f in dataclasses.fields(cls)}
    return _SPECS[cls]


def _default(settings: Settings, name: str) -> Any:
    """A field's declared default."""
    return next(f.default for f in dataclasses.fields(settings) if f.name == name)


def _whole(value: Any) -> int:
    """A widget's whole number; a select box may send back the label it shows ("3 · 欢")."""
    if isinstance(value, str):
        number = to_int(value.split(" ", 1)[0])
        return 0 if number is None else number
    return int(value)


_COERCE: dict[str, Callable[[Any], Any]] = {
    "flag": bool,
    "integer": _whole,
    "number": float,
    "choice": str,
    "text": str,
    "numbers": str,
}


@dataclass
class _Reader:
    query: Query
    notes: list[Note] = field(default_factory=list)

    def raw(self, key: str) -> str | None:
        value = self.query.get(key)
        if isinstance(value, list):  # ?d=1&d=2: the last one wins, as in Streamlit
            value = value[-1] if value else None
        return value

    def replaced(self, key: str, used: object) -> None:
        self.notes.append(Note(key, url_text(used)))

    def read(self, key: str, default: Any, spec: Spec, values: dict[str, Any]) -> Any:
        """One field's value from the query, with a note when it had to be replaced."""
        raw = self.raw(key)
        if raw is None:
            return default
        value = _READERS[spec.kind](self, key, raw, default, spec, values)
        if spec.valid is not None and not spec.valid(value, values):
            self.replaced(key, default)
            return default
        return value

    def flag(self, key: str, raw: str, default: bool, *_: Any) -> bool:
        word = raw.strip().lower()
        if word in ("true", "1", "yes", "on"):
            return True
        if word in ("false", "0", "no", "off"):
            return False
        self.replaced(key, default)
        return default

    def bounded(
        self, key: str, raw: str, default: float, spec: Spec, values: dict[str, Any]
    ) -> float:
        """A number in [low, high]: unreadable → the default, out of range → the nearest end."""
        number = (to_int if spec.kind == "integer" else to_float)(raw)
        if number is None:
            self.replaced(key, default)
            return default
        low, high = spec.bounds(values)
        clamped = min(max(number, low), high)
        if clamped != number:
            self.replaced(key, clamped)
        return int(clamped) if spec.kind == "integer" else float(clamped)

    def choice(self, key: str, raw: str, default: str, spec: Spec, *_: Any) -> str:
        word = raw.strip().lower()
        if word in spec.choices:
            return word
        self.replaced(key, default)
        return default

    def text(self, key: str, raw: str, default: str, spec: Spec, *_: Any) -> str:
        if len(raw) > spec.max_chars:
            self.replaced(key, f"{spec.max_chars}")
            return raw[: spec.max_chars]
        return raw

    def numbers(self, key: str, raw: str, default: str, *_: Any) -> str:
        if parse_values(raw) is None:
            self.replaced(key, default)
            return default
        return raw


_READERS: dict[str, Callable[..., Any]] = {
    "flag": _Reader.flag,
    "integer": _Reader.bounded,
    "number": _Reader.bounded,
    "choice": _Reader.choice,
    "text": _Reader.text,
    "numbers": _Reader.numbers,
}


def to_float(raw: str) -> float | None:
    """A finite number from plain ASCII text; None otherwise (no 'nan', 'inf', '1_0')."""
    stripped = raw.strip()
    if not stripped.isascii() or "_" in stripped:
        return None
    try:
        value = float(stripped)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def to_int(raw: str) -> int | None:
    """A whole number from ASCII text such as "64", " 64 ", "64.0" or "6.4e1"; None otherwise."""
    stripped = raw.strip()
    if not stripped.isascii() or "_" in stripped:
        return None  # Python would read "٦٤" and "1_000"; a link should be plain
    if _DIGITS.fullmatch(stripped):
        # int("9" * 5000) raises (Python's 4300-digit limit); so big a number only needs its sign.
        if len(stripped) > 18:
            return -(10**18) if stripped[0] == "-" else 10**18
        return int(stripped)
    value = to_float(stripped)
    if value is None or value != int(value):
        return None
    return int(value)


def parse_values(raw: str) -> tuple[float, ...] | None:
    """1 to 12 numbers separated by commas, semicolons or spaces; None when that is not so."""
    parts = [part for part in _SEPARATORS.split(raw.strip()) if part]
    values = [to_float(part) for part in parts]
    if not 1 <= len(values) <= MAX_VALUES:
        return None
    if any(value is None or abs(value) > VALUE_LIMIT for value in values):
        return None
    return tuple(float(value) for value in values if value is not None)


def url_text(value: object) -> str:
    """A setting as the URL writes it: true/false, 1.5 rather than 1.50000, text as it is."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


# What follows the user from page to page, besides the language and presenter mode: a page
# whose settings have a field of one of these names means the same thing by it (the sentence;
# d, the width q·k sums over). A carried value that does not fit a page's own declaration is not
# changed into one that would alter the lesson: the page keeps its own, and says why.
CARRIED = ("text", "d")


@dataclass(frozen=True)
class AppSettings(Settings):
    """What every page shares: the language and presenter mode."""

    PAGE: ClassVar[str] = "app"

    lang: str = choice("zh", LANGUAGES)
    present: bool = flag(False)


def parse_lang(query: Query, default: str) -> tuple[str, list[Note]]:
    """The interface language from ``?lang=``, else ``default``."""
    reader = _Reader(query)
    raw = reader.raw("lang")
    if raw is None:
        return default, []
    return reader.choice("lang", raw, default, AppSettings.spec("lang")), reader.notes


def parse_present(query: Query) -> tuple[bool, list[Note]]:
    """Presenter mode from ``?present=``: off unless the link says true."""
    reader = _Reader(query)
    raw = reader.raw("present")
    return (False, []) if raw is None else (reader.flag("present", raw, False), reader.notes)


def locale_to_lang(locale: str | None) -> str:
    """The browser's language if the app speaks it, else Chinese."""
    if locale and locale.lower().startswith("en"):
        return "en"
    return "zh"
