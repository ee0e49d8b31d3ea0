"""/train's answer at a lesson: the answer to "does a head still learn without ÷√d_k?"
on the first screen of a projector, stated as the shipped sweep computes it; the frame on the
page's own run names its seed and sets it beside the median of the sweep's seeds, so that one
run and the sweep never read as opposing claims; the measure table fits a phone.

Expected values come from need_sweeps.json read here and from the core (viz_core.train), never
from the page's helpers."""

import html
import json
import math
import statistics
from pathlib import Path

import pytest
from conftest import ROOT, chart_keys, open_app

from viz_core import NEVER, train_head

NEED_FILE = ROOT / "ui" / "train" / "need_sweeps.json"
NAMES = {"sgd": "SGD", "adam": "Adam"}


def medians():
    """(optimizer, d_k) -> (scaled median, unscaled median, unscaled runs that never got there),
    from need_sweeps.json: a run that never reached 90 % counts as infinitely many steps."""
    stored = json.loads(Path(NEED_FILE).read_text(encoding="utf-8"))
    table = {}
    for optimizer, sweep in stored.items():
        for d_k, scaled, unscaled in zip(
            sweep["d_ks"], sweep["scaled"], sweep["unscaled"], strict=True
        ):
            s, u = (statistics.median(math.inf if n == NEVER else n for n in row)
                    for row in (scaled, unscaled))  # fmt: skip
            table[optimizer, d_k] = (s, u, unscaled.count(NEVER))
    return table


def kind(scaled, unscaled):
    """Stuck (the median unscaled run never got there), slower (over 1.5× the scaled median's
    steps), or as well."""
    if math.isinf(unscaled):
        return "stuck"
    return "as_well" if unscaled <= 1.5 * scaled else "slower"


def answer_clauses(lang):
    """The answer's clauses, one per kind, each naming its optimizers and d_k (and the slower
    ones' range of ratios), as the page must state them."""
    table = medians()
    clauses = []
    for wanted in ("stuck", "slower", "as_well"):
        parts, ratios = [], []
        for optimizer, name in NAMES.items():
            ds = [
                d for (o, d), (s, u, _) in table.items() if o == optimizer and kind(s, u) == wanted
            ]
            ratios += [table[optimizer, d][1] / table[optimizer, d][0] for d in ds]
            if ds and lang == "en":
                parts.append(f"{name} (d_k = {', '.join(map(str, ds))})")
            elif ds:
                parts.append(f"{name} 训练 d_k = {'、'.join(map(str, ds))} 的头")
        if not parts:
            continue
        where = (" and " if lang == "en" else "和 ").join(parts)
        low, high = f"{min(ratios):.1f}", f"{max(ratios):.1f}"
        ratio = low if low == high else f"{low}–{high}"
        clauses.append(
            {
                "en": {
                    "stuck": f"with {where} the head is stuck",
                    "slower": f"with {where} it learns, only more slowly, in {ratio}× the scaled",
                    "as_well": f"with {where} it learns as well",
                },
                "zh": {
                    "stuck": f"{where}时卡住了",
                    "slower": f"{where}时学会了，只是更慢：要缩放的 {ratio} 倍步数",
                    "as_well": f"{where}时学得一样好",
                },
            }[lang][wanted]
        )
    return clauses


def test_the_shipped_sweeps_give_every_kind_the_lesson_talks_about():
    """The data these tests read: at least one setting stuck and one slower (else the
    answer's conditions would not be tested)."""
    kinds = {kind(s, u) for s, u, _ in medians().values()}
    assert {"stuck", "slower", "as_well"} <= kinds


# --- the page's one run beside the median of the seeds (AppTest) ---------------------


def run_frame(at):
    """The frame on the page's own run: its title, its bold finding, the sentence on the seeds'
    median, and the why (each an st.html body, HTML entities undone)."""
    bodies = [html.unescape(element.proto.body) for element in at.get("html")]
    (first,) = [i for i, body in enumerate(bodies) if "What this run shows" in body
                or "这一次训练说明了什么" in body]  # fmt: skip
    return bodies[first : first + 4]


