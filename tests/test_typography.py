"""Screen typography: one ``Screen`` gives every figure its fonts, heights and
spacings on a phone, a laptop and a projector; every figure builder takes it, and no page module
branches on which screen it is (the kit computes what differs)."""

import ast
import dataclasses
import importlib
import inspect
import typing
from pathlib import Path

import plotly.graph_objects as go
import pytest

from ui.kit import typography
from ui.kit.typography import LAPTOP, PHONE, PROJECTOR, SCREENS, Screen, screen_for

ROOT = Path(__file__).resolve().parents[1]
SCREEN_WORDS = {"large", "phone", "present", "screen"}  # names and attributes that read it
PAGE_FIGURES = sorted(path.parent.name for path in (ROOT / "ui").glob("*/figures.py"))
FIGURE_MODULES = ["ui.kit.heatmap", *(f"ui.{page}.figures" for page in PAGE_FIGURES)]


def reads_screen(node: ast.AST) -> bool:
    """Whether an expression reads the screen: a name or attribute ``large``, ``phone``,
    ``present`` or ``screen`` (so ``screen.<anything>``, ``phone()``, ``state.present()``)."""
    names = (
        sub.id if isinstance(sub, ast.Name) else sub.attr if isinstance(sub, ast.Attribute) else ""
        for sub in ast.walk(node)
    )
    return any(name in SCREEN_WORDS for name in names)


def branch_tests(tree: ast.AST) -> list[ast.AST]:
    """The tests of every branch in a module: if, while, conditional expressions, comprehension
    conditions, and/or, comparisons, match subjects and guards, and the keys of lookups (a
    ``{False: 13, True: 14}[large]`` is a branch too)."""
    tests: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.If | ast.While | ast.IfExp):
            tests.append(node.test)
        elif isinstance(node, ast.comprehension):
            tests += node.ifs
        elif isinstance(node, ast.BoolOp | ast.Compare):
            tests.append(node)
        elif isinstance(node, ast.Match):
            tests.append(node.subject)
        elif isinstance(node, ast.match_case) and node.guard is not None:
            tests.append(node.guard)
        elif isinstance(node, ast.Subscript):
            tests.append(node.slice)
    return tests


def screen_branches_in(source: str, name: str = "<source>") -> list[str]:
    """``name:line`` of each line with a branch whose test reads the screen."""
    lines = {test.lineno for test in branch_tests(ast.parse(source)) if reads_screen(test)}
    return [f"{name}:{line}" for line in sorted(lines)]


def page_modules() -> list[Path]:
    """Every module under ui/ that is not the kit's."""
    paths = sorted((ROOT / "ui").rglob("*.py"))
    return [path for path in paths if path.relative_to(ROOT / "ui").parts[0] != "kit"]


def screen_branches() -> list[str]:
    """Every branch on the screen in a page module (the goal: none)."""
    return [
        where
        for path in page_modules()
        for where in screen_branches_in(path.read_text("utf-8"), str(path.relative_to(ROOT)))
    ]


def test_no_page_module_branches_on_the_screen():
    """Pages read the screen's values (``screen.cell_font``) and the kit's helpers lay out what
    differs on a phone: no if, conditional, and/or, comparison, match or lookup key of a page
    module reads ``large``, ``phone``, ``present`` or ``screen``."""
    assert len(page_modules()) > 20  # every page folder's modules, not the kit's
    assert screen_branches() == []


@pytest.mark.parametrize(
    "source",
    [
        'size = 12 if screen.name == "phone" else 14',
        "size = 17 if large else 14",
        "if phone:\n    pass",
        "if state.present():\n    pass",
        "if present() and x:\n    pass",
        "across = screen.across > 1",
        "size = large and 3 or 4",
        "match screen.name:\n    case _:\n        pass",
        "match x:\n    case 1 if phone:\n        pass",
        "sizes = [s for s in sizes if s.width > screen.width]",
        "while screen.across:\n    break",
        "font = CELL_FONT[large]",
        "height = HEIGHTS[screen.name]",
    ],
)
def test_the_check_finds_a_branch_on_the_screen(source):
    """Each way of branching on the screen is found, once."""
    assert len(screen_branches_in(source)) == 1


