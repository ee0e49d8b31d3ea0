"""Formulas that more than one page writes with the current numbers."""

import math

from ui.kit.text import t


def scale_latex(d_k: int, temperature: float = 1.0, heads: int = 1) -> str:
    """S' = S / √d (or √d_k per head), with this d's numbers, and the temperature if not 1."""
    name = "d_k" if heads > 1 else "d"
    divisor = math.sqrt(d_k) * temperature
    tempered = "" if temperature == 1 else rf" \cdot {temperature:g}"
    return (
        rf"S' = \frac{{S}}{{\sqrt{{{name}}}{' T' if temperature != 1 else ''}}}"
        rf" = \frac{{S}}{{\sqrt{{{d_k}}}{tempered}}} = \frac{{S}}{{{divisor:.4g}}}"
    )


def mask_latex(lang: str) -> str:
    """M = S' where allowed, −∞ where masked, in the page's language."""
    allowed, masked = t("latex_allowed", lang), t("latex_masked", lang)
    return (
        rf"M_{{ij}} = \begin{{cases}} S'_{{ij}} & \text{{{allowed}}} \\ -\infty & "
        rf"\text{{{masked}}} \end{{cases}}"
    )
