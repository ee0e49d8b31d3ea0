from ui.kit.text import register_page

register_page(__file__)
