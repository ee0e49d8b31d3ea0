"""The class's questions, each answered by the app itself with ``viz_core`` when it is asked.

A question has an id, a kind, the page it comes from, a prompt in zh and en, default settings
(what every phone and the projector share) and a compute function. ``Question.truth(settings)``
checks the settings, runs the core, and returns a frozen ``Truth``: the right answer's key, the
exact value of a number, the options (choices, or a number's bin labels), the prompt's arguments
and ``chart``, a small JSON-able description of the app's own figure for the reveal:

- ``{"kind": "bars", "labels": [...], "values": [...], "highlight": i}``: one row of weights,
  the model's top guesses, a cross-attention row, a softmax;
- ``{"kind": "histogram", "edges": [...], "counts": [...], "mark": σ}``: sampled q·k;
- ``{"kind": "compare", "labels": [...], "raw": [...], "scaled": [...]}``: a statistic
  against d without and with ÷√d.

A chart also carries what makes the reveal teach (a truth stored before these keys has none):
``"why"``, ``{"text": id, "args": {...}}``, the sentence ``cl_why_<id>`` that says why, with
its numbers computed here and formatted; ``"series"``, what the figure shows (``cl_series_<id>``:
"raw", "scaled", "probs", …); and ``"contrast"``, the figure that makes the point beside it (the
same row with ÷√d switched, q·k ÷√d beside q·k), of the same kinds. Only a revealed room shows
a chart, so nothing of the answer leaks before the reveal.

Three kinds of answer: "choice" (one of ``Truth.options``), "number" (typed, kept as typed, and
counted under the label of the bin that holds it; the bin that holds the truth is right) and
"character" (exactly one character, as the lab's tokenizer counts them).
"""

import dataclasses
import itertools
import math
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from classroom.refusals import Invalid
from classroom.safety import clean_answer
from viz_core import (
    D_MAX,
    D_MIN,
    SEED_MAX,
    align,
    fill_mask,
    run_lab,
    sample_dot_products,
    saturation,
    softmax,
    softmax_breakdown,
    tokenize,
)
from viz_core.lab_settings import DEFAULT_TEXT, VIEW, Computing, LabParams
from viz_core.model import model_config
from viz_core.settings import Spec
from viz_core.translator import translator_config

KINDS = ("choice", "number", "character")
# Prompt arguments added later, for a question stored before them: a lab row's row-0 token
# ([CLS], the lab's default first token).
OLD_ARGS = {"first": "[CLS]"}
LANGS = ("zh", "en")
DIGITS = 6  # a chart's numbers are rounded to this many decimals


