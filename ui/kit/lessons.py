"""Lessons as data: one TOML file per lesson in ``lessons/``, its name the lesson's id, each
checked when it is loaded (every view through its page's settings declaration, written the way
the app writes it; every question one the class mode asks). A bad file names itself, the step
and the problem.
"""

import base64
import json
import tomllib
import zlib
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

from classroom.questions import QUESTIONS
from ui.kit.pages import PATHS, declared_settings, page_named, page_settings
from ui.kit.text import t
from viz_core.settings import LANGUAGES

FOLDER = Path(__file__).resolve().parents[2] / "lessons"
STEPS = (4, 20)  # a lesson's fewest and most steps
CUSTOM = "custom"  # the id of a lesson whose steps the link carries (?lesson=custom&steps=…)
MINE = 20  # the most steps a teacher's own lesson holds
LINK_BYTES = 4096  # the most a link's steps may unpack to: no link makes the server inflate more


class LessonError(ValueError):
    """A lesson file that cannot be used: which file, which step, what is wrong."""


@dataclass(frozen=True)
class Step:
    """One step: the view it opens (a page and its settings), what the teacher says, and the
    class question it may ask."""

    view: str
    page: str
    query: dict[str, str]
    title: dict[str, str]
    notes: dict[str, str]
    question: str | None


@dataclass(frozen=True)
class Lesson:
    id: str
    title: dict[str, str]
    minutes: int
    steps: tuple[Step, ...]


def _texts(value: object, what: str) -> dict[str, str]:
    """A {zh, en} table of non-empty strings, or the problem."""
    if not isinstance(value, dict) or set(value) != set(LANGUAGES):
        raise ValueError(f"{what} needs exactly zh and en")
    if not all(isinstance(text, str) and text.strip() for text in value.values()):
        raise ValueError(f"{what} is empty")
    return {lang: value[lang].strip() for lang in LANGUAGES}


def parse_view(view: str) -> tuple[str, dict[str, str]]:
    """A view's page and settings, checked: the page exists; every key is one the page reads,
    given once, with a value its declaration takes, written as the app writes it."""
    parts = urlsplit(view)
    path = parts.path.strip("/") or PATHS[0]
    if parts.scheme or parts.netloc or path not in PATHS:
        raise ValueError(f"{view!r} is not a page of the app")
    asked = parse_qs(parts.query, keep_blank_values=True)
    twice = [key for key, values in asked.items() if len(values) > 1]
    if twice:
        raise ValueError(f"{', '.join(twice)} given twice")
    query = {key: values[0] for key, values in asked.items()}
    page = page_named(path)
    every = page_settings(page) + tuple(declared_settings(path)[1:])
    unknown = set(query) - {name for settings in every for name in settings.url_names()}
    if unknown:
        raise ValueError(f"/{path} has no setting {', '.join(sorted(unknown))}")
    for settings in every:
        values, notes = settings.parse(asked)
        if notes:
            raise ValueError(f"{notes[0].key}={query[notes[0].key]} is not a value /{path} takes")
        written = values.to_query(secrets=True)
        for key in set(query) & set(settings.url_names()):
            if query[key] != written.get(key, query[key]):
                raise ValueError(f"write {key}={written[key]}, not {key}={query[key]}")
    return path, query


def view_of(path: str, query: dict[str, str]) -> str:
    """The view a page's address shows, as a lesson writes it: only the settings that differ
    from the page's defaults (B's, in compare mode, always), never a secret or the app's keys."""
    page = page_named(path)
    every = page_settings(page) + tuple(declared_settings(path)[1:])
    kept: dict[str, str] = {}
    for settings in every:
        defaults = settings().to_query() if not settings.PREFIX else {}
        for name, spec in settings.specs().items():
            key = settings.PREFIX + name
            if key in query and not spec.secret and query[key] != defaults.get(key):
                kept[key] = query[key]
    return f"/{path}" + (f"?{urlencode(kept)}" if kept else "")


def _step(raw: object) -> Step:
    """One ``[[steps]]`` table, checked."""
    if not isinstance(raw, dict):
        raise ValueError("is not a table")
    unknown = set(raw) - {"view", "title", "notes", "question"}
    if unknown:
        raise ValueError(f"has unknown keys {', '.join(sorted(unknown))}")
    view = raw.get("view")
    if not isinstance(view, str):
        raise ValueError('needs a view, an app link such as "/scaling?d=1536"')
    page, query = parse_view(view)
    question = raw.get("question")
    if question is not None and question not in QUESTIONS:
        raise ValueError(f"asks {question!r}, which is not a class question")
    title, notes = _texts(raw.get("title"), "title"), _texts(raw.get("notes"), "notes")
    return Step(view, page, query, title, notes, question)


