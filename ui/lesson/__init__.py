"""The lessons page: the shipped lessons, to present, print the notes of, or download."""

from ui.kit.text import register_page

register_page(__file__)
