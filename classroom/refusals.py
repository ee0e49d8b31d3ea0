"""Refusals by code: every situation the store refuses has its own code, its sentence in zh and
en (``classroom/strings.toml``, one table per code, with the refusal's parameters in braces) and
the built-in base that callers already catch. Pages and the JSON API say a refusal by its code,
never by reading its English text (``str(error)``, kept for logs and old callers).

Example:
    >>> error = NotFound("class_full", limit=300)
    >>> isinstance(error, LookupError), error.code, sentence(error, "zh")
    (True, 'class_full', '这堂课已满（300 人）：请告诉老师。')
"""

# ruff: noqa: N818 (a refusal is an answer the user is told, not an error of the program)

import tomllib
from pathlib import Path
from typing import Any

STRINGS: dict[str, dict[str, str]] = tomllib.loads(
    Path(__file__).with_name("strings.toml").read_text(encoding="utf-8")
)


class Refusal(Exception):
    """A refusal with its ``code`` and the ``params`` its sentence names."""

    def __init__(self, code: str, /, **params: Any) -> None:
        if code not in STRINGS:
            raise KeyError(f"no sentence for the refusal {code!r}")
        self.code = code
        self.params = params
        super().__init__(STRINGS[code]["en"].format(**params))


class NotFound(Refusal, LookupError):
    """No such room, student or question (or no longer: ended, removed, expired)."""


class Forbidden(Refusal, PermissionError):
    """Not the teacher's key."""


class Invalid(Refusal, ValueError):
    """A value, a setting or an action that does not fit now."""


class Busy(Refusal, RuntimeError):
    """The store could not do it this time (no free room code after five draws): try again."""


class Unavailable(Refusal, RuntimeError):
    """The database did not answer in time: nothing was saved; the next call tries again."""

    def __init__(self) -> None:
        super().__init__("unavailable")


def sentence(error: Refusal, lang: str) -> str:
    """What ``error`` tells the user, in ``lang`` (zh when the app does not speak it)."""
    table = STRINGS[error.code]
    return table.get(lang, table["zh"]).format(**error.params)
