"""Glue between the URL, widgets and session state, and every page's opening and closing.

The only UI module that owns state. A page opens with ``open_page`` (its settings restored from
the URL or from its last run, its title and the notes for replaced link values) and closes with
``close_page`` (settings remembered, the URL rewritten, the share link shown).
"""

import functools
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict
from typing import Any, TypeVar
from urllib.parse import urlencode

import streamlit as st

from ui.kit.settings import (
    Note,
    Settings,
    locale_to_lang,
    parse_lang,
    parse_present,
    url_text,
)
from ui.kit.text import LANGUAGES, t

S = TypeVar("S", bound=Settings)
# The labels that a box already says (the sentence, the d presets, the mask), hidden where room
# is short: on a phone and on a projector.
BOXED_LABELS = ",".join(
    f".st-key-{key} [data-testid=stWidgetLabel]" for key in ("text", "d_preset", "mask")
)
# Every screen: a compact head with the language and presenter switches in the top bar (the page
# links end before them), formulas with little margin; on a phone no Plotly toolbar over axis
# titles and no labels that the boxes already say, so that the figure starts on the first screen.
SCREEN_CSS = (
    "<style>.stMainBlockContainer{padding-top:3.4rem;padding-bottom:2rem}"
    # Streamlit fades what a running script has not sent again; /train's curve so far stays
    # right while the page reruns itself to train the next run, so it keeps its full colour.
    " .st-key-loss_curves[data-stale=true]{opacity:1!important} .st-key-_screen{display:none}"
    " h1{font-size:2rem!important;padding:0!important}"
    " .katex-display{margin:.25rem 0!important}"
    " .st-key-app_switches{position:fixed;top:.6rem;right:3.6rem;z-index:999991;width:auto}"
    " [data-testid=stTopNav]{max-width:calc(100% - 18rem)}"
    " @media (max-width:640px){h1{font-size:1.35rem!important} h3{font-size:1.1rem!important}"
    " .stMainBlockContainer{padding-left:.8rem;padding-right:.8rem}"
    " .st-key-present,.modebar-container{display:none!important}"
    f" {BOXED_LABELS}{{display:none}}}}</style>"
)
# A projector: Streamlit sizes its text in rem, so a larger root font enlarges every label.
PRESENT_CSS = SCREEN_CSS.replace(
    "<style>",
    "<style>html{font-size:18px} .stMainBlockContainer{max-width:100%;padding-top:2.6rem!important}"
    f" {BOXED_LABELS},.st-key-about,.st-key-step_title,.stMain h1,"
    " .st-key-d [data-testid=stWidgetLabel]{display:none}"
    " .stMainBlockContainer{padding-left:1.5rem;padding-right:1.5rem}",
).replace("font-size:2rem", "font-size:1.6rem")
FREE_TEXT = ("text", "numbers")
# The top bar's overflow link, which Streamlit labels "3 more" in every language: its text
# hidden, the app's own drawn in its place.
MORE = ".rc-overflow-item-rest [data-testid=stTopNavSection] p"
MORE_CSS = (
    f"<style>{MORE}{{visibility:hidden;position:relative}}"
    f' {MORE}::after{{content:"{{more}}";visibility:visible;position:absolute;left:0;top:50%;'
    # centred on the hidden text's box, as the other links' text is (top:0 drew it 4 px low)
    "transform:translateY(-50%);line-height:1.2;white-space:nowrap}</style>"
)


def screen_css() -> str:
    """This run's CSS: the screen's or the projector's, and the top bar in its language."""
    css = PRESENT_CSS if present() else SCREEN_CSS
    return css + MORE_CSS.replace("{more}", t("nav_more", lang()))


def query() -> dict[str, list[str]]:
    """The current URL query, every value of every key."""
    return {key: st.query_params.get_all(key) for key in st.query_params}


def _seed_once(
    key: str, parse: Callable[[dict[str, list[str]]], tuple[Any, list[Note]]]
) -> list[Note]:
    """An app-wide setting from the link, once per session; its notes if the link's was bad."""
    if key in st.session_state:
        return []
    value, notes = parse(query())
    st.session_state[key] = value
    return notes


def init_lang() -> list[Note]:
    """The language: the link's, else the browser's, else Chinese."""
    return _seed_once("lang", lambda q: parse_lang(q, locale_to_lang(st.context.locale)))


