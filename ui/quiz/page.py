"""The page file given to st.Page: the body is ui/quiz/body.py."""

from ui.quiz.body import render

render()
