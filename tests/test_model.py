"""The shipped character model in numpy: the same numbers as PyTorch, and really trained."""

import subprocess
import sys

import numpy as np
import pytest
from conftest import ROOT
from numpy.testing import assert_allclose

from viz_core import attention, fill_mask, load_model, run_model
from viz_core.model import MODELS, model_tokens

REFERENCE = ("我喜欢人工智能", "我喜[MASK]人工智能", "他在学校学习中文。", "今天天气很好。")


def test_the_config_is_the_record_s_and_d_k_is_64():
    """model.config has layers, heads, d_model, d_k and the vocabulary size of the record."""
    model = load_model()
    assert model.config.layers == model.record["config"]["layers"] == 2
    assert model.config.heads == 4 and model.config.d_k == 64
    assert model.config.vocab_size == len(model.vocab) == model.record["config"]["vocab_size"]
    assert model.weights["tokens.weight"].shape == (len(model.vocab), model.config.d_model)


@pytest.mark.parametrize("i", range(len(REFERENCE)))
def test_the_numpy_forward_pass_gives_pytorch_s_logits(i):
    """For the sentences the training script ran through PyTorch (with the shipped float16
    weights), numpy's logits agree at every position to float32 rounding."""
    reference = np.load(MODELS / "mlm_reference.npz")
    run = run_model(REFERENCE[i])
    assert list(run.ids) == reference[f"ids_{i}"].tolist()
    assert_allclose(run.logits, reference[f"logits_{i}"], atol=2e-4, rtol=1e-4)


def test_every_head_is_viz_core_attention_on_its_slice_of_q_k_v():
    """run.layers[l][h] is scaled dot-product attention of that head's q, k, v: recomputed with
    plain numpy from its q, k and v, and its rows sum to 1."""
    run = run_model("我喜欢人工智能")
    assert len(run.layers) == 2 and all(len(heads) == 4 for heads in run.layers)
    for heads in run.layers:
        for steps in heads:
            assert steps.q.shape == (9, 64) and steps.d_k == 64 and steps.scale
            scores = steps.q @ steps.k.T / np.sqrt(64)
            weights = np.exp(scores - scores.max(axis=1, keepdims=True))
            weights /= weights.sum(axis=1, keepdims=True)
            assert_allclose(steps.weights, weights, atol=1e-12)
            assert_allclose(steps.weights.sum(axis=1), 1.0)
            assert_allclose(steps.output, weights @ steps.v, atol=1e-12)
            again = attention(steps.q, steps.k, steps.v, scale=False)
            assert not np.allclose(again.weights, steps.weights)  # ÷√d_k matters here


def held_out() -> list[tuple[int, str]]:
    lines = (MODELS / "mlm_heldout.tsv").read_text(encoding="utf-8").splitlines()
    rows = [line.split("\t") for line in lines]  # position, sentence, Tatoeba's attribution
    return [(int(row[0]), row[1]) for row in rows]


@pytest.mark.slow  # the whole held-out split, or a fresh interpreter
def test_fill_mask_on_the_held_out_split_reproduces_the_record_and_beats_the_baseline():
    """Masking each held-out sentence's chosen character, numpy's top-1 and top-5 accuracy are
    the record's (to a sentence or two of rounding), far above always guessing the commonest
    training character: random weights would fail this."""
    model = load_model()
    record = model.record["held_out"]
    commonest = model.record["commonest_character"]
    sentences = held_out()
    hits1 = hits5 = baseline = 0
    for position, text in sentences:
        answer = text[position]
        masked = text[:position] + "[MASK]" + text[position + 1 :]
        guesses = [ch for ch, _ in fill_mask(masked, top=5)]
        known = answer if answer in model.index else "[UNK]"
        hits1 += guesses[0] == known
        hits5 += known in guesses
        baseline += answer == commonest
    n = len(sentences)
    assert n == record["sentences"]
    assert abs(hits1 / n - record["top1"]) <= 2 / n and abs(hits5 / n - record["top5"]) <= 2 / n
    assert abs(baseline / n - record["baseline_top1"]) <= 1 / n
    assert hits1 / n >= baseline / n + 0.25  # the margin: trained, not random


def test_fill_mask_returns_probabilities_in_descending_order_and_temperature_flattens_them():
    """The guesses are characters with probabilities, most likely first, summing to at most 1;
    a higher temperature lowers the top probability (the lessons' softmax ÷ T)."""
    guesses = fill_mask("我喜[MASK]人工智能", top=5)
    probabilities = [p for _, p in guesses]
    assert probabilities == sorted(probabilities, reverse=True)
    assert 0 < sum(probabilities) <= 1 + 1e-12
    assert all(len(ch) == 1 and not ch.startswith("[") for ch, _ in guesses)
    hot = fill_mask("我喜[MASK]人工智能", top=1, temperature=3.0)
    assert hot[0][1] < guesses[0][1]


def test_unknown_characters_run_as_unk_and_long_text_is_cut():
    """Emoji and Latin letters the model never saw run as [UNK] and are listed; text longer
    than the model's positions is cut, the count of dropped characters kept, [SEP] last."""
    run = run_model("我🙂喜欢Zebra")
    assert run.tokens[:3] == ("[CLS]", "我", "🙂")
    assert "🙂" in run.unknown and run.ids[2] == load_model().index["[UNK]"]
    long = run_model("好" * 100)
    assert len(long.tokens) == load_model().config.max_len and long.tokens[-1] == "[SEP]"
    assert long.dropped == 100 - (load_model().config.max_len - 2)


