"""A lesson as one offline HTML file: each step's title and notes, and the figures the app shows
for its view, made by the pages' own builders from the core's numbers; Plotly's JavaScript
inlined once and nothing fetched; ← → and a clicker's PageUp/PageDown step through it.

    python -m ui.lesson.export why_sqrt_d --lang en -o why_sqrt_d-en.html
"""

import argparse
import inspect
import json
import math
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
from plotly.offline import get_plotlyjs

from classroom.questions import QUESTIONS
from ui.kit.figures import CONFIG, FONT
from ui.kit.heatmap import Matrix, heatmap
from ui.kit.lessons import Lesson, Step, lessons
from ui.kit.text import t
from ui.kit.typography import PHONE, PROJECTOR, Screen
from ui.lab.compute import compute_lab
from ui.lab.figures import row_bars
from ui.lab.settings import LabParams
from ui.model.figures import guesses_bars, head_panels
from ui.model.settings import ModelParams
from ui.scaling.figures import dot_histogram, saturation_chart, variance_chart
from ui.scaling.settings import ScalingParams
from ui.softmax.figures import gradient_bars, jacobian_heatmap, softmax_bars
from ui.softmax.presets import labels_for, largest
from ui.softmax.settings import DEFAULT_VALUES, SoftmaxParams
from ui.train.compute import train_pair
from ui.train.figures import loss_curves
from ui.train.settings import TrainParams
from ui.variants.compute import aligned, compute_variants, same_token_row, sentence
from ui.variants.figures import alignment_heatmap, cross_heatmap
from ui.variants.settings import VariantsParams
from viz_core import (
    cross_entropy_gradient,
    dot_product_variance,
    fill_mask,
    run_model,
    sample_dot_products,
    saturation,
    softmax_breakdown,
    softmax_jacobian,
)
from viz_core import lessons as theory
from viz_core.model import MASK
from viz_core.settings import LANGUAGES, parse_values

TEMPLATE = Path(__file__).with_name("export.html")
MAX_BYTES = 6 * 1024 * 1024  # the whole file: Plotly's JavaScript is 4.8 MB of it
WIDE, NARROW = PROJECTOR, PHONE  # a 1280-px window at a projector; below PHONE_WIDTH, a phone
PHONE_WIDTH = 640  # px: where the app stacks its columns and sizes figures for a phone
# The pages' own sizes and counts (each in its body.py, which another page may not import).
SOFTMAX = 320  # px: the bars' height
HISTOGRAM, VARIANCE, SATURATION = 340, 380, 280  # px: /scaling's figures' heights
SAMPLES, PRESETS, ROW_TOKENS, TRIALS = 2000, (64, 1536, 6144), 9, 200  # /scaling's counts
GUESSES = 8  # /model's guesses shown
MATRIX_STAGES = ("scores", "scaled", "masked", "weights")  # the lab's stages drawn as a heatmap
HTML_LANG = {"zh": "zh-CN", "en": "en"}
# The figures' config: the app's modebar, no logo, no LaTeX typesetting, no cloud links.
PLOT_CONFIG = CONFIG | {
    "responsive": True,
    "typesetMath": False,
    "showLink": False,
    "showEditInChartStudio": False,
    "showSendToCloud": False,
}

# What Streamlit's chart element puts under every figure's own template (its light theme, read
# from Streamlit 1.67's frontend; the app's font for its "Source Sans"): the axes' automargin,
# which keeps tick labels inside the builders' narrow margins, the margins' padding, grey ticks
# and grid lines, the hover box.
GREY, GRID = "#808495", "#e6eaf1"
AXIS = {
    "tickcolor": GRID,
    "tickfont": {"color": GREY, "size": 12},
    "gridcolor": GRID,
    "zerolinecolor": GRID,
    "minor": {"gridcolor": GRID},
    "automargin": True,
}
THEME = {
    "font": {"color": GREY, "family": FONT["family"], "size": 12, "weight": 400},
    "title": {
        "font": {"family": FONT["family"], "size": 16, "color": "#2F2D2B"},
        "pad": {"l": 4},
        "xanchor": "left",
        "x": 0,
    },
    "legend": {
        "title": {"font": {"size": 12, "color": GREY}, "side": "top"},
        "valign": "top",
        "bordercolor": "transparent",
        "borderwidth": 0,
        "font": {"size": 12, "color": "#262730"},
    },
    "paper_bgcolor": "#FFFFFF",
    "plot_bgcolor": "#FFFFFF",
    "xaxis": AXIS
    | {
        "showgrid": False,
        "zeroline": False,
        "title": {"font": {"color": GREY, "size": 14}, "standoff": 20},
    },
    "yaxis": AXIS
    | {
        "ticklabelposition": "outside",
        "title": {"font": {"color": GREY, "size": 14}, "standoff": 24},
    },
    "margin": {"pad": 8, "r": 0, "l": 0},
    "hoverlabel": {
        "bgcolor": "#FFFFFF",
        "bordercolor": "rgba(47, 45, 43, 0.2)",
        "font": {"color": GREY, "family": FONT["family"], "size": 12},
    },
}

