"""The page file given to st.Page: the body is ui/train/body.py."""

from ui.train.body import render

render()
