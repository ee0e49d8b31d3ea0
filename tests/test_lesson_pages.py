"""The lesson pages under AppTest: defaults, URL parameters, widgets, bad input."""

import math
import re

import numpy as np
import pytest
from conftest import chart_keys, decode, figure, markdown_texts, open_app
from numpy.testing import assert_allclose

from ui.quiz.body import DECIMALS
from ui.softmax.presets import PRESETS
from viz_core import ONE_HOT, make_qkv, make_quiz, softmax


def bar_y(at, key, trace=0):
    return decode(figure(at, key)["data"][trace]["y"])


# --- navigation -----------------------------------------------------------------------------


@pytest.mark.parametrize("page", ["lab", "softmax", "scaling", "steps", "quiz"])
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_page_opens_in_both_languages(page, lang):
    """Each page runs without an exception and writes its settings and language into the URL."""
    at = open_app(page, lang=lang)
    assert at.query_params["lang"] == lang
    assert at.title[0].value


def test_settings_survive_a_trip_through_the_lessons():
    """d chosen in the lab is kept by the √d lesson and the steps page, and back in the lab."""
    at = open_app()
    at.number_input(key="lab_d").set_value(768).run()
    at.text_input(key="lab_text").set_value("我爱我家").run()
    at.switch_page("ui/scaling/page.py").run()
    assert at.number_input(key="scaling_d").value == 768
    at.switch_page("ui/steps/page.py").run()
    assert at.query_params["text"] == "我爱我家" and at.query_params["d"] == "768"
    at.switch_page("ui/lab/page.py").run()
    assert at.text_input(key="lab_text").value == "我爱我家"
    assert at.number_input(key="lab_d").value == 768


# --- softmax lesson -------------------------------------------------------------------------


def notes(at):
    """The texts of every info, warning and success box."""
    return [box.value for kind in ("info", "warning", "success") for box in at.get(kind)]


def test_softmax_defaults_to_the_articles_first_example():
    """[2.0, 1.0, 0.1]: probabilities 0.659, 0.242, 0.099 drawn, and the article agrees."""
    at = open_app("softmax", lang="en")
    assert_allclose(bar_y(at, "softmax_bars", 1), softmax([2.0, 1.0, 0.1]))
    assert any("agrees with the article: [0.659, 0.242, 0.099]" in text for text in notes(at))


# Written from the articles (what they print) and by hand (the computation, to the article's
# decimals): each preset's verdicts. None = the article agrees.
ARTICLE_VERDICTS = {
    "basic": [("softmax output", "[0.659, 0.242, 0.099]", None)],
    "winner": [("softmax output", "[0.99998, 0.00005, 0.00000]", "[0.99995, 0.00005, 0.00000]")],
    "flat": [("softmax output", "[0.337, 0.332, 0.332]", "[0.336, 0.332, 0.332]")],
    "mild": [("softmax output", "[0.245, 0.665, 0.090]", None)],
    "sharp": [("softmax output", "[0.018, 0.982, 0.0003]", None)],
    "xi_raw": [],
    "xi_8": [
        ("softmax output", "[0.16, 0.40, 0.23, 0.03, 0.03, 0.03, 0.03, 0.05, 0.04]", None),
        ("denominator", "42.73", "both right"),  # its own rounded eˣ add up to 42.73
    ],
    "five_raw": [
        ("softmax output", "[0.001, 0.997, 0.002, ≈0, ≈0]", "[0.001, 0.988, 0.011, 0.000, 0.000]")
    ],
    "five_8": [
        (
            "softmax output",
            "[0.187, 0.473, 0.270, 0.036, 0.035]",
            "[0.187, 0.473, 0.269, 0.036, 0.035]",
        )
    ],
    "grad_raw": [
        ("softmax output", "[0.9999, 0.0000, 0.0001]", "[1.0000, 0.0000, 0.0000]"),
        ("gradient", "≈ [−0.0001, 0, 0]", "[0.0000, 0, 0]"),
    ],
    "grad_8": [
        ("softmax output", "[0.76, 0.02, 0.22]", "[0.85, 0.02, 0.13]"),
        ("gradient", "[−0.24, 0.02, 0.22]", "[−0.15, 0.02, 0.13]"),
    ],
    "overflow": [],
}


