"""Does a head need ÷√d? /model, /train and the quiz's model answer give one answer to "does
a head still learn without ÷√d?", with its conditions (which d_k, which optimizer, slower or
stuck), every number from the training page's own runs (need_sweeps.json: 12 seeds under three
kernel sets); and /train's and /model's formulas, labels and tables fit a phone."""

import html
import json
import math
import warnings

import numpy as np
import pytest
from browser_support import (
    count_runs,
    screenshot,
    wait_idle,
)
from conftest import open_app
from need_support import (
    D_KS,
    MAX_STEPS,
    NAMES,
    SEEDS,
    cells,
    kind,
    median,
    ratio,
    span,
    stored,
    ways,
)

from viz_core import NEVER, Sweep, load_model

# /train's single runs (train_head, 300 steps, held-out accuracy every 10 steps, task
# "previous", seeds 0–2), each trained whole, with the SSE2 kernels of need_sweeps.json's first
# set: the same steps on any x86-64 machine.
RUNS = f"""
import json
from viz_core import train_head
print(json.dumps({{
    f"{{optimizer}} {{d_k}}": [
        [train_head("previous", d_k, scale, seed, {MAX_STEPS}, optimizer, checkpoints=31)
         .steps_to(0.9) for seed in (0, 1, 2)]
        for scale in (True, False)
    ]
    for optimizer in {tuple(NAMES)} for d_k in {D_KS}
}}))
"""


def cell_text(optimizer, d_k, table, lang):
    """How a page must state one setting, its numbers from ``table`` (need_support.cells)."""
    cell = table[optimizer, d_k]
    s, u, never = (
        f"{cell.scaled:g}",
        span(cell.unscaled) if cell.kinds != {"stuck"} else "",
        span(cell.never),
    )
    rate = ratio(cell) if cell.kinds != {"stuck"} else ""
    words = {
        "en": {
            "as_well": f"d_k = {d_k} as well ({u} steps against {s})",
            "slower": f"d_k = {d_k} slower ({u} steps against {s}, {rate}×)",
            "stuck": f"d_k = {d_k} stuck (scaled: {s} steps): {never} of the 12 unscaled runs "
            f"short of 90 % after {MAX_STEPS} steps",
            "varies": f"d_k = {d_k} {ways(cell, 'en')}, depending on the processor ({u} steps "
            f"against {s}, {rate}×)",
        },
        "zh": {
            "as_well": f"d_k = {d_k} 一样学得会（{u} 步对 {s} 步）",
            "slower": f"d_k = {d_k} 更慢（{u} 步对 {s} 步，{rate} 倍）",
            "stuck": f"d_k = {d_k} 卡住了（缩放的 {s} 步）：12 次不缩放的训练里有 {never} 次在 "
            f"{MAX_STEPS} 步内没有达到",
            "varies": f"d_k = {d_k} 学得{ways(cell, 'zh')}，要看处理器（{u} 步对 {s} 步，"
            f"{rate} 倍）",
        },
    }  # fmt: skip
    (kind_,) = cell.kinds if len(cell.kinds) == 1 else ["varies"]
    text = words[lang][kind_]
    if any(cell.never) and kind_ != "stuck":
        text += (
            f", {never} of the 12 unscaled runs short of 90 % after {MAX_STEPS} steps"
            if lang == "en"
            else f"，12 次不缩放的训练里有 {never} 次在 {MAX_STEPS} 步内没有达到"
        )
    return text


def stuck_where(table, d_ks, lang):
    """The settings where some kernel set's median unscaled run never got there, as the pages
    name them."""
    parts = []
    for optimizer, name in NAMES.items():
        ds = [d for d in d_ks if "stuck" in table[optimizer, d].kinds]
        if ds:
            listed = ("、" if lang == "zh" else ", ").join(str(d) for d in ds)
            parts.append(
                f"{name} 训练 d_k = {listed} 的头" if lang == "zh" else f"{name} (d_k = {listed})"
            )
    return ("和 " if lang == "zh" else " and ").join(parts)


def shown(at):
    """Every text the page shows as text (st.html) or Markdown, HTML entities undone."""
    bodies = [element.proto.body for element in at.get("html")]
    kinds = ("markdown", "caption", "info")
    return html.unescape(" ".join(bodies + [e.value for k in kinds for e in at.get(k)]))


