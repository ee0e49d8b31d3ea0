"""The kernel page: its settings, figures, zh/en text (strings.toml) and body."""

from ui.kit.text import register_page

register_page(__file__)