Figure = Any  # what a builder returns: a figure dict or a go.Figure
Draw = Callable[[Screen], Figure]  # a page's builder with its arguments, for a screen
View = Callable[[dict[str, str], str], list[Draw]]  # a page's figures for a view's settings


def sized(build: Callable[..., Figure], *args: Any, **kwargs: Any) -> Draw:
    """``build(*args, **kwargs)`` for a screen, given as ``screen=`` when the builder takes one
    (as ``ui.kit.display.chart`` gives it)."""
    takes = "screen" in inspect.signature(build).parameters
    return lambda screen: build(*args, **kwargs, **({"screen": screen} if takes else {}))


# --- each page's figures for a view: its settings parsed, its core called, its builders ---------


def softmax_view(query: dict[str, str], lang: str) -> list[Draw]:
    """The bars of what goes in and comes out; the section's Jacobian or gradient after them."""
    params, _ = SoftmaxParams.parse(query)
    values = parse_values(params.values) or parse_values(DEFAULT_VALUES) or ()
    breakdown = softmax_breakdown(values, params.divisor)
    labels = labels_for(tuple(float(x) for x in breakdown.x))
    shown = [
        sized(softmax_bars, breakdown.scaled, breakdown.probs, labels, lang=lang, height=SOFTMAX)
    ]
    if params.section == "gradient":
        target = params.target if 0 <= params.target < len(values) else largest(values)
        gradient = cross_entropy_gradient(breakdown.probs, target)
        shown.append(sized(gradient_bars, gradient, labels, lang=lang))
    if params.section == "jacobian":  # ÷ the divisor, and beside it ÷ 1 when that differs
        runs = [breakdown] + ([softmax_breakdown(values, 1.0)] if params.divisor != 1 else [])
        share = 1 / len(runs)
        shown += [
            sized(jacobian_heatmap, softmax_jacobian(run.probs), labels, lang=lang, share=share)
            for run in runs
        ]
    return shown


def lab_view(query: dict[str, str], lang: str) -> list[Draw]:
    """The stage's heatmap (a matrix stage's) beside the selected row's bars, scaled and not."""
    params, _ = LabParams.parse(query)
    result = compute_lab(params)
    if result.n_content == 0:
        return []
    steps, tokens = result.steps, result.tokens
    row = min(params.row, len(tokens) - 1)
    shown = []
    if params.stage in MATRIX_STAGES:
        weights = params.stage == "weights"
        matrix = Matrix(
            getattr(steps, params.stage), tokens, tokens,
            scale="weights" if weights else "scores",
            masked=~steps.allowed if params.stage in ("masked", "weights") else None,
            selected_row=row, clickable=weights,
        )  # fmt: skip
        shown.append(sized(heatmap, matrix, lang=lang, share=0.58))
    bars = sized(
        row_bars, steps.weights[row], result.contrast.weights[row], tokens,
        scaled=steps.scale, lang=lang, title=t("bars_title", lang, token=tokens[row]),
    )  # fmt: skip
    return [*shown, bars]


def model_view(query: dict[str, str], lang: str) -> list[Draw]:
    """Every head of the trained model on the sentence; with a [MASK] in it, the guesses."""
    params, _ = ModelParams.parse(query)
    try:
        run = run_model(params.text)
    except ValueError:
        return []
    panels = head_panels(run, lang)
    shown = [sized(heatmap, panels, lang=lang, per_row=4)]
    content = list(run.tokens[1:-1])
    if MASK in params.text and content:
        at = min(params.mask_at, len(content) - 1)
        masked = "".join([*content[:at], MASK, *content[at + 1 :]])
        found = fill_mask(masked, top=GUESSES, temperature=params.fill_temperature)
        shown.append(sized(guesses_bars, found, lang, content[at]))
    return shown