def init_present() -> list[Note]:
    """Presenter mode: off unless the link says ?present=true."""
    return _seed_once("present", parse_present)


# The window's width, watched in the browser: a phone in desktop mode, or one emulated without
# "Mobile" in its User-Agent, is a phone by its width (where the layout's CSS switches too).
WIDTH_JS = """export default function ({ data, setStateValue }) {
  const narrow = window.matchMedia("(max-width: 640px)");
  let said = data.phone;
  const report = () => {
    if (narrow.matches !== said) { said = narrow.matches; setStateValue("phone", said); }
  };
  report();
  narrow.addEventListener("change", report);
  return () => narrow.removeEventListener("change", report);
}"""


@functools.cache
def _width_watch() -> Callable[..., Any]:
    """The width watch's component, registered once per server (not once per run)."""
    return st.components.v2.component("screen_width", js=WIDTH_JS)


WIDTH_WAIT = 1.5  # s: a browser that has not told its width by then is sized by its User-Agent


def watch_width(notes: list[Note]) -> None:
    """Mount the width watch (hidden by the CSS): whenever the window is narrower or wider than
    ``phone()`` says, the browser tells the server and the app runs again, sized for it. A
    browser's first run waits for it (≈0.3 s) unless the User-Agent says "Mobi": a phone that
    does not say so gets a phone's figures on its first screen, not a laptop's squeezed.
    ``notes``: the link's, which the rerun shows in its page."""
    agent = st.context.headers.get("User-Agent") or ""
    waits = _told_phone() is None and agent.startswith("Mozilla/") and "Mobi" not in agent
    said = None if waits else phone()  # None: the browser tells in any case
    _width_watch()(key="_screen", data={"phone": said}, on_phone_change=_ignore, default=None)
    if waits:
        _await_width(notes)


def _await_width(notes: list[Note]) -> None:
    """Hold this run until the browser's width reruns the app, at most WIDTH_WAIT seconds; the
    rerun shows ``notes``."""
    st.session_state[PENDING] = notes
    spot = st.empty()
    deadline = time.monotonic() + WIDTH_WAIT
    while time.monotonic() < deadline:
        time.sleep(0.025)
        spot.empty()  # a Streamlit call: the rerun the browser asks for starts here
    st.session_state.pop(PENDING)  # no rerun came: this run shows them itself


def _ignore() -> None:
    """The width watch's change callback: the rerun it comes with is all that is needed."""


def _told_phone() -> bool | None:
    """What the browser's width said (a phone or not), None before it has said anything."""
    told = st.session_state.get("_screen")
    said = told.get("phone") if isinstance(told, Mapping) else None
    return said if isinstance(said, bool) else None  # the browser sends it: trust only a bool


def phone() -> bool:
    """Whether this is a phone: by the window's width once the browser has told it, else by
    "Mobi" in its User-Agent (as MDN advises). Its figures are sized to a phone's width, where
    Streamlit would squeeze a wider one."""
    told = _told_phone()
    if told is not None:
        return told
    return "Mobi" in (st.context.headers.get("User-Agent") or "")


def present() -> bool:
    """Whether the app is in presenter mode (large text and figures)."""
    return bool(st.session_state.get("present", False))


def lang() -> str:
    """The interface language of this run."""
    return str(st.session_state.get("lang", "zh"))


def restore(settings: type[Settings]) -> list[Note]:
    """Put a page's settings into session state before its widgets are built.

    On the page's first run in a session they come from the URL (with notes for values that
    had to be replaced); later, widget values win, and settings of widgets that were not shown
    on another page come back from the page's last run.
    """
    stored = st.session_state.get(settings.STORE)
    notes: list[Note] = []
    if stored is None:
        stored, notes = settings.parse(query())
        st.session_state[settings.STORE] = stored
    for name, value in asdict(stored).items():
        # Re-assigning hands the value to this page's widget of the same key (d is shared by
        # the lab and the √d lesson); a widget from another page would otherwise start afresh.
        st.session_state[name] = st.session_state.get(name, value)
    return notes + fit(settings)


def fit(settings: type[Settings]) -> list[Note]:
    """Values another page left under one of this page's keys, made to fit this page's own
    declaration, with a note: the lab's d goes to 8192, a trained head's only to 1024."""
    # Bounded fields only: free text typed into this page's own box is the page's to judge.
    bounded = [name for name, spec in settings.specs().items() if spec.kind not in FREE_TEXT]
    query = {name: url_text(st.session_state[name]) for name in bounded}
    parsed, notes = settings.parse(query)
    for note in notes:
        st.session_state[note.key] = getattr(parsed, note.key)
    return [Note(note.key, note.used, carried=True) for note in notes]