def core_kind(optimizer, d_k, seed=0, steps=300):
    """The page's own run's outcome, from the core: stuck, slower or as well."""
    scaled, unscaled = (
        train_head("previous", d_k, scale, seed, steps, optimizer, checkpoints=31).steps_to(0.9)
        for scale in (True, False)
    )
    assert scaled != NEVER
    return kind(scaled, math.inf if unscaled == NEVER else unscaled)


# Sentences that judge the articles' claim for a whole setting from one run: the old frame
# said "In this setting the articles' “cannot learn” does not hold" for one seed.
SETTING_CLAIMS = ["In this setting", "the articles' claim holds", "too strong for this setting"]


@pytest.mark.parametrize("d_k", [16, 64, 256, 1024])
@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
def test_the_run_s_frame_names_its_seed_and_the_seeds_median(optimizer, d_k):
    """At every swept d_k with either optimizer (both heads, scaled and unscaled, are always
    trained): the title and the finding name seed 0 and say it is one run; the next sentence
    states the median of the sweep's seeds with its numbers and its kind; where the run's
    outcome is not the median's, the frame says the seed differs and the answer goes by the
    median; and no sentence judges the whole setting from the one run."""
    at = open_app("train", lang="en", optimizer=optimizer, d=str(d_k))
    title, finding, seeds, why = run_frame(at)
    assert "seed 0" in title and "this one run (seed 0)" in finding
    s, u, never = medians()[optimizer, d_k]
    assert "one of the 3 seeds (0, 1, 2)" in seeds
    median = kind(s, u)
    if median == "stuck":
        assert "does not reach 90 % within 300 steps" in seeds and f"step {s:g}" in seeds
        assert "so over the seeds it is stuck" in seeds
    else:
        assert f"reaches 90 % at step {u:g}" in seeds and f"{s:g}" in seeds
        words = "learns, only more slowly" if median == "slower" else "learns as well"
        assert f"so over the seeds it {words}" in seeds
    if median == "slower":
        assert f"{u / s:.1f}×" in seeds
    assert (f"{never} of the 3 unscaled runs short of 90 %" in seeds) == bool(never)
    agrees = core_kind(optimizer, d_k) == median
    if agrees:
        assert "This seed agrees with the median." in seeds
    else:
        assert "This seed differs from the median" in seeds and "not by one run" in seeds
    assert not [claim for claim in SETTING_CLAIMS if claim in finding + seeds + why]
    # The answer beside the curves says so too: a teacher reads the two together.
    bodies = [html.unescape(element.proto.body) for element in at.get("html")]
    (answer,) = [body for body in bodies if "Does a head need ÷√d_k to learn?" in body]
    assert ("(seed 0 above differs: see below)" in answer) == (not agrees)


@pytest.mark.parametrize(("optimizer", "d_k"), [("sgd", 64), ("adam", 1024)])
def test_the_run_s_frame_speaks_chinese_too(optimizer, d_k):
    """The same frame in Chinese: seed 0 named, one run, the median's steps from the sweep."""
    at = open_app("train", lang="zh", optimizer=optimizer, d=str(d_k))
    title, finding, seeds, _ = run_frame(at)
    assert "种子 0" in title and "这一次训练（种子 0）" in finding
    s, u, _ = medians()[optimizer, d_k]
    assert "3 个种子（0、1、2）之一" in seeds and f"第 {s:g} 步" in seeds
    if math.isfinite(u):
        assert f"第 {u:g} 步达到 90%" in seeds
    else:
        assert "在 300 步内没有达到 90%" in seeds and "它卡住了" in seeds


def test_a_seed_outside_the_sweep_is_set_beside_the_sweep_s_seeds():
    """Seed 5 is not one of the sweep's: the frame names seed 5 and says the sweep's seeds are
    other ones, with their median."""
    at = open_app("train", lang="en", d="64", seed="5")
    title, finding, seeds, _ = run_frame(at)
    _, u, _ = medians()["sgd", 64]
    assert "seed 5" in title and "(seed 5)" in finding
    assert "3 other seeds (0, 1, 2)" in seeds and f"reaches 90 % at step {u:g}" in seeds


