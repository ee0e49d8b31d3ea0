"""The lab's settings, declared in ``viz_core.lab_settings`` so that a class question checks a
view of the lab with the lab's own declaration (``classroom`` never imports ``ui``)."""

from viz_core.lab_settings import (
    DEFAULT_TEXT,
    MAX_TEXT_CHARS,
    STAGES,
    TRAINED,
    VIEW,
    CompareParams,
    Computing,
    LabParams,
    parse_lab,
)

__all__ = [
    "DEFAULT_TEXT",
    "MAX_TEXT_CHARS",
    "STAGES",
    "TRAINED",
    "VIEW",
    "CompareParams",
    "Computing",
    "LabParams",
    "parse_lab",
]