# --- one answer, with its conditions, computed from the runs -------------------------
# Training without ÷√d_k is chaotic: an unscaled run's steps move with the last bits of exp and
# matmul, which each processor computes with its own kernels (an AVX-512 machine moved 6 of 24
# unscaled runs against an AVX2 one, and the verdict at SGD, d_k = 1,024 with them). So scaled
# runs are compared exactly, unscaled ones by what the pages claim of them (the verdict), and
# the runs that moved are counted and reported, never failed on.


@pytest.mark.slow  # trains seeds 0–2 of the sweeps
def test_the_shipped_sweeps_first_kernel_set_is_made_again_bit_for_bit():
    """need_sweeps.json's first kernel set (SSE2, which every x86-64 processor runs alike) is
    what ``python -m ui.train.make_need`` makes: seeds 0–2 of both optimizers made again here,
    every scaled and unscaled run exactly."""
    from ui.train.make_need import sweeps

    made = stored()
    first = next(iter(made))
    remade = sweeps(first, seeds=3)
    for optimizer in NAMES:
        kept = made[first][optimizer]
        assert (kept["d_ks"], kept["seeds"], kept["max_steps"]) == (
            list(D_KS),
            list(SEEDS),
            MAX_STEPS,
        )
        for name in ("scaled", "unscaled"):
            assert [row[:3] for row in kept[name]] == remade[optimizer][name]


@pytest.mark.slow  # trains the sweeps, 12 seeds
def test_on_this_processor_every_verdict_is_one_the_pages_state():
    """/train's sweep as this machine's own kernels train it (as the server does), all 12
    seeds: every scaled run is the file's exactly; every setting's verdict, computed here from
    its unscaled medians, is one the pages state for it (a verdict that moves with the
    processor is stated as "as well or more slowly, depending on the processor"); and the
    page's count of moved runs is the count made here. Unscaled runs that moved are reported."""
    from ui.train.compute import moved_runs, need_sweep

    table, made = cells(), stored()
    for optimizer in NAMES:
        fresh = need_sweep(optimizer)
        runs = [one[optimizer] for one in made.values()]
        assert fresh.scaled.tolist() == runs[0]["scaled"]
        for i, d_k in enumerate(D_KS):
            here = kind(median(fresh.scaled[i]), median(fresh.unscaled[i]))
            assert here in table[optimizer, d_k].kinds, (optimizer, d_k, here)
        same = np.logical_or.reduce([fresh.unscaled == np.array(one["unscaled"]) for one in runs])
        assert moved_runs(fresh) == int((~same).sum())
        if not same.all():
            warnings.warn(f"{optimizer} on this processor: {int((~same).sum())} of 48 "
                          "unscaled runs differ from every kernel set's", stacklevel=1)  # fmt: skip


@pytest.mark.slow  # trains the sweeps
def test_the_sweep_stops_where_the_page_s_whole_runs_reach_90_percent():
    """The sweep's early stop gives the steps of /train's single runs trained whole (another
    code path), with the same SSE2 kernels: seeds 0–2 of the file's first set, exactly."""
    from ui.train.make_need import portable

    whole = json.loads(portable(RUNS))
    first = next(iter(stored().values()))
    for optimizer in NAMES:
        for i, d_k in enumerate(D_KS):
            scaled, unscaled = whole[f"{optimizer} {d_k}"]
            assert scaled == first[optimizer]["scaled"][i][:3]
            assert unscaled == first[optimizer]["unscaled"][i][:3]


def test_the_pages_numbers_are_the_shipped_runs_medians():
    """Every median and count the pages state, per optimizer and d_k, is the file's, computed
    here from its runs, under each kernel set."""
    from ui.train.compute import need_cells

    table = cells()
    for need in need_cells():
        cell = table[need.optimizer, need.d_k]
        assert need.scaled == cell.scaled and need.never == cell.never
        for mine, theirs in zip(need.unscaled, cell.unscaled, strict=True):
            assert mine == theirs or (math.isinf(theirs) and np.isnan(mine))
        assert set(need.kinds) == cell.kinds


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_model_says_what_the_runs_say_at_its_own_d_k(lang):
    """/model no longer says without ÷√d "the gradients vanish and the head cannot learn": it
    says, at the model's own d_k (64), slower or stuck with both optimizers' numbers, and that
    "cannot learn" is too strong there unless a median run never got there."""
    at = open_app("model", lang=lang)
    text = shown(at)
    assert ("头学不起来" not in text) if lang == "zh" else ("the head cannot learn" not in text)
    d_k = load_model().config.d_k
    assert d_k in D_KS
    for optimizer in NAMES:
        assert cell_text(optimizer, d_k, cells(), lang) in text
    where = stuck_where(cells(), [d_k], lang)
    if where:
        assert where in text
    else:
        assert ("说得太重了" if lang == "zh" else "is too strong for these settings") in text


