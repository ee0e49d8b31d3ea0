"""The class page: rooms, questions to the class's phones, the class's answers and the truth."""

from ui.kit.text import register_page

register_page(__file__)
