"""Train the shipped translator: a 2+2-layer, 4-head Transformer from English words to Chinese
characters.

    pip install -r training/requirements.txt
    python -m training.train_translator [--data PATH] [--steps 4500] [--out DIR] [--seed 0]

Reads the Tatoeba English–Chinese pairs (CC-BY 2.0 FR), holds out English sentences fixed by a
seed (none of their translations is trained on), trains an encoder–decoder on the CPU with
PyTorch, and writes into viz_core/models/: the weights (float16), both vocabularies, the
held-out pairs with their attribution, reference logits for a few pairs, and the training record
(loss by epoch, held-out loss, chrF and exact matches of greedy decoding against a retrieval
baseline, parameters, time). ``viz_core/translator.py`` runs the model with numpy only.
"""

import argparse
import json
import math
import random
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F  # noqa: N812

from viz_core.translator import chinese_tokens, chrf, english_tokens

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "viz_core" / "models"
DATA = ROOT.parent / "shared" / "data" / "tatoeba-cmn-eng.tsv"
SPECIALS = ("[PAD]", "[UNK]", "[BOS]", "[EOS]")
PAD, UNK, BOS, EOS = range(len(SPECIALS))
NEVER_GREEDY = (PAD, UNK, BOS)  # as viz_core.translator: greedy decoding never writes these
MAX_OUTPUT = 40  # characters greedy decoding writes at most, as viz_core.translator
REFERENCE = (
    ("I like you.", "我喜欢你。"),
    ("I like artificial intelligence.", "我喜欢人工智能。"),
    ("Tom is a student.", "汤姆是学生。"),
    ("I like music.", "我喜欢音乐。"),
)
TEST_SUBSET = 100  # the first held-out pairs, scored apart so a test can redo them quickly
CREDIT = "CC-BY 2.0 (France): tatoeba.org"
Pair = tuple[str, str, str]  # English, Chinese (white space removed), Tatoeba attribution


@dataclass(frozen=True)
class Config:
    encoder_layers: int = 2
    decoder_layers: int = 2
    heads: int = 4
    d_model: int = 256
    d_ff: int = 512
    max_source: int = 40  # English tokens + [EOS]; the longest sentence has 34 tokens
    max_target: int = 48  # decoder positions, [BOS] + characters; the longest has 44
    source_vocab_size: int = 0  # set from the data
    target_vocab_size: int = 0
    min_count: int = 2  # words / characters seen fewer times are [UNK]


class Attention(nn.Module):
    """Multi-head attention, queries from x and keys/values from memory (x again for
    self-attention); ``allowed`` (b, 1 or n, m) is True where a query may attend."""

    def __init__(self, config: Config) -> None:
        super().__init__()
        self.heads = config.heads
        self.q = nn.Linear(config.d_model, config.d_model)
        self.kv = nn.Linear(config.d_model, 2 * config.d_model)
        self.proj = nn.Linear(config.d_model, config.d_model)

    def forward(self, x: torch.Tensor, memory: torch.Tensor, allowed: torch.Tensor) -> torch.Tensor:
        b, n, c = x.shape
        m, d_k = memory.shape[1], c // self.heads
        q = self.q(x).view(b, n, self.heads, d_k).transpose(1, 2)  # (b, h, n, d_k)
        k, v = self.kv(memory).split(c, dim=2)
        k = k.view(b, m, self.heads, d_k).transpose(1, 2)  # (b, h, m, d_k)
        v = v.view(b, m, self.heads, d_k).transpose(1, 2)
        scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)  # (b, h, n, m)
        scores = scores.masked_fill(~allowed[:, None], float("-inf"))
        weights = F.softmax(scores, dim=-1)
        y = (weights @ v).transpose(1, 2).reshape(b, n, c)  # (b, n, d_model)
        return self.proj(y)


