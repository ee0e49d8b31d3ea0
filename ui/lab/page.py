"""The page file given to st.Page: the body is ui/lab/body.py."""

from ui.lab.body import render

render()
