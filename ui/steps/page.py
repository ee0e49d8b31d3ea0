"""The page file given to st.Page: the body is ui/steps/body.py."""

from ui.steps.body import render

render()
