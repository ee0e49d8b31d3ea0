"""The screen: whether it is a phone (told by the window's width), the app's CSS for a screen
and a projector, and a page's own CSS. No page is named here."""

import time
from collections.abc import Mapping

import streamlit as st

from ui.kit import notes
from ui.kit.snippets import rerun_only, snippet
from ui.kit.typography import Screen, screen_for
from viz_core.settings import Note

# Every screen: a compact head with the language and presenter switches in the top bar (the page
# links end before them), formulas with little margin; on a phone no Plotly toolbar over axis
# titles, so that the figure starts on the first screen. A page's own widgets: its own CSS.
# The switches sit over the top bar (z-index 999990, after it) but under the pages' drawer
# (999991); on a phone they hide while it is open, else "中文" lay over its close chevron.
DRAWER_OPEN = ".stApp:has([data-testid=stSidebar][data-collapsed=false])"
SCREEN_CSS = (
    ".stMainBlockContainer{padding-top:3.4rem;padding-bottom:2rem} .st-key-_screen{display:none}"
    " h1{font-size:2rem!important;padding:0!important}"
    " .katex-display{margin:.25rem 0!important}"
    " .st-key-app_switches{position:fixed;top:.6rem;right:3.6rem;z-index:999990;width:auto}"
    " [data-testid=stTopNav]{max-width:calc(100% - 18rem)}"
    " @media (max-width:640px){h1{font-size:1.35rem!important} h3{font-size:1.1rem!important}"
    " .stMainBlockContainer{padding-left:.8rem;padding-right:.8rem}"
    " .st-key-present,.modebar-container{display:none!important}"
    f" {DRAWER_OPEN} .st-key-app_switches{{visibility:hidden}}}}"
)
# A projector: Streamlit sizes its text in rem, so a larger root font enlarges every label.
# A switch or a radio button that is off: drawn in the text's colour (an outlined track with a
# dark knob, a dark ring), where Streamlit's pale grey vanished at the back of a room.
SWITCH_OFF = "[data-testid=stCheckbox] label:has(input:not(:checked)) > div:not([data-testid])"
RADIO_OFF = "[data-testid=stRadioOption]:has(input:not(:checked)) > div > div:first-child"
PRESENT_CSS = (
    "html{font-size:18px} .stMainBlockContainer{max-width:100%;padding-top:2.6rem!important}"
    " .st-key-about,.stMain h1{display:none}"
    # Their wrappers too: an element of no height still takes the column's gap (36 px for both).
    " [data-testid=stLayoutWrapper]:has(> .st-key-about),"
    " .stMain [data-testid=stElementContainer]:has(> .stHeading h1){display:none}"
    # A lesson's bar as low as its text: the step's figure and its numbers keep the first screen.
    " .st-key-lesson_bar button{min-height:1.9rem;padding-top:.1rem;padding-bottom:.1rem}"
    " .modebar-container{display:none!important}"  # it covered a heatmap's column title
    " .stMainBlockContainer{padding-left:1.5rem;padding-right:1.5rem}"
    f" {SWITCH_OFF}{{background:transparent;box-shadow:0 0 0 2px currentColor}}"
    f" {SWITCH_OFF} > div{{background:currentColor}}"
    f" {RADIO_OFF}{{border-color:currentColor;box-shadow:inset 0 0 0 1px currentColor}}"
)


def relabel(selector: str, text: str, place: str = "top:0") -> str:
    """CSS that hides Streamlit's own English text at ``selector`` and draws ``text`` in its
    place (at ``place`` in its box)."""
    return (
        f"{selector}{{visibility:hidden;position:relative}}"
        f' {selector}::after{{content:"{text}";visibility:visible;position:absolute;left:0;'
        f"{place};white-space:nowrap}}"
    )


# The top bar's overflow link, which Streamlit labels "3 more" in every language (centred on
# the hidden text's box, as the other links' text is: top:0 drew it 4 px low).
MORE = ".rc-overflow-item-rest [data-testid=stTopNavSection] p"
MORE_PLACE = "top:50%;transform:translateY(-50%);line-height:1.2"
# Streamlit's hint under a text or number box being typed in ("Press Enter to apply", "... to
# submit form" in a form), English in every language.
ENTER = "[data-testid=InputInstructions] > span:first-child"
PHONE_MEDIA = "@media (max-width:640px)"


def screen_css(present: bool, more: str, apply: str, submit: str) -> str:
    """This run's CSS: the screen's, the projector's, the top bar's "more" in ``more``, and the
    typing hint's ``apply`` (``submit`` in a form)."""
    projector = PRESENT_CSS if present else ""
    more_css = relabel(MORE, more, MORE_PLACE)
    enter_css = f'{relabel(ENTER, apply)} [data-testid=stForm] {ENTER}::after{{content:"{submit}"}}'
    return f"<style>{SCREEN_CSS} {projector} {more_css} {enter_css}</style>"


def page_css(present: bool, every: str = "", crowded: str = "", projector: str = "") -> None:
    """A page's own CSS: ``every`` on every screen, ``crowded`` where room is short (a phone, and
    a projector), ``projector`` in presenter mode (``present``)."""
    css = every + (f" {PHONE_MEDIA}{{{crowded}}}" if crowded else "")
    if present:
        css += f" {crowded} {projector}"
    if css.strip():
        st.html(f"<style>{css}</style>")


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
# s: a browser that has not told its width by then is sized by its User-Agent; one that does
# tells it well before (docs/history.md, "The first visit's wait for the width").
WIDTH_WAIT = 1.0
WIDTH_POLL = 0.025  # s between checks for the rerun the report brings


def watch_width(held: list[Note]) -> None:
    """Mount the width watch (hidden by the CSS): whenever the window is narrower or wider than
    ``phone()`` says, the browser tells the server and the app runs again, sized for it. A
    browser's first run waits for it unless the User-Agent says "Mobi": a phone that does not
    say so gets a phone's figures on its first screen. ``held``: the link's notes, which the
    rerun shows in its page."""
    agent = st.context.headers.get("User-Agent") or ""
    waits = _told_phone() is None and agent.startswith("Mozilla/") and "Mobi" not in agent
    said = None if waits else phone()  # None: the browser tells in any case
    watch = snippet("screen_width", WIDTH_JS)
    watch(key="_screen", data={"phone": said}, on_phone_change=rerun_only, default=None)
    if waits:
        _await_width(held)


def _await_width(held: list[Note]) -> None:
    """Hold this run until the browser's width reruns the app (it stops this run at the next
    Streamlit call), at most WIDTH_WAIT seconds; the rerun shows ``held``."""
    notes.hold(held)
    spot = st.empty()
    deadline = time.monotonic() + WIDTH_WAIT
    while time.monotonic() < deadline:
        time.sleep(WIDTH_POLL)
        spot.empty()  # a Streamlit call: the rerun the browser asks for starts here
    notes.take_held()  # no rerun came: this run shows them itself


def _told_phone() -> bool | None:
    """What the browser's width said (a phone or not), None before it has said anything."""
    told = st.session_state.get("_screen")
    said = told.get("phone") if isinstance(told, Mapping) else None
    return said if isinstance(said, bool) else None  # the browser sends it: trust only a bool


def phone() -> bool:
    """Whether this is a phone: by the window's width once the browser has told it, else by
    "Mobi" in its User-Agent (as MDN advises)."""
    told = _told_phone()
    if told is not None:
        return told
    return "Mobi" in (st.context.headers.get("User-Agent") or "")


def typography(present: bool) -> Screen:
    """The fonts, heights and spacings of this run's screen."""
    return screen_for(phone(), present)