def stored(settings: type[S]) -> S:
    """A page's settings as it last used them (restore them first)."""
    value: S = st.session_state[settings.STORE]
    return value


def current(settings: type[S]) -> S:
    """A page's settings from its widgets' values."""
    return settings.from_state(st.session_state)


def full_query(params: dict[str, str]) -> dict[str, str]:
    """A page's settings plus the app-wide ones: language, and presenter mode when on."""
    return {**params, "lang": lang(), **({"present": "true"} if present() else {})}


def publish(params: dict[str, str]) -> dict[str, str]:
    """Write the settings into the URL, so that a copied link restores this exact view."""
    wanted = full_query(params)
    if st.query_params.to_dict() != wanted:
        st.query_params.from_dict(wanted)
    return wanted


SHOWN, PENDING = "_notes_shown", "_notes_pending"  # notes of this run; of a run that reran


def begin_run() -> None:
    """The start of every script run: no note shown yet."""
    st.session_state[SHOWN] = []


# The server and the browser each pass messages on every 10 ms: what a run sends reaches the
# browser and starts drawing within this wait.
DRAWN = 0.05


def let_draw() -> None:
    """Wait DRAWN seconds, so that what this run sent so far is drawn before what comes next: the
    browser draws the charts that arrive together in one go, so the first waits for the last;
    and Streamlit drops what the browser has not shown yet when the next run starts."""
    time.sleep(DRAWN)


def drawn_first(chart: str, shows: object) -> None:
    """After a page's main chart (``chart(..., first=True)``): let_draw, when the chart shows what
    this session has not been sent before (``shows``, hashable), so that the rest of the page
    comes after it is drawn."""
    sent = f"_drawn_first_{chart}"
    if st.session_state.get(sent) != shows:
        st.session_state[sent] = shows
        let_draw()


def rerun() -> None:
    """Rerun the script to go on with work spread over runs (training, a sweep), once what this
    run drew (a curve so far, a progress bar) has reached the browser; the notes this run showed
    are shown again by the next, which the user sees in its place."""
    st.session_state[PENDING] = st.session_state.get(SHOWN, [])
    let_draw()
    st.rerun()


def show_notes(notes: list[Note]) -> None:
    """Tell the user which link values were replaced (no user text is echoed)."""
    st.session_state[SHOWN] = [*st.session_state.get(SHOWN, []), *notes]
    for note in notes:
        if note.carried:
            st.info(
                t("note_carried", lang(), key=note.key, used=note.used), icon=":material/build:"
            )
        elif note.key == "text":
            st.info(t("note_text_cut", lang(), used=note.used), icon=":material/content_cut:")
        else:
            st.info(t("note_prefix", lang(), key=note.key, used=note.used), icon=":material/build:")


def open_page(title: str, intro: str, *settings: type[Settings]) -> str:
    """Every page's opening: its settings restored, its title and intro, the link's notes.

    Returns the language of this run.
    """
    notes = st.session_state.pop(PENDING, [])
    notes += [note for page in settings for note in restore(page)]
    language = lang()
    st.title(t(title, language))
    # Behind an expander: on every screen the first one is the page's figure and controls.
    with st.container(key="about"), st.expander(t("about_page", language), icon=":material/info:"):
        st.caption(t(intro, language))
    show_notes(notes)
    return language


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
    where = {"horizontal_alignment": "right", "vertical_alignment": "center"}
    row = st.container(horizontal=True, key="app_switches", **where)
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


def close_page(*settings: Settings, share: bool = True) -> None:
    """Every page's closing: settings remembered, the URL rewritten, the link to this view."""
    link: dict[str, str] = {}
    for page in settings:
        st.session_state[page.STORE] = page
        link |= page.to_query()
    wanted = publish(link)
    if share:
        base = (st.context.url or "").split("?")[0]
        # In a popover: the code box and its highlighter script load when opened, not beside the
        # page's first chart.
        with st.popover(t("share_title", lang()), key="share_link", icon=":material/link:"):
            st.caption(t("share_hint", lang()))
            st.code(f"{base}?{urlencode(wanted)}", language=None, wrap_lines=True)
