"""Every screen a class uses, in real Chromium: a phone (390 × 844, touch), two laptops (1280 × 720,
1366 × 768) and a projector (1280 × 720, ?present=true). On each, every page's main figure starts
inside the first screen, nothing scrolls sideways, and no single Chinese character lies on its
side on any axis."""

from contextlib import contextmanager

import pytest
from browser_support import (
    SCREENS,
    count_runs,
    overlapping,
    screenshot,
    wait_idle,
)

from ui.kit.pages import PAGES

pytestmark = pytest.mark.browser
WITH_FIGURE = [page for page in PAGES if page.chart]


# Text is measured by its em square, where its ink lies: a CJK font's line box is about 1.45 em
# tall, so that the boxes of neighbouring row labels overlap where their characters do not.
MEASURE = """(key) => {
  const box = e => {
    const r = e.getBoundingClientRect(), size = parseFloat(getComputedStyle(e).fontSize);
    const middle = (r.top + r.bottom) / 2, half = e.tagName === 'text' ? size / 2 : r.height / 2;
    return {text: e.textContent, size, x0: r.left, x1: r.right,
            y0: middle - half, y1: middle + half}; };
  const texts = (root, selector) => [...root.querySelectorAll(selector)].map(box)
    .filter(b => b.text.trim() !== '' && b.x1 > b.x0);
  const shown = e => { const item = e.closest('.rc-overflow-item');
    return !item || getComputedStyle(item).opacity !== '0'; };
  const chart = document.querySelector(`.st-key-${key}`);
  const switches = document.querySelector('.st-key-app_switches');
  return {
    top: chart ? chart.getBoundingClientRect().top : null,
    overflow: document.documentElement.scrollWidth - window.innerWidth,
    language: [...document.querySelectorAll('.st-key-app_switches input[type=radio]')]
      .findIndex(e => e.checked),
    rotated: [...document.querySelectorAll('g[class$="tick"] > text')].filter(e =>
      /^[\\u4e00-\\u9fff]$/.test(e.textContent.trim()) &&
      /rotate\\((?!0\\))/.test(e.getAttribute('transform') || '')).map(e => e.textContent),
    charts: [...document.querySelectorAll('[data-testid=stPlotlyChart]')].map(c => ({
      key: (c.closest('[class*="st-key-"]')?.className.match(/st-key-([\\w-]+)/) || [])[1],
      numbers: texts(c, '.heatmap-label text, text.bartext, .textpoint text'),
      axes: Object.fromEntries([...new Set([...c.querySelectorAll('g[class$="tick"]')]
        .map(g => g.getAttribute('class')))].map(name => [name, texts(c, `g.${name} text`)
          .concat(texts(c, `.g-${name.replace('tick', 'title')} text`))])),
      notes: texts(c, '.annotation-text'),
      lines: [...c.querySelectorAll('.scatterlayer path.js-line')].map(line => {
        const length = line.getTotalLength(), toScreen = line.getScreenCTM(), points = [];
        for (let at = 0; at <= length; at += 2) {
          const p = new DOMPoint(line.getPointAtLength(at).x, line.getPointAtLength(at).y)
            .matrixTransform(toScreen);
          points.push([p.x, p.y]);
        }
        return points; }),
      toolbar: [...c.querySelectorAll('.modebar-container')]
        .filter(e => getComputedStyle(e).display !== 'none').length})),
    head: [...document.querySelectorAll('[data-testid=stTopNavLinkContainer], ' +
      '[data-testid=stTopNavSection]')].filter(shown).map(box)
      .concat(switches ? [box(switches)] : []),
    formulas: [...document.querySelectorAll('.katex-display')].filter(e =>
      e.scrollWidth > e.clientWidth + 1 &&
      !['auto', 'scroll'].includes(getComputedStyle(e).overflowX)).map(e => e.textContent),
  };
}"""


def crosses(line, box):
    """Whether a drawn line (points every 2 px) runs through a text's box (1 px inside it)."""
    return any(
        box["x0"] + 1 < x < box["x1"] - 1 and box["y0"] + 1 < y < box["y1"] - 1 for x, y in line
    )


