"""The class page: rooms, questions to the class's phones, the class's answers and the truth."""

from classroom.refusals import STRINGS as REFUSALS
from ui.kit.text import register, register_page

register_page(__file__)
# The store's refusals, each said by its code: its sentences live once, in classroom/strings.toml.
register({f"refusal_{code}": table for code, table in REFUSALS.items()})
