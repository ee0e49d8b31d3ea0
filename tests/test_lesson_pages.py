"""The lesson pages under AppTest: defaults, URL parameters, widgets, bad input."""

import math

import numpy as np
import pytest
from conftest import chart_keys, decode, figure, markdown_texts, open_app
from numpy.testing import assert_allclose

from ui.softmax.presets import PRESETS, article_check
from viz_core import make_quiz, run_lab, softmax, softmax_jacobian


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
    at.number_input(key="d").set_value(768).run()
    at.text_input(key="text").set_value("我爱我家").run()
    at.switch_page("ui/scaling/page.py").run()
    assert at.number_input(key="d").value == 768
    at.switch_page("ui/steps/page.py").run()
    assert at.query_params["text"] == "我爱我家" and at.query_params["d"] == "768"
    at.switch_page("ui/lab/page.py").run()
    assert at.text_input(key="text").value == "我爱我家"
    assert at.number_input(key="d").value == 768


# --- softmax lesson -------------------------------------------------------------------------


def test_softmax_defaults_to_the_articles_first_example():
    """[2.0, 1.0, 0.1]: probabilities 0.659, 0.242, 0.099 drawn, and the article agrees."""
    at = open_app("softmax", lang="en")
    assert_allclose(bar_y(at, "softmax_bars", 1), softmax([2.0, 1.0, 0.1]))
    assert any("Agrees with the article" in text for text in markdown_texts(at))


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_each_preset_is_one_click_and_the_article_check_is_computed(name):
    """A preset sets values and divisor; a mismatch with the article is reported, computed."""
    at = open_app("softmax", lang="en")
    at.button(key=f"sm_{name}").click().run()
    preset = PRESETS[name]
    assert at.query_params["values"] == preset.values
    assert float(at.query_params["divisor"]) == preset.divisor
    if preset.printed:
        values = [float(v) for v in preset.values.split(",")]
        agrees, _ = article_check(preset, tuple(softmax(np.array(values) / preset.divisor)))
        word = "Agrees" if agrees else "The article prints"
        assert any(word in text for text in markdown_texts(at)), name


def test_the_articles_wrong_numbers_are_called_out():
    """[20, −10, 5] ÷ 8: the article prints [0.76, 0.02, 0.22]; computed [0.85, 0.02, 0.13]."""
    at = open_app("softmax", lang="en", values="20, -10, 5", divisor="8")
    (warning,) = [w.value for w in at.warning]
    assert "[0.76, 0.02, 0.22]" in warning and "[0.85, 0.02, 0.13]" in warning


def test_naive_softmax_overflow_is_shown_in_words_never_as_nan():
    """[1000, 999]: the naive column says overflow / undefined; no 'nan' or 'inf' anywhere."""
    at = open_app("softmax", lang="en", values="1000, 999")
    frames = [frame.value for frame in at.dataframe]
    cells = " ".join(str(v) for frame in frames for v in frame.to_numpy().ravel())
    assert "overflow" in cells and "undefined" in cells
    assert "nan" not in cells.lower() and "inf " not in cells.lower()
    assert_allclose(bar_y(at, "softmax_bars", 1), [1 / (1 + math.exp(-1)), 1 / (1 + math.e)])


def test_gradient_and_jacobian_follow_the_target():
    """target=1: the gradient is p − one-hot(1); the Jacobian heatmap is diag(p) − p pᵀ."""
    at = open_app("softmax", values="2.5, -1.25, 0.625", target="1")
    p = softmax([2.5, -1.25, 0.625])
    assert_allclose(bar_y(at, "gradient_bars"), p - np.array([0, 1, 0]))
    (heatmap,) = [tr for tr in figure(at, "jacobian_heatmap")["data"] if tr["type"] == "heatmap"]
    assert_allclose(decode(heatmap["z"]), softmax_jacobian(p))


@pytest.mark.parametrize(
    "query",
    [
        {"values": "nan,1"},
        {"values": "1e400"},
        {"values": ""},
        {"values": ",".join(["1"] * 13)},
        {"values": "<script>alert(1)</script>"},
        {"divisor": "0"},
        {"divisor": "-1"},
        {"divisor": "inf"},
        {"target": "99"},
        {"target": "x"},
    ],
)
def test_softmax_bad_url_values_are_noted(query):
    """Bad numbers, divisors or targets: a note, sane values, the page still works."""
    at = open_app("softmax", **query)
    assert at.info or at.warning
    assert "softmax_bars" in chart_keys(at)


def test_typed_garbage_gives_a_friendly_warning_and_the_default_example():
    """Typing words instead of numbers: a warning, and the default example meanwhile."""
    at = open_app("softmax", lang="en")
    at.text_input(key="values").set_value("one, two").run()
    assert any("Please type" in w.value for w in at.warning)
    assert_allclose(bar_y(at, "softmax_bars", 1), softmax([2.0, 1.0, 0.1]))


