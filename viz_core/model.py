"""The shipped character model: a 2-layer, 4-head masked language model of Chinese, in numpy.

Trained by ``training/train_mlm.py`` (PyTorch) on the Chinese side of the Tatoeba pairs; this is
the same forward pass read top to bottom, every head computed by ``viz_core.attention``:

    x = token embedding + position embedding
    for each block:  x = x + W_o · concat_h attention(q_h, k_h, v_h)   with q, k, v from LN(x)
                     x = x + W_down · gelu(W_up · LN(x))
    logits = LN(x) · Eᵀ + b   (the output reuses the token embedding E)
"""

import json
import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from viz_core.attention import ONE_HOT, AttentionSteps, attention, softmax
from viz_core.tokenize import CLS, SEP, tokenize

FloatArray = npt.NDArray[np.float64]
MODELS = Path(__file__).resolve().parent / "models"
MASK, UNK = "[MASK]", "[UNK]"
SPECIAL_IDS = 5  # [PAD] [UNK] [CLS] [SEP] [MASK] come first in the vocabulary
LN_EPS = 1e-5


@dataclass(frozen=True)
class ModelConfig:
    """The model's shape, as trained."""

    layers: int
    heads: int
    d_model: int
    d_ff: int
    max_len: int  # positions, [CLS] and [SEP] included
    vocab_size: int

    @property
    def d_k(self) -> int:
        return self.d_model // self.heads


@dataclass(frozen=True)
class Model:
    """Weights (float64, read-only), vocabulary and the training record."""

    config: ModelConfig
    vocab: tuple[str, ...]
    index: dict[str, int]
    weights: dict[str, FloatArray]
    record: dict[str, Any]


@dataclass(frozen=True)
class ModelRun:
    """One sentence through the model, every head's attention kept."""

    tokens: tuple[str, ...]  # as typed ([CLS] … [SEP] when special); cut to the model's length
    ids: tuple[int, ...]  # vocabulary ids; [UNK] for characters the model never saw
    unknown: tuple[str, ...]  # the typed characters that ran as [UNK]
    dropped: int  # characters cut off after the model's last position
    layers: tuple[tuple[AttentionSteps, ...], ...]  # [layer][head]: q, k, v (n, d_k), weights…
    logits: FloatArray  # (n, vocab_size)


@cache
def load_model() -> Model:
    """The shipped weights, loaded once per process (about 18 MB as float64)."""
    record = json.loads((MODELS / "mlm_record.json").read_text(encoding="utf-8"))
    vocab = tuple((MODELS / "mlm_vocab.txt").read_text(encoding="utf-8").split("\n")[:-1])
    config = model_config()
    with np.load(MODELS / "mlm_weights.npz") as stored:
        weights = {name: _read_only(stored[name]) for name in stored.files}
    index = {token: i for i, token in enumerate(vocab)}
    return Model(config=config, vocab=vocab, index=index, weights=weights, record=record)


def _read_only(array: npt.NDArray[Any]) -> FloatArray:
    out = array.astype(np.float64)
    out.setflags(write=False)
    return out


def model_tokens(text: str, special: bool = True) -> list[str]:
    """One token per character, ``[MASK]`` kept whole; ``[CLS]``/``[SEP]`` around if special."""
    pieces = text.split(MASK)
    tokens: list[str] = []
    for i, piece in enumerate(pieces):
        tokens += tokenize(piece, special_tokens=False)
        if i < len(pieces) - 1:
            tokens.append(MASK)
    return [CLS, *tokens, SEP] if special else tokens


def run_model(text: str, special: bool = True, model: Model | None = None) -> ModelRun:
    """Run ``text`` through the model; every head's steps and the logits of every position.

    Example:
        >>> run = run_model("我喜欢人工智能")
        >>> run.tokens[:3], len(run.layers), len(run.layers[0])
        (('[CLS]', '我', '喜'), 2, 4)
    """
    model = model or load_model()
    tokens = model_tokens(text, special)
    content = len(tokens) - (2 if special else 0)
    keep = model.config.max_len - (2 if special else 0)
    if not content:
        raise ValueError("Type at least one character for the model to read.")
    dropped = max(0, content - keep)
    if dropped:
        tokens = [*tokens[: len(tokens) - dropped - 1], SEP] if special else tokens[:keep]
    return run_tokens(tokens, model, dropped)


