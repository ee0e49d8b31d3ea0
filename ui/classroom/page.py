"""The page file given to st.Page: the body is ui/classroom/body.py."""

from ui.classroom.body import render

render()
