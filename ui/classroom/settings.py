"""The class page's settings: which class, which student this phone is, and the teacher's key
(read from the teacher's own link, then kept by the session and never written into a link)."""

from dataclasses import dataclass
from typing import ClassVar

from viz_core.settings import Settings, text

CODE_CHARS = 12  # a room code is 6 characters; a link may space or dash it
TOKEN_CHARS = 64  # a student's token or the teacher's key: 24 URL-safe characters today


@dataclass(frozen=True)
class ClassroomParams(Settings):
    """``room``: the class's code; ``me``: this phone's student token (a reload keeps the same
    student); ``key``: the teacher's key, which gives the session control of the room."""

    PAGE: ClassVar[str] = "classroom"

    room: str = text("", CODE_CHARS)
    me: str = text("", TOKEN_CHARS)
    key: str = text("", TOKEN_CHARS, secret=True)