def test_every_preset_is_in_the_verdict_table():
    """The pinned table covers every preset the page offers."""
    assert set(ARTICLE_VERDICTS) == set(PRESETS)


@pytest.mark.parametrize("name", sorted(ARTICLE_VERDICTS))
def test_each_preset_shows_the_articles_numbers_beside_the_computed_ones(name):
    """One click sets the preset; each printed number the article gets right is confirmed, and
    each it gets wrong is shown beside the computed one — pinned here, not recomputed."""
    at = open_app("softmax", lang="en")
    at.button(key=f"softmax_{name}").click().run()
    assert at.query_params["values"] == PRESETS[name].values
    boxes = notes(at)
    shown = [text for text in boxes if "article" in text]
    expected = ARTICLE_VERDICTS[name] + ([("twin", "", "")] if name == "xi_raw" else [])
    assert len(shown) == len(expected), shown
    for what, printed, computed in ARTICLE_VERDICTS[name]:
        if computed is None:
            assert any(what in box and "agrees" in box and printed in box for box in boxes)
        elif computed == "both right":
            assert any(what in box and printed in box and computed in box for box in boxes)
        else:
            assert any(
                what in box and f"prints {printed}" in box and f"gives {computed}" in box
                for box in boxes
            ), (what, boxes)


def test_the_unscaled_xi_row_carries_the_article_note_with_token_labels():
    """The 喜 row unscaled: the article prints it only ÷ 8; the note gives the computed row, and
    every figure is labelled with the article's tokens, not x0 … x8."""
    at = open_app("softmax", lang="en", values=PRESETS["xi_raw"].values)
    x = np.array([15.3, 22.7, 18.2, 2.1, 1.8, 3.2, 2.9, 5.6, 4.1])
    p = np.exp(x - x.max()) / np.exp(x - x.max()).sum()
    (note,) = [text for text in notes(at) if "only after ÷ 8" in text]
    assert "[0.16, 0.40, 0.23" in note and f"takes {p.max():.2f}" in note
    tokens = ["我", "喜", "欢", "人", "工", "智", "能", "[CLS]", "[SEP]"]
    assert figure(at, "softmax_bars")["layout"]["xaxis"]["ticktext"] == tokens
    assert list(at.dataframe[0].value.iloc[:, 0]) == tokens  # the table, the section shown first
    at.segmented_control(key="softmax_section").set_value("jacobian").run()
    assert figure(at, "jacobian_heatmap")["layout"]["yaxis"]["ticktext"] == tokens
    at.segmented_control(key="softmax_section").set_value("gradient").run()
    assert at.selectbox(key="softmax_target").options[:3] == ["the largest (喜)", "我", "喜"]


def test_naive_softmax_overflow_is_shown_in_words_never_as_nan():
    """[1000, 999]: the naive column says overflow / undefined; no 'nan' or 'inf' anywhere."""
    at = open_app("softmax", lang="en", values="1000, 999", section="stability")
    frames = [frame.value for frame in at.dataframe]
    cells = " ".join(str(v) for frame in frames for v in frame.to_numpy().ravel())
    assert "overflow" in cells and "undefined" in cells
    assert "nan" not in cells.lower() and "inf " not in cells.lower()
    assert_allclose(bar_y(at, "softmax_bars", 1), [1 / (1 + math.exp(-1)), 1 / (1 + math.e)])


def test_naive_softmax_underflow_is_named_as_such_and_never_said_to_agree():
    """[−1000, −1001]: every e^x underflows to 0, so the naive formula is 0/0, not ∞/∞.
    [−745, −700]: it gives numbers, but e^−745 is a subnormal float and the small weight is off
    by tens of percent: the page says so instead of "both agree"."""
    at = open_app("softmax", lang="en", values="-1000, -1001", section="stability")
    cells = " ".join(str(v) for v in at.dataframe[0].value.to_numpy().ravel())
    assert "0/0" in cells and "∞/∞" not in cells
    assert "underflowed" in at.warning[0].value
    at = open_app("softmax", lang="en", values="-745, -700", section="stability")
    naive = np.exp([-745.0, -700.0]) / np.exp([-745.0, -700.0]).sum()
    stable = 1 / (1 + math.exp(45))  # the small weight, written out
    error = abs(naive[0] - stable) / stable
    assert error > 0.1  # what is checked: the naive number really is wrong
    (warning,) = [w.value for w in at.warning]
    assert f"largest relative error of {100 * error:.3g} %" in warning
    assert not [note for note in at.info if "both agree" in note.value]
    at = open_app("softmax", lang="en", values="2, 1, 0.1", section="stability")
    assert "both agree" in at.info[0].value and not at.warning


