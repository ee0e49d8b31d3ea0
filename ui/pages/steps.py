"""Page entry for st.navigation: the page itself is ui/steps_page.py."""

from ui.steps_page import render

render()
