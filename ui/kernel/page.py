"""The page file given to st.Page: the body is ui/kernel/body.py."""

from ui.kernel.body import render

render()