def variants_view(query: dict[str, str], lang: str) -> list[Draw]:
    """Cross-attention: the translator's over the English words, or seeded random weights."""
    params, _ = VariantsParams.parse(query)
    lab, _ = LabParams.parse(query)
    if params.variant != "cross":
        return []
    if params.cross_source == "random":
        result = compute_variants(params, lab)
        if result.cross is None:
            return []
        return [sized(cross_heatmap, result.cross, result.tokens, result.row, lang=lang)]
    view = aligned(params.text_b, lab.text, params.cross_layer, params.cross_head)
    if view is None:
        return []
    row = same_token_row(sentence(lab.text, lab.special)[0], lab.row, view.target)
    return [sized(alignment_heatmap, view, row, lang=lang)]


def scaling_view(query: dict[str, str], lang: str) -> list[Draw]:
    """The section's figure: q·k's histogram at d, Var(q·k) against d, or the three saturation
    panels."""
    params, _ = ScalingParams.parse(query)
    distribution = params.distribution
    if params.section == "histogram":
        return [histogram(params.d, distribution, lang)]
    if params.section == "variance":
        experiment = dot_product_variance(samples=SAMPLES, distribution=distribution)
        return [sized(variance_chart, experiment, lang=lang, height=VARIANCE)]
    if params.section != "saturation":
        return []
    curves = saturation(n=ROW_TOKENS, trials=TRIALS, distribution=distribution)
    panels = [
        ("max", "sc_max_weight", [0, 1.05]),
        ("entropy", "sc_entropy", [0, math.log(ROW_TOKENS) * 1.05]),
        ("gradient", "sc_gradient", None),
    ]
    build, height = saturation_chart, SATURATION
    return [
        sized(build, curves, field, title=t(key, lang), lang=lang, y_range=y_range, height=height)
        for field, key, y_range in panels
    ]


def histogram(d: int, distribution: str, lang: str) -> Draw:
    """q·k at d, raw and ÷√d, on the x axes the presets' samples reach (as /scaling draws it)."""
    dots = {n: sample_dot_products(n, SAMPLES, distribution, seed=n) for n in {*PRESETS, d}}
    reach = (
        max(float(np.abs(dots[n].astype(np.float32)).max()) for n in PRESETS),
        max(float(np.abs((dots[n] / math.sqrt(n)).astype(np.float32)).max()) for n in PRESETS),
    )
    theory_std = math.sqrt(d) * theory.entry_variance(distribution)
    return sized(dot_histogram, dots[d], d, theory_std, lang=lang, reach=reach, height=HISTOGRAM)


def train_view(query: dict[str, str], lang: str) -> list[Draw]:
    """The loss of one head trained with and without ÷√d_k, titled by its setting."""
    params, _ = TrainParams.parse(query)
    pair = train_pair(params)
    task = t(f"tr_task_{params.task}", lang)
    optimizer = t(f"tr_optimizer_{params.optimizer}", lang)
    setting = t("tr_loss_setting", lang, task=task, d=params.d, optimizer=optimizer)
    title = t("tr_loss_title", lang)
    runs = [pair.scaled, pair.unscaled]
    return [sized(loss_curves, runs, steps=params.steps, title=title, setting=setting, lang=lang)]


VIEWS: dict[str, View] = {  # by page path; a page not here shows its step's text only
    "softmax": softmax_view,
    "lab": lab_view,
    "model": model_view,
    "variants": variants_view,
    "scaling": scaling_view,
    "train": train_view,
}


def shows_trained_model(step: Step) -> bool:
    """Whether the step's view shows a model trained on Tatoeba's sentences (credit them)."""
    if step.page == "model":
        return True
    if step.page == "lab":
        return LabParams.parse(step.query)[0].source == "trained"
    if step.page == "variants":
        params = VariantsParams.parse(step.query)[0]
        return params.variant == "cross" and params.cross_source == "trained"
    return False


# --- the file -----------------------------------------------------------------------------------


