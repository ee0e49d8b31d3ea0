"""The store's sentences for a student or a teacher, in the page's language.

``classroom`` raises ValueError, LookupError and PermissionError with an English sentence a
student understands; a Chinese page shows the same sentence in Chinese, found here by its shape.
"""

import re

from classroom import Unavailable
from ui.kit.text import t

# (the English sentence's shape, the string that says it; its named groups fill the string)
SENTENCES = (
    (r"No class is running with that code", "cl_err_no_room"),
    (r"This phone is not in this class", "cl_err_not_here"),
    (r"That is not the teacher's key", "cl_err_not_teacher"),
    (r"This class is full \((?P<limit>\d+) students\)", "cl_err_full"),
    (r"Someone in this class already has that nickname", "cl_err_taken"),
    (r"The teacher has not asked a question yet", "cl_err_not_asked"),
    (r"The teacher has closed this question", "cl_err_closed"),
    (r"Type exactly one character", "cl_err_one_character"),
    (r"Type a number, like", "cl_err_number"),
    (r"Type a number from (?P<low>\S+) to (?P<high>[^\s.]+(?:\.\d+)?)\.$", "cl_err_between"),
    (r"Type a number of at least (?P<low>[^\s]+?)\.$", "cl_err_at_least"),
    (r"Pick one of the answers shown", "cl_err_pick"),
    (r"Your (?P<what>nickname|answer) is too long: use at most (?P<limit>\d+)", "cl_err_long"),
    (r"Your (?P<what>nickname|answer) (is empty|must be text)", "cl_err_empty"),
    (r"There is no such student in this class", "cl_err_no_student"),
)
WHAT = {
    "zh": {"nickname": "昵称", "answer": "答案"},
    "en": {"nickname": "nickname", "answer": "answer"},
}


def said(error: Exception, lang: str) -> str:
    """What to tell the user about ``error``, in ``lang``; never the error's own text when no
    sentence matches (a programming error says only that it did not work)."""
    if isinstance(error, Unavailable):
        return t("cl_unavailable", lang)
    sentence = str(error.args[0]) if error.args else ""
    for shape, key in SENTENCES:
        found = re.search(shape, sentence)
        if found:
            fields = found.groupdict()
            if "what" in fields:
                fields["what"] = WHAT[lang if lang in WHAT else "zh"][fields["what"]]
            return t(key, lang, **fields)
    return t("cl_err_other", lang)