@pytest.mark.parametrize(
    "source",
    [
        "size = screen.cell_font",
        "fig = heatmap(matrix, lang=lang, screen=screen)",
        "where, margin = line_note(screen, -std)",
        "if d in ARTICLE_STD and math.isclose(std, sqrt_d):\n    pass",
        "screen_css(state.present())",
        "x = layout[0] + sizes[1]",
    ],
)
def test_the_check_lets_reading_the_screen_be(source):
    """Reading the screen's values, passing it on, or branching on something else is allowed."""
    assert screen_branches_in(source) == []


def test_every_screen_prints_cell_numbers_and_text_at_12_px_or_more():
    """The three screens' cell numbers and ticks, and every other font, are ≥ 12 px."""
    fonts = [field.name for field in dataclasses.fields(Screen) if field.name.endswith("_font")]
    assert "cell_font" in fonts and len(fonts) >= 5
    for screen in SCREENS:
        assert screen.cell_font >= 12, screen.name
        assert all(getattr(screen, font) >= 12 for font in fonts), screen.name


def test_the_screens_are_a_phone_a_laptop_and_a_projector():
    """Named for what they are; a phone's is narrowest and holds one chart panel to a row,
    a projector's prints larger; a phone's wins over presenter mode."""
    assert [screen.name for screen in SCREENS] == ["phone", "laptop", "projector"]
    assert PHONE.width < LAPTOP.width < PROJECTOR.width
    assert PHONE.across == 1 < LAPTOP.across
    assert PROJECTOR.cell_font > LAPTOP.cell_font
    assert screen_for(phone=True, present=True) is PHONE
    assert screen_for(phone=False, present=True) is PROJECTOR
    assert screen_for(phone=False, present=False) is LAPTOP
    assert typography.crowded(PROJECTOR) is LAPTOP and typography.crowded(PHONE) is PHONE


def figure_builders() -> list[tuple[str, typing.Any]]:
    """Every public function of the figure modules that returns a figure (a ``go.Figure`` or a
    figure dict)."""
    builders = []
    for name in FIGURE_MODULES:
        module = importlib.import_module(name)
        for attr, function in inspect.getmembers(module, inspect.isfunction):
            if attr.startswith("_") or function.__module__ != name:
                continue
            returns = typing.get_type_hints(function).get("return")
            if returns is go.Figure or returns == dict[str, typing.Any]:
                builders.append((f"{name}.{attr}", function))
    return builders


def test_every_figure_builder_takes_the_screen_not_large_or_phone():
    """No builder takes ``large`` or ``phone``; those that size for the screen take
    ``screen: Screen``, keyword-only, a laptop's by default (the kit's helpers, which take no
    ``lang``, take it first)."""
    builders = figure_builders()
    assert len(builders) > 25
    old = [
        name
        for name, build in builders
        if {"large", "phone"} & set(inspect.signature(build).parameters)
    ]
    assert old == []
    sized = {
        name: inspect.signature(build).parameters["screen"]
        for name, build in builders
        if {"screen", "lang"} <= set(inspect.signature(build).parameters)
    }
    assert "ui.kit.heatmap.heatmap" in sized and len(sized) >= 15
    for name, parameter in sized.items():
        assert parameter.kind is inspect.Parameter.KEYWORD_ONLY, name
        assert parameter.default is LAPTOP, name


def test_a_phone_stacks_two_chart_panels_that_a_laptop_puts_side_by_side():
    """``parts``: side by side at the x domains given, each its px; on a phone one above the
    other at the y domains given, each the phone's whole width."""
    from ui.kit.figures import parts

    layout = {"across": [(0, 0.52), (0.6, 1)], "down": [(0.58, 1), (0, 0.4)], "px": [360, 270]}
    left, right = parts(LAPTOP, **layout)
    assert (left.x, left.y, left.px) == ([0, 0.52], [0, 1], 360)
    assert (right.x, right.y, right.px) == ([0.6, 1], [0, 1], 270)
    top, bottom = parts(PHONE, **layout)
    assert (top.x, top.y, top.px) == ([0, 1], [0.58, 1], PHONE.width)
    assert (bottom.x, bottom.y, bottom.px) == ([0, 1], [0, 0.4], PHONE.width)