def crowded(found):
    """Every overlap a reader would see: cell numbers under 12 px, on one another or with a
    chart's line through them; tick labels, axis titles or annotations (panel titles) on one
    another; the page links under the switches; and a phone's chart toolbar (Plotly's modebar
    covers axis titles and legends)."""
    problems = []
    for chart in found["charts"]:
        i = chart["key"]
        numbers = chart["numbers"]
        problems += [(i, "small", box["text"]) for box in numbers if box["size"] < 12]
        problems += [(i, "numbers", pair) for pair in overlapping(numbers)]
        problems += [
            (i, "line through", box["text"])
            for box in numbers
            if any(crosses(line, box) for line in chart["lines"])
        ]
        for axis, labels in chart["axes"].items():
            problems += [(i, axis, pair) for pair in overlapping(labels)]
        problems += [(i, "notes", pair) for pair in overlapping(chart["notes"])]
        labels = [box for boxes in chart["axes"].values() for box in boxes]
        problems += [
            (i, "note on label", (note["text"], label["text"]))
            for note in chart["notes"]
            for label in labels
            if overlapping([note, label])
        ]
    problems += [("head", pair) for pair in overlapping(found["head"])]
    return problems


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("screen", list(SCREENS))
@pytest.mark.parametrize("page", WITH_FIGURE, ids=[page.path for page in WITH_FIGURE])
def test_the_main_figure_is_on_the_first_screen(browser, screen, page, lang):
    """The page's main figure starts inside the first screen; nothing scrolls sideways (a wide
    formula scrolls inside itself); nothing overlaps; no single CJK character lies on its side."""
    base, chromium = browser
    options, extra = SCREENS[screen]
    context = count_runs(chromium.new_context(**options))
    tab = context.new_page()
    try:
        path = "" if page.path == "lab" else page.path
        tab.goto(f"{base}/{path}?lang={lang}{extra}")
        wait_idle(tab, settle_ms=800)
        tab.wait_for_selector(f".st-key-{page.chart} .main-svg", timeout=30_000)
        found = tab.evaluate(MEASURE, page.chart)
        screenshot(tab, f"screen-{screen}-{page.path}-{lang}")
        height = options["viewport"]["height"]
        assert found["top"] is not None and found["top"] < height, found["top"]
        assert found["overflow"] <= 1, found["overflow"]
        assert found["language"] == ["zh", "en"].index(lang)  # the switch says the page's
        assert found["formulas"] == []
        assert found["rotated"] == []
        assert crowded(found) == []
        if screen.startswith("phone"):
            assert [chart["toolbar"] for chart in found["charts"]] == [0] * len(found["charts"])
    finally:
        context.close()


@pytest.mark.parametrize("screen", ["phone", "laptop", "projector"])
def test_the_online_softmax_line_runs_through_no_number_at_any_block(browser, screen):
    """/kernel's running max m is a line over the bars of ℓ: for every block size a link can ask
    for, the line crosses none of the bars' numbers, nor its own labels."""
    base, chromium = browser
    options, extra = SCREENS[screen]
    context = count_runs(chromium.new_context(**options))
    tab = context.new_page()
    try:
        for block in range(1, 10):
            tab.goto(f"{base}/kernel?lang=en&block={block}{extra}")
            wait_idle(tab, settle_ms=300)
            tab.wait_for_selector(".st-key-online_softmax_steps .main-svg", timeout=30_000)
            found = tab.evaluate(MEASURE, "online_softmax_steps")
            chart = next(c for c in found["charts"] if c["key"] == "online_softmax_steps")
            assert chart["lines"] and len(chart["numbers"]) >= 2, block  # what is checked
            assert crowded({**found, "charts": [chart]}) == [], block
    finally:
        context.close()


SWITCHES = """() => [
  [...document.querySelectorAll('.st-key-app_switches input[type=radio]')]
    .findIndex(e => e.checked),
  !!document.querySelector('.st-key-app_switches input[type=checkbox]')?.checked]"""
CLASS_PAGES = ["train", "softmax", "kernel", "scaling", "", "model"]


def test_a_class_opening_a_projector_link_at_once_sees_its_switches_as_the_link_says(browser):
    """Six windows open English presenter links at once: when the browser drops a run's
    elements because the next run has started, the switches must not come back at their
    defaults (中文, presenter off) on an English projector page. Before the switches were
    handed their values every run, 13 of 18 such windows showed 中文."""
    base, chromium = browser
    contexts = [chromium.new_context(viewport={"width": 1280, "height": 720}) for _ in CLASS_PAGES]
    try:
        tabs = [context.new_page() for context in contexts]
        for tab, path in zip(tabs, CLASS_PAGES, strict=True):
            tab.goto(f"{base}/{path}?lang=en&present=true", wait_until="commit")
        tabs[0].wait_for_timeout(12_000)  # every page's last run drawn (/train trains in runs)
        for tab in tabs:
            tab.wait_for_selector("[data-testid=stPlotlyChart] .main-svg", timeout=60_000)
        assert [tab.evaluate(SWITCHES) for tab in tabs] == [[1, True]] * len(tabs)
    finally:
        for context in contexts:
            context.close()


