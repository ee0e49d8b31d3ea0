"""The one path for a setting: the URL → a page's typed settings → its widgets → back to the URL.

A page opens with ``open_page``: its settings come from the link on its first run in a session,
else from its last run, and the values that follow the user (``CARRIED``) from the page they
come from. It builds its widgets from its declaration (``ui.kit.display``), reads
``current(Settings)``, passes that object to its core call, and closes with ``close_page``
(settings remembered, carried values handed on, the URL rewritten, the share link shown).
Pages never touch ``st.session_state``: this module, ``notes``, ``screen`` and the kit's
widgets do.
"""

from collections.abc import Callable
from dataclasses import asdict
from typing import Any, Generic, TypeVar, cast
from urllib.parse import urlencode

import streamlit as st
from streamlit.navigation.page import StreamlitPage

from ui.kit import notes
from ui.kit.pages import PAGES, page_named, page_settings
from ui.kit.text import t
from viz_core.settings import (
    CARRIED,
    LANGUAGES,
    Note,
    Settings,
    locale_to_lang,
    parse_lang,
    parse_present,
    url_text,
)

S = TypeVar("S", bound=Settings)
T = TypeVar("T")
CARRY = "_carried"  # {field: value}: what follows the user, as the last page left it
LESSON = "_lesson"  # {"id", "step"[, "steps"]} of the lesson on screen (lesson_bar.py), or None


# --- the app's own switches: language and presenter mode ------------------------------------


def query() -> dict[str, list[str]]:
    """The current URL query, every value of every key."""
    return {key: st.query_params.get_all(key) for key in st.query_params}


def _seed_once(
    key: str, parse: Callable[[dict[str, list[str]]], tuple[Any, list[Note]]]
) -> list[Note]:
    """An app-wide setting from the link, once per session; its notes if the link's was bad."""
    if key in st.session_state:
        return []
    value, found = parse(query())
    st.session_state[key] = value
    return found


def init_lang() -> list[Note]:
    """The language: the link's, else the browser's, else Chinese."""
    return _seed_once("lang", lambda q: parse_lang(q, locale_to_lang(st.context.locale)))


def init_present() -> list[Note]:
    """Presenter mode: off unless the link says ?present=true."""
    return _seed_once("present", parse_present)


def present() -> bool:
    """Whether the app is in presenter mode (large text and figures)."""
    return bool(st.session_state.get("present", False))


def lang() -> str:
    """The interface language of this run."""
    return str(st.session_state.get("lang", "zh"))


def app_switches() -> None:
    """The language and presenter mode, above every page (no sidebar to open). Built by the
    entry before the page runs: a widget of one page would be another page's new widget."""
    language = lang()
    # Handed to the browser again every run: when a run's elements were dropped (the next run
    # started before they were drawn, as a class opening a link at once makes happen), the
    # browser drew the switches at their defaults, 中文 and off, on an English projector page.
    for key in ("lang", "present"):
        st.session_state[key] = st.session_state[key]
    # Centred: aligned at the top, the toggle sat 8 px above the radios.
    row = st.container(
        horizontal=True,
        key="app_switches",
        horizontal_alignment="right",
        vertical_alignment="center",
    )
    row.radio(
        t("lang_label", language),
        LANGUAGES,
        key="lang",
        horizontal=True,
        format_func=lambda code: {"zh": "中文", "en": "EN"}[code],
        label_visibility="collapsed",
        width="content",
    )
    row.toggle(t("present_label", language), key="present", help=t("present_help", language))


def navigation_pages(language: str) -> list[StreamlitPage]:
    """The app's pages in ``language``, built once per session and language (not shared between
    sessions: navigation marks the page object it returns)."""
    key = f"_pages_{language}"
    if key not in st.session_state:
        st.session_state[key] = [
            st.Page(
                page.file, title=t(page.title_key, language), icon=page.icon, url_path=page.path
            )
            for page in PAGES
        ]
    pages: list[StreamlitPage] = st.session_state[key]
    return pages


# --- a page's settings -------------------------------------------------------------------------


def _first(settings: type[S], base: Settings | None = None) -> tuple[S, list[Note]]:
    """The settings a page last used in this session, else the link's (with notes; what the
    link does not set is ``base``'s, when given)."""
    stored: S | None = st.session_state.get(settings.store())
    return (stored, []) if stored is not None else settings.parse(query(), base)


