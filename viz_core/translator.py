"""The shipped translator: English words in, Chinese characters out, in numpy.

Trained by ``training/train_translator.py`` (PyTorch) on the Tatoeba English–Chinese pairs
(CC-BY 2.0 FR); this is the same forward pass read top to bottom, every head computed by
``viz_core.attention``:

    encoder:  x = E_src[words + [EOS]] + P_src
              each block:  x = x + attention(LN(x))                    (every word sees every word)
                           x = x + MLP(LN(x))
              memory = LN(x)                                           (S, d_model)
    decoder:  y = E_tgt[[BOS] + characters] + P_tgt
              each block:  y = y + attention(LN(y), mask="causal")    (a step sees its past only)
                           y = y + attention(LN(y) → q; memory → k, v) (cross-attention, no mask)
                           y = y + MLP(LN(y))
              logits = LN(y) · E_tgtᵀ + b                             (reuses the target embedding)

Row i of the decoder is the step whose input is the character *before* target i and which
*produces* target i, so ``cross[l][h][i]`` is where the model looked while writing target i.
"""

import json
import math
import re
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from viz_core.attention import AttentionSteps, Mask, attention

FloatArray = npt.NDArray[np.float64]
Heads = tuple[AttentionSteps, ...]
MODELS = Path(__file__).resolve().parent / "models"
SPECIALS = ("[PAD]", "[UNK]", "[BOS]", "[EOS]")  # the first ids of both vocabularies
PAD, UNK, BOS, EOS = range(len(SPECIALS))
NEVER_GREEDY = (PAD, UNK, BOS)  # greedy decoding never writes these
MAX_OUTPUT = 40  # characters translate() writes at most
WORD = re.compile(r"[a-z0-9']+|[^\sa-z0-9]")  # a word, or one punctuation mark (or other sign)
LN_EPS = 1e-5
CHRF_ORDER = 6  # character n-grams of order 1 … 6
CHRF_BETA = 2.0  # recall weighs β = 2 times as much as precision


@dataclass(frozen=True)
class TranslatorConfig:
    """The translator's shape, as trained."""

    encoder_layers: int
    decoder_layers: int
    heads: int
    d_model: int
    d_ff: int
    max_source: int  # encoder positions: English tokens + [EOS]
    max_target: int  # decoder positions: [BOS] + characters
    source_vocab_size: int
    target_vocab_size: int

    @property
    def d_k(self) -> int:
        return self.d_model // self.heads


@dataclass(frozen=True)
class Translator:
    """Weights (float64, read-only), both vocabularies and the training record."""

    config: TranslatorConfig
    source_vocab: tuple[str, ...]  # English words; SPECIALS first
    target_vocab: tuple[str, ...]  # Chinese characters; SPECIALS first
    source_index: dict[str, int]
    target_index: dict[str, int]
    weights: dict[str, FloatArray]
    record: dict[str, Any]


@dataclass(frozen=True)
class Translation:
    """One English sentence through the translator (S source tokens, T target tokens), every
    head's attention kept. Decoder row i is the step that produced target i."""

    source_tokens: tuple[str, ...]  # English words as typed (lower-cased), then "[EOS]"; (S,)
    source_ids: tuple[int, ...]  # (S,), [UNK] for words the model never saw
    unknown: tuple[str, ...]  # the typed words that ran as [UNK]
    dropped: int  # words cut off after the encoder's last position
    target_tokens: tuple[str, ...]  # the characters, then "[EOS]" when the translation ended; (T,)
    target_ids: tuple[int, ...]  # (T,)
    unknown_target: tuple[str, ...]  # align(): given characters that ran as [UNK]
    dropped_target: int  # align(): given characters cut off after the decoder's last position
    finished: bool  # the translation ends with [EOS] (False: translate() hit MAX_OUTPUT)
    encoder: tuple[Heads, ...]  # [layer][head]: self-attention, weights (S, S)
    decoder: tuple[Heads, ...]  # [layer][head]: causal self-attention, weights (T, T)
    cross_steps: tuple[Heads, ...]  # [layer][head]: queries decoder, keys encoder, (T, S)
    logits: FloatArray  # (T, target_vocab_size): row i = the scores that chose target i

    @property
    def text(self) -> str:
        """The Chinese translation, without [EOS]."""
        return "".join(token for token in self.target_tokens if token != SPECIALS[EOS])

    @property
    def cross(self) -> tuple[tuple[FloatArray, ...], ...]:
        """Cross-attention weights [layer][head], each (T, S): rows sum to 1."""
        return tuple(tuple(steps.weights for steps in heads) for heads in self.cross_steps)


