"""The class mode: rooms, students, questions and answers for "predict, commit, reveal".

A teacher opens a question on the projector, the phones answer, the teacher shows the class's
histogram and reveals the truth, which the app computes itself with ``viz_core``. Plain Python
and SQLAlchemy Core; never streamlit, plotly or ``ui``.

Example:
    >>> from classroom import QUESTIONS, Store, default_url
    >>> store = Store(default_url())
    >>> room = store.create_room()
    >>> student = store.join(room.code, lang="en")
    >>> _ = store.ask(room.code, room.teacher_key, "model_fill")
    >>> store.answer(room.code, student.token, "欢")
    '欢'
"""

from classroom.config import default_url
from classroom.questions import KINDS, QUESTIONS, Question, Truth
from classroom.refusals import Busy, Forbidden, Invalid, NotFound, Refusal, Unavailable
from classroom.store import (
    PHASES,
    Room,
    RoomView,
    Store,
    Student,
    StudentRow,
    StudentView,
    Tally,
)

__all__ = [
    "KINDS",
    "PHASES",
    "QUESTIONS",
    "Busy",
    "Forbidden",
    "Invalid",
    "NotFound",
    "Question",
    "Refusal",
    "Room",
    "RoomView",
    "Store",
    "Student",
    "StudentRow",
    "StudentView",
    "Tally",
    "Truth",
    "Unavailable",
    "default_url",
]
