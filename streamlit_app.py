"""Entry point: page config, language, presenter mode, navigation. Pages live in ui/."""

import streamlit as st

from ui.kit import memory, state
from ui.kit.settings import LANGS
from ui.kit.text import t

memory.tune()  # before the first large allocation of a run
state.begin_run()
link_notes = state.init_lang() + state.init_present()
st.set_page_config(
    page_title="注意力实验室 · Attention Lab",
    page_icon="🔍",
    layout="wide",
    initial_sidebar_state="collapsed" if state.present() else "auto",
)
with st.sidebar:
    st.radio(
        t("lang_label", state.lang()),
        LANGS,
        key="lang",
        horizontal=True,
        format_func=lambda code: {"zh": "中文", "en": "English"}[code],
    )
    st.toggle(t("present_label", state.lang()), key="present", help=t("present_help", state.lang()))
if state.present():
    # Streamlit sizes its text in rem: a larger root font enlarges every label for a projector.
    # A compact head so that each page's main figure and controls fit a 1280 × 720 first screen.
    st.html(
        "<style>html{font-size:18px} .stMainBlockContainer{max-width:100%;padding-top:3.6rem}"
        " h1{font-size:1.8rem!important;padding:0 0 .3rem!important}</style>"
    )
lang = state.lang()
state.show_notes(link_notes)

pages = [
    st.Page("ui/lab/page.py", title=t("nav_lab", lang), icon="🔬", url_path="lab", default=True),
    st.Page("ui/softmax/page.py", title=t("nav_softmax", lang), icon="📊", url_path="softmax"),
    st.Page("ui/scaling/page.py", title=t("nav_scaling", lang), icon="📏", url_path="scaling"),
    st.Page("ui/steps/page.py", title=t("nav_steps", lang), icon="👣", url_path="steps"),
    st.Page("ui/quiz/page.py", title=t("nav_quiz", lang), icon="✅", url_path="quiz"),
    st.Page("ui/train/page.py", title=t("nav_train", lang), icon="🏋️", url_path="train"),
    st.Page("ui/kernel/page.py", title=t("nav_kernel", lang), icon="⚡", url_path="kernel"),
    st.Page("ui/variants/page.py", title=t("nav_variants", lang), icon="🧬", url_path="variants"),
]
try:
    st.navigation(pages).run()
finally:
    memory.freeze_modules()  # after a run that loaded modules: no collection walks them again
    memory.trim()  # what this run freed goes back to the system, not to an idle arena