@cache
def translator_config(models: Path = MODELS) -> TranslatorConfig:
    """The translator's shape, from its record alone (no weights loaded)."""
    record = json.loads((models / "translator_record.json").read_text(encoding="utf-8"))
    fields = TranslatorConfig.__dataclass_fields__
    return TranslatorConfig(**{k: v for k, v in record["config"].items() if k in fields})


@cache
def load_translator(models: Path = MODELS) -> Translator:
    """The shipped weights, loaded once per process (about 35 MB as float64); ``models`` is
    the folder the training script wrote (a test reads a smoke run's)."""
    record = json.loads((models / "translator_record.json").read_text(encoding="utf-8"))
    config = translator_config(models)
    source = _vocab(models / "translator_src_vocab.txt")
    target = _vocab(models / "translator_tgt_vocab.txt")
    with np.load(models / "translator_weights.npz") as stored:
        weights = {name: _read_only(stored[name]) for name in stored.files}
    return Translator(
        config=config,
        source_vocab=source,
        target_vocab=target,
        source_index={token: i for i, token in enumerate(source)},
        target_index={token: i for i, token in enumerate(target)},
        weights=weights,
        record=record,
    )


def _vocab(path: Path) -> tuple[str, ...]:
    return tuple(path.read_text(encoding="utf-8").split("\n")[:-1])


def _read_only(array: npt.NDArray[Any]) -> FloatArray:
    out = array.astype(np.float64)
    out.setflags(write=False)
    return out


def english_tokens(text: str) -> list[str]:
    """Lower-cased words (letters, digits, apostrophes), each other sign its own token.

    Example:
        >>> english_tokens("I don't like tea!")
        ['i', "don't", 'like', 'tea', '!']
    """
    return WORD.findall(text.lower())


def chinese_tokens(text: str) -> list[str]:
    """One token per character, white space dropped."""
    return list("".join(text.split()))


def translate(
    text: str, max_chars: int = MAX_OUTPUT, model: Translator | None = None
) -> Translation:
    """Translate English ``text`` by greedy decoding: at each step the likeliest character
    (never [PAD], [UNK] or [BOS]) until [EOS] or ``max_chars`` characters.

    Example:
        >>> out = translate("I like you.")
        >>> out.text, out.cross[0][0].shape == (len(out.target_tokens), len(out.source_tokens))
        ('我喜欢你。', True)
    """
    if max_chars < 1:
        raise ValueError("The translation needs room for at least one character.")
    model = model or load_translator()
    max_chars = min(max_chars, model.config.max_target - 1)
    source = _source(model, text)
    memory, encoder = _encode(model, np.asarray(source[1]))
    produced: list[int] = []
    previous = None
    while True:
        run = _decode(model, memory, [BOS, *produced])
        scores = run[0][-1].copy()
        scores[list(NEVER_GREEDY)] = -np.inf
        best = int(np.argmax(scores))
        if best == EOS:
            return _result(model, source, ([*produced, EOS], (), 0), True, encoder, run)
        if len(produced) == max_chars:
            assert previous is not None  # max_chars >= 1: at least one step ran before
            return _result(model, source, (produced, (), 0), False, encoder, previous)
        produced.append(best)
        previous = run


