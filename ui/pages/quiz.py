"""Page entry for st.navigation: the page itself is ui/quiz_page.py."""

from ui.quiz_page import render

render()