def jacobian_by_hand(x):
    """∂p_i/∂x_j = p_i(δ_ij − p_j) for p = softmax(x), written out."""
    e = np.exp(np.asarray(x) - np.max(x))
    p = e / e.sum()
    return np.diag(p) - np.outer(p, p)


def heatmap_of(at, key):
    """The heatmap trace of a chart."""
    (heatmap,) = [tr for tr in figure(at, key)["data"] if tr["type"] == "heatmap"]
    return heatmap


def test_the_jacobian_vanishes_unscaled_and_is_drawn_on_a_fixed_scale():
    """[20, −10, 5] ÷ 8 beside ÷ 1: both Jacobians, their norms on the page, and a colour scale
    fixed at ±1/4, so the near-zero unscaled matrix looks near zero."""
    at = open_app("softmax", lang="en", values="20, -10, 5", divisor="8", section="jacobian")
    scaled, unscaled = jacobian_by_hand([2.5, -1.25, 0.625]), jacobian_by_hand([20, -10, 5])
    for key, expected in [("jacobian_heatmap", scaled), ("jacobian_unscaled", unscaled)]:
        heatmap = heatmap_of(at, key)
        assert_allclose(decode(heatmap["z"]), expected, atol=1e-15)
        assert (heatmap["zmin"], heatmap["zmax"]) == (-0.25, 0.25)
    text = " ".join(page_texts(at))
    assert f"‖J‖ = {np.linalg.norm(scaled):.3g}" in text
    assert f"‖J‖ = {np.linalg.norm(unscaled):.3g}" in text
    assert np.linalg.norm(unscaled) < 1e-5 < 0.1 < np.linalg.norm(scaled)


def test_with_divisor_one_there_is_one_jacobian_and_a_hint():
    """Nothing to compare at ÷ 1: one Jacobian, and the page suggests a ÷ 8 example."""
    at = open_app("softmax", lang="en", values="20, -10, 5", section="jacobian")
    assert "jacobian_heatmap" in chart_keys(at) and "jacobian_unscaled" not in chart_keys(at)
    assert any("Pick a “÷ 8” example" in text for text in page_texts(at))


@pytest.mark.parametrize(
    ("section", "charts", "tables"),
    [
        ("table", {"softmax_bars"}, 1),
        ("stability", {"softmax_bars"}, 1),
        ("jacobian", {"softmax_bars", "jacobian_heatmap", "jacobian_unscaled"}, 0),
        ("gradient", {"softmax_bars", "gradient_bars"}, 0),
    ],
)
def test_below_the_bars_only_the_chosen_section_is_drawn(section, charts, tables):
    """New numbers redraw the bars and one section, the one the link or the picker chose."""
    at = open_app("softmax", lang="en", values="3, 1, 0.2", divisor="2", section=section)
    assert set(chart_keys(at)) == charts
    assert len(at.dataframe) == tables
    assert at.query_params.get("section", "table") == section


def test_the_target_outlives_another_section_and_a_shorter_list():
    """The gradient's target stays in the link while the table is shown, the gradient section
    then uses it, and numbers too few for it put it back on the largest entry, whichever
    section is shown."""
    at = open_app("softmax", lang="en", values="3, 1, 0.2", target="2")
    at.text_input(key="softmax_values").set_value("4, 1, 0.5, 2").run()
    assert at.query_params["target"] == "2" and "gradient_bars" not in chart_keys(at)
    at.segmented_control(key="softmax_section").set_value("gradient").run()
    e = np.exp(np.array([4.0, 1.0, 0.5, 2.0]) - 4)
    assert_allclose(bar_y(at, "gradient_bars"), e / e.sum() - np.array([0, 0, 1, 0]))
    at.segmented_control(key="softmax_section").set_value("table").run()
    at.text_input(key="softmax_values").set_value("4, 1").run()
    assert at.query_params["target"] == "-1" and not at.exception
    assert any("Position 2 for the right answer is past these 2 numbers" in n for n in notes(at))


