"""The page file given to st.Page: the body is ui/lesson/body.py."""

from ui.lesson.body import render

render()