@pytest.mark.parametrize("page", ["train", "quiz"])
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_train_and_the_quiz_give_the_same_numbers(page, lang):
    """/train (under its own verdict) and the quiz's answer to question 1 (the article's "模型
    无法学习" quoted) state every d_k and optimizer as the runs do, and name the settings where
    "cannot learn" holds."""
    at = open_app(page, lang=lang, **({"section": "article"} if page == "quiz" else {}))
    text = shown(at)
    for optimizer in NAMES:
        for d_k in D_KS:
            assert cell_text(optimizer, d_k, cells(), lang) in text
    where = stuck_where(cells(), D_KS, lang)
    # Stuck under every kernel set somewhere: "holds only for"; under some sets only: "at most".
    every = any(table.kinds == {"stuck"} for table in cells().values())
    if where and lang == "en":
        holds = f"holds only for {where}" if every else f"holds at most for {where}, on some"
        assert f"“the model cannot learn” {holds}" in text
    elif where:
        holds = f"只在 {where}时成立" if every else f"最多只在 {where}时、在部分处理器上成立"
        assert f"“模型无法学习”{holds}" in text
    if page == "quiz":
        assert "导致梯度消失，模型无法学习。”" in text or "and the model cannot learn.”" in text


def sweep(optimizer, scaled, unscaled):
    """A sweep made by hand: steps per (d_k, seed), NEVER for a run short of 90 %."""
    return Sweep(
        "previous", optimizer, 0.5, 0.9, 10, MAX_STEPS, D_KS, (0, 1, 2),
        np.array(scaled), np.array(unscaled), np.ones(4), np.sqrt(D_KS),
    )  # fmt: skip


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_outcome_is_told_with_its_numbers(monkeypatch, lang):
    """As well, slower, stuck, the scaled head stuck, and both stuck: each setting is told by
    its kind and numbers, and "cannot learn" is said to hold only where a median run is stuck."""
    from ui.train import compute

    sweeps = {
        "sgd": sweep("sgd", [[50] * 3, [50] * 3, [50] * 3, [NEVER, NEVER, 50]],
                     [[60] * 3, [200] * 3, [NEVER, NEVER, 100], [100] * 3]),
        "adam": sweep("adam", [[NEVER] * 3, [30] * 3, [30] * 3, [30] * 3],
                      [[NEVER] * 3, [30] * 3, [40] * 3, [40] * 3]),
    }  # fmt: skip
    monkeypatch.setattr(compute, "shipped_kernels", lambda: {"sse2": sweeps})
    claims, evidence = compute.need_parts(lang)
    text = " ".join(claims + evidence)
    assert "{" not in text
    if lang == "en":
        assert "with SGD (d_k = 256) the head is stuck" in text
        assert "with SGD (d_k = 64) it learns, only more slowly, in 4.0× the scaled steps" in text
        assert "with SGD (d_k = 1024) the scaled head is the one stuck" in text
        assert "with Adam (d_k = 16) both heads are stuck" in text
        assert "holds only for SGD (d_k = 256)," in text
        assert "d_k = 256 stuck (scaled: 50 steps): 2 of the 3 unscaled runs" in text
    else:
        assert "SGD 训练 d_k = 256 的头时卡住了" in text and "要缩放的 4.0 倍步数" in text
        assert "只在 SGD 训练 d_k = 256 的头时成立" in text


@pytest.mark.parametrize(
    ("unscaled", "verdict"),
    [([[60] * 3] * 4, "do not support"), ([[60] * 3, [200, NEVER, 200], [60] * 3, [60] * 3],
                                          "too strong")],
)  # fmt: skip
def test_with_nothing_stuck_cannot_learn_is_too_strong_or_unsupported(
    monkeypatch, unscaled, verdict
):
    """No median run stuck: "cannot learn" is unsupported (none slower) or too strong (some
    slower); a single run short of 90 % is still counted, seed by seed."""
    from ui.train import compute

    sweeps = {name: sweep(name, [[50] * 3] * 4, unscaled) for name in NAMES}
    monkeypatch.setattr(compute, "shipped_kernels", lambda: {"sse2": sweeps})
    claims, _ = compute.need_parts("en")
    assert verdict in claims[1]
    never = sum(row.count(NEVER) for row in unscaled) * 2
    assert (f"{never} of the 24 unscaled runs fell short" in " ".join(claims)) == bool(never)


