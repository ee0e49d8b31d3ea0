"""Train the shipped character model: a 2-layer, 4-head masked language model of Chinese.

    pip install -r training/requirements.txt
    python -m training.train_mlm [--data PATH] [--steps 6000]

Reads the Chinese side of the Tatoeba pairs (CC-BY 2.0 FR), holds out a split fixed by a seed,
trains on the CPU with PyTorch, and writes into viz_core/models/: the weights (float16), the
vocabulary, the held-out sentences with their masked positions, reference logits for a fixed
set of sentences, and the training record (loss by epoch, held-out accuracy against the
commonest-character baseline, parameters, time). The app reads those files with numpy only.
"""

import argparse
import json
import math
import random
import time
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F  # noqa: N812

from training import head_report

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "viz_core" / "models"
DATA = ROOT.parent / "shared" / "data" / "tatoeba-cmn-eng.tsv"
SPECIALS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
PAD, UNK, CLS, SEP, MASK = range(len(SPECIALS))
REFERENCE = ("我喜欢人工智能", "我喜[MASK]人工智能", "他在学校学习中文。", "今天天气很好。")


@dataclass(frozen=True)
class Config:
    layers: int = 2
    heads: int = 4
    d_model: int = 256
    d_ff: int = 1024
    max_len: int = 48  # [CLS] + 46 characters + [SEP]; the longest sentence has 44
    vocab_size: int = 0  # set from the data
    min_count: int = 2  # characters seen fewer times are [UNK]