class MLP(nn.Module):
    """W_down · gelu(W_up · x)."""

    def __init__(self, config: Config) -> None:
        super().__init__()
        self.up = nn.Linear(config.d_model, config.d_ff)
        self.down = nn.Linear(config.d_ff, config.d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down(F.gelu(self.up(x), approximate="tanh"))


class EncoderBlock(nn.Module):
    """Pre-norm: x + attention(LN(x)), then x + MLP(LN(x))."""

    def __init__(self, config: Config) -> None:
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(config.d_model), nn.LayerNorm(config.d_model)
        self.attention, self.mlp = Attention(config), MLP(config)

    def forward(self, x: torch.Tensor, allowed: torch.Tensor) -> torch.Tensor:
        h = self.ln1(x)
        x = x + self.attention(h, h, allowed)
        return x + self.mlp(self.ln2(x))


class DecoderBlock(nn.Module):
    """Pre-norm: y + causal self-attention(LN(y)), y + cross-attention(LN(y), memory), then
    y + MLP(LN(y))."""

    def __init__(self, config: Config) -> None:
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(config.d_model), nn.LayerNorm(config.d_model)
        self.ln3 = nn.LayerNorm(config.d_model)
        self.self_attention, self.cross_attention = Attention(config), Attention(config)
        self.mlp = MLP(config)

    def forward(
        self, y: torch.Tensor, memory: torch.Tensor, causal: torch.Tensor, sources: torch.Tensor
    ) -> torch.Tensor:
        h = self.ln1(y)
        y = y + self.self_attention(h, h, causal)
        y = y + self.cross_attention(self.ln2(y), memory, sources)
        return y + self.mlp(self.ln3(y))


class Seq2Seq(nn.Module):
    """Embeddings + positions on both sides, the blocks, logits tied to the target embedding."""

    def __init__(self, config: Config) -> None:
        super().__init__()
        self.source = nn.Embedding(config.source_vocab_size, config.d_model)
        self.source_positions = nn.Embedding(config.max_source, config.d_model)
        self.target = nn.Embedding(config.target_vocab_size, config.d_model)
        self.target_positions = nn.Embedding(config.max_target, config.d_model)
        self.encoder = nn.ModuleList(EncoderBlock(config) for _ in range(config.encoder_layers))
        self.decoder = nn.ModuleList(DecoderBlock(config) for _ in range(config.decoder_layers))
        self.ln_encoder, self.ln_f = nn.LayerNorm(config.d_model), nn.LayerNorm(config.d_model)
        self.bias = nn.Parameter(torch.zeros(config.target_vocab_size))
        for module in self.modules():
            if isinstance(module, nn.Linear | nn.Embedding):
                nn.init.normal_(module.weight, std=0.02)
            if isinstance(module, nn.Linear):
                nn.init.zeros_(module.bias)

    def encode(self, source: torch.Tensor) -> torch.Tensor:
        """(b, S) ids -> memory (b, S, d_model); [PAD] keys are masked out."""
        x = self.source(source) + self.source_positions(torch.arange(source.shape[1]))
        allowed = (source != PAD)[:, None, :]  # (b, 1, S)
        for block in self.encoder:
            x = block(x, allowed)
        return self.ln_encoder(x)

    def decode(
        self, memory: torch.Tensor, source: torch.Tensor, inputs: torch.Tensor
    ) -> torch.Tensor:
        """Decoder inputs (b, T) ([BOS] + characters) -> logits (b, T, target vocabulary)."""
        n = inputs.shape[1]
        y = self.target(inputs) + self.target_positions(torch.arange(n))
        causal = torch.ones(n, n, dtype=torch.bool).tril()[None] & (inputs != PAD)[:, None, :]
        sources = (source != PAD)[:, None, :]
        for block in self.decoder:
            y = block(y, memory, causal, sources)
        return self.ln_f(y) @ self.target.weight.T + self.bias

    def forward(self, source: torch.Tensor, inputs: torch.Tensor) -> torch.Tensor:
        return self.decode(self.encode(source), source, inputs)


def read_pairs(path: Path) -> list[Pair]:
    """The distinct pairs in file order, white space removed from the Chinese, each with its
    Tatoeba attribution (the licence asks for it with any copy)."""
    seen: dict[tuple[str, str], str] = {}
    for line in path.read_text(encoding="utf-8-sig").splitlines():
        parts = line.split("\t")
        if len(parts) >= 2 and parts[0].strip() and "".join(parts[1].split()):
            key = (parts[0].strip(), "".join(parts[1].split()))
            seen.setdefault(key, parts[2] if len(parts) > 2 else CREDIT)
    return [(en, zh, credit) for (en, zh), credit in seen.items()]


def split(pairs: list[Pair], seed: int, held: int) -> tuple[list[Pair], list[Pair]]:
    """Hold out ``held`` English sentences fixed by ``seed``, each with its first translation
    as the reference; none of their translations is trained on. (training, held-out)."""
    english = list(dict.fromkeys(en for en, _, _ in pairs))
    random.Random(seed).shuffle(english)
    out = set(english[:held])
    first: dict[str, Pair] = {}
    for pair in pairs:
        if pair[0] in out:
            first.setdefault(pair[0], pair)
    return [p for p in pairs if p[0] not in out], [first[en] for en in english[:held]]


def vocabulary(sequences: Iterable[list[str]], min_count: int) -> dict[str, int]:
    """SPECIALS, then every token seen at least ``min_count`` times, sorted."""
    counts = Counter(token for tokens in sequences for token in tokens)
    kept = sorted(token for token, count in counts.items() if count >= min_count)
    return {token: i for i, token in enumerate([*SPECIALS, *kept])}


def encode_source(text: str, vocab: dict[str, int], max_source: int) -> list[int]:
    """The words' ids ([UNK] outside the vocabulary), cut to the positions, then [EOS]."""
    return [*[vocab.get(w, UNK) for w in english_tokens(text)][: max_source - 1], EOS]


def encode_target(text: str, vocab: dict[str, int]) -> list[int]:
    """[BOS] + the characters' ids + [EOS]: inputs are [:-1], labels [1:]."""
    return [BOS, *[vocab.get(ch, UNK) for ch in chinese_tokens(text)], EOS]


def padded(rows: list[list[int]]) -> torch.Tensor:
    """Rows of ids padded with [PAD] to the longest, (b, n)."""
    ids = torch.full((len(rows), max(len(r) for r in rows)), PAD, dtype=torch.long)
    for i, r in enumerate(rows):
        ids[i, : len(r)] = torch.tensor(r)
    return ids


def epoch_batches(
    rows: list[tuple[list[int], list[int]]], size: int, rng: np.random.Generator
) -> list[list[int]]:
    """One epoch's batches of row indices: shuffled, sorted by length within pools of 50
    batches (little padding), the batches in random order."""
    order = rng.permutation(len(rows))
    pool = size * 50
    out: list[list[int]] = []
    for at in range(0, len(order), pool):
        chunk = sorted(order[at : at + pool].tolist(), key=lambda i: len(rows[i][1]))
        out += [chunk[i : i + size] for i in range(0, len(chunk), size)]
    return [out[i] for i in rng.permutation(len(out))]


def batch_loss(model: Seq2Seq, rows: list[tuple[list[int], list[int]]]) -> torch.Tensor:
    """Teacher-forced cross-entropy with label smoothing 0.1: inputs [BOS] + characters,
    labels the characters + [EOS]."""
    source, target = padded([r[0] for r in rows]), padded([r[1] for r in rows])
    logits = model(source, target[:, :-1])  # (b, T, target vocabulary)
    return F.cross_entropy(
        logits.flatten(0, 1), target[:, 1:].flatten(), ignore_index=PAD, label_smoothing=0.1
    )


def fit(
    model: Seq2Seq, rows: list[tuple[list[int], list[int]]], args: argparse.Namespace
) -> tuple[list[dict[str, float]], float]:
    """AdamW with a warm-up and a cosine decay, label smoothing 0.1; the mean loss of each
    epoch, and the seconds it all took."""
    rng = np.random.default_rng(args.seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)

    def decay(step: int) -> float:
        return min(1.0, (step + 1) / 200) * 0.5 * (1 + math.cos(math.pi * step / args.steps))

    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, decay)
    losses: list[float] = []
    epochs: list[dict[str, float]] = []
    began = time.perf_counter()
    queue: list[list[int]] = []
    for step in range(args.steps):
        if not queue:
            queue = epoch_batches(rows, args.batch, rng)
            per_epoch = len(queue)
        loss = batch_loss(model, [rows[i] for i in queue.pop()])
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        schedule.step()
        losses.append(loss.item())
        if not queue or step + 1 == args.steps:
            mean = float(np.mean(losses[-per_epoch:]))
            seconds = round(time.perf_counter() - began, 1)
            epochs.append(
                {"epoch": len(epochs) + 1, "step": step + 1, "loss": mean, "seconds": seconds}
            )
            print(epochs[-1], flush=True)
    return epochs, time.perf_counter() - began


