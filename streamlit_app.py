"""Entry point: page config, language, navigation. Pages live in ui/."""

import streamlit as st

from ui import state
from ui.params import LANGS
from ui.strings import t

st.set_page_config(page_title="注意力实验室 · Attention Lab", page_icon="🔍", layout="wide")

lang_notes = state.init_lang()
with st.sidebar:
    st.radio(
        t("lang_label", state.lang()),
        LANGS,
        key="lang",
        horizontal=True,
        format_func=lambda code: {"zh": "中文", "en": "English"}[code],
    )
lang = state.lang()
state.show_notes(lang_notes)

pages = [
    st.Page("ui/pages/lab.py", title=t("nav_lab", lang), icon="🔬", url_path="lab", default=True),
    st.Page("ui/pages/softmax.py", title=t("nav_softmax", lang), icon="📊", url_path="softmax"),
    st.Page("ui/pages/scaling.py", title=t("nav_scaling", lang), icon="📏", url_path="scaling"),
    st.Page("ui/pages/steps.py", title=t("nav_steps", lang), icon="👣", url_path="steps"),
    st.Page("ui/pages/quiz.py", title=t("nav_quiz", lang), icon="✅", url_path="quiz"),
]
st.navigation(pages).run()