def align(english: str, chinese: str, model: Translator | None = None) -> Translation:
    """Run the translator teacher-forced on a given translation: every decoder step reads the
    given characters before it. The target tokens are the given characters, then [EOS].

    Example:
        >>> run = align("I like you.", "我喜欢你。")
        >>> run.target_tokens
        ('我', '喜', '欢', '你', '。', '[EOS]')
    """
    model = model or load_translator()
    source = _source(model, english)
    characters = chinese_tokens(chinese)
    if not characters:
        raise ValueError("Type the Chinese translation to align, at least one character.")
    positions = model.config.max_target
    characters, ids, unknown, dropped = _cut(characters, model.target_index, positions)
    memory, encoder = _encode(model, np.asarray(source[1]))
    run = _decode(model, memory, [BOS, *ids])
    target = ([*ids, EOS], unknown, dropped)
    return _result(model, source, target, True, encoder, run, given=characters)


Source = tuple[list[str], list[int], tuple[str, ...], int]  # tokens, ids, unknown, dropped
Decoded = tuple[FloatArray, tuple[Heads, ...], tuple[Heads, ...]]  # logits, self, cross


def _source(model: Translator, text: str) -> Source:
    """The encoder's tokens and ids: the words cut to its positions, then [EOS]."""
    words = english_tokens(text)
    if not words:
        raise ValueError("Type an English sentence for the translator to read.")
    words, ids, unknown, dropped = _cut(words, model.source_index, model.config.max_source)
    return [*words, SPECIALS[EOS]], [*ids, EOS], unknown, dropped


def _cut(tokens: list[str], index: dict[str, int], positions: int) -> Source:
    """Tokens cut to leave one of ``positions`` for [BOS] or [EOS], their ids ([UNK] for those
    the vocabulary lacks), the unknown ones once each, and how many were cut."""
    keep = positions - 1
    dropped = max(0, len(tokens) - keep)
    tokens = tokens[:keep]
    ids = [index.get(token, UNK) for token in tokens]
    unknown = tuple(dict.fromkeys(tok for tok, i in zip(tokens, ids, strict=True) if i == UNK))
    return tokens, ids, unknown, dropped


def _result(
    model: Translator,
    source: Source,
    target: tuple[list[int], tuple[str, ...], int],
    finished: bool,
    encoder: tuple[Heads, ...],
    run: Decoded,
    given: list[str] | None = None,
) -> Translation:
    """Gather one run into a Translation (given: the typed characters, kept as typed)."""
    ids, unknown_target, dropped_target = target
    tokens = [model.target_vocab[i] for i in ids]
    if given is not None:
        tokens = [*given, SPECIALS[EOS]]
    logits = run[0]
    logits.setflags(write=False)
    return Translation(
        tuple(source[0]), tuple(source[1]), source[2], source[3],
        tuple(tokens), tuple(ids), unknown_target, dropped_target, finished,
        encoder, run[1], run[2], logits,
    )  # fmt: skip


def _encode(model: Translator, ids: npt.NDArray[np.int64]) -> tuple[FloatArray, tuple[Heads, ...]]:
    """The encoder: its output (memory, (S, d_model)) and every head's self-attention."""
    w = model.weights
    x = w["source.weight"][ids] + w["source_positions.weight"][: len(ids)]  # (S, d_model)
    layers = []
    for layer in range(model.config.encoder_layers):
        name = f"encoder.{layer}."
        h = _layer_norm(x, w, name + "ln1")
        y, heads = _attend(h, h, w, name + "attention.", model.config.heads, None)
        x = x + y
        x = x + _mlp(_layer_norm(x, w, name + "ln2"), w, name + "mlp.")
        layers.append(heads)
    return _layer_norm(x, w, "ln_encoder"), tuple(layers)


def _decode(model: Translator, memory: FloatArray, ids: list[int]) -> Decoded:
    """The decoder on its inputs [BOS] + characters: logits (T, vocab) and every head."""
    w = model.weights
    y = w["target.weight"][ids] + w["target_positions.weight"][: len(ids)]  # (T, d_model)
    selfs, crosses = [], []
    for layer in range(model.config.decoder_layers):
        name = f"decoder.{layer}."
        h = _layer_norm(y, w, name + "ln1")
        a, heads = _attend(h, h, w, name + "self_attention.", model.config.heads, "causal")
        y = y + a
        selfs.append(heads)
        h = _layer_norm(y, w, name + "ln2")
        a, heads = _attend(h, memory, w, name + "cross_attention.", model.config.heads, None)
        y = y + a
        crosses.append(heads)
        y = y + _mlp(_layer_norm(y, w, name + "ln3"), w, name + "mlp.")
    logits = _layer_norm(y, w, "ln_f") @ w["target.weight"].T + w["bias"]  # (T, vocab)
    return logits, tuple(selfs), tuple(crosses)