@torch.no_grad()
def held_out_loss(model: Seq2Seq, rows: list[tuple[list[int], list[int]]]) -> float:
    """Teacher-forced cross-entropy (nats, no smoothing) per predicted token: each character
    and the final [EOS]."""
    total, count = 0.0, 0
    for at in range(0, len(rows), 100):
        chunk = rows[at : at + 100]
        source, target = padded([r[0] for r in chunk]), padded([r[1] for r in chunk])
        logits = model(source, target[:, :-1])
        labels = target[:, 1:].flatten()
        total += F.cross_entropy(
            logits.flatten(0, 1), labels, ignore_index=PAD, reduction="sum"
        ).item()
        count += int((labels != PAD).sum())
    return total / count


@torch.no_grad()
def greedy(model: Seq2Seq, sources: list[list[int]], vocab: list[str]) -> list[str]:
    """Greedy decoding as viz_core.translator.translate: the decoder re-run on the whole prefix
    each step, the likeliest character (never [PAD], [UNK], [BOS]) until [EOS] or MAX_OUTPUT."""
    texts: list[str] = []
    for at in range(0, len(sources), 100):
        source = padded(sources[at : at + 100])
        memory = model.encode(source)
        out = torch.full((len(source), 1), BOS, dtype=torch.long)
        done = torch.zeros(len(source), dtype=torch.bool)
        for _ in range(MAX_OUTPUT):
            scores = model.decode(memory, source, out)[:, -1]
            scores[:, list(NEVER_GREEDY)] = float("-inf")
            best = scores.argmax(dim=-1).masked_fill(done, PAD)
            out = torch.cat([out, best[:, None]], dim=1)
            done |= best == EOS
            if done.all():
                break
        for row in out[:, 1:].tolist():
            texts.append("".join(vocab[i] for i in row if i > EOS))
    return texts


