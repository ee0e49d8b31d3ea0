"""The page file given to st.Page: the body is ui/scaling/body.py."""

from ui.scaling.body import render

render()
