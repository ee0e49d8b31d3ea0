"""The class page's store, shared by every session of the server, the questions' default truths,
and what a session keeps of its class (the room it teaches, a view the lab hands over); and
what the projector and the phones both say at a reveal: why, in a sentence, and the link to the
app's view behind the question."""

import functools
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlencode

import streamlit as st

from classroom import QUESTIONS, Store, Truth, default_url
from classroom.questions import SOFTMAX_EXAMPLE, XI_DIVISOR, XI_ROW
from ui.kit import state
from ui.kit.text import STRINGS, t
from ui.lab.settings import LabParams
from ui.model.settings import MAX_CHARS, ModelParams
from ui.scaling.settings import ScalingParams
from ui.softmax.settings import SoftmaxParams
from ui.variants.settings import VariantsParams
from viz_core import tokenize
from viz_core.settings import Settings

# (room, key) this session teaches: set when a teacher's link opened, kept while it lives.
TEACHING = state.Slot("classroom", "teaching", ("", ""))
# The lab's settings and row that "Ask the class about this view" handed to the class page.
LAB_VIEW: state.Slot[dict[str, Any]] = state.Slot("classroom", "lab_view", {})


@st.cache_resource
def store() -> Store:
    """One store for the server: its connection pool is shared by every session."""
    return Store(default_url())


@functools.cache  # bounded: one small entry per question of QUESTIONS, a few kB in all
def default_truth(question_id: str) -> Truth:
    """A question's truth at its own settings (the picker's prompts name their row, d, …)."""
    return QUESTIONS[question_id].truth()


def teaching(room: str) -> str | None:
    """The teacher's key when this session teaches ``room``, else None."""
    taught, key = TEACHING.get()
    return key if room and taught == room else None


# --- a reveal: why, and the view behind it ------------------------------------------------------


def why_text(chart: Mapping[str, Any] | None, lang: str) -> str:
    """The reveal's sentence saying why the truth is what it is, from the numbers stored with it
    (``chart["why"]``); "" for a truth stored before reveals said why."""
    why = (chart or {}).get("why")
    if not isinstance(why, Mapping) or f"cl_why_{why.get('text')}" not in STRINGS:
        return ""
    contrast = (chart or {}).get("contrast") or {}
    when = f"cl_when_{contrast.get('series')}"
    extra = {"contrast_when": t(when, lang)} if when in STRINGS else {}
    try:
        return t(f"cl_why_{why['text']}", lang, **{**dict(why.get("args", {})), **extra})
    except (KeyError, IndexError, ValueError):  # args of another version: say nothing
        return ""


def series_text(chart: Mapping[str, Any], lang: str) -> str:
    """What a reveal's figure shows (÷√d, not ÷√d, a decoder layer, e^x …); "" when unsaid."""
    key = f"cl_series_{chart.get('series')}"
    return t(key, lang, **dict(chart.get("series_args", {}))) if key in STRINGS else ""


Views = tuple[str, tuple[Settings, ...]]  # an app page's path and the settings its link carries


def _numbers(values: Any) -> str:
    """Scores as the softmax page's box writes them: 2, 1, 0.1."""
    return ", ".join(f"{float(v):g}" for v in values)


def _lab(settings: dict[str, Any], answer: str | None) -> Views:
    """The lab at the question's view: what it computes on, and the row."""
    return "/", (LabParams(**{k: v for k, v in settings.items() if k in LabParams.specs()}),)


def _model(settings: dict[str, Any], answer: str | None) -> Views:
    """The model page's fill-in-the-blank: the sentence with the model's guess where [MASK]
    was, and that character masked (a sentence without [MASK] keeps its own)."""
    text = settings["text"]
    before, mask, after = text.partition("[MASK]")
    if not mask:
        return "/model", (ModelParams(text=text),)
    at = min(len(tokenize(before, special_tokens=False)), MAX_CHARS - 1)
    return "/model", (ModelParams(text=before + (answer or "") + after, mask_at=at),)


def _translator(settings: dict[str, Any], answer: str | None) -> Views:
    """The variants page's cross-attention of the translator, on the lab's row of the character
    written (the lab's rows start with [CLS]; the translator's with the first character)."""
    lab = LabParams(text=settings["chinese"], row=settings["row"] + 1)
    cross = VariantsParams(variant="cross", text_b=settings["english"], cross_source="trained",
                           cross_layer=settings["layer"], cross_head="mean")  # fmt: skip
    return "/variants", (lab, cross)


VIEWS: dict[str, Callable[[dict[str, Any], str | None], Views]] = {
    "lab_top_key": _lab,
    "lab_top_weight": _lab,
    "score_std": lambda s, _: ("/scaling", (ScalingParams(d=s["d"], section="histogram"),)),
    "softmax_top": lambda s, _: ("/softmax", (SoftmaxParams(values=_numbers(s["values"])),)),
    "model_fill": _model,
    "translator_word": _translator,
    "article_why_scale": lambda s, _: ("/scaling", (ScalingParams(section="saturation"),)),
    "article_softmax_ops": lambda s, _: (
        "/softmax", (SoftmaxParams(values=_numbers(SOFTMAX_EXAMPLE)),)
    ),
    "article_xi_share": lambda s, _: (
        "/softmax", (SoftmaxParams(values=_numbers(XI_ROW), divisor=XI_DIVISOR),)
    ),
}  # fmt: skip


def view_link(
    question_id: str, settings: Mapping[str, Any] | None, lang: str, answer: str | None = None
) -> str:
    """The app's own link (as the page writes it for itself, in ``lang``) to the view behind a
    question asked at ``settings``; ``answer`` is the revealed one (the model's guess fills
    its blank). A path of this server: no room, token or key."""
    question = QUESTIONS[question_id]
    if question_id not in VIEWS:
        return f"/{question.page}?{urlencode({'lang': lang})}"
    path, views = VIEWS[question_id](question.settings(settings), answer)
    query: dict[str, str] = {}
    for view in views:
        query |= view.to_query()
    return f"{path}?{urlencode(query | {'lang': lang})}"
