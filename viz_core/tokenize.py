"""Split text into the tokens the lab shows: one token per user-perceived character."""

import unicodedata

import regex

CLS = "[CLS]"
SEP = "[SEP]"
PAD = "[PAD]"

# \X is one extended grapheme cluster (UAX #29): 👍🏽, 🇨🇳, 👨‍👩‍👧 and é (e + U+0301) are one each.
_GRAPHEME = regex.compile(r"\X")
# Invisible characters are not what a reader perceives: whitespace, controls, format characters
# such as bidi overrides, and lone surrogates (which could not even be sent to a browser).
_INVISIBLE = {"Cc", "Cf", "Cs", "Zs", "Zl", "Zp"}


def _is_visible(cluster: str) -> bool:
    """True when the cluster draws something."""
    return any(not ch.isspace() and unicodedata.category(ch) not in _INVISIBLE for ch in cluster)


def tokenize(text: str, special_tokens: bool = True) -> list[str]:
    """Split ``text`` into one token per grapheme cluster, dropping whitespace.

    Args:
        text: any string; empty or blank text gives no content tokens.
        special_tokens: put ``[CLS]`` first and ``[SEP]`` last, as BERT does.

    Returns:
        The tokens, e.g. ``tokenize("我喜欢")`` is ``["[CLS]", "我", "喜", "欢", "[SEP]"]``.
    """
    content = [cluster for cluster in _GRAPHEME.findall(text) if _is_visible(cluster)]
    if special_tokens:
        return [CLS, *content, SEP]
    return content


def is_special(token: str) -> bool:
    """True for the tokens the tokenizer adds itself."""
    return token in (CLS, SEP, PAD)


def pad_tokens(tokens: list[str], multiple: int = 4, at_least: int = 2) -> list[str]:
    """Append ``[PAD]`` tokens, at least ``at_least``, up to a multiple of ``multiple``."""
    if multiple < 1 or at_least < 0:
        raise ValueError("Padding needs a positive multiple and a non-negative minimum.")
    target = len(tokens) + at_least
    target += -target % multiple
    return [*tokens, *[PAD] * (target - len(tokens))]