def test_a_link_s_target_past_the_numbers_says_the_largest_is_used_and_uses_it():
    """?target=99 with three numbers: the link's note says 11 (the most any list allows), and
    the page's note that 11 is past these numbers; the gradient then targets the largest."""
    at = open_app("softmax", lang="en", values="1, 5, 2", target="99", section="gradient")
    said = notes(at)
    assert any("`target`" in text and "using 11 instead" in text for text in said)
    assert any("Position 11 for the right answer is past these 3 numbers" in n for n in said)
    e = np.exp(np.array([1.0, 5.0, 2.0]) - 5)
    assert_allclose(bar_y(at, "gradient_bars"), e / e.sum() - np.array([0, 1, 0]))
    assert at.query_params["target"] == "-1"


def test_the_loss_gradient_targets_the_largest_entry_by_default():
    """No target in the link: the right answer is the largest entry, as in the article."""
    at = open_app("softmax", values="1, 5, 2", section="gradient")
    e = np.exp(np.array([1.0, 5.0, 2.0]) - 5)
    assert_allclose(bar_y(at, "gradient_bars"), e / e.sum() - np.array([0, 1, 0]))


def test_a_saturated_wrong_answer_has_two_large_gradient_entries():
    """[20, −10, 5], right answer 5 (position 2): ≈ +1 at the winner, ≈ −1 at the target, ≈ 0
    elsewhere; the page counts the two entries."""
    at = open_app("softmax", lang="en", values="20, -10, 5", target="2", section="gradient")
    e = np.exp(np.array([20.0, -10.0, 5.0]) - 20)
    gradient = e / e.sum() - np.array([0, 0, 1])
    assert_allclose(bar_y(at, "gradient_bars"), gradient)
    assert any("entries ≥ 0.01: 2 of 3" in text for text in page_texts(at))


@pytest.mark.parametrize(
    ("query", "key", "used"),
    [
        ({"values": "nan,1"}, "values", "2.0, 1.0, 0.1"),
        ({"values": "1e400"}, "values", "2.0, 1.0, 0.1"),
        ({"values": ""}, "values", "2.0, 1.0, 0.1"),
        ({"values": ",".join(["1"] * 13)}, "values", "2.0, 1.0, 0.1"),
        ({"values": "<script>alert(1)</script>"}, "values", "2.0, 1.0, 0.1"),
        ({"divisor": "0"}, "divisor", "0.001"),
        ({"divisor": "-1"}, "divisor", "0.001"),
        ({"divisor": "inf"}, "divisor", "1"),
        ({"target": "99"}, "target", "11"),
        ({"target": "x"}, "target", "-1"),
        ({"section": "<b>x</b>"}, "section", "table"),
    ],
)
def test_softmax_bad_url_values_are_noted(query, key, used):
    """Bad numbers, divisors or targets: a note naming the key and the value used instead."""
    at = open_app("softmax", lang="en", **query)
    assert any(f"`{key}`" in text and f"using {used} instead" in text for text in notes(at))
    assert "softmax_bars" in chart_keys(at)


def test_typed_garbage_gives_a_friendly_warning_and_the_default_example():
    """Typing words instead of numbers: a warning, and the default example meanwhile."""
    at = open_app("softmax", lang="en")
    at.text_input(key="softmax_values").set_value("one, two").run()
    assert any("Please type" in w.value for w in at.warning)
    assert_allclose(bar_y(at, "softmax_bars", 1), softmax([2.0, 1.0, 0.1]))


# --- scaling lesson -------------------------------------------------------------------------


def test_scaling_experiment_follows_var_equals_d():
    """The measured Var(q·k) lies within 15 % of d; after ÷√d, within 15 % of 1."""
    at = open_app("scaling", lang="en", section="variance")
    data = figure(at, "variance_chart")["data"]
    ds = decode(data[1]["x"])
    assert_allclose(decode(data[1]["y"]) / ds, 1, rtol=0.15)
    assert_allclose(decode(data[3]["y"]), 1, rtol=0.15)


def test_uniform_entries_follow_d_over_9_and_say_so():
    """distribution=uniform: the theory line is d/9 and a note explains why."""
    at = open_app("scaling", lang="en", distribution="uniform", section="variance")
    data = figure(at, "variance_chart")["data"]
    assert_allclose(decode(data[0]["y"]), decode(data[0]["x"]) / 9)
    assert any("d/9" in info.value for info in at.info)


