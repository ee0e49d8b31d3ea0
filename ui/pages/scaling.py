"""Page entry for st.navigation: the page itself is ui/scaling_page.py."""

from ui.scaling_page import render

render()
