"""The app in real Chromium against a real `streamlit run` server."""

import re
import time
from urllib.parse import parse_qs, urlparse

import pytest
from browser_support import (
    boxes,
    count_runs,
    launch,
    overlapping,
    poll,
    require_browser,
    screenshot,
    streamlit_server,
    wait_idle,
    wait_quiet,
)

from ui.kit.pages import PAGES as REGISTERED

pytestmark = pytest.mark.browser
STREAMLIT_PROBE = re.compile(r"/[\w-]+/_stcore/(health|host-config)$")


@pytest.fixture(scope="module")
def server():
    require_browser()
    with streamlit_server() as base:
        yield base


@pytest.fixture(scope="module")
def chromium_browser(server):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = launch(playwright)
        yield chromium
        chromium.close()


@pytest.fixture
def page(chromium_browser):
    """A fresh browser context (no shared session), with console errors collected."""
    context = count_runs(
        chromium_browser.new_context(viewport={"width": 1400, "height": 1000}, locale="zh-CN")
    )
    tab = context.new_page()
    tab.console_errors = []

    def on_console(msg):
        # Opening /<page> directly, Streamlit first probes /<page>/_stcore/health and
        # /<page>/_stcore/host-config and gets 404 before it falls back to /_stcore/
        # (streamlit/streamlit#7074, open). Only those two probes are ignored.
        if msg.type == "error" and not STREAMLIT_PROBE.search(msg.location.get("url", "")):
            tab.console_errors.append(f"{msg.text} ({msg.location.get('url', '')})")

    tab.on("console", on_console)
    tab.on("pageerror", lambda error: tab.console_errors.append(str(error)))
    yield tab
    context.close()


def open_app(page, server, query=""):
    page.goto(f"{server}/{query}")
    wait_idle(page, settle_ms=800)
    page.wait_for_selector(".st-key-weights_heatmap .nsewdrag", timeout=30_000)


def chart(page, key):
    return page.locator(f".st-key-{key}")


def tick_texts(page, key, axis="ytick"):
    return chart(page, key).locator(f"g.{axis} text").all_text_contents()


def cell_texts(page, key):
    """The numbers drawn in a heatmap's cells, in drawing order."""
    return chart(page, key).locator("g.heatmaplayer text").all_text_contents()


def click_cell(page, key, row, col, n):
    """Click the centre of cell (row, col) of an n × n heatmap."""
    plot = chart(page, key).locator(".nsewdrag").first
    plot.scroll_into_view_if_needed()
    box = plot.bounding_box()
    page.mouse.click(
        box["x"] + (col + 0.5) * box["width"] / n, box["y"] + (row + 0.5) * box["height"] / n
    )
    wait_idle(page)


def url_settings(page, *keys):
    """The page's URL settings of ``keys``."""
    query = parse_qs(urlparse(page.url).query)
    return {key: query[key][0] for key in keys if key in query}


def selected_row_text(page):
    return page.locator(".st-key-lab_row input").input_value()


def test_lab_loads_without_errors_and_draws_chinese_ticks(page, server):
    """Default page: its two charts (the softmax stage and the selected row) drawn, no exception
    box, no console error, 喜 on the axis."""
    open_app(page, server)
    assert page.locator("[data-testid='stPlotlyChart']").count() == 2
    assert page.locator("[data-testid='stException']").count() == 0
    assert "喜" in tick_texts(page, "weights_heatmap")
    screenshot(page, "lab-zh")
    assert page.console_errors == []


def test_clicking_a_weights_row_selects_that_query_token(page, server):
    """A click on row 5 (工) of the weights heatmap selects 工 and redraws the row bars."""
    open_app(page, server, "?lang=en")
    assert selected_row_text(page).startswith("2 · 喜")
    click_cell(page, "weights_heatmap", row=5, col=3, n=9)
    assert selected_row_text(page).startswith("5 · 工")
    assert "row=5" in page.url
    assert page.locator("[data-testid='stException']").count() == 0