def test_histogram_for_the_chosen_d_marks_the_articles_figure():
    """d=1536: the measured std is near √1536 ≈ 39.2 and the article's 39.2 is marked."""
    at = open_app("scaling", lang="en", d="1536")
    layout = figure(at, "dot_histogram")["layout"]
    assert any("39.2" in a["text"] for a in layout["annotations"])
    raw = decode(figure(at, "dot_histogram")["data"][0]["x"])
    assert abs(raw.std() / math.sqrt(1536) - 1) < 0.1


def test_uniform_theory_numbers_and_lines_follow_the_distribution():
    """distribution=uniform, d=6144: the theory is √(d/9) ≈ 26.1, not √d = 78.4: in the text and
    in the reference lines (±26.1 raw, ±1/3 scaled); the article's 78.4 is not marked."""
    at = open_app("scaling", lang="en", d="6144", distribution="uniform")
    theory = math.sqrt(6144 / 9)
    text = " ".join(page_texts(at))
    assert f"theory √(d/9) = {theory:.3g}" in text and "theory 0.333" in text
    spec = figure(at, "dot_histogram")
    lines = sorted(shape["x0"] for shape in spec["layout"]["shapes"])
    assert_allclose(lines, [-theory, -1 / 3, 1 / 3, theory])
    assert not any("78.4" in a["text"] for a in spec["layout"]["annotations"])
    normal = figure(open_app("scaling", lang="en", d="6144"), "dot_histogram")
    assert_allclose(
        sorted(s["x0"] for s in normal["layout"]["shapes"]), [-(6144**0.5), -1, 1, 6144**0.5]
    )


def test_animation_has_a_frame_per_d_and_a_caption_counted_from_its_frames():
    """The sharpening animation: one frame per d from 1 to 8192, play/pause buttons, and a
    caption whose numbers are the frames' own largest weights (read back from the figure)."""
    at = open_app("scaling", lang="en", section="animation")
    spec = figure(at, "sharpening_animation")
    assert [frame["name"] for frame in spec["frames"]] == [str(2**p) for p in range(14)]
    assert spec["layout"]["updatemenus"][0]["buttons"][0]["method"] == "animate"
    raw = np.array([decode(frame["data"][0]["y"]).max() for frame in spec["frames"]])
    scaled = np.array([decode(frame["data"][1]["y"]).max() for frame in spec["frames"]])
    (caption,) = [c.value for c in at.caption if "Press ►" in c.value]
    assert f"ranges from {raw.min():.2f} to {raw.max():.2f}" in caption
    assert f"above {ONE_HOT} at {(raw > ONE_HOT).sum()} of the 14" in caption
    assert (
        f"from {scaled.min():.2f} to {scaled.max():.2f}, "
        f"above {ONE_HOT} at {(scaled > ONE_HOT).sum()}" in caption
    )
    assert "stays steady" not in caption


def test_animation_frames_match_an_independent_computation():
    """Each frame is softmax(q·k_j) over the first d dimensions of one seeded q and nine k
    (seed 0, drawn q first), computed here in plain numpy, raw and ÷√d."""
    spec = figure(open_app("scaling", lang="en", section="animation"), "sharpening_animation")
    rng = np.random.default_rng(0)
    q = rng.standard_normal(8192)
    k = rng.standard_normal((9, 8192))
    for frame in spec["frames"]:
        d = int(frame["name"])
        scores = k[:, :d] @ q[:d]
        for trace, divisor in zip(frame["data"], (1.0, math.sqrt(d)), strict=True):
            e = np.exp(scores / divisor - (scores / divisor).max())
            assert_allclose(decode(trace["y"]), e / e.sum(), atol=1e-12)


@pytest.mark.parametrize(
    ("query", "key", "used"),
    [
        ({"d": "1e400"}, "d", "1536"),
        ({"d": "0"}, "d", "1"),
        ({"d": "99999"}, "d", "8192"),
        ({"distribution": "cauchy"}, "distribution", "normal"),
    ],
)
def test_scaling_bad_url_values_are_noted(query, key, used):
    """Bad d or distribution: a note naming the key and the value used; every chart drawn."""
    at = open_app("scaling", lang="en", **query)
    assert any(f"`{key}`" in text and f"using {used} instead" in text for text in notes(at))
    assert chart_keys(at) == ["dot_histogram"]  # the default section's one chart