@dataclass(frozen=True)
class Truth:
    """What a question's settings make true, computed once, when the teacher asks it."""

    answer: str  # the right answer's key: a choice, a character, or the right bin's label
    value: float | None  # numbers: the exact value; None for the other kinds
    options: tuple[str, ...]  # choices: their keys; numbers: the bin labels; characters: ()
    option_text: dict[str, tuple[str, ...]]  # "zh"/"en": what each option says, as options
    edges: tuple[float | None, ...]  # numbers: len(options) + 1 edges, None = no upper end
    args: dict[str, str]  # the prompt's placeholders; "x_zh" / "x_en" fill {x} in that language
    chart: dict[str, Any]  # the app's own figure for the reveal, JSON-able

    def to_json(self) -> dict[str, Any]:
        """Every field as JSON-able values."""
        return {
            "answer": self.answer,
            "value": self.value,
            "options": list(self.options),
            "option_text": {lang: list(texts) for lang, texts in self.option_text.items()},
            "edges": list(self.edges),
            "args": dict(self.args),
            "chart": self.chart,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Truth":
        """The Truth that ``to_json`` wrote."""
        return cls(
            answer=str(data["answer"]),
            value=None if data["value"] is None else float(data["value"]),
            options=tuple(data["options"]),
            option_text={lang: tuple(texts) for lang, texts in data["option_text"].items()},
            edges=tuple(None if e is None else float(e) for e in data["edges"]),
            args=dict(data["args"]),
            chart=dict(data["chart"]),
        )


@dataclass(frozen=True)
class Question:
    """One question of the class mode, with everything needed to ask and check it."""

    id: str
    kind: str  # "choice", "number" or "character"
    page: str  # the app page it comes from: lab, softmax, scaling, model, variants or quiz
    prompt: dict[str, str]  # "zh" and "en": format strings over Truth.args
    defaults: dict[str, Any]  # the settings every phone and the projector share
    fields: dict[str, Spec] = field(repr=False)  # the one declaration type of every view
    compute: Callable[[dict[str, Any]], Truth] = field(repr=False, compare=False)

    def settings(self, given: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The defaults with ``given`` merged over them, each checked; ValueError otherwise."""
        if given is not None and not isinstance(given, Mapping):
            raise Invalid("not_settings")
        given = dict(given or {})
        unknown = sorted(set(given) - set(self.fields))
        if unknown:
            raise Invalid("unknown_setting", names=", ".join(unknown))
        merged = {**self.defaults, **given}
        checked: dict[str, Any] = {}
        # In declaration order: a bound may read the settings before it (the lab's last head).
        for name, spec in self.fields.items():
            checked[name] = check_field(name, spec, merged[name], checked)
        return checked

    def truth(self, given: Mapping[str, Any] | None = None) -> Truth:
        """The right answer at these settings (merged over the defaults), computed now."""
        return self.compute(self.settings(given))

    def text(self, lang: str, truth: Truth) -> str:
        """The prompt in ``lang`` with the truth's arguments filled in."""
        return self.say(lang, truth.args)

    def say(self, lang: str, args: Mapping[str, str]) -> str:
        """The prompt in ``lang`` with ``args`` (a Truth's, as a room shows them) filled in."""
        suffix = f"_{lang}"
        plain = {k: v for k, v in args.items() if not k.endswith(("_zh", "_en"))}
        plain |= {k.removesuffix(suffix): v for k, v in args.items() if k.endswith(suffix)}
        return self.prompt[lang].format(**(OLD_ARGS | plain))

    def normalise(self, truth: Truth, value: object) -> tuple[str, str]:
        """(the answer as stored, its key in the tally); ValueError when it does not fit."""
        return normalise_answer(self.kind, truth, value)


# --- settings -----------------------------------------------------------------------------------


def check_field(name: str, spec: Spec, value: object, before: dict[str, Any]) -> Any:
    """``value`` as the setting ``name`` stores it, checked with its declaration (its bounds may
    read the settings ``before`` it, as the lab's last head does); a refusal otherwise."""
    if spec.kind == "flag":
        if not isinstance(value, bool):
            raise Invalid("setting_flag", name=name)
        return value
    if spec.kind == "choice":
        if value not in spec.choices:
            raise Invalid("setting_choice", name=name, choices=", ".join(spec.choices))
        return value
    if spec.kind == "text":
        if not isinstance(value, str) or len(value) > spec.max_chars:
            raise Invalid("setting_text", name=name, limit=spec.max_chars)
        return value
    if spec.kind == "numbers":
        return _check_numbers(name, spec, value)
    number = _check_number(name, spec, value, before)
    if spec.valid is not None and not spec.valid(number, before):
        raise Invalid("setting_rule", name=name, value=number)
    return number


def _check_number(name: str, spec: Spec, value: object, before: dict[str, Any]) -> int | float:
    """A whole number or a number inside [low, high]."""
    whole = spec.kind == "integer"
    low, high = spec.bounds(before)
    sentence = Invalid(
        "setting_whole" if whole else "setting_range", name=name, low=f"{low:g}", high=f"{high:g}"
    )
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise sentence
    number = float(value)
    if not math.isfinite(number) or not low <= number <= high:
        raise sentence
    if whole and not number.is_integer():
        raise sentence
    return int(number) if whole else number


def _check_numbers(name: str, spec: Spec, value: object) -> list[float]:
    """A list of 2 … 12 numbers, each inside [low, high]."""
    sentence = Invalid("setting_numbers", name=name, low=f"{spec.low:g}", high=f"{spec.high:g}")
    if not isinstance(value, list | tuple) or not 2 <= len(value) <= 12:
        raise sentence
    inner = Spec("number", spec.low, spec.high)
    try:
        return [float(_check_number(name, inner, v, {})) for v in value]
    except ValueError:
        raise sentence from None


# --- answers ------------------------------------------------------------------------------------

NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")
GROUPED = re.compile(r"[+-]?\d{1,3}(,\d{3})+(\.\d*)?")  # 1,536 or 1,536.5


def normalise_answer(kind: str, truth: Truth, value: object) -> tuple[str, str]:
    """(the answer as stored, its key in the tally) for a question of ``kind``."""
    text = clean_answer(value)
    if kind == "choice":
        return text, choice_key(truth.options, text)
    if kind == "number":
        return text, bin_label(truth, parse_number(text))
    characters = tokenize(text, special_tokens=False)
    if len(characters) != 1:
        raise Invalid("one_character")
    return text, characters[0]


def choice_key(options: Sequence[str], text: str) -> str:
    """The option ``text`` names: exactly, or ignoring upper and lower case when only one fits."""
    if text in options:
        return text
    folded = [option for option in options if option.casefold() == text.casefold()]
    if len(folded) == 1:
        return folded[0]
    shown = ", ".join(options[:12]) + (" …" if len(options) > 12 else "")
    raise Invalid("not_an_option", shown=shown)


def parse_number(text: str) -> float:
    """A typed number: 0.66, ０.６６ (full width), 66%, 1,536 or 1e3; ValueError otherwise."""
    squeezed = "".join(unicodedata.normalize("NFKC", text).split()).replace("−", "-")
    share = squeezed.endswith("%")
    squeezed = squeezed.removesuffix("%")
    if GROUPED.fullmatch(squeezed):
        squeezed = squeezed.replace(",", "")
    if not NUMBER.fullmatch(squeezed):
        raise Invalid("not_a_number")
    number = float(squeezed) / (100 if share else 1)
    if not math.isfinite(number):
        raise Invalid("not_a_number")
    return number


def bin_label(truth: Truth, number: float) -> str:
    """The label of the bin that holds ``number``: [low, high), the last one [low, high]."""
    edges = truth.edges
    for i, label in enumerate(truth.options):
        low, high = edges[i], edges[i + 1]
        assert low is not None  # only the last upper edge is open
        last = i == len(truth.options) - 1
        if low <= number and (high is None or number < high or (last and number <= high)):
            return label
    top = edges[-1]
    if top is None:
        raise Invalid("number_at_least", low=f"{edges[0]:g}")
    raise Invalid("number_between", low=f"{edges[0]:g}", high=f"{top:g}")


def bin_labels(edges: Sequence[float | None]) -> tuple[str, ...]:
    """'0–0.2', …, and '≥ 78' for a last bin with no upper end."""
    labels = []
    for low, high in itertools.pairwise(edges):
        assert low is not None
        labels.append(f"≥ {low:g}" if high is None else f"{low:g}–{high:g}")
    return tuple(labels)


def number_truth(
    value: float, edges: Sequence[float | None], args: dict[str, str], chart: dict[str, Any]
) -> Truth:
    """A number's Truth: its bins, and the label of the one that holds ``value``."""
    labels = bin_labels(edges)
    truth = Truth("", value, labels, {lang: labels for lang in LANGS}, tuple(edges), args, chart)
    return Truth(bin_label(truth, value), *_fields_after_answer(truth))


def _fields_after_answer(truth: Truth) -> tuple[Any, ...]:
    """Every field of ``truth`` but the first (the answer)."""
    return (truth.value, truth.options, truth.option_text, truth.edges, truth.args, truth.chart)


def choice_truth(
    answer: str, options: Sequence[str], args: dict[str, str], chart: dict[str, Any]
) -> Truth:
    """A choice among tokens or words, which read the same in every language."""
    texts = tuple(options)
    return Truth(answer, None, texts, {lang: texts for lang in LANGS}, (), args, chart)


def unique_labels(tokens: Sequence[str]) -> tuple[str, ...]:
    """Each token, with its position in brackets when it occurs more than once: 我 (1), 我 (3)."""
    return tuple(
        f"{token} ({i})" if tokens.count(token) > 1 else token for i, token in enumerate(tokens)
    )


def bars(labels: Sequence[str], values: Iterable[float], highlight: int) -> dict[str, Any]:
    """A bar chart's description: one bar per label, the highlighted one drawn apart."""
    rounded = [round(float(v), DIGITS) for v in values]
    return {"kind": "bars", "labels": list(labels), "values": rounded, "highlight": highlight}


# --- the lab ------------------------------------------------------------------------------------

TRAINED = model_config()
# A lab question's settings are a view of the lab: what it computes on and the row, checked
# with the lab's own declaration (its bounds, choices and rules), its defaults the lab's.
LAB_FIELDS = {
    name: spec
    for name, spec in LabParams.specs().items()
    if name in {f.name for f in dataclasses.fields(Computing)} | {"row"}
}
LAB_DEFAULTS: dict[str, Any] = {name: getattr(VIEW, name) for name in LAB_FIELDS}


@dataclass(frozen=True)
class LabRow:
    """The selected row of a lab view, as asked and with ÷√d switched."""

    tokens: tuple[str, ...]  # (n,)
    weights: np.ndarray  # (n,), the row's weights as the view computes them; sums to 1
    contrast: np.ndarray  # (n,), the same row with ÷√d switched; sums to 1
    logits: np.ndarray  # (n,), what enters softmax (÷√d or not, ÷T), -inf where masked
    contrast_logits: np.ndarray  # (n,), the same with ÷√d switched
    d: int  # the view's d (the model's d_model when trained)


def lab_row(settings: dict[str, Any]) -> LabRow:
    """The lab's tokens and the selected row, scaled as asked and switched, at these settings."""
    heads = TRAINED.heads if settings["source"] == "trained" else settings["heads"]
    if settings["source"] != "trained" and settings["d"] % heads:
        raise Invalid("heads_divide", d=settings["d"])
    if settings["head"] >= heads:
        raise Invalid("head_range", high=heads - 1)
    lab = {name: value for name, value in settings.items() if name != "row"}
    result = run_lab(**lab)
    row, n = settings["row"], len(result.tokens)
    if row >= n:
        raise Invalid("row_past", row=row, n=n, high=n - 1)
    weights = result.steps.weights[row]
    if not weights.sum() > 0:
        raise Invalid("row_empty", row=row)
    steps, contrast = result.steps, result.contrast
    return LabRow(result.tokens, weights, contrast.weights[row], steps.masked[row],
                  contrast.masked[row], result.d)  # fmt: skip


def lab_args(settings: dict[str, Any], tokens: Sequence[str], d: int) -> dict[str, str]:
    """The lab prompts' arguments: the row's token, its number and the token of row 0 (rows
    count from 0: [CLS] with the special tokens), and the setup in each language."""
    token, first = tokens[settings["row"]], tokens[0]
    zh = [f"d = {d:,}", "除以 √d" if settings["scale"] else "不除以 √d"]
    en = [f"d = {d:,}", "divided by √d" if settings["scale"] else "not divided by √d"]
    if settings["mask"] != "none":
        zh.append({"causal": "因果掩码", "padding": "填充掩码"}[settings["mask"]])
        en.append(f"{settings['mask']} mask")
    if settings["source"] == "trained":
        zh.append(f"训练好的模型第 {settings['layer']} 层第 {settings['head']} 个头")
        en.append(f"the trained model, layer {settings['layer']}, head {settings['head']}")
    elif settings["heads"] > 1:
        zh.append(f"第 {settings['head']} 个头（共 {settings['heads']} 个）")
        en.append(f"head {settings['head']} of {settings['heads']}")
    if settings["source"] == "random":
        zh.append(f"随机种子 {settings['seed']}")
        en.append(f"seed {settings['seed']}")
    return {
        "token": token,
        "row": str(settings["row"]),
        "first": first,
        "d": f"{d:,}",
        "setup_zh": "，".join(zh),
        "setup_en": ", ".join(en),
    }


def lab_top_key(settings: dict[str, Any]) -> Truth:
    """Which key takes the largest weight in the selected row."""
    found = lab_row(settings)
    options = unique_labels(found.tokens)
    best = int(np.argmax(found.weights))
    args = lab_args(settings, found.tokens, found.d)
    return choice_truth(options[best], options, args, lab_chart(settings, found))


WEIGHT_EDGES: tuple[float | None, ...] = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)


def lab_top_weight(settings: dict[str, Any]) -> Truth:
    """How much weight the selected row's largest key takes."""
    found = lab_row(settings)
    best = int(np.argmax(found.weights))
    args = lab_args(settings, found.tokens, found.d)
    chart = lab_chart(settings, found)
    return number_truth(min(float(found.weights[best]), 1.0), WEIGHT_EDGES, args, chart)


def lab_chart(settings: dict[str, Any], found: LabRow) -> dict[str, Any]:
    """The row's weights beside the same row with ÷√d switched, and why the top key wins: its
    score entering softmax and its lead over the next key, each way."""
    labels = unique_labels(found.tokens)
    best = int(np.argmax(found.weights))
    shown, other = ("scaled", "raw") if settings["scale"] else ("raw", "scaled")
    chart = bars(labels, found.weights, best) | {"series": shown}
    contrast = bars(labels, found.contrast, best) | {"series": other}
    allowed = np.flatnonzero(np.isfinite(found.logits))
    args = {"token": found.tokens[settings["row"]], "key": labels[best],
            "weight": f"{found.weights[best]:.3f}"}  # fmt: skip
    if len(allowed) < 2:
        return chart | {"why": {"text": "lab_row_alone", "args": args}, "contrast": contrast}
    runner = max((j for j in allowed if j != best), key=lambda j: found.logits[j])
    args |= {
        "runner": labels[runner],
        "score": f"{found.logits[best]:.2f}",
        "gap": f"{found.logits[best] - found.logits[runner]:.2f}",
        "contrast_gap": f"{found.contrast_logits[best] - found.contrast_logits[runner]:.2f}",
        "contrast_weight": f"{found.contrast[best]:.3f}",
    }
    return chart | {"why": {"text": "lab_row", "args": args}, "contrast": contrast}


# --- /scaling and /softmax ----------------------------------------------------------------------


def spread_edges(d: int) -> tuple[float | None, ...]:
    """Bins around √d: 0, √d/2, 0.8√d, 1.25√d, 2√d (two significant digits), then open."""
    root = math.sqrt(d)
    return (0.0, *(float(f"{f * root:.2g}") for f in (0.5, 0.8, 1.25, 2.0)), None)


def score_std(settings: dict[str, Any]) -> Truth:
    """The standard deviation σ of q·k for random q, k in d dimensions; beside it the theory
    √d, and the same samples ÷√d (σ about 1)."""
    d = settings["d"]
    dots = sample_dot_products(d, settings["samples"], "normal", settings["seed"])
    root = math.sqrt(d)
    sigma, scaled_sigma = float(dots.std()), float((dots / root).std())
    chart = histogram(dots, sigma, root, f"√{d:,} = {root:.2f}") | {"series": "raw"}
    contrast = histogram(dots / root, scaled_sigma, 1.0, "1") | {"series": "scaled"}
    args = {"d": f"{d:,}", "samples": f"{settings['samples']:,}", "theory": f"{root:.2f}",
            "sigma": f"{sigma:.2f}", "scaled_sigma": f"{scaled_sigma:.2f}"}  # fmt: skip
    chart |= {"why": {"text": "score_std", "args": args}, "contrast": contrast | {"axis": "q·k/√d"}}
    return number_truth(sigma, spread_edges(d), {"d": args["d"], "samples": args["samples"]}, chart)


def histogram(values: np.ndarray, sigma: float, theory: float, theory_text: str) -> dict[str, Any]:
    """A histogram's description (30 bins), its measured σ and the theory's, as a number and as
    the formula that gives it."""
    counts, edges = np.histogram(values, bins=30)
    return {
        "kind": "histogram",
        "edges": [round(float(e), 4) for e in edges],
        "counts": [int(c) for c in counts],
        "mark": round(sigma, 4),
        "theory": round(theory, 4),
        "theory_text": theory_text,
    }


SHARE_EDGES: tuple[float | None, ...] = (0.0, 0.4, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.9, 1.0)


def softmax_top(settings: dict[str, Any]) -> Truth:
    """The largest probability softmax gives these scores; beside them, the e^x it divides."""
    values = settings["values"]
    probs = softmax(values)
    best = int(np.argmax(probs))
    labels = [f"{v:g}" for v in values]
    args = {"values": ", ".join(labels)}
    chart = bars(labels, probs, best) | exps_parts(values, best)
    return number_truth(float(probs[best]), SHARE_EDGES, args, chart)


def exps_parts(values: Sequence[float], best: int) -> dict[str, Any]:
    """Softmax's work shown: e^x of each score beside the probabilities, and why the largest
    is what it is (its e^x over the sum)."""
    exps = np.exp(np.asarray(values, dtype=float))
    total = float(exps.sum())
    labels = [f"{v:g}" for v in values]
    args = {"top": labels[best], "exp": f"{exps[best]:.4g}", "total": f"{total:.4g}",
            "value": f"{exps[best] / total:.3f}", "scores": ", ".join(labels),
            "exps": ", ".join(f"{e:.4g}" for e in exps),
            "probs": ", ".join(f"{e / total:.3f}" for e in exps)}  # fmt: skip
    contrast = bars(labels, exps, best) | {"series": "exps"}
    return {"series": "probs", "why": {"text": "softmax", "args": args}, "contrast": contrast}


# --- the trained models -------------------------------------------------------------------------


def model_fill(settings: dict[str, Any]) -> Truth:
    """The character the trained model puts first where the sentence says [MASK]."""
    guesses = fill_mask(settings["text"], top=5)
    labels = [character for character, _ in guesses]
    chart = bars(labels, [p for _, p in guesses], 0)
    runner = guesses[1] if len(guesses) > 1 else guesses[0]
    why = {"answer": labels[0], "p": f"{guesses[0][1]:.3f}", "runner": runner[0],
           "runner_p": f"{runner[1]:.3f}"}  # fmt: skip
    chart["why"] = {"text": "model_fill", "args": why}
    args = {"text": settings["text"]}
    return Truth(labels[0], None, (), {lang: () for lang in LANGS}, (), args, chart)


TRANSLATOR = translator_config()


def translator_word(settings: dict[str, Any]) -> Truth:
    """The English word the translator reads most while it writes the row's character: its
    cross-attention of one decoder layer, averaged over the heads (row i writes character i);
    beside it, the same row in the other decoder layer."""
    run = align(settings["english"], settings["chinese"])
    row, n = settings["row"], len(run.target_tokens) - 1
    if row >= n:
        raise Invalid("row_past_chars", row=row, n=n, high=n - 1)
    layer = settings["layer"]
    other = (layer + 1) % len(run.cross)  # the other decoder layer (the shipped model has 2)
    weights = np.mean(run.cross[layer], axis=0)[row]  # (S,), rows sum to 1
    elsewhere = np.mean(run.cross[other], axis=0)[row]  # (S,)
    options = unique_labels(run.source_tokens)
    best = int(np.argmax(weights))
    runner = int(np.argsort(-weights, kind="stable")[1]) if len(weights) > 1 else best
    why = {"char": run.target_tokens[row], "word": options[best], "weight": f"{weights[best]:.3f}",
           "runner": options[runner], "runner_weight": f"{weights[runner]:.3f}",
           "layer": str(layer + 1), "other_layer": str(other + 1),
           "other_weight": f"{elsewhere[best]:.3f}"}  # fmt: skip
    chart = bars(options, weights, best) | {"series": "layer"}
    chart |= {
        "series_args": {"layer": why["layer"]},
        "why": {"text": "translator_word", "args": why},
    }
    if other != layer:
        contrast = bars(options, elsewhere, int(np.argmax(elsewhere)))
        chart["contrast"] = contrast | {"series": "layer", "series_args": {"layer": str(other + 1)}}
    args = {"char": run.target_tokens[row], "english": settings["english"]}
    return choice_truth(options[best], options, args, chart)


# --- the articles' three questions --------------------------------------------------------------

LETTERS = ("A", "B", "C", "D")
# The article's printed scores of 喜's row, and its divisor √64 = 8: the data it asks about.
XI_TOKENS = ("我", "喜", "欢", "人", "工", "智", "能", "[CLS]", "[SEP]")
XI_ROW = (15.3, 22.7, 18.2, 2.1, 1.8, 3.2, 2.9, 5.6, 4.1)
XI_DIVISOR = 8.0
WHY_SCALE = {
    "zh": (
        "点积的方差随 d_k 增大；不缩放时 softmax 接近 one-hot，梯度消失，模型学不动",
        "为了让注意力权重加起来等于 1",
        "为了让矩阵乘法算得更快",
        "为了去掉负的分数",
    ),
    "en": (
        "The dot product's variance grows with d_k; unscaled, softmax turns nearly one-hot, the "
        "gradients vanish and the model cannot learn",
        "To make the attention weights add up to 1",
        "To make the matrix product faster",
        "To get rid of negative scores",
    ),
}
SOFTMAX_OPS = {
    "zh": (
        "取最大值，再从每个分数中减去它",
        "取指数 exp 放大差距，再除以总和归一化",
        "先平方，再开平方根",
        "排序，只保留最大的那个",
    ),
    "en": (
        "Take the largest score and subtract it from each",
        "exp magnifies the gaps, then dividing by the sum normalises",
        "Square, then take the square root",
        "Sort, and keep only the largest",
    ),
}
SATURATION_DS = (16, 64, 256, 1024, 4096)
SATURATION_N, SATURATION_TRIALS = 9, 200  # keys per random row, rows averaged


def why_scale(settings: dict[str, Any]) -> Truth:
    """Q1: the variance argument, shown by the mean largest softmax weight against d."""
    run = saturation(SATURATION_DS, n=SATURATION_N, trials=SATURATION_TRIALS, seed=0)
    args = {"trials": str(SATURATION_TRIALS), "n": str(SATURATION_N), "d": f"{run.ds[-1]:,}",
            "raw": f"{run.max_raw[-1]:.3f}", "scaled": f"{run.max_scaled[-1]:.3f}"}  # fmt: skip
    chart = {
        "kind": "compare",
        "labels": [f"d = {d}" for d in run.ds],
        "raw": [round(float(v), DIGITS) for v in run.max_raw],
        "scaled": [round(float(v), DIGITS) for v in run.max_scaled],
        "why": {"text": "why_scale", "args": args},
    }
    return Truth("A", None, LETTERS, dict(WHY_SCALE), (), {}, chart)


SOFTMAX_EXAMPLE = (2.0, 1.0, 0.1)  # the article's scores


def softmax_ops(settings: dict[str, Any]) -> Truth:
    """Q2: exp, then divide by the sum; shown on the article's [2, 1, 0.1]."""
    breakdown = softmax_breakdown(list(SOFTMAX_EXAMPLE))
    best = int(np.argmax(breakdown.probs))
    chart = bars([f"{v:g}" for v in SOFTMAX_EXAMPLE], breakdown.probs, best)
    chart["exps"] = [round(float(e), DIGITS) for e in breakdown.naive_exps]  # e^2 = 7.389, …
    chart["total"] = round(float(breakdown.naive_total), DIGITS)
    chart |= exps_parts(SOFTMAX_EXAMPLE, best)
    chart["why"] = {"text": "softmax_ops", "args": chart["why"]["args"]}
    return Truth("B", None, LETTERS, dict(SOFTMAX_OPS), (), {}, chart)


def xi_share(settings: dict[str, Any]) -> Truth:
    """Q3: whose value takes the largest share of 喜's new vector, by the article's own row;
    beside it, the same row without ÷8."""
    weights = softmax_breakdown(XI_ROW, XI_DIVISOR).probs
    raw = softmax(list(XI_ROW))
    best = int(np.argmax(weights))
    runner = int(np.argsort(-np.asarray(XI_ROW), kind="stable")[1])
    args = {"key": XI_TOKENS[best], "score": f"{XI_ROW[best]:g}", "divisor": f"{XI_DIVISOR:g}",
            "scaled": f"{XI_ROW[best] / XI_DIVISOR:.2f}", "runner": XI_TOKENS[runner],
            "runner_score": f"{XI_ROW[runner]:g}",
            "runner_scaled": f"{XI_ROW[runner] / XI_DIVISOR:.2f}",
            "weight": f"{weights[best]:.3f}", "raw_weight": f"{raw[best]:.3f}"}  # fmt: skip
    chart = bars(XI_TOKENS, weights, best) | {"series": "scaled"}
    chart["contrast"] = bars(XI_TOKENS, raw, int(np.argmax(raw))) | {"series": "raw"}
    chart["why"] = {"text": "xi_share", "args": args}
    return choice_truth(XI_TOKENS[best], XI_TOKENS, {}, chart)


# --- the registry -------------------------------------------------------------------------------

ENGLISH = "I like artificial intelligence."
SCORE_STD_FIELDS = {
    "d": Spec("integer", D_MIN, D_MAX),
    "samples": Spec("integer", 500, 5000),
    "seed": Spec("integer", 0, SEED_MAX),
}
TRANSLATOR_FIELDS = {
    "english": Spec("text", max_chars=200),
    "chinese": Spec("text", max_chars=40),
    "row": Spec("integer", 0, TRANSLATOR.max_target),
    "layer": Spec("integer", 0, TRANSLATOR.decoder_layers - 1),
}
TRANSLATOR_DEFAULTS = {
    "english": ENGLISH,
    "chinese": DEFAULT_TEXT,
    "row": 1,  # the step that writes 喜
    "layer": TRANSLATOR.decoder_layers - 1,
}

QUESTIONS: dict[str, Question] = {
    q.id: q
    for q in (
        Question(
            id="lab_top_key",
            kind="choice",
            page="lab",
            prompt={
                "zh": "在这个视图里（{setup}），“{token}”这一行（第 {row} 行；第 0 行是“{first}”）"
                "中，哪个键的权重最大？",
                "en": "In this view ({setup}), which key gets the largest weight in the row of "
                "“{token}” (row {row}; row 0 is “{first}”)?",
            },
            defaults=LAB_DEFAULTS,
            fields=LAB_FIELDS,
            compute=lab_top_key,
        ),
        Question(
            id="lab_top_weight",
            kind="number",
            page="lab",
            prompt={
                "zh": "在这个视图里（{setup}），“{token}”这一行中权重最大的那个键拿到多少权重？"
                "（0 到 1）",
                "en": "In this view ({setup}), how much weight does the top key of the row of "
                "“{token}” get? (0 to 1)",
            },
            defaults={**LAB_DEFAULTS, "d": 1536, "scale": False},
            fields=LAB_FIELDS,
            compute=lab_top_weight,
        ),
        Question(
            id="score_std",
            kind="number",
            page="scaling",
            prompt={
                "zh": "q 和 k 的每个分量都取自标准正态分布，d = {d}。q·k 的标准差 σ 大约是多少？",
                "en": "Every entry of q and k is drawn from a standard normal distribution, "
                "d = {d}. About how large is the standard deviation σ of q·k?",
            },
            defaults={"d": 1536, "samples": 4000, "seed": 0},
            fields=SCORE_STD_FIELDS,
            compute=score_std,
        ),
        Question(
            id="softmax_top",
            kind="number",
            page="softmax",
            prompt={
                "zh": "softmax([{values}]) 中最大的那个概率是多少？",
                "en": "What is the largest probability in softmax([{values}])?",
            },
            defaults={"values": [2.0, 1.0, 0.1]},
            fields={"values": Spec("numbers", -100, 100)},
            compute=softmax_top,
        ),
        Question(
            id="model_fill",
            kind="character",
            page="model",
            prompt={
                "zh": "训练好的模型会在 {text} 的 [MASK] 处填哪个字？",
                "en": "Which character does the trained model put at [MASK] in {text}?",
            },
            defaults={"text": "我喜[MASK]人工智能"},
            fields={"text": Spec("text", max_chars=64)},
            compute=model_fill,
        ),
        Question(
            id="translator_word",
            kind="choice",
            page="variants",
            prompt={
                "zh": "翻译模型把 “{english}” 译成中文，写“{char}”这个字时，它最关注哪个英文词？",
                "en": "The translator turns “{english}” into Chinese. While it writes “{char}”, "
                "which English word does it read most?",
            },
            defaults=TRANSLATOR_DEFAULTS,
            fields=TRANSLATOR_FIELDS,
            compute=translator_word,
        ),
        Question(
            id="article_why_scale",
            kind="choice",
            page="quiz",
            prompt={
                "zh": "为什么 Softmax 前要除以 √d_k？",
                "en": "Why divide by √d_k before softmax?",
            },
            defaults={},
            fields={},
            compute=why_scale,
        ),
        Question(
            id="article_softmax_ops",
            kind="choice",
            page="quiz",
            prompt={
                "zh": "Softmax 的两个关键操作分别是什么？",
                "en": "What are softmax's two key operations?",
            },
            defaults={},
            fields={},
            compute=softmax_ops,
        ),
        Question(
            id="article_xi_share",
            kind="choice",
            page="quiz",
            prompt={
                "zh": "加权求和后，“喜”的新向量里谁的信息占比最大？"
                "（用文章印出的“喜”那一行分数，除以 8 后做 softmax）",
                "en": "After the weighted sum, whose information takes the largest share of the "
                "new vector of “喜”? (Take the article's printed row of 喜, divide by 8, apply "
                "softmax.)",
            },
            defaults={},
            fields={},
            compute=xi_share,
        ),
    )
}