def test_one_drawn_click_square_still_hovers_and_clicks_every_cell(page, server):
    """Plotly draws one square of the click layer (``maxdisplayed``), not 81: hover still names
    any cell, and a click on a cell in each corner selects that cell's row."""
    open_app(page, server, "?lang=en")
    assert chart(page, "weights_heatmap").locator(".scatterlayer path.point").count() == 1
    plot = chart(page, "weights_heatmap").locator(".nsewdrag").first
    box = plot.bounding_box()
    page.mouse.move(box["x"] + 6.5 * box["width"] / 9, box["y"] + 3.5 * box["height"] / 9)
    page.wait_for_timeout(300)
    label = " ".join(chart(page, "weights_heatmap").locator(".hoverlayer text").all_text_contents())
    assert "欢" in label and "智" in label, label
    for row, col in [(0, 8), (8, 0), (8, 8), (1, 1)]:
        click_cell(page, "weights_heatmap", row=row, col=col, n=9)
        assert selected_row_text(page).startswith(f"{row} · "), (row, col)


def test_typing_a_sentence_and_enter_redraws_with_its_tokens(page, server):
    """Type 我爱我家, press Enter: the heatmap's rows become [CLS] 我 爱 我 家 [SEP]."""
    open_app(page, server)
    box = page.locator(".st-key-lab_text input")
    box.fill("我爱我家")
    box.press("Enter")
    wait_idle(page, settle_ms=800)
    assert tick_texts(page, "weights_heatmap") == ["[CLS]", "我", "爱", "我", "家", "[SEP]"]


def test_after_a_new_sentence_the_row_box_names_its_token_and_the_next_change_works(page, server):
    """Enter reruns the lab's view alone (a fragment). The row box must then name the new
    sentence's token, and the next setting (a d preset) must redraw, not fail on the old one."""
    open_app(page, server, "?lang=en")
    assert selected_row_text(page).startswith("2 · 喜")
    box = page.locator(".st-key-lab_text input")
    box.fill("我爱我家")
    box.press("Enter")
    wait_idle(page, settle_ms=800)
    assert selected_row_text(page).startswith("2 · 爱")
    page.get_by_role("radio", name="1,536", exact=True).click()
    wait_idle(page, settle_ms=800)
    assert page.locator("[data-testid='stException']").count() == 0
    assert tick_texts(page, "weights_heatmap") == ["[CLS]", "我", "爱", "我", "家", "[SEP]"]
    assert url_settings(page, "d", "row") == {"d": "1536", "row": "2"}


def test_a_d_the_heads_do_not_divide_resets_them_in_the_same_view(page, server):
    """12 heads at d = 768, then the 64 preset: heads become 1 with a note, and the model
    popover's heads box lists the divisors of 64 (no stale list, no second run)."""
    open_app(page, server, "?lang=en&d=768&heads=12&head=3")
    page.get_by_role("radio", name="64", exact=True).click()
    note = page.get_by_text("12 heads do not divide d = 64, so 1 head is used.")
    note.wait_for(timeout=30_000)
    wait_idle(page, settle_ms=800)
    assert page.locator("[data-testid='stException']").count() == 0
    assert url_settings(page, "d", "heads", "head") == {"d": "64", "heads": "1", "head": "0"}
    page.locator("[data-testid='stPopover'] button").first.click()
    assert page.locator(".st-key-lab_heads input").input_value() == "1"
    page.locator(".st-key-lab_heads").click()
    listed = page.get_by_role("option").all_text_contents()
    assert listed == [str(h) for h in (1, 2, 4, 8, 16, 32, 64)], listed


def test_toggling_scaling_changes_the_weights(page, server):
    """Scaling off at d = 1536: the drawn weights change and one of them nears 1."""
    open_app(page, server, "?d=1536")
    before = cell_texts(page, "weights_heatmap")
    page.locator(".st-key-lab_scale label").click()
    wait_idle(page, settle_ms=800)

    def redrawn():  # a heatmap being redrawn holds no text for a moment on a loaded machine
        texts = cell_texts(page, "weights_heatmap")
        return texts if any(texts) and texts != before else None

    after = poll(page, redrawn)
    assert after
    assert max(float(x) for x in after if x) > 0.9


def test_a_shared_url_reproduces_the_same_numbers(page, server, chromium_browser):
    """The URL after changes made with the widgets (d preset, mask), opened in a new browser
    context, shows the same cells."""
    open_app(page, server, "?seed=11&lang=en")
    page.get_by_role("radio", name="1,536", exact=True).click()
    wait_idle(page, settle_ms=800)
    page.locator(".st-key-lab_mask label").filter(has_text="Causal").click()
    wait_idle(page, settle_ms=800)
    assert "d=1536" in page.url and "mask=causal" in page.url
    expected = cell_texts(page, "weights_heatmap")
    other = count_runs(
        chromium_browser.new_context(viewport={"width": 1400, "height": 1000})
    ).new_page()
    try:
        open_app(other, server, page.url.split("/", 3)[-1])
        assert cell_texts(other, "weights_heatmap") == expected
    finally:
        other.context.close()