def test_a_first_visit_spreads_its_work_over_script_runs_and_ends_in_the_result(monkeypatch):
    """With one cached call per script run, a cold /scaling reruns itself once per part of the
    section on screen (here each d's samples of the variance experiment, nothing of the other
    sections), keeps every part, keeps the link's notes, and draws the variance an uncached
    computation gives, bit for bit."""
    import ui.scaling.body as body
    from viz_core import dot_product_variance

    monkeypatch.setattr(body, "SLICE", 0.0)
    runs = []
    render = body.render
    monkeypatch.setattr(body, "render", lambda: runs.append(1) or render())
    at = open_app("scaling", lang="en", d="2048", distribution="x", section="variance")
    params = body.ScalingParams(d=2048, distribution="normal", section="variance")
    calls = body.page_calls(params)
    assert len(runs) == len(calls) == len(body.EXPERIMENT_DS)
    assert all(call.kept(**kwargs) for call, kwargs in calls)
    assert any("`distribution`" in text for text in notes(at))  # carried through the reruns
    expected = dot_product_variance(samples=body.SAMPLES, distribution="normal")
    data = figure(at, "variance_chart")["data"]
    assert (decode(data[1]["y"]) == expected.var_raw).all()
    assert (decode(data[3]["y"]) == expected.var_scaled).all()
    at.run()
    assert len(runs) == len(calls) + 1  # all kept: one run


def test_a_cold_visit_computes_only_the_section_on_screen():
    """The histogram (the section a link opens by default) draws its samples at the presets and
    at its d, and nothing of the variance experiment or the saturation curves: a class waking
    the server pays for what it sees."""
    import ui.scaling.body as body

    open_app("scaling", lang="en", d="96")
    assert all(body.dot_samples.kept(d=d, distribution="normal") for d in (*body.PRESETS, 96))
    drawn = [(d, seed) for seed, d in enumerate(body.EXPERIMENT_DS)]
    assert not any(body.variance_dots.kept(d=d, distribution="normal", seed=s) for d, s in drawn)
    assert not body.saturation_curves.kept(distribution="normal")


# --- steps lesson ---------------------------------------------------------------------------


def test_steps_walk_from_one_to_six_with_the_buttons():
    """Next moves one step and shows that step's matrix; previous moves back; the URL follows."""
    at = open_app("steps", lang="en")
    assert chart_keys(at) == ["step_q"]
    for name in ("k", "v", "q"):  # step 1's matrices, one at a time, picked beside the formula
        at.radio(key="steps_matrix").set_value(name).run()
        assert chart_keys(at) == [f"step_{name}"] and at.query_params["matrix"] == name
    expected = ["step_scores", "step_scaled", "step_masked", "step_weights", "step_output"]
    for step, key in enumerate(expected, start=2):
        at.button(key="steps_next").click().run()
        assert chart_keys(at) == [key] and at.query_params["step"] == str(step)
    at.button(key="steps_prev").click().run()
    assert chart_keys(at) == ["step_weights"]


def test_steps_use_the_settings_of_the_lab_link():
    """steps?step=5&text=我爱我家&mask=causal shows that sentence's causal weights."""
    at = open_app("steps", step="5", text="我爱我家", mask="causal")
    (heatmap,) = [tr for tr in figure(at, "step_weights")["data"] if tr["type"] == "heatmap"]
    weights = decode(heatmap["z"])
    assert weights.shape == (6, 6)
    assert (np.triu(weights, 1) == 0).all()


def page_texts(at):
    """Every text the page shows: Markdown, LaTeX and what it writes through st.html."""
    return markdown_texts(at) + [element.proto.body for element in at.get("html")]


