"""Entry point: page config, language, navigation. Pages live in ui/."""

import streamlit as st

st.set_page_config(page_title="Attention Lab", page_icon="🔍", layout="wide")
st.title("Attention Lab")