def test_the_share_link_opens_from_its_button_and_reproduces_the_view(page, server):
    """The link box opens from a button: until then no code box is drawn (its highlighter is a
    1.6 MB script the first chart would wait for); opened, it holds this view's settings."""
    open_app(page, server, "?seed=11&d=96&lang=en")
    assert page.locator("[data-testid='stCode']").count() == 0
    page.locator(".st-key-share_link").get_by_role("button").click()
    link = page.locator("[data-testid='stCode']").first
    link.wait_for(timeout=10_000)
    text = link.inner_text().replace("\n", "")
    assert all(part in text for part in ("seed=11", "d=96", "lang=en", "stage=weights")), text


def test_bad_url_shows_notes_never_a_traceback(page, server):
    """?d=1e400&text=<b>…: notes, literal text, no exception box."""
    open_app(page, server, "?d=1e400&seed=nan&mask=x&text=%3Cb%3Ebold%3C%2Fb%3E")
    assert page.locator("[data-testid='stException']").count() == 0
    assert page.locator("[data-testid='stAlert']").count() >= 3
    assert page.locator("b", has_text="bold").count() == 0
    assert "<" in tick_texts(page, "weights_heatmap")
    screenshot(page, "lab-bad-url")


def test_switching_language_keeps_every_setting(page, server):
    """中文 → English keeps d, mask, seed and row in the URL and on screen."""
    open_app(page, server, "?lang=zh&d=768&mask=causal&seed=5&row=4")
    page.locator(".st-key-lang").get_by_text("EN", exact=True).click()
    wait_idle(page, settle_ms=800)
    assert re.search(r"lang=en", page.url)
    for part in ["d=768", "mask=causal", "seed=5", "row=4"]:
        assert part in page.url
    assert page.get_by_text("Scaled dot-product attention, step by step").count() == 1
    screenshot(page, "lab-en")


# Every page with the chart its first screen shows, as PAGES lists them (the lab at "/").
PAGES = {("" if page is REGISTERED[0] else page.path): page.chart for page in REGISTERED}


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("path", list(PAGES))
def test_every_page_loads_cleanly_in_both_languages(page, server, path, lang):
    """Each page: its charts drawn, no exception box, no console error; a screenshot is kept."""
    page.goto(f"{server}/{path}?lang={lang}")
    wait_idle(page, settle_ms=1200)
    if PAGES[path]:
        page.wait_for_selector(f".st-key-{PAGES[path]} .main-svg", timeout=30_000)
    assert page.locator("[data-testid='stException']").count() == 0
    assert page.locator("h1").first.text_content()
    if lang == "zh":
        assert re.search(r"[\u4e00-\u9fff]", page.locator("h1").first.text_content())
    screenshot(page, f"{path or 'lab'}-{lang}")
    assert page.console_errors == []


def test_d_preset_and_mask_change_the_figures(page, server):
    """Clicking the 1,536 preset and choosing the causal mask each redraw the weights."""
    open_app(page, server, "?lang=en")
    before = cell_texts(page, "weights_heatmap")
    page.get_by_role("radio", name="1,536", exact=True).click()
    wait_idle(page, settle_ms=800)
    after_d = cell_texts(page, "weights_heatmap")
    assert after_d != before and "d=1536" in page.url
    page.locator(".st-key-lab_mask label").filter(has_text="Causal").click()
    wait_idle(page, settle_ms=800)
    after_mask = cell_texts(page, "weights_heatmap")
    assert after_mask != after_d and "mask=causal" in page.url
    assert len(after_mask) == 81 - 9 * 8 // 2  # masked cells (upper triangle) carry no number


BAD = {
    "": "d=1e400",
    "softmax": "values=nan",
    "scaling": "distribution=x",
    "steps": "step=99",
    "steps?step=2": "d=1e400",  # a lab setting in a steps link
    "quiz": "quiz_seed=-1",
}


