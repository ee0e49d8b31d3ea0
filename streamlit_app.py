"""Entry point: page config, language, navigation. Pages live in ui/."""

import streamlit as st

from ui import lab, state
from ui.params import LANGS
from ui.strings import t

st.set_page_config(page_title="注意力实验室 · Attention Lab", page_icon="🔍", layout="wide")

lang_notes = state.init_lang()
with st.sidebar:
    st.radio(
        t("lang_label", state.lang()), LANGS, key="lang", horizontal=True,
        format_func=lambda code: {"zh": "中文", "en": "English"}[code],
    )  # fmt: skip
lang = state.lang()
state.show_notes(lang_notes)

pages = [st.Page(lab.render, title=t("nav_lab", lang), icon="🔬", url_path="lab", default=True)]
st.navigation(pages).run()
