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
        return self.prompt[lang].format(**plain)

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


def lab_row(settings: dict[str, Any]) -> tuple[tuple[str, ...], np.ndarray, int]:
    """The lab's tokens, the selected row's weights and its effective d, at these settings."""
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
    return result.tokens, weights, result.d


def lab_args(settings: dict[str, Any], token: str, d: int) -> dict[str, str]:
    """The lab prompts' arguments: the row's token and number, and the setup in each language."""
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
        "d": f"{d:,}",
        "setup_zh": "，".join(zh),
        "setup_en": ", ".join(en),
    }


def lab_top_key(settings: dict[str, Any]) -> Truth:
    """Which key takes the largest weight in the selected row."""
    tokens, weights, d = lab_row(settings)
    options = unique_labels(tokens)
    best = int(np.argmax(weights))
    args = lab_args(settings, tokens[settings["row"]], d)
    return choice_truth(options[best], options, args, bars(options, weights, best))


WEIGHT_EDGES: tuple[float | None, ...] = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)


def lab_top_weight(settings: dict[str, Any]) -> Truth:
    """How much weight the selected row's largest key takes."""
    tokens, weights, d = lab_row(settings)
    best = int(np.argmax(weights))
    args = lab_args(settings, tokens[settings["row"]], d)
    chart = bars(unique_labels(tokens), weights, best)
    return number_truth(min(float(weights[best]), 1.0), WEIGHT_EDGES, args, chart)


# --- /scaling and /softmax ----------------------------------------------------------------------


def spread_edges(d: int) -> tuple[float | None, ...]:
    """Bins around √d: 0, √d/2, 0.8√d, 1.25√d, 2√d (two significant digits), then open."""
    root = math.sqrt(d)
    return (0.0, *(float(f"{f * root:.2g}") for f in (0.5, 0.8, 1.25, 2.0)), None)


def score_std(settings: dict[str, Any]) -> Truth:
    """The standard deviation σ of q·k for random q, k in d dimensions."""
    d = settings["d"]
    dots = sample_dot_products(d, settings["samples"], "normal", settings["seed"])
    sigma = float(dots.std())
    counts, edges = np.histogram(dots, bins=30)
    chart = {
        "kind": "histogram",
        "edges": [round(float(e), 4) for e in edges],
        "counts": [int(c) for c in counts],
        "mark": round(sigma, 4),
    }
    args = {"d": f"{d:,}", "samples": f"{settings['samples']:,}"}
    return number_truth(sigma, spread_edges(d), args, chart)


SHARE_EDGES: tuple[float | None, ...] = (0.0, 0.4, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.9, 1.0)


def softmax_top(settings: dict[str, Any]) -> Truth:
    """The largest probability softmax gives these scores."""
    values = settings["values"]
    probs = softmax(values)
    best = int(np.argmax(probs))
    labels = [f"{v:g}" for v in values]
    args = {"values": ", ".join(labels)}
    return number_truth(float(probs[best]), SHARE_EDGES, args, bars(labels, probs, best))


# --- the trained models -------------------------------------------------------------------------


def model_fill(settings: dict[str, Any]) -> Truth:
    """The character the trained model puts first where the sentence says [MASK]."""
    guesses = fill_mask(settings["text"], top=5)
    labels = [character for character, _ in guesses]
    chart = bars(labels, [p for _, p in guesses], 0)
    args = {"text": settings["text"]}
    return Truth(labels[0], None, (), {lang: () for lang in LANGS}, (), args, chart)


TRANSLATOR = translator_config()


def translator_word(settings: dict[str, Any]) -> Truth:
    """The English word the translator reads most while it writes the row's character: its
    cross-attention of one decoder layer, averaged over the heads (row i writes character i)."""
    run = align(settings["english"], settings["chinese"])
    row, n = settings["row"], len(run.target_tokens) - 1
    if row >= n:
        raise Invalid("row_past_chars", row=row, n=n, high=n - 1)
    weights = np.mean(run.cross[settings["layer"]], axis=0)[row]  # (S,), rows sum to 1
    options = unique_labels(run.source_tokens)
    best = int(np.argmax(weights))
    args = {"char": run.target_tokens[row], "english": settings["english"]}
    return choice_truth(options[best], options, args, bars(options, weights, best))


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


def why_scale(settings: dict[str, Any]) -> Truth:
    """Q1: the variance argument, shown by the mean largest softmax weight against d."""
    run = saturation(SATURATION_DS, n=9, trials=200, seed=0)
    chart = {
        "kind": "compare",
        "labels": [f"d = {d}" for d in run.ds],
        "raw": [round(float(v), DIGITS) for v in run.max_raw],
        "scaled": [round(float(v), DIGITS) for v in run.max_scaled],
    }
    return Truth("A", None, LETTERS, dict(WHY_SCALE), (), {}, chart)


def softmax_ops(settings: dict[str, Any]) -> Truth:
    """Q2: exp, then divide by the sum; shown on the article's [2, 1, 0.1]."""
    breakdown = softmax_breakdown([2.0, 1.0, 0.1])
    best = int(np.argmax(breakdown.probs))
    chart = bars(["2", "1", "0.1"], breakdown.probs, best)
    chart["exps"] = [round(float(e), DIGITS) for e in breakdown.naive_exps]  # e^2 = 7.389, …
    chart["total"] = round(float(breakdown.naive_total), DIGITS)
    return Truth("B", None, LETTERS, dict(SOFTMAX_OPS), (), {}, chart)


def xi_share(settings: dict[str, Any]) -> Truth:
    """Q3: whose value takes the largest share of 喜's new vector, by the article's own row."""
    weights = softmax_breakdown(XI_ROW, XI_DIVISOR).probs
    best = int(np.argmax(weights))
    return choice_truth(XI_TOKENS[best], XI_TOKENS, {}, bars(XI_TOKENS, weights, best))


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
                "zh": "在这个视图里（{setup}），“{token}”这一行（第 {row} 行）中，"
                "哪个键的权重最大？",
                "en": "In this view ({setup}), which key gets the largest weight in the row of "
                "“{token}” (row {row})?",
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