@pytest.mark.parametrize("path", list(BAD))
def test_a_bad_url_on_every_page_shows_a_note(page, server, path):
    """Each page opened with a bad value: a visible note, no exception box, no console error."""
    joiner = "&" if "?" in path else "?"
    page.goto(f"{server}/{path}{joiner}lang=en&{BAD[path]}")
    wait_idle(page, settle_ms=1200)
    assert page.locator("[data-testid='stException']").count() == 0
    assert page.get_by_text("could not be used").count() >= 1
    assert page.console_errors == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_presenter_mode_and_both_themes(chromium_browser, server, scheme):
    """Presenter mode in a light and a dark browser: drawn, themed, screenshots kept."""
    context = count_runs(
        chromium_browser.new_context(viewport={"width": 1400, "height": 1000}, color_scheme=scheme)
    )
    tab = context.new_page()
    try:
        for path, name in [("?present=true&lang=zh", "present"), ("?lang=en", "lab")]:
            tab.goto(f"{server}/{path}")
            wait_idle(tab, settle_ms=1500)
            tab.wait_for_selector(".st-key-weights_heatmap .main-svg", timeout=30_000)
            assert tab.locator("[data-testid='stException']").count() == 0
            screenshot(tab, f"{name}-{scheme}")
        background = tab.evaluate(
            "getComputedStyle(document.querySelector('[data-testid=stApp]')).backgroundColor"
        )
        brightness = sum(int(part) for part in re.findall(r"\d+", background)[:3]) / 3
        assert (brightness < 80) if scheme == "dark" else (brightness > 200), background
    finally:
        context.close()


def test_controls_are_reachable_with_the_keyboard(page, server):
    """Tab alone reaches the sentence box, d, a preset, the mask and the row selector."""
    open_app(page, server, "?lang=en")
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    reached = set()
    for _ in range(80):
        page.keyboard.press("Tab")
        reached.add(
            page.evaluate(
                "() => { const el = document.activeElement;"
                " const box = el && el.closest('[class*=st-key-]');"
                " return box ? [...box.classList].find(c => c.startsWith('st-key-')) : ''; }"
            )
        )
    for key in ["lab_text", "lab_d", "lab_d_preset", "lab_mask", "lab_row"]:
        assert f"st-key-{key}" in reached, sorted(reached)


# --- a 1280 × 720 projector --------------------------------------------------------------------

PROJECTOR = {"width": 1280, "height": 720}
# Each page's main figure and the controls its lesson needs, in presenter mode.
FIRST_SCREEN = {
    "": ["lab_d", "lab_scale", "lab_mask", "lab_stage", "weights_heatmap", "row_bars"],
    "softmax": ["softmax_values", "softmax_divisor", "softmax_bars"],
    "scaling": ["scaling_distribution", "scaling_d", "dot_histogram"],
    "steps": ["steps_prev", "steps_next", "steps_step", "step_q"],
    "train": ["train_task", "train_d", "train_optimizer", "loss_curves"],
    "kernel": ["kernel_section", "online_softmax_steps"],
    "variants": ["variants_variant", "gqa_heads"],
}


CHARTS = {"weights_heatmap", "row_bars", "softmax_bars", "dot_histogram", "step_q"}
CHARTS |= {"loss_curves", "online_softmax_steps", "gqa_heads"}


@pytest.fixture
def projector(chromium_browser):
    """A 1280 × 720 browser tab, as a classroom projector shows it."""
    context = count_runs(chromium_browser.new_context(viewport=PROJECTOR))
    yield context.new_page()
    context.close()


def open_drawn(tab, server, path, charts):
    """Open a page and wait until its script has run and the given charts are drawn."""
    tab.goto(f"{server}/{path}")
    wait_idle(tab, settle_ms=800)
    for key in charts:
        tab.wait_for_selector(f".st-key-{key} .main-svg", timeout=30_000)
    tab.wait_for_timeout(500)


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("path", list(FIRST_SCREEN))
def test_presenter_mode_fits_the_first_screen_of_a_projector(projector, server, path, lang):
    """?present=true at 1280 × 720: the page's main figure and the controls its lesson needs are
    entirely inside the first screen, without scrolling or opening the sidebar."""
    keys = FIRST_SCREEN[path]
    charts = [key for key in keys if key in CHARTS]
    open_drawn(projector, server, f"{path}?present=true&lang={lang}", charts)
    outside = []
    for key in keys:
        box = projector.locator(f".st-key-{key}").first.bounding_box()
        inside = box and box["x"] >= 0 and box["y"] >= 0
        inside = inside and box["x"] + box["width"] <= 1280 and box["y"] + box["height"] <= 720
        if not inside:
            outside.append((key, box))
    screenshot(projector, f"projector-{path or 'lab'}-{lang}")
    assert outside == []