def figure_json(fig: Figure) -> dict[str, Any]:
    """A figure as the app's chart element sends and draws it: validated, written by Plotly
    (arrays as exact binary), Streamlit's theme under its own template, its title in bold."""
    figure = fig if isinstance(fig, go.Figure) else go.Figure(fig)  # as the app's chart() does
    drawn: dict[str, Any] = json.loads(pio.to_json(figure, validate=False))
    layout = drawn.setdefault("layout", {})
    template = layout.get("template")
    template = template if isinstance(template, dict) else {}
    layout["template"] = template | {"layout": merged(template.get("layout", {}), THEME)}
    title = layout.get("title")
    if isinstance(title, dict) and title.get("text"):
        title["text"] = f"<b>{title['text']}</b>"
    return drawn


def merged(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """``base`` with ``over``'s values put in, dict by dict."""
    both = dict(base)
    for key, value in over.items():
        inner = both.get(key)
        both[key] = (
            merged(inner, value) if isinstance(inner, dict) and isinstance(value, dict) else value
        )
    return both


def step_data(step: Step, lang: str) -> dict[str, Any]:
    """One step as the file's script reads it: its texts, and its figures for a wide screen and
    for a phone's (None where a phone's is the same figure)."""
    view = VIEWS.get(step.page)
    draws = view(step.query, lang) if view else []
    wide = [figure_json(draw(WIDE)) for draw in draws]
    phone = [figure_json(draw(NARROW)) for draw in draws]
    question = QUESTIONS.get(step.question or "")
    asked = question.text(lang, question.truth()) if question else ""
    return {
        "title": step.title[lang],
        "notes": step.notes.get(lang, ""),
        "question": t("ex_question", lang, question=asked) if asked else "",
        "view": step.view,
        "trained": shows_trained_model(step),
        "wide": wide,
        "phone": [None if small == big else small for small, big in zip(phone, wide, strict=True)],
    }


def script_json(value: object) -> str:
    """JSON to put inside ``<script type="application/json">``: ``<``, ``>`` and ``&`` escaped,
    so that no text in it (``</script>`` in a title) can end the element."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def plotly_js() -> str:
    """Plotly's JavaScript, to inline once (4.8 MB)."""
    code = str(get_plotlyjs())
    if "</script" in code.lower():  # it would end its own element
        raise ValueError("Plotly's JavaScript holds </script>: it cannot be inlined")
    return code


def lesson_html(lesson: Lesson, lang: str) -> str:
    """The lesson as one self-contained HTML file in ``lang``: a section per step, each step's
    figures drawn when it is shown; nothing is fetched when it opens.

    Example: ``lesson_html(lessons()["why_sqrt_d"], "en")`` starts ``<!doctype html>``.
    """
    texts = ("previous", "next", "count", "view", "tatoeba", "footer")
    data = {
        "title": lesson.title[lang],
        "steps": [step_data(step, lang) for step in lesson.steps],
        "texts": {key: t(f"ex_{key}", lang) for key in texts},
        "config": PLOT_CONFIG,
        "phone_width": PHONE_WIDTH,
    }
    parts = {
        "LANG": HTML_LANG[lang],
        "SECTIONS": '<section class="step" hidden></section>\n' * len(lesson.steps),
        "DATA": script_json(data),
        "PLOTLY": plotly_js(),
    }
    page = TEMPLATE.read_text(encoding="utf-8")  # one pass: no part is searched for another
    return re.sub(r"__(LANG|SECTIONS|DATA|PLOTLY)__", lambda found: parts[found[1]], page)


def offline_file(lesson: Lesson, lang: str) -> bytes:
    """The lesson's file as /lesson's Download sends it."""
    return lesson_html(lesson, lang).encode("utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    """Write a shipped lesson's file; 2 (with a message) for a lesson that does not exist."""
    parser = argparse.ArgumentParser(
        prog="python -m ui.lesson.export", description="A lesson as one offline HTML file."
    )
    parser.add_argument("lesson", metavar="ID", help="a lesson's id: its file name in lessons/")
    parser.add_argument("--lang", choices=LANGUAGES, default="zh", help="zh (default) or en")
    parser.add_argument("-o", "--output", type=Path, help="default: <ID>-<lang>.html")
    args = parser.parse_args(argv)
    shipped = lessons()
    if args.lesson not in shipped:
        known = ", ".join(shipped)
        print(t("ex_unknown", args.lang, lesson=args.lesson, known=known), file=sys.stderr)
        return 2
    path = args.output or Path(f"{args.lesson}-{args.lang}.html")
    path.write_text(lesson_html(shipped[args.lesson], args.lang), encoding="utf-8")
    print(t("ex_written", args.lang, path=path, size=f"{path.stat().st_size:,}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