def nearest_source(train: list[Pair], queries: list[str]) -> list[str]:
    """The retrieval baseline: for each query, the training translation of the training
    English sentence whose set of tokens overlaps the query's most (Jaccard; first on ties)."""
    words = {
        w: i
        for i, w in enumerate(dict.fromkeys(w for en, _, _ in train for w in english_tokens(en)))
    }

    def sets(texts: list[str]) -> list[set[int]]:
        return [{words[w] for w in english_tokens(t) if w in words} for t in texts]

    rows = sets([en for en, _, _ in train])
    sizes = torch.tensor([len(r) for r in rows], dtype=torch.float32)
    index = torch.tensor([[i, w] for i, r in enumerate(rows) for w in r]).T
    matrix = torch.sparse_coo_tensor(index, torch.ones(index.shape[1]), (len(rows), len(words)))
    found: list[str] = []
    for at in range(0, len(queries), 100):
        chunk = queries[at : at + 100]
        dense = torch.zeros(len(words), len(chunk))
        for j, query in enumerate(sets(chunk)):
            dense[list(query), j] = 1.0
        overlap = torch.sparse.mm(matrix, dense)  # (training sentences, queries)
        query_sizes = torch.tensor([len(english_tokens(q)) for q in chunk], dtype=torch.float32)
        jaccard = overlap / (sizes[:, None] + query_sizes[None, :] - overlap).clamp(min=1)
        found += [train[i][1] for i in jaccard.argmax(dim=0).tolist()]
    return found