@pytest.mark.parametrize(
    ("path", "key", "numbers_fit"),
    [
        ("?lang=en", "weights_heatmap", True),
        ("?lang=en&present=true", "weights_heatmap", True),
        ("?lang=zh&stage=scores&d=6144&scale=false", "scores_heatmap", True),
        # with [PAD]: a projector's cells (as large as a laptop's) now hold its numbers
        ("?lang=en&present=true&stage=masked&mask=padding", "masked_heatmap", True),
        ("?lang=zh&present=true", "row_bars", False),  # bars: no cells
        ("?lang=en&text=" + "注意力机制让每个字看见整个句子" * 2, "weights_heatmap", False),
        (
            "softmax?lang=en&values=15.3,22.7,18.2,2.1,1.8,3.2,2.9,5.6,4.1&divisor=8"
            "&section=jacobian",
            "jacobian_heatmap",
            False,  # its numbers do not fit its cells at 1280 px
        ),
        ("steps?lang=zh&step=2", "step_scores", True),
        ("variants?lang=en&variant=gqa", "gqa_heads", False),  # 17 columns in 520 px
        ("variants?lang=zh&present=true&variant=gqa&q_heads=8&kv_heads=2", "gqa_heads", True),
        ("variants?lang=zh&variant=window", "window_heatmap", False),
        ("variants?lang=en&present=true&variant=window", "window_heatmap", True),
        ("variants?lang=zh&variant=rope", "rope_scores", False),
        ("variants?lang=en&present=true&variant=rope", "rope_scores", True),
        ("variants?lang=en&present=true&variant=cross", "cross_heatmap", True),
    ],
)
def test_cell_numbers_are_readable_and_no_label_overlaps_another(
    projector, server, path, key, numbers_fit
):
    """At 1280 px: every number drawn in a cell is ≥ 12 px, no two cell numbers overlap, and
    no tick label overlaps another; numbers that would not fit are left to the hover (and the
    cases say which: no test passes for want of numbers)."""
    open_drawn(projector, server, path, [key])
    chart = f".st-key-{key}"
    numbers = boxes(projector, f"{chart} .heatmap-label text")  # text: its own font size
    assert bool(numbers) == numbers_fit, len(numbers)
    assert all(box["size"] >= 12 for box in numbers), {box["size"] for box in numbers}
    assert overlapping(numbers) == []
    for axis in ("xtick", "ytick"):
        ticks = boxes(projector, f"{chart} g.{axis} text")
        assert overlapping(ticks) == [], axis
        title = boxes(projector, f"{chart} .g-{axis[0]}title text")
        assert overlapping(title + ticks) == [], f"{axis[0]} title"


MARGINS = """(selector) => [...document.querySelectorAll(selector)].map(gd => {
  const held = gd._fullLayout.margin, used = gd._fullLayout._size;
  const key = gd.closest('[class*="st-key-"]').className.match(/st-key-([\\w-]+)/)[1];
  return [key, ['l', 'r', 't', 'b'].filter(side => Math.abs(used[side] - held[side]) > 0.5)
    .map(side => `${side}: ${held[side]} → ${used[side]}`)];
})"""