def test_a_setting_the_sweep_does_not_cover_is_called_one_seed():
    """d_k = 32 is not swept: the frame says it is one seed and where the medians are measured,
    and quotes no median."""
    at = open_app("train", lang="en", d="32")
    _, finding, seeds, _ = run_frame(at)
    assert "(seed 0)" in finding
    assert ">That is one seed." in seeds and "d_k = 16, 64, 256, 1024" in seeds
    assert "median unscaled run" not in seeds


# --- the answer on the first screen (Chromium) --------------------------------------

ANSWER = """() => { const box = document.querySelector('.st-key-need_answer');
  const chart = document.querySelector('.st-key-loss_curves');
  const r = box.getBoundingClientRect(), c = chart.getBoundingClientRect();
  return {top: r.top, bottom: r.bottom, text: box.textContent, chart: [c.top, c.bottom],
          overflow: document.documentElement.scrollWidth - innerWidth}; }"""


def open_train(opened, screen, lang, last=".st-key-need_answer"):
    """/train on ``screen`` with its last run drawn: the loss chart and ``last`` (the answer
    under the chart)."""
    tab = opened(screen, f"train?lang={lang}", "[data-testid=stApp]")
    # a cold server trains both runs first, in runs of their own, on a machine shared with others
    tab.wait_for_selector(last, timeout=90_000)
    tab.wait_for_selector(".st-key-loss_curves .main-svg", timeout=60_000)
    tab.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']")
    tab.wait_for_timeout(800)
    return tab


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("screen", ["projector", "laptop", "laptop-wide"])
def test_the_answer_is_on_the_first_screen(opened, screen, lang):
    """At 1280 × 720 with ?present=true (and on both laptops) the answer's frame ends inside the
    window, under the loss chart; it states each kind of outcome with the optimizers and d_k
    that the shipped sweep's medians give it."""
    from browser_support import SCREENS

    tab = open_train(opened, screen, lang)
    found = tab.evaluate(ANSWER)
    height = SCREENS[screen][0]["viewport"]["height"]
    assert found["bottom"] <= height, found["bottom"]
    assert found["top"] >= found["chart"][1] and found["overflow"] <= 1
    for clause in answer_clauses(lang):
        assert clause in found["text"], (clause, found["text"])


@pytest.mark.browser
def test_on_a_phone_the_answer_follows_the_chart_which_stays_on_the_first_screen(opened):
    """On a phone the chart starts on the first screen as before, and the answer follows it."""
    tab = open_train(opened, "phone", "en")
    found = tab.evaluate(ANSWER)
    assert found["chart"][0] < 844 and found["top"] >= found["chart"][1]
    assert found["overflow"] <= 1


# --- the measure table fits a phone (Chromium) --------------------------------------

TABLES = """() => [...document.querySelectorAll('[data-testid=stTableStyledTable]')].map(e => ({
  hidden: e.scrollWidth - e.parentElement.clientWidth, right: e.getBoundingClientRect().right,
  rows: e.querySelectorAll('tbody tr').length, width: innerWidth}))"""


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_measure_table_fits_a_phone(opened, lang):
    """On a 390 × 844 phone the table of measures (six rows) is whole inside the screen: its
    long row names wrap, nothing scrolls sideways."""
    tab = open_train(opened, "phone", lang, last=".st-key-learned_weights .main-svg")
    (table,) = tab.evaluate(TABLES)
    assert table["rows"] == 6
    assert table["hidden"] <= 1 and table["right"] <= table["width"]


def significant(number):
    """How many significant digits a printed number has (its mantissa's, if scientific)."""
    mantissa = number.split(" × ")[0].lstrip("-")
    return len(mantissa.replace(".", "").lstrip("0"))


@pytest.mark.parametrize("query", [{}, {"d": "16", "optimizer": "adam"}])
def test_the_measure_table_gives_its_measured_numbers_to_three_digits(query):
    """The score std and the gradient's size, both runs, each to three significant digits: 0.200
    beside 0.526, never 0.2 (a reader takes the shorter number for a rounder one)."""
    at = open_app("train", **query)
    table = at.table[0].value
    measured = table.iloc[[2, 5], 1:].to_numpy().ravel()  # score std, early gradient
    assert measured.size == 4
    assert all(significant(str(cell)) == 3 for cell in measured), measured