def _attend(
    x: FloatArray, memory: FloatArray, w: dict[str, FloatArray], name: str, heads: int, mask: Mask
) -> tuple[FloatArray, Heads]:
    """Multi-head attention, queries from x and keys/values from memory; the heads' steps."""
    q = x @ w[name + "q.weight"].T + w[name + "q.bias"]  # (n, d_model)
    k, v = np.split(memory @ w[name + "kv.weight"].T + w[name + "kv.bias"], 2, axis=1)  # (m, …)
    d_k = q.shape[1] // heads
    steps = tuple(
        attention(q[:, cols], k[:, cols], v[:, cols], mask=mask)
        for cols in (slice(h * d_k, (h + 1) * d_k) for h in range(heads))
    )
    y = np.concatenate([s.output for s in steps], axis=1)  # (n, d_model)
    out: FloatArray = y @ w[name + "proj.weight"].T + w[name + "proj.bias"]
    return out, steps


def _mlp(x: FloatArray, w: dict[str, FloatArray], name: str) -> FloatArray:
    """W_down · gelu(W_up · x), GELU's tanh approximation as in training."""
    up = x @ w[name + "up.weight"].T + w[name + "up.bias"]
    hidden = 0.5 * up * (1 + np.tanh(math.sqrt(2 / math.pi) * (up + 0.044715 * up**3)))
    out: FloatArray = hidden @ w[name + "down.weight"].T + w[name + "down.bias"]
    return out


def _layer_norm(x: FloatArray, w: dict[str, FloatArray], name: str) -> FloatArray:
    """LayerNorm over the features (biased variance, ε = 1e-5, as PyTorch)."""
    normed = (x - x.mean(axis=-1, keepdims=True)) / np.sqrt(x.var(axis=-1, keepdims=True) + LN_EPS)
    out: FloatArray = normed * w[name + ".weight"] + w[name + ".bias"]
    return out


def _ngrams(text: str, n: int) -> Counter[str]:
    return Counter(text[i : i + n] for i in range(len(text) - n + 1))


def chrf(
    hypothesis: str, reference: str, order: int = CHRF_ORDER, beta: float = CHRF_BETA
) -> float:
    """chrF (Popović, 2015) of one sentence, 0–100: character n-grams of order 1 … ``order``,
    white space ignored; precision and recall averaged over the orders both sentences reach,
    then combined as F_β. With the defaults this is sacrebleu's sentence chrF.

    Example:
        >>> chrf("我喜欢你。", "我喜欢你。"), round(chrf("我喜欢", "我喜欢你。"), 1)
        (100.0, 53.3)
    """
    hyp, ref = "".join(hypothesis.split()), "".join(reference.split())
    precisions, recalls = [], []
    for n in range(1, order + 1):
        hyp_grams, ref_grams = _ngrams(hyp, n), _ngrams(ref, n)
        if hyp_grams and ref_grams:
            matches = sum((hyp_grams & ref_grams).values())
            precisions.append(matches / hyp_grams.total())
            recalls.append(matches / ref_grams.total())
    if not precisions:
        return 0.0
    precision, recall = sum(precisions) / len(precisions), sum(recalls) / len(recalls)
    if precision + recall == 0:
        return 0.0
    return 100 * (1 + beta**2) * precision * recall / (beta**2 * precision + recall)


def held_out_pairs(limit: int | None = None) -> list[tuple[str, str]]:
    """The training script's held-out (English, Chinese) pairs, never trained on, in its order."""
    lines = (MODELS / "translator_heldout.tsv").read_text(encoding="utf-8").splitlines()
    rows = [line.split("\t") for line in lines if line and not line.startswith("#")]
    return [(row[0], row[1]) for row in rows][:limit]