@pytest.mark.parametrize(
    ("path", "keys"),
    [
        ("?lang=en", ["weights_heatmap", "row_bars"]),
        ("?lang=zh&present=true", ["weights_heatmap", "row_bars"]),
        ("?lang=en&stage=scores&d=6144&scale=false", ["scores_heatmap"]),
        ("?lang=en&present=true&stage=masked&mask=padding", ["masked_heatmap"]),
        ("?lang=zh&stage=output", ["output_heatmap"]),
        ("?lang=en&stage=all&heads=4", ["stages_overview", "heads_grid", "heads_average"]),
        ("?lang=en&present=true&stage=all&heads=2", ["stages_overview", "heads_grid"]),
        ("?lang=en&text=" + "注意力机制让每个字看见整个句子" * 2, ["weights_heatmap", "row_bars"]),
        ("?lang=en&text=ABCDEFGHIJKLMNOPQRSTUVWXYZ&heads=16", ["row_bars", "heads_grid"]),
        ("softmax?lang=en&section=jacobian", ["jacobian_heatmap"]),
        ("steps?lang=zh&step=2", ["step_scores"]),
        ("variants?lang=en&variant=gqa&q_heads=64&kv_heads=4", ["gqa_heads"]),
        ("variants?lang=zh&present=true&variant=gqa", ["gqa_heads"]),
        ("variants?lang=en&variant=window&text=ABCDEFGHIJKLMNOPQRSTUVWXYZ", ["window_heatmap"]),
        ("variants?lang=zh&present=true&variant=window", ["window_heatmap"]),
        ("variants?lang=zh&variant=rope", ["rope_scores"]),
        ("variants?lang=en&present=true&variant=rope", ["rope_scores"]),
        ("variants?lang=en&variant=cross", ["cross_heatmap"]),
        (
            "variants?lang=en&present=true&variant=cross&text=Attention%20is%20all",
            ["cross_heatmap"],
        ),
    ],
)
def test_each_chart_is_drawn_once_because_its_margins_hold_its_labels(
    projector, server, path, keys
):
    """Plotly draws a chart a second time when its labels and colour bar need more room than
    the layout's margins give: the builders give that room, so every chart listed ends with the
    margins its layout asked for (drawn once, on every rerun)."""
    open_drawn(projector, server, path, keys)
    pushed = dict(projector.evaluate(MARGINS, ".js-plotly-plot"))
    assert {key: pushed[key] for key in keys} == {key: [] for key in keys}


def test_a_new_sentence_on_the_model_page_resends_only_what_depends_on_it(page, server):
    """/model: Enter in the sentence box reruns the sentence's view alone (a fragment), so the
    server sends the new heads and guesses, and nothing of the sections below them that do not
    depend on the sentence (the roles, training)."""
    page.goto(f"{server}/model?lang=en")
    wait_idle(page, settle_ms=800)
    frames = received_frames(page)
    page.reload()  # the listener sees the page's own socket from its start
    wait_idle(page, settle_ms=800)
    assert any("How this model was trained" in frame for frame in frames)  # the whole page
    frames.clear()
    box = page.locator(".st-key-model_text input")
    box.fill("今天天气很好")
    box.press("Enter")
    wait_idle(page, settle_ms=800)
    sent = "".join(frames)
    assert "今" in sent and "天" in sent  # the new sentence's heads
    assert "How this model was trained" not in sent
    assert "What the heads learned" not in sent
    assert page.locator("[data-testid='stException']").count() == 0


def test_a_model_page_s_new_heads_arrive_before_its_guesses(page, server):
    """/model: after a new sentence the frame with the new heads comes at least most of DRAWN
    before the frame with the guesses' bars, so the browser draws the heads first."""
    from ui.kit.notes import DRAWN

    page.goto(f"{server}/model?lang=en")
    wait_idle(page, settle_ms=800)
    frames = received_frames(page)
    page.reload()
    wait_idle(page, settle_ms=800)
    frames.clear()
    box = page.locator(".st-key-model_text input")
    box.fill("我们去公园")
    box.press("Enter")
    wait_idle(page, settle_ms=800)

    def arrived(key, *marks):
        pairs = zip(frames.times, frames, strict=True)
        return [at for at, text in pairs if key in text and all(m in text for m in marks)]

    heads = poll(page, lambda: arrived("model_heads", "layer 2"))
    bars = poll(page, lambda: arrived("fill_mask", "%{y:.4f}"))  # a later run sends the guesses
    assert heads and bars
    assert bars[0] - heads[0] >= 0.8 * DRAWN