@pytest.mark.parametrize(("d", "root"), [("64", "8"), ("16", "4"), ("100", "10"), ("96", "9.8")])
def test_the_square_root_of_d_k_is_exact_not_a_measurement(d, root):
    """√d_k is a definition, not a measured number: √64 is "8" (as /scaling's "±√d = ±8"),
    never "8.00"; an irrational one to three digits (√96 = 9.80 is "9.8")."""
    at = open_app("train", lang="en", d=d)
    assert f"√d_k = {root} before softmax" in " ".join(c.value for c in at.caption)


# --- a server whose processor trains the unscaled runs differently ----------------------------


def shipped_with_moved_runs(moved):
    """The shipped sweeps as this machine's own kernels train them (as the page's sweep does),
    with ``moved`` of SGD's unscaled runs reaching 90 % ten steps later."""
    from ui.train.compute import need_sweep, sweep_from_json, sweep_to_json

    stored = {optimizer: sweep_to_json(need_sweep(optimizer)) for optimizer in ("sgd", "adam")}
    unscaled = stored["sgd"]["unscaled"]
    cells = [(i, j) for i in range(len(unscaled)) for j in range(len(unscaled[i]))]
    for i, j in cells[:moved]:
        unscaled[i][j] = 10 if unscaled[i][j] == NEVER else unscaled[i][j] + 10
    return {optimizer: sweep_from_json(sweep) for optimizer, sweep in stored.items()}


def moved_note(at):
    return [e.value for e in at.get("info") if "chaotic" in e.value or "混沌" in e.value]


@pytest.mark.slow  # trains the sweeps
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_sweep_says_where_this_server_s_runs_differ_from_the_shipped_ones(monkeypatch, lang):
    """/train's own sweep at the shipped setting (task "previous", seeds 0–2, SGD) is compared
    run by run with the file behind the page's answer: the page counts the runs that differ
    (three, put in by hand here) and says why; where no run differs, it says nothing."""
    from ui.train import compute

    same = shipped_with_moved_runs(0)
    monkeypatch.setattr(compute, "shipped_sweeps", lambda: same)
    at = open_app("train", lang=lang)
    at.button(key="train_sweep").click().run()
    assert not moved_note(at)
    three = shipped_with_moved_runs(3)
    monkeypatch.setattr(compute, "shipped_sweeps", lambda: three)
    at.run()
    (text,) = moved_note(at)
    assert ("3 of 24 runs" if lang == "en" else "有 3 次（共 24 次）") in text


@pytest.mark.slow  # trains the sweeps
def test_a_sweep_of_another_task_or_seed_is_not_compared(monkeypatch):
    """The shipped file holds the default task and seeds only: a sweep of another is not set
    beside it (no note), even where the file's runs differ from this machine's."""
    from ui.train import compute

    every = shipped_with_moved_runs(24)
    monkeypatch.setattr(compute, "shipped_sweeps", lambda: every)
    for query in ({"task": "max"}, {"seed": "5"}):
        at = open_app("train", lang="en", steps="50", **query)
        at.button(key="train_sweep").click().run()
        assert "sweep_steps" in chart_keys(at)  # the sweep is shown
        assert not moved_note(at)


def test_a_scaled_and_an_unscaled_run_that_moved_count_as_two(monkeypatch):
    """The count is of runs, as the note's "of 24 runs" says: the scaled and the unscaled run of
    one (d_k, seed) that both moved are two, not one pair."""
    from ui.train import compute
    from ui.train.compute import sweep_from_json

    stored = json.loads(Path(NEED_FILE).read_text(encoding="utf-8"))
    made = sweep_from_json(stored["adam"])
    stored["adam"]["scaled"][0][0] += 10
    stored["adam"]["unscaled"][0][0] += 10
    moved = {optimizer: sweep_from_json(sweep) for optimizer, sweep in stored.items()}
    monkeypatch.setattr(compute, "shipped_sweeps", lambda: moved)
    assert compute.moved_runs(made) == 2
