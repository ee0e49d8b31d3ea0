"""Text that students type, made safe to store and to export: plain text, bounded, no tricks.

Nothing here renders anything; the pages escape what they show. These rules only make sure that
what is stored is plain visible text of a bounded length, and that an exported CSV cell is never
read as a formula by a spreadsheet.
"""

import hashlib
import unicodedata

from classroom.refusals import Invalid

MAX_NICKNAME = 24  # characters of a nickname after cleaning
MAX_ANSWER = 32  # characters of an answer after cleaning
# Control and format characters (bidi overrides, zero-width joiners …), lone surrogates, and
# the line and paragraph separators: invisible, or able to reorder or break what a page shows.
STRIPPED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
# A spreadsheet reads a cell that starts with one of these as a formula (OWASP's list).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L
CODE_LENGTH = 6


def clean_text(text: object, limit: int, what: str) -> str:
    """``text`` without control/format characters and surrounding white space, NFC-normalised.

    Raises ValueError, naming ``what`` ("nickname", "answer"), when it is not text, nothing is
    left, or more than ``limit`` characters are left.

    Example:
        >>> clean_text("  blue\\u202e cat\\n ", 24, "nickname")
        'blue cat'
    """
    if not isinstance(text, str):
        raise Invalid(f"{what}_not_text")
    kept = "".join(ch for ch in text if unicodedata.category(ch) not in STRIPPED_CATEGORIES)
    cleaned = unicodedata.normalize("NFC", kept).strip()
    if not cleaned:
        raise Invalid(f"{what}_empty")
    if len(cleaned) > limit:
        raise Invalid(f"{what}_too_long", limit=limit)
    return cleaned


def clean_nickname(nickname: object) -> str:
    """A nickname as stored: cleaned, at most MAX_NICKNAME characters."""
    return clean_text(nickname, MAX_NICKNAME, "nickname")


def clean_answer(answer: object) -> str:
    """An answer as typed, cleaned, at most MAX_ANSWER characters."""
    if isinstance(answer, int | float) and not isinstance(answer, bool):
        answer = repr(answer) if isinstance(answer, float) else str(answer)
    return clean_text(answer, MAX_ANSWER, "answer")


def normalise_code(code: object) -> str | None:
    """A room code as stored (upper case, no spaces or dashes), or None when it cannot be one.

    Full-width letters from a Chinese keyboard count as the letters they show.

    Example:
        >>> normalise_code(" abc-dé2 "), normalise_code("ａｂｃ２３４")
        (None, 'ABC234')
    """
    if not isinstance(code, str):
        return None
    squeezed = "".join(unicodedata.normalize("NFKC", code).split()).replace("-", "").upper()
    if len(squeezed) != CODE_LENGTH or any(ch not in CODE_ALPHABET for ch in squeezed):
        return None
    return squeezed


def digest(secret: str) -> str:
    """The SHA-256 of a secret, hex: what the store keeps instead of the secret."""
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def csv_cell(value: str) -> str:
    """A cell a spreadsheet shows as text: a leading apostrophe before a formula's first sign.

    Example:
        >>> csv_cell("=HYPERLINK(1)"), csv_cell("-0.5"), csv_cell("蓝色的猫")
        ("'=HYPERLINK(1)", "'-0.5", '蓝色的猫')
    """
    return "'" + value if value.startswith(FORMULA_STARTS) else value