def scores(hypotheses: list[str], references: list[str]) -> dict[str, float]:
    """Mean sentence chrF (0–100) and the share of exact matches."""
    n = len(references)
    pairs = list(zip(hypotheses, references, strict=True))
    return {
        "chrf": sum(chrf(h, r) for h, r in pairs) / n,
        "exact": sum(h == r for h, r in pairs) / n,
    }


def evaluate(
    model: Seq2Seq,
    held: list[Pair],
    train: list[Pair],
    vocabs: tuple[dict[str, int], dict[str, int]],
) -> dict[str, object]:
    """Held-out loss, chrF and exact matches of greedy decoding, on all held-out pairs and on
    the first TEST_SUBSET; the same for the two baselines."""
    source_vocab, target_vocab = vocabs
    model.eval()
    max_source = model.source_positions.num_embeddings
    rows = [
        (encode_source(en, source_vocab, max_source), encode_target(zh, target_vocab))
        for en, zh, _ in held
    ]
    loss = held_out_loss(model, rows)
    outputs = greedy(model, [r[0] for r in rows], list(target_vocab))
    references = [zh for _, zh, _ in held]
    nearest = nearest_source(train, [en for en, _, _ in held])
    commonest = Counter(zh for _, zh, _ in train).most_common(1)[0][0]
    k = TEST_SUBSET
    return {
        "pairs": len(held),
        "loss_per_token": loss,
        "model": scores(outputs, references),
        "baseline_nearest_source": scores(nearest, references),
        "baseline_commonest_translation": scores([commonest] * len(held), references),
        f"first_{k}": {
            "model": scores(outputs[:k], references[:k]),
            "baseline_nearest_source": scores(nearest[:k], references[:k]),
        },
        "commonest_translation": commonest,
        "examples": [[en, zh, out] for (en, zh, _), out in zip(held[:10], outputs, strict=False)],
    }