@pytest.mark.parametrize("text", ["", "   ", "[MASK]"[:0]])
def test_empty_text_is_a_value_error_with_a_sentence(text):
    """Nothing to read: a ValueError a student understands, not an IndexError."""
    with pytest.raises(ValueError, match="at least one character"):
        run_model(text)


def test_fill_mask_without_a_mask_or_with_a_bad_temperature_says_so():
    """No [MASK] in the text, or a temperature of 0, NaN or ∞: a ValueError with a sentence."""
    with pytest.raises(ValueError, match=r"\[MASK\]"):
        fill_mask("我喜欢")
    for bad in (0.0, float("nan"), float("inf"), -1.0):
        with pytest.raises(ValueError, match="temperature"):
            fill_mask("我[MASK]", temperature=bad)


def test_mask_tokens_stay_whole():
    """[MASK] typed in the text is one token; everything else one per character."""
    assert model_tokens("我喜[MASK]人", special=False) == ["我", "喜", "[MASK]", "人"]


@pytest.mark.slow  # the whole held-out split, or a fresh interpreter
def test_loading_the_model_costs_at_most_40_mb():
    """load_model() in a fresh interpreter allocates at most 40 MB (traced by tracemalloc)."""
    code = (
        f"import sys; sys.path.insert(0, {str(ROOT)!r}); import tracemalloc\n"
        "import viz_core\n"
        "tracemalloc.start(); viz_core.load_model()\n"
        "print(tracemalloc.get_traced_memory()[1])"
    )
    peak = int(
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout
    )
    assert peak <= 40e6, f"{peak / 1e6:.1f} MB"


def test_role_weights_read_a_hand_made_head():
    """On 我爱我 with a hand-written weight matrix, the mean weights on the previous and next
    character, on itself, on [CLS]+[SEP] and on the other 我 are the hand-worked values."""
    from types import SimpleNamespace

    from viz_core.model import role_weights

    tokens = ("[CLS]", "我", "爱", "我", "[SEP]")
    weights = np.array(
        [
            [1.0, 0.0, 0.0, 0.0, 0.0],
            [0.1, 0.2, 0.3, 0.4, 0.0],  # 我: previous [CLS] 0.1, next 0.3, self 0.2, other 我 0.4
            [0.0, 0.5, 0.1, 0.2, 0.2],  # 爱: previous 0.5, next 0.2, self 0.1, special 0.2
            [0.2, 0.6, 0.0, 0.1, 0.1],  # 我: previous 0.0, next [SEP] 0.1, self 0.1, other 我 0.6
            [0.0, 0.0, 0.0, 0.0, 1.0],
        ]
    )
    got = role_weights(SimpleNamespace(weights=weights), tokens)
    expected = [(0.1 + 0.5 + 0.0) / 3, (0.3 + 0.2 + 0.1) / 3, (0.2 + 0.1 + 0.1) / 3]
    expected += [(0.1 + 0.2 + 0.3) / 3, (0.4 + 0.6) / 2]
    assert_allclose(got, expected)


def test_the_head_report_pools_held_out_sentences():
    """Over held-out sentences: every head's role weights lie in [0, 1], the scaled spread is
    the raw one ÷ √64, and the one-hot share is a share of rows."""
    from viz_core import head_report, held_out_sentences

    report = head_report(held_out_sentences(20))
    assert report.sentences == 20 and report.d_k == 64
    assert report.role_weights.shape == (2, 4, 5)
    assert np.all((report.role_weights >= 0) & (report.role_weights <= 1 + 1e-9))
    assert_allclose(report.std_scaled, report.std_raw / 8)
    assert np.all((report.one_hot >= 0) & (report.one_hot <= 1))
    assert report.strongest(0, 0)[0] in (*report.roles, "mixed")


def test_trained_first_layer_heads_link_xi_to_wo_and_huan():
    """The articles' key result, split over heads: on 我喜欢人工智能 some first-layer head puts
    most of 喜's weight on 我 (its subject) and some on 欢 (the rest of the word 喜欢). Random
    or untrained weights spread 喜's row evenly and fail this."""
    run = run_model("我喜欢人工智能")
    xi = run.tokens.index("喜")
    rows = [steps.weights[xi] for steps in run.layers[0]]
    assert max(row[run.tokens.index("我")] for row in rows) > 0.5
    assert max(row[run.tokens.index("欢")] for row in rows) > 0.5


def test_the_shipped_head_report_is_the_one_the_shipped_weights_give():
    """mlm_heads.json, which the model page shows, is what head_report computes now from the
    shipped weights on the same held-out sentences: the page's claims are the model's own."""
    from viz_core import head_report, held_out_sentences, load_head_report
    from viz_core.model import REPORT_SENTENCES

    shipped = load_head_report()
    again = head_report(held_out_sentences(REPORT_SENTENCES))
    assert shipped.sentences == REPORT_SENTENCES and shipped.roles == again.roles
    for field in ("role_weights", "std_raw", "std_scaled", "one_hot"):
        assert_allclose(getattr(shipped, field), getattr(again, field), atol=1e-9)
