"""/train's answer at a lesson: the answer to "does a head still learn without ÷√d_k?"
on the first screen of a projector, stated as the shipped sweep computes it; the frame on the
page's own run names its seed and sets it beside the median of the sweep's seeds, so that one
run and the sweep never read as opposing claims; the measure table fits a phone.

Expected values come from need_sweeps.json read here and from the core (viz_core.train), never
from the page's helpers."""

import html
import json
import math

import pytest
from conftest import chart_keys, open_app
from need_support import NAMES, NEED_FILE, cells, kind, ratio, span, stored, ways

from viz_core import NEVER, train_head


def where(table, wanted, lang):
    """The settings whose kinds are ``wanted``, as the answer names them."""
    parts = []
    for optimizer, name in NAMES.items():
        ds = [d for (o, d), cell in table.items() if o == optimizer and cell.kinds == wanted]
        if ds and lang == "en":
            parts.append(f"{name} (d_k = {', '.join(map(str, ds))})")
        elif ds:
            parts.append(f"{name} 训练 d_k = {'、'.join(map(str, ds))} 的头")
    return (" and " if lang == "en" else "和 ").join(parts)


def answer_clauses(lang):
    """The answer's clauses, one per kind every kernel set gives (and one for settings whose
    kernel sets differ), each naming its optimizers and d_k, as the page must state them."""
    table = cells()
    clauses = []
    for wanted in ("stuck", "slower", "as_well"):
        group = [cell for cell in table.values() if cell.kinds == {wanted}]
        if not group:
            continue
        place = where(table, {wanted}, lang)
        rate = (
            span([u / c.scaled for c in group for u in c.unscaled], "{:.1f}")
            if wanted == "slower"
            else ""
        )
        clauses.append(
            {
                "en": {
                    "stuck": f"with {place} the head is stuck",
                    "slower": f"with {place} it learns, only more slowly, in {rate}× the scaled",
                    "as_well": f"with {place} it learns as well",
                },
                "zh": {
                    "stuck": f"{place}时卡住了",
                    "slower": f"{place}时学会了，只是更慢：要缩放的 {rate} 倍步数",
                    "as_well": f"{place}时学得一样好",
                },
            }[lang][wanted]
        )  # fmt: skip
    for (optimizer, d_k), cell in table.items():
        if len(cell.kinds) > 1:
            place = where({(optimizer, d_k): cell}, cell.kinds, lang)
            clauses.append(
                f"with {place} it learns {ways(cell, lang)}, by processor"
                if lang == "en"
                else f"{place}时学得{ways(cell, lang)}，因处理器而异"
            )
    return clauses


def test_the_shipped_sweeps_give_every_kind_the_lesson_talks_about():
    """The data these tests read: at least one setting stuck and one slower (else the
    answer's conditions would not be tested)."""
    kinds = {k for cell in cells().values() for k in cell.kinds}
    assert {"stuck", "slower", "as_well"} <= kinds


# --- the page's one run beside the median of the seeds (AppTest) ---------------------


def run_frame(at):
    """The frame on the page's own run: its title, its bold finding, the sentence on the seeds'
    median, and the why (each an st.html body, HTML entities undone)."""
    bodies = [html.unescape(element.proto.body) for element in at.get("html")]
    (first,) = [i for i, body in enumerate(bodies) if "What this run shows" in body
                or "这一次训练说明了什么" in body]  # fmt: skip
    return bodies[first : first + 4]


def core_steps(optimizer, d_k, seed=0, steps=300):
    """The page's own run, from the core on this machine: steps to 90 %, scaled and unscaled."""
    return tuple(
        train_head("previous", d_k, scale, seed, steps, optimizer, checkpoints=31).steps_to(0.9)
        for scale in (True, False)
    )


def stored_seed(optimizer, d_k, seed):
    """One seed's unscaled steps under each kernel set, from the file."""
    i = (16, 64, 256, 1024).index(d_k)
    return [one[optimizer]["unscaled"][i][seed] for one in stored().values()]


# Sentences that judge the articles' claim for a whole setting from one run: the old frame
# said "In this setting the articles' “cannot learn” does not hold" for one seed.
SETTING_CLAIMS = ["In this setting", "the articles' claim holds", "too strong for this setting"]


def median_words(cell):
    """What the frame must say of the median at a setting whose kernel sets agree."""
    (median,) = cell.kinds
    if median == "stuck":
        return ["does not reach 90 % within 300 steps", f"step {cell.scaled:g}",
                "so over the seeds it is stuck"]  # fmt: skip
    words = "learns, only more slowly" if median == "slower" else "learns as well"
    u = span(cell.unscaled)
    said = [f"reaches 90 % at step {u}", f"{cell.scaled:g}", f"so over the seeds it {words}"]
    return said + ([f"{ratio(cell)}×"] if median == "slower" else [])


