"""The page file given to st.Page: the body is ui/variants/body.py."""

from ui.variants.body import render

render()
