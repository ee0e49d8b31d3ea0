"""Screen typography: one object gives a figure's fonts, heights and spacings on a phone, a
laptop and a projector. Every figure builder takes ``screen: Screen`` and reads it; no page
module branches on which screen it is (tests/test_typography.py checks it): where a figure is
laid out differently on a phone, a kit helper computes it from the screen's values.

Values are px. A phone is a 360–390-px-wide browser (Streamlit stacks its columns there); a laptop
and a projector are 1280 px wide, the projector in presenter mode (larger text, 720 px high).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Screen:
    """What a figure is sized for: one kind of screen's fonts, heights and spacings."""

    name: str  # "phone", "laptop" or "projector"
    # --- room
    width: int  # a full-width chart: a phone's column; the main area of a 1280-px window
    main_width: (
        int  # the main area of a 1280-px window: what a figure sized by a share of it assumes
    )
    across: int  # a figure's chart panels to a row: a phone's column holds one (its columns stack)
    # --- heatmaps (ui.kit.heatmap)
    cell_font: int  # heatmap cell numbers and ticks: ≥ 12 px
    row_title: bool  # a heatmap's rows titled beside them: a phone's room goes to its cells
    max_cell: int  # a heatmap cell's largest side
    max_height: (
        int  # a heatmap's cells, all rows: a projector's figure fits 720 px with its controls
    )
    per_row: int | None  # a wrapped heatmap's panels to a row at most (None: as the page asks)
    crowded: (
        Screen | None
    )  # what a figure of many panels (16 heads) is sized as (None: this screen)
    # --- fonts
    bar_font: int  # the labels under a bar chart's bars, and their numbers: 12 px or more
    small_font: int  # a narrow panel's ticks, a legend under a figure
    number_font: int  # numbers on bars and on a line's points
    text_font: int  # text set in a chart: its legend, a note by a line, numbers beside rows
    tick_font: int  # a chart of curves: its ticks and legend
    control_font: int  # an animation slider's current value
    title_font: int  # a chart's own title
    # --- markers
    marker_size: int  # a scatter's points
    dot_size: int  # the points of a dense scatter (hundreds of them)
    # --- heights and widths of the app's charts
    chart_height: int  # a chart of curves across the main area (/train's loss)
    beside_height: int  # a figure beside the controls (/variants' RoPE): a projector's fits 720 px
    panels_height: int  # two chart panels beside the controls (/kernel's online softmax)
    bars_width: int  # the lab's row of bars beside its heatmap
    bars_height: int  # a chart of bars beside a figure (the class's answers)
    row_height: int  # the lab's row of bars: a projector's leaves its table and verdict in view
    row_font: int  # the lab's row of bars: its keys and weights (a projector's read at the back)


LAPTOP = Screen(
    "laptop", width=840, main_width=840, across=2,
    cell_font=13, row_title=True, max_cell=44, max_height=520, per_row=None, crowded=None,
    bar_font=12, small_font=12, number_font=12, text_font=14, tick_font=14, control_font=15,
    title_font=18, marker_size=9, dot_size=7,
    chart_height=340, beside_height=380, panels_height=360, bars_width=312, bars_height=380,
    row_height=380, row_font=12,
)  # fmt: skip
PHONE = Screen(
    "phone", width=340, main_width=840, across=1,
    cell_font=12, row_title=False, max_cell=44, max_height=520, per_row=2, crowded=None,
    bar_font=12, small_font=12, number_font=12, text_font=14, tick_font=14, control_font=15,
    title_font=18, marker_size=9, dot_size=7,
    chart_height=340, beside_height=380, panels_height=620, bars_width=312, bars_height=380,
    row_height=380, row_font=12,
)  # fmt: skip
PROJECTOR = Screen(
    "projector", width=1180, main_width=1180, across=2,
    cell_font=14, row_title=True, max_cell=48, max_height=400, per_row=None, crowded=LAPTOP,
    bar_font=13, small_font=14, number_font=16, text_font=17, tick_font=18, control_font=18,
    title_font=22, marker_size=11, dot_size=9,
    chart_height=380, beside_height=340, panels_height=340, bars_width=700, bars_height=320,
    row_height=305, row_font=16,
)  # fmt: skip
SCREENS = (PHONE, LAPTOP, PROJECTOR)


def screen_for(phone: bool, present: bool) -> Screen:
    """The typography of this run's screen: a phone's wins over presenter mode."""
    if phone:
        return PHONE
    return PROJECTOR if present else LAPTOP


def room(screen: Screen, share: float) -> float:
    """Pixels a chart in a column ``share`` of the main area has: all of a phone's width, where
    columns stack."""
    return screen.width * share if screen.across > 1 else screen.width


def crowded(screen: Screen) -> Screen:
    """What a figure of many panels is sized as on ``screen``: on a projector a laptop's, whose
    heights leave 16 heads' cells room for their numbers."""
    return screen.crowded or screen