@pytest.mark.parametrize("d_k", [16, 64, 256, 1024])
@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
def test_the_run_s_frame_names_its_seed_and_the_seeds_median(optimizer, d_k):
    """At every swept d_k with either optimizer: the title and the finding name seed 0 and say
    it is one run; the next sentence states the stored sweep's median over its 12 seeds and 3
    kernel sets, with their range; this server's run of seed 0 is set beside the stored runs of
    seed 0 exactly (the same step under one kernel set, or none); the run's outcome is said to
    be the median's or not, as it is; no sentence judges the whole setting from one run."""
    at = open_app("train", lang="en", optimizer=optimizer, d=str(d_k))
    title, finding, seeds, why = run_frame(at)
    assert "seed 0" in title and "this one run (seed 0)" in finding
    cell = cells()[optimizer, d_k]
    assert (
        "median of the stored sweep's 12 seeds (0–11)" in seeds
        and f"{len(stored())} kernel sets" in seeds
    )
    if len(cell.kinds) == 1:
        assert all(words in seeds for words in median_words(cell)), seeds
    else:
        assert f"it learns {ways(cell, 'en')}, depending on the processor" in seeds
    never = span(cell.never)
    assert (f"({never} of the 12 unscaled runs short of 90 %" in seeds) == any(cell.never)
    scaled, unscaled = core_steps(optimizer, d_k)
    mine = "never" if unscaled == NEVER else str(unscaled)
    same = unscaled in stored_seed(optimizer, d_k, 0)
    assert (f"On this server seed 0’s unscaled run reached 90 % at step {mine}, as the stored"
            in seeds) == same  # fmt: skip
    assert (f"On this server seed 0’s unscaled run took {mine} steps" in seeds) == (not same)
    steps = math.inf if unscaled == NEVER else unscaled
    agrees = kind(scaled, steps) in cell.kinds
    if agrees:
        assert "This run’s outcome is the median’s." in seeds
    else:
        assert "This run’s outcome differs from the median’s" in seeds
        assert "not by one run" in seeds
    assert not [claim for claim in SETTING_CLAIMS if claim in finding + seeds + why]
    # The answer beside the curves says so too: a teacher reads the two together.
    bodies = [html.unescape(element.proto.body) for element in at.get("html")]
    (answer,) = [body for body in bodies if "Does a head need ÷√d_k?" in body]
    assert f"Stored runs: 12 seeds × {len(stored())} kernel sets" in answer
    assert ("(seed 0 above differs: see below)" in answer) == (not agrees)


@pytest.mark.parametrize(("optimizer", "d_k"), [("sgd", 64), ("adam", 1024)])
def test_the_run_s_frame_speaks_chinese_too(optimizer, d_k):
    """The same frame in Chinese: seed 0 named, one run, the median's steps from the sweep."""
    at = open_app("train", lang="zh", optimizer=optimizer, d=str(d_k))
    title, finding, seeds, _ = run_frame(at)
    assert "种子 0" in title and "这一次训练（种子 0）" in finding
    cell = cells()[optimizer, d_k]
    assert "存下来的扫描里 12 个种子（0–11）的中位数" in seeds and f"第 {cell.scaled:g} 步" in seeds
    if cell.kinds == {"stuck"}:
        assert "在 300 步内没有达到 90%" in seeds and "它卡住了" in seeds
    else:
        assert f"第 {span(cell.unscaled)} 步达到 90%" in seeds
    assert "在这台服务器上，种子 0 不缩放的训练" in seeds


def test_a_seed_outside_the_sweep_is_set_beside_the_sweep_s_seeds():
    """Seed 20 is not one of the sweep's: the frame names seed 20, gives the sweep's median
    and sets no stored run of its seed beside it."""
    at = open_app("train", lang="en", d="64", seed="20")
    title, finding, seeds, _ = run_frame(at)
    cell = cells()["sgd", 64]
    assert "seed 20" in title and "(seed 20)" in finding
    assert "12 seeds (0–11)" in seeds and f"reaches 90 % at step {span(cell.unscaled)}" in seeds
    assert "On this server seed" not in seeds


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
    """The shipped sweeps as this machine's own kernels train them for seeds 0–2 (as the
    page's sweep does), one kernel set, with ``moved`` of SGD's unscaled runs reaching 90 % ten
    steps later."""
    from ui.train.compute import need_sweep, sweep_from_json, sweep_to_json

    made = {optimizer: sweep_to_json(need_sweep(optimizer, 3)) for optimizer in NAMES}
    unscaled = made["sgd"]["unscaled"]
    cells_ = [(i, j) for i in range(len(unscaled)) for j in range(len(unscaled[i]))]
    for i, j in cells_[:moved]:
        unscaled[i][j] = 10 if unscaled[i][j] == NEVER else unscaled[i][j] + 10
    return {"sse2": {optimizer: sweep_from_json(sweep) for optimizer, sweep in made.items()}}


