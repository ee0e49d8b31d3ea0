"""The Streamlit script (streamlit_app.py serves it): page config, language, presenter mode,
navigation. Pages live in ui/."""

from ui import boot

boot.import_all()  # before anything else: no first run may meet a half-imported module

import streamlit as st  # noqa: E402

from ui.kit import lesson_bar, memory, notes, screen, state, touch  # noqa: E402
from ui.kit.pages import FAVICON  # noqa: E402
from ui.kit.text import t  # noqa: E402

memory.tune()  # before the first large allocation of a run
notes.begin_run()
link_notes = state.init_lang() + state.init_present()
st.set_page_config(
    page_title="注意力实验室 · Attention Lab",
    page_icon=FAVICON,
    layout="wide",
    initial_sidebar_state="collapsed",
)
# Before the navigation: the top bar's "more" is relabelled from its first drawing on (and
# Streamlit's English typing hint is drawn in the page's language).
lang = state.lang()
hints = t("enter_apply", lang), t("enter_submit", lang)
st.html(screen.screen_css(state.present(), t("nav_more", lang), *hints) + touch.TAP_CSS)
page = st.navigation(state.navigation_pages(lang), position="top")
# After the navigation (a rerun it brings stays on this page), before any widget (one the
# browser has not set up yet when it asks for the rerun comes back with its default).
screen.watch_width(link_notes)
touch.one_tap()
state.app_switches()
# A lesson's step opens its own page: after the switches (a run that ends in a switch without
# them drops their values), before the page's widgets.
link_notes += lesson_bar.follow()
lesson_bar.bar(lang, page.url_path)
notes.show_notes(link_notes, lang)

try:
    page.run()
finally:
    memory.freeze_modules()  # after a run that loaded modules: no collection walks them again
    memory.trim()  # what this run freed goes back to the system, not to an idle arena
