"""Page entry for st.navigation: the page itself is ui/lab.py."""

from ui.lab import render

render()