def _carry(values: S, names: tuple[str, ...]) -> tuple[S, list[Note]]:
    """``values`` with the carried values of ``names`` that fit this page's declaration; one
    that does not is not changed into one that would alter the lesson: the page keeps its own,
    with a note saying so."""
    carried = st.session_state.get(CARRY, {})
    wanted = {name: carried[name] for name in names if name in carried}
    wanted = {name: value for name, value in wanted.items() if value != getattr(values, name)}
    if not wanted:
        return values, []
    settings = type(values)
    asked = {name: url_text(value) for name, value in wanted.items()}
    parsed, found = settings.parse(values.to_query(secrets=True) | asked)
    misfits = {note.key for note in found} & wanted.keys()
    if misfits:  # the page keeps its own: parsed again with only what fits
        fits = {name: text for name, text in asked.items() if name not in misfits}
        parsed, found = settings.parse(values.to_query(secrets=True) | fits)
    kept = [_kept(values, name, asked[name]) for name in sorted(misfits)]
    return parsed, kept + [Note(note.key, note.used, carried=True) for note in found]


def _kept(values: Settings, name: str, asked: str) -> Note:
    """The note for a carried value of ``name`` that the page keeps its own against."""
    spec = type(values).spec(name)
    limit = f"{spec.bounds(asdict(values))[1]:,.0f}" if spec.kind in ("integer", "number") else ""
    used = url_text(getattr(values, name))
    return Note(name, used, kept=asked, page=values.PAGE, limit=limit)


def restore(settings: type[Settings], base: Settings | None = None) -> list[Note]:
    """Put a page's settings into its widgets' keys before they are built: widget values win,
    a widget not shown last run comes back as the page last used it (or as the link says, on its
    first run), and takes what the user carried from another page. A second set on the page
    (``base``: the page's own, whose values it takes where the link sets none) carries nothing."""
    values, found = _first(settings, base)
    # A value the link itself gives wins over one carried from the page before.
    linked = set(query()) if settings.store() not in st.session_state else set()
    missing = tuple(name for name in CARRIED if name in settings.specs() and base is None)
    missing = tuple(
        name
        for name in missing
        if settings.widget_key(name) not in st.session_state and name not in linked
    )
    values, kept = _carry(values, missing)
    for key, value in values.to_state().items():
        if key not in st.session_state:
            st.session_state[key] = value
    return found + kept


def restore_handed(settings: type[Settings]) -> list[Note]:
    """Another page's settings that this page computes on (the lab's, for /steps): as that page
    last used them, else from this link, with the carried values; no widgets are built."""
    values, found = _first(settings)
    values, kept = _carry(values, tuple(name for name in CARRIED if name in settings.specs()))
    st.session_state[settings.store()] = values
    return found + kept


def change_handed(values: Settings) -> None:
    """Change the settings of the page this page reads (the lab's ÷√d, switched on /steps):
    that page opens with them too."""
    st.session_state[values.store()] = values


def stored(settings: type[S]) -> S:
    """A page's settings as last stored: another page's that this page reads (restored by
    ``open_page``), or this page's own as its last run closed with them."""
    value: S = st.session_state[settings.store()]
    return value


def current(settings: type[S]) -> S:
    """A page's settings from its widgets' values."""
    return settings.from_state(st.session_state)


def put(values: Settings, *again: str) -> None:
    """Set a page's widgets to ``values`` (from a widget's callback, or before they are built);
    the fields named in ``again`` are assigned even when unchanged, which makes Streamlit send
    that widget anew (a select box's labels for a new sentence)."""
    for key, value in values.to_state().items():
        name = key.removeprefix(f"{values.PAGE}_")
        if st.session_state.get(key) != value or name in again:
            st.session_state[key] = value


def refit(settings: type[Settings]) -> list[Note]:
    """The widgets' values checked against the declaration again, before any widget is built:
    a rule between fields (heads divide d) may fail after one changed; the values it replaced,
    with a note each. Nothing on a page's first run."""
    if not refit_ready(settings):
        return []
    values = current(settings)
    parsed, found = settings.parse(values.to_query(secrets=True))
    put(parsed)
    return found


def refit_ready(settings: type[Settings]) -> bool:
    """Whether every widget of ``settings`` has a value (after the page's first run)."""
    return all(settings.widget_key(name) in st.session_state for name in settings.specs())


