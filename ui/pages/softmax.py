"""Page entry for st.navigation: the page itself is ui/softmax_page.py."""

from ui.softmax_page import render

render()
