"""The page file given to st.Page: the body is ui/softmax/body.py."""

from ui.softmax.body import render

render()