# --- on a phone, formulas, labels and tables fit ------------------------------------

PHONE = {
    "viewport": {"width": 390, "height": 844},
    "is_mobile": True,
    "has_touch": True,
    "device_scale_factor": 2,
    "user_agent": "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like "
    "Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
}
LAPTOP = {"viewport": {"width": 1280, "height": 720}}

FITS = """(key) => {
  const box = e => { const r = e.getBoundingClientRect();
    return {text: e.textContent, kind: e.getAttribute('class') || '',
            x0: r.left, x1: r.right, y0: r.top, y1: r.bottom}; };
  const chart = document.querySelector(`.st-key-${key} .main-svg`);
  const shown = e => { const style = getComputedStyle(e);
    return style.opacity !== '0' && style.visibility !== 'hidden' && style.display !== 'none'; };
  return {
    width: window.innerWidth,
    chart: chart ? box(chart) : null,
    texts: [...document.querySelectorAll(`.st-key-${key} .annotation-text, .st-key-${key} .gtitle,
      .st-key-${key} .gtitle-subtitle, .st-key-${key} g.xtick text`)].map(box),
    legend: [...document.querySelectorAll(`.st-key-${key} .legendtext`)].map(box),
    formulas: [...document.querySelectorAll('.katex-display')].map(e => {
      const shown = e.getBoundingClientRect(), drawn = [...e.querySelectorAll('.katex-html .base')]
        .map(b => b.getBoundingClientRect());
      return {...box(e), x0: Math.min(...drawn.map(r => r.left)),
              x1: Math.max(...drawn.map(r => r.right)),
              hidden: Math.max(0, Math.max(...drawn.map(r => r.right)) - shown.right,
                               shown.left - Math.min(...drawn.map(r => r.left)))}; }),
    toolbars: [...document.querySelectorAll('[data-testid=stElementToolbar]')].filter(shown)
      .map(box),
    tables: [...document.querySelectorAll('[data-testid=stTableStyledTable]')].map(e => ({
      ...box(e), hidden: e.scrollWidth - e.parentElement.clientWidth,
      headers: [...e.querySelectorAll('th')].map(h => h.scrollWidth - h.clientWidth)})),
  };
}"""


def measure(browser, path, key, ready, options=PHONE):
    """Open ``path`` and measure once ``ready`` (a JS condition) holds and the page is idle."""
    base, chromium = browser
    context = count_runs(chromium.new_context(**options))
    tab = context.new_page()
    try:
        tab.goto(f"{base}/{path}")
        wait_idle(tab, settle_ms=800)
        tab.wait_for_function(ready, timeout=90_000)
        tab.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']")
        tab.wait_for_timeout(800)
        screenshot(tab, "agree-" + path.replace("?", "-").replace("&", "-").replace("=", ""))
        return tab.evaluate(FITS, key)
    finally:
        context.close()


def outside(found):
    """The chart texts that run past the chart or the window, and the formulas that are cut:
    drawn past their own box (which then scrolls) or past the window."""
    right = min(found["chart"]["x1"], found["width"]) + 1
    texts = [
        b["text"] for b in found["texts"] if b["x0"] < found["chart"]["x0"] - 1 or b["x1"] > right
    ]
    cut = [b["text"][:20] for b in found["formulas"] if b["hidden"] > 1 or b["x1"] > found["width"]]
    return texts + cut


def covers(a, b):
    return (
        min(a["x1"], b["x1"]) - max(a["x0"], b["x0"]) > 0.5
        and min(a["y1"], b["y1"]) - max(a["y0"], b["y0"]) > 0.5
    )