# --- scaling lesson -------------------------------------------------------------------------


def test_scaling_experiment_follows_var_equals_d():
    """The measured Var(q·k) lies within 15 % of d; after ÷√d, within 15 % of 1."""
    at = open_app("scaling", lang="en")
    data = figure(at, "variance_chart")["data"]
    ds = decode(data[1]["x"])
    assert_allclose(decode(data[1]["y"]) / ds, 1, rtol=0.15)
    assert_allclose(decode(data[3]["y"]), 1, rtol=0.15)


def test_uniform_entries_follow_d_over_9_and_say_so():
    """distribution=uniform: the theory line is d/9 and a note explains why."""
    at = open_app("scaling", lang="en", distribution="uniform")
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


def test_animation_has_a_frame_per_d_and_a_play_button():
    """The sharpening animation: one frame per d from 1 to 8192 and play/pause buttons."""
    at = open_app("scaling", lang="en")
    spec = figure(at, "sharpening_animation")
    assert [frame["name"] for frame in spec["frames"]] == [str(2**p) for p in range(14)]
    assert spec["layout"]["updatemenus"][0]["buttons"][0]["method"] == "animate"


@pytest.mark.parametrize("query", [{"d": "1e400"}, {"d": "0"}, {"distribution": "cauchy"}])
def test_scaling_bad_url_values_are_noted(query):
    """Bad d or distribution: a note, sane values, every chart still drawn."""
    at = open_app("scaling", **query)
    assert at.info
    assert len(chart_keys(at)) == 6


# --- steps lesson ---------------------------------------------------------------------------


def test_steps_walk_from_one_to_six_with_the_buttons():
    """Next moves one step and shows that step's matrix; previous moves back; the URL follows."""
    at = open_app("steps", lang="en")
    assert chart_keys(at) == ["step_q", "step_k", "step_v"]
    expected = ["step_scores", "step_scaled", "step_masked", "step_weights", "step_output"]
    for step, key in enumerate(expected, start=2):
        at.button(key="step_next").click().run()
        assert chart_keys(at) == [key] and at.query_params["step"] == str(step)
    at.button(key="step_prev").click().run()
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
    heads, head = int(query.get("heads", 1)), int(query.get("head", 0))
    expected = run_lab("我喜欢人工智能", d=int(query["d"]), heads=heads, head=head)
    (heatmap,) = [tr for tr in figure(at, "step_scaled")["data"] if tr["type"] == "heatmap"]
    scaled = decode(heatmap["z"])
    assert_allclose(scaled, expected.steps.scores / math.sqrt(d_k))
    sqrt_d_k = f"{math.sqrt(d_k):.4g}"
    assert any(f"√d = {sqrt_d_k}" in text for text in page_texts(at))
    wrong = f"{math.sqrt(int(query['d'])):.4g}"
    assert d_k == int(query["d"]) or not any(wrong in text for text in page_texts(at))
    at.radio(key="step").set_value(1).run()
    assert any(shape in text for text in page_texts(at)), page_texts(at)
    at.radio(key="step").set_value(6).run()
    assert any(f"9 × {d_k}" in text for text in page_texts(at))


@pytest.mark.parametrize("step", ["0", "7", "-1", "two", "1e400"])
def test_steps_bad_step_is_noted(step):
    """A step outside 1 … 6 is replaced, with a note."""
    at = open_app("steps", step=step)
    assert at.info and chart_keys(at)


# --- quiz -----------------------------------------------------------------------------------


def test_quiz_has_the_articles_questions_and_eight_numeric_ones():
    """Three model answers to reveal, eight numeric questions with answer boxes."""
    at = open_app("quiz", lang="en")
    assert len(at.expander) == 3 + 8
    assert len([box for box in at.number_input if box.key.startswith("answer_")]) == 8


def test_quiz_checks_answers_and_gives_feedback():
    """A right answer gets ✓, a wrong one ✗ with a hint; the score counts the right ones."""
    at = open_app("quiz", lang="en", quiz_seed="3")
    questions = make_quiz(3)
    at.number_input(key="answer_3_1").set_value(round(questions[0].answer, 3)).run()
    at.number_input(key="answer_3_2").set_value(questions[1].answer + 1).run()
    assert any("Correct" in s.value for s in at.success)
    assert any("Not quite" in e.value for e in at.error)
    assert at.subheader[-1].value == "1 of 8 right"


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
    at.button(key="quiz_new").click().run()
    assert at.query_params["quiz_seed"] != "0"


@pytest.mark.parametrize("seed", ["-1", "1e400", "abc", str(2**40)])
def test_quiz_bad_seed_is_noted(seed):
    """A bad quiz number is replaced, with a note."""
    assert open_app("quiz", quiz_seed=seed).info
