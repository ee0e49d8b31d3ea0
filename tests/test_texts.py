"""The pages' sentences about their numbers, each read against those numbers."""

import numpy as np
from conftest import markdown_texts, open_app

from ui.scaling.body import SAMPLES
from viz_core import run_lab, sample_dot_products


def shown(at):
    texts = markdown_texts(at) + [e.proto.body for e in at.get("html")]
    return " ".join(texts + [c.value for c in at.caption])


def test_the_quiz_answer_gives_xi_its_own_largest_share():
    """喜's row ÷ 8 through softmax is [0.16, 0.40, 0.23, …]: the answer names 喜's own 40 % as
    the largest share, says the article left it out, and every share it gives is the row's."""
    row = np.array([15.3, 22.7, 18.2, 2.1, 1.8, 3.2, 2.9, 5.6, 4.1]) / 8  # as the article prints
    weights = np.exp(row - row.max()) / np.exp(row - row.max()).sum()
    wo, xi, huan, ren, gong, zhi, neng, cls, sep = (f"{100 * w:.0f}" for w in weights)
    assert weights.argmax() == 1  # 喜's own is the largest, as the answer says
    for lang in ("en", "zh"):
        text = shown(open_app("quiz", lang=lang, section="article"))
        if lang == "en":
            assert f"喜 itself keeps {xi} %" in text and "leaves out the largest share" in text
            assert f"then 欢 ({huan} %) and 我 ({wo} %)" in text
            assert f"get {ren}, {gong}, {zhi} and {neng} %, [CLS] {cls} %, [SEP] {sep} %" in text
        else:
            assert f"“喜”自己占 {xi}%" in text and f"“欢”（{huan}%）和“我”（{wo}%）" in text
            assert f"分别占 {ren}%、{gong}%、{zhi}%、{neng}%，[CLS] {cls}%，[SEP] {sep}%" in text


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


def test_repeated_characters_under_a_causal_mask_are_not_called_identical():
    """Embeddings, no positions, causal mask: the second 我 sees more keys than the first, so
    their rows differ; the page says identical rows need no mask, and does not invite the
    reader to see them identical with the mask still on."""
    query = {"source": "embedding", "position": "false", "text": "我爱我家", "d": "96"}
    causal = shown(open_app("lab", lang="en", mask="causal", **query))
    result = run_lab("我爱我家", d=96, source="embedding", position=False, mask="causal")
    weights = result.steps.weights
    first, second = 1, 3  # the two 我, after [CLS]
    gap = np.abs(weights[first] - weights[second]).max()
    assert gap > 0.01  # what is checked: the rows really differ
    assert f"their weight rows differ (by up to {gap:.3f})" in causal
    assert "as long as no mask shows them different keys" in causal
    assert "turn positions off and the mask to none" in causal
    unmasked = shown(open_app("lab", lang="en", **query))
    assert "their weight rows are identical" in unmasked


def test_the_scores_stage_names_d_k_and_makes_no_random_prediction_for_a_trained_head():
    """12 heads of d = 768: each head adds d_k = 64 products, so √d_k = 8 (not √768 ≈ 27.7);
    a trained head's q and k are not random, so √d_k is given as no prediction there."""
    heads = shown(open_app("lab", lang="en", stage="scores", d="768", heads="12"))
    assert "It adds d_k products" in heads and "std ≈ √d_k = 8)" in heads
    assert "√d = 8" not in heads
    trained = shown(open_app("lab", lang="en", stage="scores", source="trained"))
    result = run_lab("我喜欢人工智能", source="trained")
    assert f"the std of these 81 scores is {result.std_scores:.3g}." in trained
    assert "is no prediction here" in trained and "theory ≈" not in trained


def test_scaling_off_with_a_temperature_says_the_temperature_still_divides():
    """÷√d off and T = 2: the stage divides by 2, and says so instead of "does nothing"."""
    text = shown(open_app("lab", lang="en", stage="scaled", scale="false", temperature="2"))
    assert "divides only by the temperature T = 2" in text and "does nothing" not in text
    assert "does nothing" in shown(open_app("lab", lang="en", stage="scaled", scale="false"))


def test_the_kernel_and_steps_name_a_trained_head_s_own_d_and_heads():
    """With the lab on a trained head, d and the heads are the model's (d_model, its heads),
    not the lab's boxes (64, one head), on /kernel's settings line and /steps'."""
    from viz_core.model import model_config

    config = model_config()
    query = {"source": "trained", "head": "2", "section": "flash"}
    kernel = shown(open_app("kernel", lang="en", **query))
    d_k = config.d_model // config.heads
    assert f"d = {config.d_model}, head 2 of {config.heads} (d_k = {d_k})" in kernel
    steps = shown(open_app("steps", lang="en", source="trained", head="2"))
    assert f"d = {config.d_model}," in steps
    assert f"{config.heads} heads of d_k = {d_k}, head 2 shown" in steps


def test_the_articles_are_named_by_title_never_by_an_ordinal_of_ours():
    """The articles are a series' seventh article and an untitled chapter: no page calls either
    "the first/second article" (the series' second article is about tokenisation)."""
    import importlib
    import re

    from ui.kit.pages import PAGES
    from ui.kit.text import STRINGS

    for page in PAGES:
        importlib.import_module(f"ui.{page.path}")  # registers the page's strings
    wrong = re.compile(r"第[一二]篇文章|(first|second) article", re.IGNORECASE)
    said = [f"{key}.{lang}" for key, texts in STRINGS.items() for lang, text in texts.items()
            if wrong.search(text)]  # fmt: skip
    assert said == []
    assert "第七篇" in STRINGS["md_xi_why"]["zh"] and "seventh" in STRINGS["md_xi_why"]["en"]
