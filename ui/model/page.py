"""The page file given to st.Page: the body is ui/model/body.py."""

from ui.model.body import render

render()