@pytest.mark.parametrize(
    ("query", "d_k", "shape"),
    [
        ({"d": "768", "heads": "12"}, 64, "9 \\times 64"),
        ({"d": "1536", "heads": "16", "head": "3"}, 96, "9 \\times 96"),
        ({"d": "100"}, 100, "9 \\times 100"),
    ],
)
def test_steps_numbers_come_from_the_computation_not_the_url(query, d_k, shape):
    """With heads, every head divides by √d_k, not by √d: step 3 says ÷ √d_k beside a matrix
    divided by it, and steps 1 and 6 give the head's shapes (d_k columns, not d)."""
    at = open_app("steps", step="3", lang="en", **query)
    head = int(query.get("head", 0))
    tokens = ["[CLS]", *"我喜欢人工智能", "[SEP]"]
    q, k, _ = make_qkv(tokens, d=int(query["d"]), seed=0)  # the lab's random Q, K
    columns = slice(head * d_k, (head + 1) * d_k)  # head h is columns h·d_k … (h+1)·d_k − 1
    expected = q[:, columns] @ k[:, columns].T / math.sqrt(d_k)
    (heatmap,) = [tr for tr in figure(at, "step_scaled")["data"] if tr["type"] == "heatmap"]
    assert_allclose(decode(heatmap["z"]), expected, rtol=1e-12)
    sqrt_d_k = f"{math.sqrt(d_k):.4g}"
    assert any(f"√d = {sqrt_d_k}" in text for text in page_texts(at))
    wrong = f"{math.sqrt(int(query['d'])):.4g}"
    assert d_k == int(query["d"]) or not any(wrong in text for text in page_texts(at))
    at.radio(key="steps_step").set_value(1).run()
    assert any(shape in text for text in page_texts(at)), page_texts(at)
    at.radio(key="steps_step").set_value(6).run()
    assert any(f"9 × {d_k}" in text for text in page_texts(at))


@pytest.mark.parametrize("step", ["0", "7", "-1", "two", "1e400"])
def test_steps_bad_step_is_noted(step):
    """A step outside 1 … 6 is replaced, with a note."""
    at = open_app("steps", step=step)
    assert at.info and chart_keys(at)


# --- quiz -----------------------------------------------------------------------------------


def test_quiz_has_the_articles_questions_and_eight_numeric_ones():
    """Eight numeric questions with answer boxes and their answers to reveal; in the articles'
    section, three model answers to reveal and no answer box."""
    at = open_app("quiz", lang="en")
    answers = [box for box in at.expander if box.label != "About this page"]
    assert len(answers) == 8  # besides the page's own "About this page"
    assert len([box for box in at.number_input if box.key.startswith("quiz_answer_")]) == 8
    at = open_app("quiz", lang="en", section="article")
    answers = [box for box in at.expander if box.label != "About this page"]
    assert len(answers) == 3
    assert not [box for box in at.number_input if box.key.startswith("quiz_answer_")]


def test_quiz_checks_answers_and_gives_feedback():
    """A right answer gets ✓, a wrong one ✗ with a hint; the score counts the right ones."""
    at = open_app("quiz", lang="en", quiz_seed="3")
    assert at.subheader[-1].value == "Answer a question to see your score here (8 questions)."
    assert not at.success and not at.error
    questions = make_quiz(3)
    at.number_input(key="quiz_answer_3_1").set_value(round(questions[0].answer, 3)).run()
    at.number_input(key="quiz_answer_3_2").set_value(questions[1].answer + 1).run()
    assert any("Correct" in s.value for s in at.success)
    assert any("Not quite" in e.value for e in at.error)
    assert at.subheader[-1].value == "1 right of the 2 answered (8 questions)."


def test_the_shown_answers_match_an_independent_computation():
    """The answers behind "Show the answer", for three kinds, recomputed here from the numbers
    the page prints in the questions."""
    at = open_app("quiz", lang="en", quiz_seed="7")
    questions = make_quiz(7)
    shown = " ".join(element.proto.body for element in at.get("html"))
    causal = next(q for q in questions if q.kind == "causal_count")
    n = int(causal.numbers["n"])
    assert f"Answer: {n * (n - 1) // 2}." in shown
    scaled = next(q for q in questions if q.kind == "scaled_score")
    value = scaled.numbers["s"] / math.sqrt(scaled.numbers["d"])
    assert f"Answer: {value:.4g}." in shown
    entropy = next(q for q in questions if q.kind == "entropy_uniform")
    assert f"Answer: {math.log(entropy.numbers['n']):.4g}." in shown


def test_no_question_prints_minus_zero():
    """A number rounded from a small negative one is -0.0 in the core: the question prints 0."""

    def minus_zero(seed):
        numbers = [v for q in make_quiz(seed) for v in q.numbers.values()]
        return any(v == 0 and math.copysign(1, v) < 0 for v in numbers)

    seed = next(seed for seed in range(3000) if minus_zero(seed))
    at = open_app("quiz", lang="en", quiz_seed=str(seed))
    shown = " ".join(element.proto.body for element in at.get("html"))
    assert re.search(r"-0(?![.\d])", shown) is None, seed