def moved_note(at):
    return [e.value for e in at.get("info") if "chaotic" in e.value or "混沌" in e.value]


@pytest.mark.slow  # trains the sweeps
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_sweep_says_where_this_server_s_runs_differ_from_the_shipped_ones(monkeypatch, lang):
    """/train's own sweep at the shipped setting (task "previous", seeds 0–2, SGD) is compared
    run by run with the stored runs of the same seeds: the page counts the runs that differ
    from every kernel set's (three, put in by hand here) and says why; where none differs, it
    says nothing."""
    from ui.train import compute

    same = shipped_with_moved_runs(0)
    monkeypatch.setattr(compute, "shipped_kernels", lambda: same)
    at = open_app("train", lang=lang)
    at.button(key="train_sweep").click().run()
    assert not moved_note(at)
    three = shipped_with_moved_runs(3)
    monkeypatch.setattr(compute, "shipped_kernels", lambda: three)
    at.run()
    (text,) = moved_note(at)
    assert ("In 3 of 24 runs" if lang == "en" else "有 3 次（共 24 次）") in text


@pytest.mark.slow  # trains the sweeps
def test_a_sweep_of_another_task_or_seed_is_not_compared(monkeypatch):
    """The shipped file holds the default task and seeds 0–11 only: a sweep of another task or
    of seeds past them is not set beside it (no note), even where the file's runs differ."""
    from ui.train import compute

    every = shipped_with_moved_runs(24)
    monkeypatch.setattr(compute, "shipped_kernels", lambda: every)
    for query in ({"task": "max"}, {"seed": "20"}):
        at = open_app("train", lang="en", steps="50", **query)
        at.button(key="train_sweep").click().run()
        assert "sweep_steps" in chart_keys(at)  # the sweep is shown
        assert not moved_note(at)


def test_a_run_counts_as_moved_only_if_no_kernel_set_made_it(monkeypatch):
    """The count is of runs, as the note's "of 24 runs" says: the scaled and the unscaled run of
    one (d_k, seed) that both moved are two, not one pair; a run that one kernel set made (and
    another did not) has not moved."""
    from ui.train import compute
    from ui.train.compute import sweep_from_json

    made = json.loads(NEED_FILE.read_text(encoding="utf-8"))
    first, second = list(made)[:2]
    mine = sweep_from_json(made[first]["adam"])
    made[first]["adam"]["scaled"][0][0] += 10
    made[first]["adam"]["unscaled"][0][0] += 10
    made[first]["adam"]["unscaled"][0][1] += 10  # ... while the second set keeps seed 1's
    made[second]["adam"]["unscaled"][0][1] = mine.unscaled[0, 1]
    for kernels in list(made)[1:]:
        made[kernels]["adam"]["scaled"][0][0] += 10
        made[kernels]["adam"]["unscaled"][0][0] += 10
    moved = {k: {o: sweep_from_json(s) for o, s in one.items()} for k, one in made.items()}
    monkeypatch.setattr(compute, "shipped_kernels", lambda: moved)
    assert compute.moved_runs(mine) == 2


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_gradient_sentence_names_its_quantity_and_why_the_lab_s_differs(lang):
    """/train's "the gradient did not vanish" names what it measures, the loss's gradient on
    W_q, W_k (‖∂L/∂W‖), with its ratio from the core's runs; and says in a sentence why the
    lab's ‖∂p/∂x‖ (one row's softmax Jacobian) can be small while it is large."""
    import numpy as np

    at = open_app("train", lang=lang)
    _, _, _, why = run_frame(at)
    runs = [train_head("previous", 64, scale, 0, 300, "sgd", checkpoints=31) for scale in (1, 0)]
    early = [float(np.median(run.grad_norm[:30])) for run in runs]
    assert f"{early[1] / early[0]:#.3g}".rstrip(".") in why
    assert "‖∂L/∂W‖" in why and "‖∂p/∂x‖" in why and "Jacobian" in why and "ŷ − y" in why