def run_tokens(tokens: list[str], model: Model | None = None, dropped: int = 0) -> ModelRun:
    """Run tokens as they are (at most the model's length): characters, [CLS], [SEP], [PAD]…"""
    model = model or load_model()
    if not 0 < len(tokens) <= model.config.max_len:
        raise ValueError(f"The model reads 1 to {model.config.max_len} tokens.")
    ids = [model.index.get(token, model.index[UNK]) for token in tokens]
    unknown = tuple(dict.fromkeys(tok for tok, i in zip(tokens, ids, strict=True) if i == 1))
    x, layers = _forward(model, np.asarray(ids))
    logits = _layer_norm(x, model.weights, "ln_f") @ model.weights["tokens.weight"].T
    logits = logits + model.weights["bias"]
    logits.setflags(write=False)
    return ModelRun(tuple(tokens), tuple(ids), unknown, dropped, layers, logits)


def unknown_characters(tokens: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """The tokens the model never saw (it reads them as [UNK]), each once, in order."""
    index = load_model().index
    return tuple(dict.fromkeys(token for token in tokens if token not in index))


@cache
def model_config() -> ModelConfig:
    """The shipped model's shape, from its record alone (no weights loaded)."""
    record = json.loads((MODELS / "mlm_record.json").read_text(encoding="utf-8"))
    fields = {k: v for k, v in record["config"].items() if k in ModelConfig.__dataclass_fields__}
    return ModelConfig(**fields)


def _forward(
    model: Model, ids: npt.NDArray[np.int64]
) -> tuple[FloatArray, tuple[tuple[AttentionSteps, ...], ...]]:
    """The blocks: the residual stream after the last, and every head's attention steps."""
    w = model.weights
    x = w["tokens.weight"][ids] + w["positions.weight"][: len(ids)]  # (n, d_model)
    layers = []
    for layer in range(model.config.layers):
        x, heads = _block(x, w, f"blocks.{layer}.", model.config.heads)
        layers.append(heads)
    return x, tuple(layers)


def _block(
    x: FloatArray, w: dict[str, FloatArray], name: str, heads: int
) -> tuple[FloatArray, tuple[AttentionSteps, ...]]:
    """x + attention(LN(x)), then x + MLP(LN(x)); the heads' steps."""
    qkv = _layer_norm(x, w, name + "ln1") @ w[name + "qkv.weight"].T + w[name + "qkv.bias"]
    q, k, v = np.split(qkv, 3, axis=1)  # each (n, d_model)
    d_k = q.shape[1] // heads
    steps = tuple(
        attention(q[:, cols], k[:, cols], v[:, cols])
        for cols in (slice(h * d_k, (h + 1) * d_k) for h in range(heads))
    )
    y = np.concatenate([s.output for s in steps], axis=1)  # (n, d_model)
    x = x + y @ w[name + "proj.weight"].T + w[name + "proj.bias"]
    hidden = _gelu(_layer_norm(x, w, name + "ln2") @ w[name + "up.weight"].T + w[name + "up.bias"])
    x = x + hidden @ w[name + "down.weight"].T + w[name + "down.bias"]
    return x, steps


def _layer_norm(x: FloatArray, w: dict[str, FloatArray], name: str) -> FloatArray:
    """LayerNorm over the features (biased variance, ε = 1e-5, as PyTorch)."""
    mean = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    normed: FloatArray = (x - mean) / np.sqrt(var + LN_EPS) * w[name + ".weight"] + w[
        name + ".bias"
    ]
    return normed


def _gelu(x: FloatArray) -> FloatArray:
    """GELU, tanh approximation (as the training script's ``approximate="tanh"``)."""
    out: FloatArray = 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    return out


def fill_mask(
    text: str, top: int = 5, temperature: float = 1.0, model: Model | None = None
) -> list[tuple[str, float]]:
    """The model's ``top`` guesses for the first ``[MASK]`` in ``text``, most likely first: a
    softmax of its logits ÷ temperature over the whole vocabulary (special tokens excluded).

    Example:
        >>> fill_mask("我喜[MASK]人工智能", top=1)[0][0]
        '欢'
    """
    if not temperature > 0 or not math.isfinite(temperature):
        raise ValueError("The temperature must be a positive number.")
    model = model or load_model()
    run = run_model(text, special=True, model=model)
    if MASK not in run.tokens:
        raise ValueError("Put [MASK] where the model should guess a character.")
    logits = run.logits[run.tokens.index(MASK), SPECIAL_IDS:] / temperature
    probabilities = softmax(logits)
    best = np.argsort(-probabilities, kind="stable")[: max(1, top)]
    return [(model.vocab[SPECIAL_IDS + i], float(probabilities[i])) for i in best]


ROLES = ("previous", "next", "self", "special", "same")  # where a head's weight goes
CLEAR_ROLE = 0.4  # a head is named by its strongest role only when that role takes this much


@dataclass(frozen=True)
class HeadReport:
    """What each trained head does on held-out sentences, and how spread its scores are."""

    roles: tuple[str, ...]  # ROLES
    role_weights: FloatArray  # (layers, heads, roles): mean weight a query puts on the role
    std_raw: FloatArray  # (layers, heads): std of q·k over every (query, key) of the sentences
    std_scaled: FloatArray  # (layers, heads): std of q·k / √d_k
    one_hot: FloatArray  # (layers, heads): share of content rows whose largest weight > ONE_HOT
    d_k: int
    sentences: int

    def strongest(self, layer: int, head: int) -> tuple[str, float]:
        """The role that takes most of this head's weight and that weight; "mixed" when no role
        takes CLEAR_ROLE."""
        weights = self.role_weights[layer, head]
        best = int(np.argmax(weights))
        role = self.roles[best] if weights[best] >= CLEAR_ROLE else "mixed"
        return role, float(weights[best])


def held_out_sentences(limit: int | None = None) -> list[str]:
    """The training script's held-out sentences (never trained on), in its order."""
    lines = (MODELS / "mlm_heldout.tsv").read_text(encoding="utf-8").splitlines()
    texts = [line.split("\t")[1] for line in lines if "\t" in line]  # position, text, credit
    return texts[:limit]


def role_weights(steps: AttentionSteps, tokens: tuple[str, ...]) -> FloatArray:
    """(roles,) mean weight the content queries of one head put on the previous character, the
    next, themselves, [CLS] and [SEP] together, and other places of the same character (over
    the queries whose character recurs; NaN if none does)."""
    n = len(tokens)
    rows = range(1, n - 1)  # content queries; [CLS] and [SEP] are not characters
    w = steps.weights
    previous = np.mean([w[i, i - 1] for i in rows])
    following = np.mean([w[i, i + 1] for i in rows])
    itself = np.mean([w[i, i] for i in rows])
    special = np.mean([w[i, 0] + w[i, n - 1] for i in rows])
    same = [
        sum(w[i, j] for j in rows if j != i and tokens[j] == tokens[i])
        for i in rows
        if tokens[1:-1].count(tokens[i]) > 1
    ]
    return np.array([previous, following, itself, special, np.mean(same) if same else np.nan])


def head_report(sentences: list[str], model: Model | None = None) -> HeadReport:
    """Every head's roles and score spread, pooled over ``sentences`` ([CLS] … [SEP] each)."""
    model = model or load_model()
    shape = (model.config.layers, model.config.heads)
    roles = np.zeros((*shape, len(ROLES)))
    counted = np.zeros((*shape, len(ROLES)))
    scores: dict[tuple[int, int], list[FloatArray]] = {}
    peaked = np.zeros(shape)
    rows = 0
    for text in sentences:
        run = run_model(text, model=model)
        rows += len(run.tokens) - 2
        for (layer, head), steps in np.ndenumerate(np.array(run.layers, dtype=object)):
            weights = role_weights(steps, run.tokens)
            roles[layer, head] += np.nan_to_num(weights)
            counted[layer, head] += ~np.isnan(weights)
            scores.setdefault((layer, head), []).append(steps.scores.ravel())
            peaked[layer, head] += np.sum(steps.weights[1:-1].max(axis=1) > ONE_HOT)
    raw = np.array([np.concatenate(scores[index]).std() for index in np.ndindex(shape)])
    raw = raw.reshape(shape)
    mean_roles = roles / np.maximum(counted, 1)
    return _read_only_report(
        HeadReport(
            ROLES,
            mean_roles,
            raw,
            raw / math.sqrt(model.config.d_k),
            peaked / rows,
            model.config.d_k,
            len(sentences),
        )
    )


def _read_only_report(report: HeadReport) -> HeadReport:
    for array in (report.role_weights, report.std_raw, report.std_scaled, report.one_hot):
        array.setflags(write=False)
    return report


REPORT_SENTENCES = 120  # held-out sentences behind the shipped head report


def report_to_json(report: HeadReport) -> dict[str, Any]:
    """A head report as plain JSON values."""
    return {
        "roles": list(report.roles),
        "role_weights": report.role_weights.tolist(),
        "std_raw": report.std_raw.tolist(),
        "std_scaled": report.std_scaled.tolist(),
        "one_hot": report.one_hot.tolist(),
        "d_k": report.d_k,
        "sentences": report.sentences,
    }


@cache
def load_head_report() -> HeadReport:
    """The head report the training step measured on the first REPORT_SENTENCES held-out
    sentences (``training/head_report.py``; a test recomputes it from the shipped weights)."""
    stored = json.loads((MODELS / "mlm_heads.json").read_text(encoding="utf-8"))
    arrays = {key: np.array(stored[key]) for key in ("role_weights", "std_raw", "std_scaled")}
    report = HeadReport(
        roles=tuple(stored["roles"]),
        one_hot=np.array(stored["one_hot"]),
        d_k=int(stored["d_k"]),
        sentences=int(stored["sentences"]),
        **arrays,
    )
    return _read_only_report(report)