# The unscaled run reaches 90 % at step 210 of 220: its label starts near the right end.
TRAIN_LATE = "train?d=1024&optimizer=adam&seed=1&steps=220&lang={lang}"
TRAIN_READY = """() => document.querySelectorAll('.st-key-loss_curves .annotation-text').length == 2
  && document.querySelectorAll('.katex-display').length >= 2"""


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("options", [PHONE, LAPTOP], ids=["phone", "laptop"])
def test_train_s_labels_title_and_formulas_fit(browser, lang, options):
    """/train where the unscaled run reaches 90 % late (step 210 of 220): its "90 %: step 210",
    the chart's title and both formulas are inside the chart and the window, neither formula
    scrolls inside itself, and no table toolbar lies on a formula."""
    found = measure(browser, TRAIN_LATE.format(lang=lang), "loss_curves", TRAIN_READY, options)
    assert len(found["texts"]) >= 4  # two labels, the title and its subtitle (and the ticks)
    assert outside(found) == []
    headings = [b for b in found["texts"] if "gtitle" in b["kind"]] + found["legend"]
    assert [(a["text"], b["text"]) for i, a in enumerate(headings) for b in headings[i + 1 :]
            if covers(a, b)] == []  # fmt: skip
    assert all(b["y0"] >= found["chart"]["y0"] - 2 for b in headings)
    assert [
        (f["text"][:20], t["text"])
        for f in found["formulas"]
        for t in found["toolbars"]
        if covers(f, t)
    ] == []


# the five role names: tick labels, or drawn upright above their column (a short one on a phone)
MODEL_READY = """() => [...document.querySelectorAll(
  '.st-key-head_roles g.xtick text, .st-key-head_roles .annotation-text')]
  .filter(e => e.textContent).length >= 5"""


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_model_s_role_headers_and_table_fit_a_phone(browser, lang):
    """/model on a phone: the roles' column labels are whole (no "…") and inside the chart, and
    the ÷√d table fits the column with every header whole (wrapped, not cut)."""
    found = measure(browser, f"model?lang={lang}", "head_roles", MODEL_READY)
    labels = [b["text"] for b in found["texts"] if b["text"]]
    assert len(labels) == 5 and not any("…" in label for label in labels), labels
    assert outside(found) == []
    assert len(found["tables"]) == 1
    for table in found["tables"]:
        assert table["hidden"] <= 1 and table["x1"] <= found["width"]
        assert all(hidden <= 1 for hidden in table["headers"])


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_scaling_s_saturation_says_what_train_says(lang):
    """/scaling's saturation section ends with the same computed answer as /train: its claims
    and every line of its numbers (one computation, four pages)."""
    from ui.train.compute import need_parts, sentences_text

    at = open_app("scaling", lang=lang, section="saturation")
    shown = " ".join(html.unescape(element.proto.body) for element in at.get("html"))
    claims, evidence = need_parts(lang)
    assert sentences_text(claims, lang) in shown
    assert all(line in shown for line in evidence)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_model_says_its_starting_std_is_the_seeds_mean_and_gives_one_seed_s_range(lang):
    """/model's σ at the start of training (8.5 / 1.06 for d_k = 64) is the stored sweep's mean
    over its 12 seeds, and says so; it gives the range one seed's start lies in, and /train's
    seed 0 (its own run's start, from the core) lies in it."""
    from viz_core.train import batch_score_std, held_out_batch, init_params, train_head

    text = shown(open_app("model", lang=lang))
    d_k = load_model().config.d_k
    each = {
        scale: [
            batch_score_std(init_params(d_k, seed), held_out_batch("previous", seed), scale)
            for seed in SEEDS
        ]
        for scale in (True, False)
    }
    mean_s, mean_u = (float(np.mean(each[scale])) for scale in (True, False))
    low_s, high_s = f"{min(each[True]):.2f}", f"{max(each[True]):.2f}"
    low_u, high_u = f"{min(each[False]):.1f}", f"{max(each[False]):.1f}"
    if lang == "en":
        assert f"std {mean_u:.1f} unscaled and {mean_s:.2f} scaled: the mean over the stored " \
            "sweep's 12 seeds" in text  # fmt: skip
        assert f"between {low_u} and {high_u} unscaled and {low_s} and {high_s} scaled" in text
    else:
        assert f"{low_u}–{high_u} 和 {low_s}–{high_s} 之间" in text and "12 个种子的平均" in text
    for scale, low, high in ((True, low_s, high_s), (False, low_u, high_u)):
        seed0 = train_head("previous", d_k, scale, 0, 1, "sgd").initial_score_std
        assert float(low) <= float(f"{seed0:.2f}") <= float(high) + 0.05
