"""The translation function: every string in Chinese and English, looked up by key.

The strings used on several pages live in ``ui/kit/strings.toml``; each page adds its own from
``ui/<page>/strings.toml`` when its package is imported (``register_page``).
"""

import re
import tomllib
from pathlib import Path

from viz_core.settings import LANGUAGES


def load(path: Path) -> dict[str, dict[str, str]]:
    """A strings file: one TOML table per key, holding ``zh`` and ``en``."""
    with path.open("rb") as file:
        table: dict[str, dict[str, str]] = tomllib.load(file)
    return table


STRINGS: dict[str, dict[str, str]] = load(Path(__file__).with_name("strings.toml"))


def register(table: dict[str, dict[str, str]]) -> None:
    """Add a page's strings; a key may belong to one page only."""
    clash = sorted(key for key in table if key in STRINGS and STRINGS[key] != table[key])
    if clash:
        raise ValueError(f"strings defined twice: {', '.join(clash)}")
    STRINGS.update(table)


def register_page(package_file: str) -> None:
    """Add the strings of the page whose ``__init__.py`` is ``package_file``."""
    register(load(Path(package_file).with_name("strings.toml")))


def t(key: str, lang: str, /, **fields: object) -> str:
    """The string ``key`` in ``lang`` ("zh" or "en"), with ``{fields}`` filled in."""
    text = STRINGS[key][lang if lang in LANGUAGES else "zh"]
    return text.format(**fields) if fields else text


_MARKDOWN_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")  # every ASCII punctuation character


def literal(text: str) -> str:
    """User text to put inside a Markdown string (a note): each ASCII punctuation character
    backslash-escaped, so that nothing typed becomes a link, emphasis, LaTeX or a colour."""
    return _MARKDOWN_PUNCTUATION.sub(r"\\\1", text)
