"""The articles' softmax examples, with what they print, as printed, to check against."""

from dataclasses import dataclass

import numpy as np

from viz_core.settings import parse_values

XI_ROW = "15.3, 22.7, 18.2, 2.1, 1.8, 3.2, 2.9, 5.6, 4.1"
FIVE = "15.3, 22.7, 18.2, 2.1, 1.8"
# The seventh article's 喜 row, in the order it prints the keys: [CLS] and [SEP] come last.
XI_TOKENS = ("我", "喜", "欢", "人", "工", "智", "能", "[CLS]", "[SEP]")


@dataclass(frozen=True)
class Printed:
    """Numbers as an article prints them: its text, and each number with its printed decimals."""

    text: str
    numbers: tuple[str, ...]


@dataclass(frozen=True)
class Preset:
    """An example from the articles, with what they print about it."""

    values: str
    divisor: float = 1.0
    labels: tuple[str, ...] = ()  # the tokens the article names, else positions x0, x1, …
    probs: Printed | None = None  # the softmax output it prints
    total: Printed | None = None  # the Σ eˣ it prints
    exps: Printed | None = None  # the eˣ it prints and adds up for its Σ
    gradient: Printed | None = None  # p − one-hot(largest) it prints
    scaled_twin: str | None = None  # the preset of the same row ÷ 8, when only that is printed


def _printed(text: str, *numbers: str) -> Printed:
    return Printed(text, numbers)


PRESETS = {
    "basic": Preset(
        "2.0, 1.0, 0.1", probs=_printed("[0.659, 0.242, 0.099]", "0.659", "0.242", "0.099")
    ),
    "winner": Preset(
        "20, 10, 1", probs=_printed("[0.99998, 0.00005, 0.00000]", "0.99998", "0.00005", "0.00000")
    ),
    "flat": Preset(
        "0.02, 0.01, 0.01", probs=_printed("[0.337, 0.332, 0.332]", "0.337", "0.332", "0.332")
    ),
    "mild": Preset("10, 11, 9", probs=_printed("[0.245, 0.665, 0.090]", "0.245", "0.665", "0.090")),
    "sharp": Preset(
        "40, 44, 36", probs=_printed("[0.018, 0.982, 0.0003]", "0.018", "0.982", "0.0003")
    ),
    "xi_raw": Preset(XI_ROW, labels=XI_TOKENS, scaled_twin="xi_8"),
    "xi_8": Preset(
        XI_ROW,
        8,
        XI_TOKENS,
        probs=_printed(
            "[0.16, 0.40, 0.23, 0.03, 0.03, 0.03, 0.03, 0.05, 0.04]",
            *("0.16", "0.40", "0.23", "0.03", "0.03", "0.03", "0.03", "0.05", "0.04"),
        ),
        total=_printed("42.73", "42.73"),
        exps=_printed(
            "6.77 + 17.07 + 9.73 + 1.30 + 1.25 + 1.49 + 1.44 + 2.01 + 1.67",
            *("6.77", "17.07", "9.73", "1.30", "1.25", "1.49", "1.44", "2.01", "1.67"),
        ),
    ),
    "five_raw": Preset(
        FIVE,
        labels=XI_TOKENS[:5],
        probs=_printed(
            "[0.001, 0.997, 0.002, ≈0, ≈0]", "0.001", "0.997", "0.002", "0.000", "0.000"
        ),
    ),
    "five_8": Preset(
        FIVE,
        8,
        XI_TOKENS[:5],
        probs=_printed(
            "[0.187, 0.473, 0.270, 0.036, 0.035]", "0.187", "0.473", "0.270", "0.036", "0.035"
        ),
    ),
    "grad_raw": Preset(
        "20, -10, 5",
        probs=_printed("[0.9999, 0.0000, 0.0001]", "0.9999", "0.0000", "0.0001"),
        gradient=_printed("≈ [−0.0001, 0, 0]", "-0.0001", "0", "0"),
    ),
    "grad_8": Preset(
        "20, -10, 5",
        8,
        probs=_printed("[0.76, 0.02, 0.22]", "0.76", "0.02", "0.22"),
        gradient=_printed("[−0.24, 0.02, 0.22]", "-0.24", "0.02", "0.22"),
    ),
    "overflow": Preset("1000, 999"),
}


def _decimals(printed: str) -> int:
    return len(printed.split(".")[1]) if "." in printed else 0


def _at_printed_precision(value: float, printed: str) -> str:
    text = f"{value:.{_decimals(printed)}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text  # no "-0.0000"


def compare(printed: Printed, computed: tuple[float, ...]) -> tuple[bool, str]:
    """Whether an article's printed numbers match the computation at the printed precision.

    Returns (agrees, the computed numbers with the article's decimals, as the article lists them).
    """
    numbers = [
        _at_printed_precision(value, text)
        for value, text in zip(computed, printed.numbers, strict=True)
    ]
    agrees = numbers == list(printed.numbers)
    listed = ", ".join(number.replace("-", "−") for number in numbers)
    return agrees, listed if len(numbers) == 1 else f"[{listed}]"


def active_preset(values: tuple[float, ...], divisor: float) -> str | None:
    """The preset these numbers are, if any."""
    for name, preset in PRESETS.items():
        if parse_values(preset.values) == values and preset.divisor == divisor:
            return name
    return None


def labels_for(values: tuple[float, ...]) -> list[str]:
    """Token labels when the numbers are an article's row (whatever the divisor), else x0, x1, …"""
    for preset in PRESETS.values():
        if preset.labels and parse_values(preset.values) == values:
            return list(preset.labels)
    return [f"x{i}" for i in range(len(values))]


def largest(values: tuple[float, ...]) -> int:
    """The position of the largest number: the article's 'right answer' for the gradient."""
    return int(np.argmax(values))