def test_a_count_takes_a_whole_number():
    """The causal-mask question's answer is a count: its box steps by 1 and shows no decimals;
    the others take decimals."""
    at = open_app("quiz", lang="en", quiz_seed="5")
    kinds = [question.kind for question in make_quiz(5)]
    for number, kind in enumerate(kinds, start=1):
        box = at.number_input(key=f"quiz_answer_5_{number}")
        decimals = DECIMALS.get(kind, 4)  # a question that asks for 3 decimals takes 3
        expected = (
            ("%d", 1.0, "INT") if kind == "causal_count" else (f"%.{decimals}f", 0.01, "FLOAT")
        )
        data_type = box.proto.DataType.Name(box.proto.data_type)
        assert (box.proto.format, box.proto.step, data_type) == expected, kind


def test_quiz_seed_is_shared_by_link():
    """The same quiz_seed gives the same questions in two sessions; another seed other ones."""
    first = open_app("quiz", lang="en", quiz_seed="42")
    second = open_app("quiz", lang="en", quiz_seed="42")
    other = open_app("quiz", lang="en", quiz_seed="43")
    questions = [e.value for e in first.get("html")]
    assert questions == [e.value for e in second.get("html")]
    assert questions != [e.value for e in other.get("html")]


def test_new_questions_button_changes_the_seed():
    """'New questions' picks another seed and puts it in the URL."""
    at = open_app("quiz")
    at.button(key="quiz_new_seed").click().run()
    assert at.query_params["quiz_seed"] != "0"


@pytest.mark.parametrize("seed", ["-1", "1e400", "abc", str(2**40)])
def test_quiz_bad_seed_is_noted(seed):
    """A bad quiz number is replaced, with a note naming the key."""
    at = open_app("quiz", lang="en", quiz_seed=seed)
    assert any("`quiz_seed`" in text and "using " in text for text in notes(at))


def test_new_bars_are_given_time_to_draw_before_the_rest_of_the_page(draw_waits):
    """/softmax waits (notes.let_draw) once after bars it has not sent before, so the browser
    draws them before the elements below arrive; a rerun that shows the same bars does not."""
    waits = draw_waits
    at = open_app("softmax", lang="en")
    waits.clear()  # opening ran the lab, then this page: each waited for its first chart
    at.run()
    assert len(waits) == 0
    at.text_input(key="softmax_values").set_value("3, 1, 0.5").run()
    assert len(waits) == 1
    at.run()
    assert len(waits) == 1
    assert not at.exception


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_articles_sum_of_its_rounded_exponentials_is_called_right(lang):
    """/softmax on the article's 喜 row ÷ 8: the article's Σ = 42.73 is the sum of its own
    exponentials rounded to two decimals; the exact sum rounds to 42.74. The page says both are
    right (with both numbers), instead of flagging the article."""
    from ui.kernel.settings import XI_ROW

    exps = np.exp(np.array(XI_ROW) / 8)
    assert f"{np.round(exps, 2).sum():.2f}" == "42.73" and f"{exps.sum():.2f}" == "42.74"
    at = open_app("softmax", lang=lang, values=",".join(map(str, XI_ROW)), divisor="8")
    (note,) = [info.value for info in at.info if "42.73" in info.value]
    assert "42.74" in note and f"{exps.sum():.4f}" in note and "6.77 + 17.07" in note
    assert not [warning.value for warning in at.warning if "42.73" in warning.value]


def test_steps_switches_the_labs_scaling_itself():
    """/steps has the ÷√d switch: off, step 3 shows S' = S (the raw scores), the link says
    scale=false, and the lab then opens without ÷√d too."""
    at = open_app("steps", lang="en", step="3", d="64")
    scaled = decode(figure(at, "step_scaled")["data"][0]["z"])
    at.toggle(key="steps_lab_scale").set_value(False).run()
    raw = decode(figure(at, "step_scaled")["data"][0]["z"])
    assert at.query_params["scale"] == "false"
    assert_allclose(raw, scaled * 8, rtol=1e-6)  # √64 = 8: the unscaled scores
    at.switch_page("ui/lab/page.py").run()
    assert at.toggle(key="lab_scale").value is False