class Block(nn.Module):
    """Pre-norm Transformer block: x + attention(LN(x)), then x + MLP(LN(x))."""

    def __init__(self, config: Config) -> None:
        super().__init__()
        self.heads = config.heads
        self.ln1 = nn.LayerNorm(config.d_model)
        self.qkv = nn.Linear(config.d_model, 3 * config.d_model)
        self.proj = nn.Linear(config.d_model, config.d_model)
        self.ln2 = nn.LayerNorm(config.d_model)
        self.up = nn.Linear(config.d_model, config.d_ff)
        self.down = nn.Linear(config.d_ff, config.d_model)

    def forward(self, x: torch.Tensor, allowed: torch.Tensor) -> torch.Tensor:
        b, n, c = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(c, dim=2)
        q = q.view(b, n, self.heads, c // self.heads).transpose(1, 2)  # (b, h, n, d_k)
        k = k.view(b, n, self.heads, c // self.heads).transpose(1, 2)
        v = v.view(b, n, self.heads, c // self.heads).transpose(1, 2)
        scores = q @ k.transpose(-2, -1) / math.sqrt(k.size(-1))  # (b, h, n, n)
        scores = scores.masked_fill(~allowed[:, None, None, :], float("-inf"))
        weights = F.softmax(scores, dim=-1)
        y = (weights @ v).transpose(1, 2).reshape(b, n, c)
        x = x + self.proj(y)
        return x + self.down(F.gelu(self.up(self.ln2(x)), approximate="tanh"))


class MaskedLM(nn.Module):
    """Token + position embeddings, the blocks, a final LayerNorm, logits tied to the embedding."""

    def __init__(self, config: Config) -> None:
        super().__init__()
        self.tokens = nn.Embedding(config.vocab_size, config.d_model)
        self.positions = nn.Embedding(config.max_len, config.d_model)
        self.blocks = nn.ModuleList(Block(config) for _ in range(config.layers))
        self.ln_f = nn.LayerNorm(config.d_model)
        self.bias = nn.Parameter(torch.zeros(config.vocab_size))
        for module in self.modules():
            if isinstance(module, nn.Linear | nn.Embedding):
                nn.init.normal_(module.weight, std=0.02)
            if isinstance(module, nn.Linear):
                nn.init.zeros_(module.bias)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        allowed = ids != PAD
        x = self.tokens(ids) + self.positions(torch.arange(ids.shape[1]))
        for block in self.blocks:
            x = block(x, allowed)
        return self.ln_f(x) @ self.tokens.weight.T + self.bias  # (b, n, vocab)


def sentences(path: Path) -> dict[str, str]:
    """The distinct Chinese sentences (white space removed), in file order, each with its
    Tatoeba attribution (the licence asks for it with any copy)."""
    seen: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8-sig").splitlines():
        parts = line.split("\t")
        text = "".join(parts[1].split()) if len(parts) >= 2 else ""
        if text:
            seen.setdefault(text, parts[2] if len(parts) > 2 else "CC-BY 2.0 (France): tatoeba.org")
    return seen


def split(texts: list[str], seed: int, held: int) -> tuple[list[str], list[str]]:
    """A held-out split fixed by ``seed``: (training, held-out)."""
    order = list(range(len(texts)))
    random.Random(seed).shuffle(order)
    return [texts[i] for i in order[held:]], [texts[i] for i in order[:held]]


def encode(text: str, vocab: dict[str, int], max_len: int) -> list[int]:
    """[CLS] + one id per character ([UNK] outside the vocabulary) + [SEP], cut to max_len."""
    ids = [vocab.get(ch, UNK) for ch in text][: max_len - 2]
    return [CLS, *ids, SEP]


def batch(rows: list[list[int]], rng: np.random.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """BERT's masking: 15 % of the characters are targets; of those 80 % become [MASK], 10 % a
    random character, 10 % stay. Returns (inputs, targets with -100 where no loss)."""
    n = max(len(r) for r in rows)
    ids = np.full((len(rows), n), PAD)
    for i, r in enumerate(rows):
        ids[i, : len(r)] = r
    content = (ids > MASK) | (ids == UNK)
    chosen = content & (rng.random(ids.shape) < 0.15)
    targets = np.where(chosen, ids, -100)
    roll = rng.random(ids.shape)
    inputs = np.where(chosen & (roll < 0.8), MASK, ids)
    swap = chosen & (roll >= 0.8) & (roll < 0.9)
    inputs = np.where(swap, rng.integers(len(SPECIALS), ids.max() + 1, ids.shape), inputs)
    return torch.from_numpy(inputs), torch.from_numpy(targets)


def held_out_positions(texts: list[str], seed: int) -> list[int]:
    """One masked character per held-out sentence, fixed by ``seed`` (index into the text)."""
    rng = random.Random(seed)
    return [rng.randrange(len(text)) for text in texts]


@torch.no_grad()
def evaluate(
    model: MaskedLM, texts: list[str], where: list[int], vocab: dict[str, int], top_id: int
) -> dict[str, float]:
    """Top-1 and top-5 accuracy on the held-out masked characters, and the baseline's."""
    model.eval()
    hits1 = hits5 = base = 0
    for text, position in zip(texts, where, strict=True):
        ids = encode(text, vocab, 10_000)
        answer = ids[position + 1]
        ids[position + 1] = MASK
        logits = model(torch.tensor([ids]))[0, position + 1]
        top = logits.topk(5).indices.tolist()
        hits1 += top[0] == answer
        hits5 += answer in top
        base += answer == top_id
    model.train()
    n = len(texts)
    return {"top1": hits1 / n, "top5": hits5 / n, "baseline_top1": base / n, "sentences": n}


def train(args: argparse.Namespace) -> None:
    """Data and vocabulary, the training loop, the held-out score, then every file."""
    torch.manual_seed(args.seed)
    credits = sentences(args.data)
    texts = [t for t in credits if len(t) <= Config.max_len - 2]
    train_texts, held = split(texts, args.seed, args.held_out)
    counts = Counter(ch for text in train_texts for ch in text)
    chars = sorted(ch for ch, count in counts.items() if count >= Config.min_count)
    vocab = {token: i for i, token in enumerate([*SPECIALS, *chars])}
    config = Config(vocab_size=len(vocab))
    model = MaskedLM(config)
    rows = [encode(text, vocab, config.max_len) for text in train_texts]
    epochs, seconds = fit(model, rows, args)
    where = held_out_positions(held, args.seed)
    commonest = counts.most_common(1)[0][0]
    scores = evaluate(model, held, where, vocab, vocab[commonest])
    print(scores, flush=True)
    record = {"train_sentences": len(train_texts), "epochs": epochs, "held_out_float32": scores}
    record |= {"seconds": round(seconds, 1), "commonest_character": commonest}
    save(model, config, vocab, held, where, args, record | {"credits": credits})


def fit(
    model: MaskedLM, rows: list[list[int]], args: argparse.Namespace
) -> tuple[list[dict[str, float]], float]:
    """AdamW with a warm-up and a cosine decay, batches in a new order every epoch; the mean
    loss of each epoch, and the seconds it all took."""
    rng = np.random.default_rng(args.seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)

    def decay(step: int) -> float:
        return min(1.0, (step + 1) / 200) * 0.5 * (1 + math.cos(math.pi * step / args.steps))

    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, decay)
    per_epoch = math.ceil(len(rows) / args.batch)
    losses: list[float] = []
    epochs: list[dict[str, float]] = []
    began = time.perf_counter()
    for step in range(args.steps):
        at = (step % per_epoch) * args.batch
        if at == 0:
            order = rng.permutation(len(rows))
        inputs, targets = batch([rows[i] for i in order[at : at + args.batch]], rng)
        loss = F.cross_entropy(model(inputs).flatten(0, 1), targets.flatten(), ignore_index=-100)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        schedule.step()
        losses.append(loss.item())
        if (step + 1) % per_epoch == 0 or step + 1 == args.steps:
            mean = float(np.mean(losses[-per_epoch:]))
            seconds = round(time.perf_counter() - began, 1)
            epochs.append(
                {"epoch": len(epochs) + 1, "step": step + 1, "loss": mean, "seconds": seconds}
            )
            print(epochs[-1], flush=True)
    return epochs, time.perf_counter() - began


def save(
    model: MaskedLM,
    config: Config,
    vocab: dict[str, int],
    held: list[str],
    where: list[int],
    args: argparse.Namespace,
    trained: dict[str, object],
) -> None:
    """Weights as float16, the vocabulary, the held-out split, reference logits, the record."""
    args.out.mkdir(parents=True, exist_ok=True)
    weights = {
        name: p.detach().numpy().astype(np.float16) for name, p in model.state_dict().items()
    }
    np.savez_compressed(args.out / "mlm_weights.npz", **weights)
    (args.out / "mlm_vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    credits = trained.pop("credits")
    assert isinstance(credits, dict)
    lines = [f"{at}\t{text}\t{credits[text]}" for text, at in zip(held, where, strict=True)]
    (args.out / "mlm_heldout.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    shipped = write_reference(weights, config, vocab, args.out)
    commonest = str(trained["commonest_character"])
    shipped_scores = evaluate(shipped, held, where, vocab, vocab[commonest])
    record = {**describe(model, config, args, len(held)), "held_out": shipped_scores, **trained}
    (args.out / "mlm_record.json").write_text(
        json.dumps(record, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
    )
    if args.out == OUT:  # the heads' roles and spreads, by the app's numpy forward pass
        head_report.main()


def describe(
    model: MaskedLM, config: Config, args: argparse.Namespace, held: int
) -> dict[str, object]:
    """What the record says of the model and how it was trained."""
    return {
        "model": "masked character language model (BERT-style, pre-norm)",
        "config": asdict(config),
        "parameters": sum(p.numel() for p in model.parameters()),
        "data": "Tatoeba English–Chinese pairs (tatoeba.org), Chinese side, CC-BY 2.0 FR",
        "held_out_sentences": held,
        "seed": args.seed,
        "steps": args.steps,
        "batch": args.batch,
        "lr": args.lr,
        "masking": "15 % of characters; 80 % [MASK], 10 % random, 10 % kept",
        "held_out_protocol": "one character per held-out sentence masked (mlm_heldout.tsv)",
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
    }


def write_reference(
    weights: dict[str, np.ndarray], config: Config, vocab: dict[str, int], out: Path
) -> MaskedLM:
    """The model as shipped (its float16 weights) and its logits on the reference sentences,
    so that numpy can be checked against PyTorch exactly."""
    shipped = MaskedLM(config)
    shipped.load_state_dict({k: torch.from_numpy(v.astype(np.float32)) for k, v in weights.items()})
    shipped.eval()
    reference = {}
    with torch.no_grad():
        for i, text in enumerate(REFERENCE):
            ids = [CLS, *[vocab.get(c, UNK) for c in _chars(text)], SEP]
            reference[f"ids_{i}"] = np.array(ids)
            reference[f"logits_{i}"] = shipped(torch.tensor([ids]))[0].numpy()
    np.savez_compressed(out / "mlm_reference.npz", **reference)
    return shipped


def _chars(text: str) -> list[str]:
    """Characters, with [MASK] kept as one token."""
    out: list[str] = []
    rest = text
    while rest:
        if rest.startswith("[MASK]"):
            out.append("[MASK]")
            rest = rest[6:]
        else:
            out.append(rest[0])
            rest = rest[1:]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--steps", type=int, default=6000)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--held-out", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=OUT, help="where the files go")
    train(parser.parse_args())


if __name__ == "__main__":
    main()
