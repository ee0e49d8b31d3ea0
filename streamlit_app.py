"""Entry point: page config, language, presenter mode, navigation. Pages live in ui/."""

from ui import boot

boot.import_all()  # before anything else: no first run may meet a half-imported module

import streamlit as st  # noqa: E402
from streamlit.navigation.page import StreamlitPage  # noqa: E402

from ui.kit import memory, state  # noqa: E402
from ui.kit.pages import FAVICON, PAGES  # noqa: E402
from ui.kit.text import t  # noqa: E402


def navigation_pages(lang: str) -> list[StreamlitPage]:
    """The app's pages in ``lang``, built once per session and language (not shared between
    sessions: navigation marks the page object it returns)."""
    key = f"_pages_{lang}"
    if key not in st.session_state:
        st.session_state[key] = [
            st.Page(page.file, title=t(page.title_key, lang), icon=page.icon, url_path=page.path)
            for page in PAGES
        ]
    return st.session_state[key]


memory.tune()  # before the first large allocation of a run
state.begin_run()
link_notes = state.init_lang() + state.init_present()
st.set_page_config(
    page_title="注意力实验室 · Attention Lab",
    page_icon=FAVICON,
    layout="wide",
    initial_sidebar_state="collapsed",
)
page = st.navigation(navigation_pages(state.lang()), position="top")
# After the navigation (a rerun it brings stays on this page), before any widget (one the
# browser has not set up yet when it asks for the rerun comes back with its default).
state.watch_width(link_notes)
st.html(state.screen_css())
state.app_switches()
state.show_notes(link_notes)

try:
    page.run()
finally:
    memory.freeze_modules()  # after a run that loaded modules: no collection walks them again
    memory.trim()  # what this run freed goes back to the system, not to an idle arena