def test_scaling_resends_the_histogram_for_a_d_and_the_page_for_a_distribution(page, server):
    """/scaling: a d preset reruns d, its presets and the histogram alone (a fragment), so the
    section picker above them is not sent again; a new distribution reruns the whole page,
    computed or not, and the experiment's chart (in its own section) is drawn anew for it."""
    frames = received_frames(page)
    page.goto(f"{server}/scaling?lang=en")
    wait_idle(page, settle_ms=800)
    page.wait_for_selector(".st-key-dot_histogram svg.main-svg", timeout=60_000)
    assert any("④ Animation" in frame for frame in frames)
    frames.clear()
    page.locator(".st-key-scaling_d_1536 button").click()
    wait_idle(page, settle_ms=800)
    sent = "".join(frames)
    assert "1,536" in sent and "④ Animation" not in sent
    page.goto(f"{server}/scaling?lang=en&section=variance")
    wait_idle(page, settle_ms=800)
    page.wait_for_selector(".st-key-variance_chart svg.main-svg", timeout=60_000)
    before = paths_of(page, "variance_chart")
    frames.clear()
    page.get_by_text("Uniform on [−1, 1] (variance 1/3)", exact=True).click()
    wait_idle(page, settle_ms=1500)
    assert "④ Animation" in "".join(frames)
    after = paths_of(page, "variance_chart")
    assert after != before and "distribution=uniform" in page.url
    frames.clear()  # back to normal entries, computed already: the page reruns all the same
    page.get_by_text("Standard normal (variance 1)", exact=True).click()
    wait_idle(page, settle_ms=1500)
    assert "④ Animation" in "".join(frames)
    assert paths_of(page, "variance_chart") == before
    assert page.locator("[data-testid='stException']").count() == 0


def paths_of(page, key):
    """Every path a chart draws, as one text: it changes when the chart is drawn anew."""
    paths = chart(page, key).locator("path")
    return paths.evaluate_all("paths => paths.map(p => p.getAttribute('d')).join()")


class Frames(list[str]):
    """The websocket frames a page received, each as text, and when each came (``times``,
    ``time.perf_counter``)."""

    def __init__(self) -> None:
        super().__init__()
        self.times: list[float] = []

    def add(self, data: str | bytes) -> None:
        self.times.append(time.perf_counter())
        self.append(_text_of(data))

    def clear(self) -> None:
        super().clear()
        self.times.clear()


def received_frames(page) -> Frames:
    """The websocket frames the page receives from now on (the list grows)."""
    frames = Frames()
    page.on("websocket", lambda ws: ws.on("framereceived", frames.add))
    return frames


def _text_of(data: str | bytes) -> str:
    return data if isinstance(data, str) else data.decode("utf-8", "replace")


def test_train_s_curve_so_far_keeps_its_colour_while_the_next_run_trains(page, server):
    """/train reruns itself to train the second run, and Streamlit marks the curve drawn so far
    stale meanwhile: after 0.5 s (its transition) it would fade to a third. The page's style keeps
    a stale curve at full colour, whatever opacity Streamlit gives it."""
    page.goto(f"{server}/train?lang=en")
    wait_idle(page, settle_ms=800)
    page.wait_for_selector(".st-key-loss_curves svg.main-svg", timeout=60_000)
    opacity = page.evaluate(
        """() => { const el = document.querySelector('.st-key-loss_curves');
             el.dataset.stale = 'true'; el.style.opacity = '0.33';
             return getComputedStyle(el).opacity; }"""
    )
    assert opacity == "1"


def test_a_click_on_a_trained_head_opens_it_in_the_lab(page, server):
    """/model: a click on the third panel of the second row (layer 2, head 3) opens the lab on
    that head of the trained model, with its weights heatmap."""
    page.goto(f"{server}/model?lang=en")
    wait_idle(page, settle_ms=800)
    page.wait_for_selector(".st-key-model_heads .nsewdrag", timeout=30_000)
    wait_quiet(page)  # the guesses' run is over: the heads chart is not being replaced
    panels = chart(page, "model_heads").locator(".nsewdrag")
    assert panels.count() == 8
    target = panels.nth(6)
    target.scroll_into_view_if_needed()
    box = target.bounding_box()
    page.mouse.click(box["x"] + box["width"] * 0.5, box["y"] + box["height"] * 0.5)
    page.wait_for_url(re.compile(r"/\?.*source=trained"), timeout=30_000)  # the lab is "/"
    wait_idle(page, settle_ms=800)
    page.wait_for_selector(".st-key-weights_heatmap .nsewdrag", timeout=30_000)
    assert url_settings(page, "source", "layer", "head") == {
        "source": "trained", "layer": "1", "head": "2"
    }  # fmt: skip
    assert page.locator("[data-testid='stException']").count() == 0
