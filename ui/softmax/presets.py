"""The articles' softmax examples, with the probabilities they print, as printed."""

from dataclasses import dataclass

from ui.kit.settings import parse_values

XI_ROW = "15.3, 22.7, 18.2, 2.1, 1.8, 3.2, 2.9, 5.6, 4.1"
FIVE = "15.3, 22.7, 18.2, 2.1, 1.8"


@dataclass(frozen=True)
class Preset:
    """An example from the articles, with the probabilities they print (as printed)."""

    values: str
    divisor: float = 1.0
    printed: str | None = None  # the article's text
    printed_numbers: tuple[str, ...] = ()  # the same, as numbers with the printed decimals


PRESETS = {
    "basic": Preset("2.0, 1.0, 0.1", 1, "[0.659, 0.242, 0.099]", ("0.659", "0.242", "0.099")),
    "winner": Preset(
        "20, 10, 1", 1, "[0.99998, 0.00005, 0.00000]", ("0.99998", "0.00005", "0.00000")
    ),
    "flat": Preset("0.02, 0.01, 0.01", 1, "[0.337, 0.332, 0.332]", ("0.337", "0.332", "0.332")),
    "mild": Preset("10, 11, 9", 1, "[0.245, 0.665, 0.090]", ("0.245", "0.665", "0.090")),
    "sharp": Preset("40, 44, 36", 1, "[0.018, 0.982, 0.0003]", ("0.018", "0.982", "0.0003")),
    "xi_raw": Preset(XI_ROW),
    "xi_8": Preset(
        XI_ROW,
        8,
        "[0.16, 0.40, 0.23, 0.03, 0.03, 0.03, 0.03, 0.05, 0.04]",
        ("0.16", "0.40", "0.23", "0.03", "0.03", "0.03", "0.03", "0.05", "0.04"),
    ),
    "five_raw": Preset(
        FIVE, 1, "[0.001, 0.997, 0.002, ≈0, ≈0]", ("0.001", "0.997", "0.002", "0.000", "0.000")
    ),
    "five_8": Preset(
        FIVE,
        8,
        "[0.187, 0.473, 0.270, 0.036, 0.035]",
        ("0.187", "0.473", "0.270", "0.036", "0.035"),
    ),
    "grad_raw": Preset("20, -10, 5", 1, "[0.9999, 0.0000, 0.0001]", ("0.9999", "0.0000", "0.0001")),
    "grad_8": Preset("20, -10, 5", 8, "[0.76, 0.02, 0.22]", ("0.76", "0.02", "0.22")),
    "overflow": Preset("1000, 999"),
}


def _decimals(printed: str) -> int:
    return len(printed.split(".")[1]) if "." in printed else 0


def article_check(preset: Preset, probs: tuple[float, ...]) -> tuple[bool, str]:
    """Whether the article's printed numbers match the computation at the printed precision.

    Returns (agrees, the computed numbers printed with the article's decimals).
    """
    computed = [
        f"{p:.{_decimals(text)}f}" for p, text in zip(probs, preset.printed_numbers, strict=True)
    ]
    agrees = computed == list(preset.printed_numbers)
    return agrees, "[" + ", ".join(computed) + "]"


def active_preset(values: tuple[float, ...], divisor: float) -> str | None:
    """The preset these numbers are, if any."""
    for name, preset in PRESETS.items():
        if parse_values(preset.values) == values and preset.divisor == divisor:
            return name
    return None
