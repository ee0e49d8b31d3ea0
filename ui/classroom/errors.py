"""The store's refusals for a student or a teacher, in the page's language, by their code.

Each refusal's sentence lives once, in ``classroom/strings.toml``; the page's package registers
it as the string ``refusal_<code>``. Anything else that goes wrong is logged, and the user is
told only that it did not work, never the exception's text.
"""

import logging

from classroom.refusals import Refusal
from ui.kit.text import t

log = logging.getLogger(__name__.rsplit(".", 1)[0])  # one logger per package: ui.classroom


def said(error: Exception, lang: str) -> str:
    """What to tell the user about ``error``, in ``lang``: a refusal's sentence with its
    parameters; for anything else, logged here, only that it did not work."""
    if isinstance(error, Refusal):
        return t(f"refusal_{error.code}", lang, **error.params)
    log.error("a class action failed", exc_info=error)
    return t("cl_err_other", lang)