def _lesson(lesson_id: str, raw: dict[str, object]) -> Lesson:
    """A lesson's table, checked; a problem raised as "step N: …" where it is a step's."""
    title = _texts(raw.get("title"), "title")
    minutes = raw.get("minutes")
    if not isinstance(minutes, int) or not 1 <= minutes <= 90:
        raise ValueError("minutes must be a whole number from 1 to 90")
    steps = raw.get("steps")
    if not isinstance(steps, list) or not STEPS[0] <= len(steps) <= STEPS[1]:
        raise ValueError(f"needs {STEPS[0]} to {STEPS[1]} [[steps]]")
    checked = []
    for number, step in enumerate(steps, start=1):
        try:
            checked.append(_step(step))
        except ValueError as problem:
            raise ValueError(f"step {number}: {problem}") from None
    if not any(step.question for step in checked):
        raise ValueError("asks the class no question: give one step a question")
    return Lesson(lesson_id, title, minutes, tuple(checked))


def load_lesson(path: Path) -> Lesson:
    """One lesson file, checked; a LessonError naming the file and the problem."""
    try:
        return _lesson(path.stem, tomllib.loads(path.read_text(encoding="utf-8")))
    except (ValueError, OSError) as problem:  # TOMLDecodeError is a ValueError
        raise LessonError(f"lessons/{path.name}: {problem}") from None


@cache
def lessons() -> dict[str, Lesson]:
    """Every shipped lesson by id, in the files' order, loaded once per process."""
    return {path.stem: load_lesson(path) for path in sorted(FOLDER.glob("*.toml"))}


# --- a teacher's own lesson, carried whole by its link ---------------------------------------


def steps_token(steps: list[list[str]]) -> str:
    """The ``steps`` value of a link that opens these (view, title) steps for anyone: JSON,
    deflated, base64url (8 steps of the app's views with short titles: about 400 characters)."""
    packed = json.dumps(steps, ensure_ascii=False, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(zlib.compress(packed, 9)).decode().rstrip("=")


@lru_cache(maxsize=64)  # the bar reads it every run; a few hundred bytes each
def custom_lesson(token: str) -> Lesson:
    """The lesson a link's ``steps`` carries, each view checked as a lesson file's are; a
    ValueError for anything else (not ours, too long, a view the app does not have)."""
    if len(token) > LINK_BYTES * 2:  # deflated JSON is never twice its size: not ours
        raise ValueError("steps is too long")
    try:
        deflated = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        inflater = zlib.decompressobj()
        raw = json.loads(inflater.decompress(deflated, LINK_BYTES))
        if inflater.unconsumed_tail or inflater.unused_data or not inflater.eof:
            raise ValueError("too long, or more than one lesson")
    except (ValueError, zlib.error) as problem:  # binascii.Error, JSONDecodeError: ValueErrors
        raise ValueError(f"steps is not a lesson: {problem}") from None
    if not isinstance(raw, list) or not 1 <= len(raw) <= MINE:
        raise ValueError(f"steps needs 1 to {MINE} steps")
    steps = []
    for number, item in enumerate(raw, start=1):
        pair = isinstance(item, list) and len(item) == 2
        if not pair or not all(isinstance(x, str) for x in item):
            raise ValueError(f"step {number}: is not a view and a title")
        view, title = item
        page, query = parse_view(view)
        name = title.strip()[:80] or view
        steps.append(Step(view, page, query, dict.fromkeys(LANGUAGES, name), {}, None))
    title = {lang: t("my_lesson", lang) for lang in LANGUAGES}
    return Lesson(CUSTOM, title, 2 * len(steps), tuple(steps))


def lesson_of(where: dict[str, object]) -> Lesson:
    """The lesson a session is in (``state.LESSON``): a shipped one, or the link's own."""
    if where["id"] == CUSTOM:
        return custom_lesson(str(where["steps"]))
    return lessons()[str(where["id"])]


def lesson_ref(where: dict[str, object]) -> str:
    """How a class's store names the lesson on the projector: its id, or ``custom:`` and the
    link's steps for a teacher's own."""
    if where["id"] == CUSTOM:
        return f"{CUSTOM}:{where['steps']}"
    return str(where["id"])


def step_named(ref: str | None, number: int | None, lang: str) -> dict[str, str] | None:
    """What a phone says of the teacher's step: the lesson's title, "N / total" and the step's
    title; None when there is none or the lesson is not one this server has."""
    if ref is None or number is None:
        return None
    kind, _, token = ref.partition(":")
    try:
        lesson = custom_lesson(token) if kind == CUSTOM and token else lessons()[ref]
    except (KeyError, ValueError):  # another replica's lesson, or a link's it cannot read
        return None
    if not 1 <= number <= len(lesson.steps):
        return None
    step = lesson.steps[number - 1]
    return {"lesson": lesson.title[lang], "place": f"{number} / {len(lesson.steps)}",
            "title": step.title[lang]}  # fmt: skip