def train(args: argparse.Namespace) -> None:
    """Data and vocabularies, the training loop, the held-out scores, then every file."""
    torch.manual_seed(args.seed)
    began = time.perf_counter()
    pairs = read_pairs(args.data)
    train_pairs, held = split(pairs, args.seed, args.held_out)
    source_vocab = vocabulary((english_tokens(en) for en, _, _ in train_pairs), Config.min_count)
    target_vocab = vocabulary((chinese_tokens(zh) for _, zh, _ in train_pairs), Config.min_count)
    config = Config(source_vocab_size=len(source_vocab), target_vocab_size=len(target_vocab))
    model = Seq2Seq(config)
    rows = [
        (encode_source(en, source_vocab, config.max_source), encode_target(zh, target_vocab))
        for en, zh, _ in train_pairs
        if len(chinese_tokens(zh)) < config.max_target
    ]
    epochs, seconds = fit(model, rows, args)
    shipped = save_model(model, config, (source_vocab, target_vocab), args.out)
    held_out = evaluate(shipped, held, train_pairs, (source_vocab, target_vocab))
    print({k: v for k, v in held_out.items() if k != "examples"}, flush=True)
    record = {**describe(model, config, args, len(held)), "held_out": held_out}
    record |= {"train_pairs": len(rows), "epochs": epochs, "training_seconds": round(seconds, 1)}
    record["total_seconds"] = round(time.perf_counter() - began, 1)
    write_held_out(held, args.out)
    (args.out / "translator_record.json").write_text(
        json.dumps(record, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
    )


def save_model(
    model: Seq2Seq, config: Config, vocabs: tuple[dict[str, int], dict[str, int]], out: Path
) -> Seq2Seq:
    """Weights as float16 and both vocabularies; the model as shipped (its float16 weights,
    back in PyTorch) with its logits on the REFERENCE pairs, so that numpy can be checked
    against PyTorch exactly. Returns the shipped model."""
    out.mkdir(parents=True, exist_ok=True)
    weights = {
        name: p.detach().numpy().astype(np.float16) for name, p in model.state_dict().items()
    }
    np.savez_compressed(out / "translator_weights.npz", **weights)
    for side, vocab in zip(("src", "tgt"), vocabs, strict=True):
        (out / f"translator_{side}_vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    shipped = Seq2Seq(config)
    shipped.load_state_dict({k: torch.from_numpy(v.astype(np.float32)) for k, v in weights.items()})
    shipped.eval()
    reference = {}
    with torch.no_grad():
        for i, (en, zh) in enumerate(REFERENCE):
            source = encode_source(en, vocabs[0], config.max_source)
            target = encode_target(zh, vocabs[1])[:-1]  # [BOS] + characters
            reference[f"source_ids_{i}"] = np.array(source)
            reference[f"target_ids_{i}"] = np.array(target)
            reference[f"logits_{i}"] = shipped(torch.tensor([source]), torch.tensor([target]))[
                0
            ].numpy()
    np.savez_compressed(out / "translator_reference.npz", **reference)
    return shipped


def write_held_out(held: list[Pair], out: Path) -> None:
    """The held-out pairs, English, Chinese and Tatoeba's attribution, under a credit line."""
    header = [
        "# Held-out pairs of the translator (never trained on): English, Chinese, attribution.",
        "# From Tatoeba (https://tatoeba.org), licensed CC-BY 2.0 (France).",
    ]
    lines = [*header, *(f"{en}\t{zh}\t{credit}" for en, zh, credit in held)]
    (out / "translator_heldout.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")


def describe(
    model: Seq2Seq, config: Config, args: argparse.Namespace, held: int
) -> dict[str, object]:
    """What the record says of the model and how it was trained."""
    return {
        "model": "Transformer encoder–decoder (pre-norm), English words to Chinese characters",
        "config": asdict(config),
        "parameters": sum(p.numel() for p in model.parameters()),
        "data": "Tatoeba English–Chinese pairs (tatoeba.org), CC-BY 2.0 FR",
        "tokens": "English: lower-cased words [a-z0-9']+, every other sign its own token, then "
        "[EOS]; Chinese: one token per character, [BOS] before, [EOS] after; "
        f"seen fewer than {config.min_count} times in training: [UNK]",
        "held_out_sentences": held,
        "held_out_protocol": "distinct English sentences held out by the seed, none of their "
        "translations trained on; the first translation in the file is the reference "
        "(translator_heldout.tsv)",
        "metrics": "loss_per_token: teacher-forced cross-entropy in nats over every character "
        "and the final [EOS]; chrf: mean sentence chrF (character 1- to 6-grams, beta 2, as "
        "sacrebleu's) of greedy decoding (never [PAD]/[UNK]/[BOS], at most "
        f"{MAX_OUTPUT} characters); exact: share of outputs equal to the reference",
        "baselines": "nearest_source: the training translation of the training English "
        "sentence with the largest Jaccard overlap of token sets; commonest_translation: "
        "always the commonest training translation",
        "seed": args.seed,
        "steps": args.steps,
        "batch": args.batch,
        "lr": args.lr,
        "schedule": "AdamW (weight decay 0.01), 200 warm-up steps, cosine decay, label smoothing "
        "0.1, gradient norm clipped at 1",
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--steps", type=int, default=4500)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--held-out", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=OUT, help="where the files go")
    train(parser.parse_args())


if __name__ == "__main__":
    main()