def hand_on(values: Settings) -> None:
    """Make ``values`` the settings their page opens with next, exactly."""
    st.session_state[values.store()] = values
    put(values)
    _carry_on(values)


def hand_over(values: Settings) -> None:
    """Open the page that ``values`` belong to, with exactly these settings: one explicit call
    (the model page's "open in the lab")."""
    hand_on(values)
    st.switch_page(page_named(values.PAGE).file)


def _carry_on(values: Settings) -> None:
    """Hand on what follows the user (``CARRIED``) from these settings."""
    fields = asdict(values)
    carried = {name: fields[name] for name in CARRIED if name in fields}
    st.session_state[CARRY] = st.session_state.get(CARRY, {}) | carried


def selection(chart: str) -> object:
    """What the browser last sent for a clickable chart (a click event; its shape unchecked)."""
    return st.session_state.get(chart)


class Slot(Generic[T]):
    """A value a page keeps between its runs and not in its link (a sweep asked for, a hand-over
    on its way), under a session key of the page's own."""

    def __init__(self, page: str, name: str, default: T) -> None:
        self.key, self.default = f"_{page}_{name}", default

    def get(self) -> T:
        """The value, or the default when none was set."""
        return cast(T, st.session_state.get(self.key, self.default))

    def set(self, value: T) -> None:
        """Keep ``value``."""
        st.session_state[self.key] = value

    def pop(self) -> T:
        """The value, and back to the default."""
        return cast(T, st.session_state.pop(self.key, self.default))


# --- a page's opening and closing -----------------------------------------------------------


def lesson_where() -> dict[str, Any] | None:
    """The lesson on screen: {"id", "step"[, "steps"]}, or None."""
    return cast(dict[str, Any] | None, st.session_state.get(LESSON))


def full_query(params: dict[str, str]) -> dict[str, str]:
    """A page's settings plus the app-wide ones: language, and presenter mode when on."""
    where = st.session_state.get(LESSON)
    lesson = {"lesson": where["id"], "step": str(where["step"])} if where else {}
    if where and "steps" in where:  # a teacher's own lesson: its link carries it whole
        lesson["steps"] = where["steps"]
    return {**params, "lang": lang(), **({"present": "true"} if present() else {}), **lesson}


def publish(params: dict[str, str]) -> dict[str, str]:
    """Write the settings into the URL, so that a copied link restores this exact view."""
    wanted = full_query(params)
    if st.query_params.to_dict() != wanted:
        st.query_params.from_dict(wanted)
    return wanted


def open_page(title: str, intro: str, settings: type[Settings]) -> str:
    """Every page's opening: its own settings restored, those of the page it reads (its
    ``reads`` in PAGES, then got with ``handed``), its title and intro, the link's notes.

    Returns the language of this run.
    """
    found = notes.take_held() + restore(settings)
    for other in page_settings(page_named(settings.PAGE))[1:]:
        found += restore_handed(other)
    language = lang()
    st.title(t(title, language))
    # Behind an expander: on every screen the first one is the page's figure and controls.
    with st.container(key="about"), st.expander(t("about_page", language), icon=":material/info:"):
        st.caption(t(intro, language))
    notes.show_notes(found, language)
    return language


def close_page(*settings: Settings, share: bool = True) -> None:
    """Every page's closing: settings remembered, carried values handed on, the URL rewritten,
    the link to this view. A prefixed set (the lab's B) writes only what differs from the
    first."""
    link: dict[str, str] = {}
    for values in settings:
        st.session_state[values.store()] = values
        if values.PREFIX:  # a second set (the lab's B): only where it differs from the first
            link |= values.to_query(base=settings[0])
            continue
        _carry_on(values)
        link |= values.to_query()
    wanted = publish(link)
    if share:
        base = (st.context.url or "").split("?")[0]
        # In a popover: the code box and its highlighter script load when opened, not beside the
        # page's first chart.
        with st.popover(t("share_title", lang()), key="share_link", icon=":material/link:"):
            st.caption(t("share_hint", lang()))
            st.code(f"{base}?{urlencode(wanted)}", language=None, wrap_lines=True)
            from ui.kit import lesson_bar  # here: lesson_bar reads this module's session keys

            lesson_bar.add_button(settings[-1].PAGE, lang())  # the page's own settings come last