@contextmanager
def laptop_lab(browser, lang, query=""):
    """The lab in a fresh 1280 × 720 window, its heatmap drawn."""
    base, chromium = browser
    context = count_runs(chromium.new_context(viewport={"width": 1280, "height": 720}))
    tab = context.new_page()
    try:
        tab.goto(f"{base}/?lang={lang}{query}")
        wait_idle(tab, settle_ms=800)
        tab.wait_for_selector(".st-key-weights_heatmap .main-svg", timeout=30_000)
        yield tab
    finally:
        context.close()


def figure_width(tab, key):
    """The width a chart's figure is drawn at (its layout's), once it is drawn."""
    svg = tab.wait_for_selector(f".st-key-{key} .main-svg", timeout=30_000)
    return float(svg.get_attribute("width"))


def test_a_window_narrowed_to_a_phone_s_width_gets_a_phone_s_figures(browser):
    """A laptop's window narrowed below 640 px (a phone turned, a window snapped to one side):
    the browser tells the server, and the lab's heatmap is sized again for the narrow window;
    widened back, it is the laptop's again. No reload, no User-Agent involved."""
    with laptop_lab(browser, "en") as tab:
        wide = figure_width(tab, "weights_heatmap")
        tab.set_viewport_size({"width": 390, "height": 844})
        wait_idle(tab, settle_ms=800)
        narrow = figure_width(tab, "weights_heatmap")
        tab.set_viewport_size({"width": 1280, "height": 720})
        wait_idle(tab, settle_ms=800)
        again = figure_width(tab, "weights_heatmap")
        assert narrow <= 390 - 2 * 12 < wide  # inside the phone's padding (0.8 rem each side)
        assert again == wide
        assert tab.locator("[data-testid='stException']").count() == 0


MORE_LABEL = """() => {
  const p = document.querySelector('.rc-overflow-item-rest [data-testid=stTopNavSection] p');
  return p && [getComputedStyle(p).visibility, getComputedStyle(p, '::after').content];
}"""


@pytest.mark.parametrize(("lang", "label"), [("zh", "更多"), ("en", "More")])
def test_the_top_bar_s_overflow_link_speaks_the_page_s_language(browser, lang, label):
    """In a window too narrow for every page (900 px: at 1280 all fit) the pages that do not fit
    the top bar sit behind one link, which Streamlit labels "3 more" in every language: the app
    hides that text and draws its own."""
    with laptop_lab(browser, lang) as tab:
        tab.set_viewport_size({"width": 900, "height": 720})  # no rerun: still wider than a phone
        tab.wait_for_timeout(800)
        assert tab.evaluate(MORE_LABEL) == ["hidden", f'"{label}"']


# The pages a lesson moves between; the others may sit behind "more".
LESSON_PAGES = ("lab", "softmax", "scaling", "steps", "train", "quiz", "classroom")
TOP_LINKS = """() => [...document.querySelectorAll('[data-testid=stTopNavLinkContainer]')]
  .filter(e => { const item = e.closest('.rc-overflow-item');
                 return !item || getComputedStyle(item).opacity !== '0'; })
  .map(e => e.textContent.trim())"""


@pytest.mark.parametrize("present", ["", "&present=true"], ids=["laptop", "projector"])
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_page_a_lesson_uses_is_one_click_away(browser, lang, present):
    """At 1280 × 720, in both languages and in presenter mode, each page a lesson uses is a
    link in the top bar itself, not behind its "more" (Chinese once hid 训练一个注意力头)."""
    import importlib

    from ui.kit.text import t

    for path in LESSON_PAGES:
        importlib.import_module(f"ui.{path}")  # registers the page's strings
    with laptop_lab(browser, lang, present) as tab:
        shown = tab.evaluate(TOP_LINKS)
    titles = [t(f"nav_{path}", lang) for path in LESSON_PAGES]  # each link: its icon, its title
    missing = [title for title in titles if not any(link.endswith(title) for link in shown)]
    assert missing == [], shown
