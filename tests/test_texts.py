"""The sentences issue 26 found wrong or confusing, each now read against the numbers."""

import numpy as np
from conftest import markdown_texts, open_app

from ui.scaling.body import SAMPLES
from viz_core import run_lab, sample_dot_products


def shown(at):
    texts = markdown_texts(at) + [e.proto.body for e in at.get("html")]
    return " ".join(texts + [c.value for c in at.caption])


def test_the_quiz_answer_gives_xi_its_own_largest_share():
    """喜's row is [0.16, 0.40, 0.23, …]: the answer names 喜's own 40 % and says the article
    left it out."""
    text = shown(open_app("quiz", lang="en"))
    assert "喜 itself keeps 40 %" in text and "leaves out the largest share" in text


def test_softmax_says_its_sum_is_after_subtracting_the_max():
    text = shown(open_app("softmax", lang="en", values="2, 1, 0.1"))
    total = np.exp(np.array([2, 1, 0.1]) - 2).sum()
    assert f"after subtracting the max, Σ e^(s − max s) = {total:.6g}" in text


def test_the_lab_and_scaling_say_what_their_std_is_a_sample_of():
    lab = shown(open_app("lab", lang="en", stage="scores", d="1536"))
    result = run_lab("我喜欢人工智能", d=1536)
    assert f"the std of these 81 scores is {result.std_scores:.3g} (a sample" in lab
    scaling = shown(open_app("scaling", lang="en", d="1536"))
    dots = sample_dot_products(1536, SAMPLES, seed=1536)
    assert f"Measured std of {dots.size:,} dot products {dots.std():.3g} (a sample)" in scaling


def test_the_row_verdict_says_it_compares_scaled_with_unscaled():
    at = open_app("lab", lang="en", source="embedding", position="false", text="我爱我家", d="96")
    assert "The two rows differ" not in shown(at)


def test_no_mask_reads_the_same_beside_its_radio():
    at = open_app("steps", lang="en")
    assert "mask: None" not in shown(at)
