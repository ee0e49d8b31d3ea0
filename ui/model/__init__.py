"""What a trained model sees: the shipped character model's heads on the lab's sentence."""

from ui.kit.text import register_page

register_page(__file__)
