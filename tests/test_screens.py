"""Every screen a class uses, in real Chromium: a phone (390 × 844, touch), two laptops (1280 × 720,
1366 × 768) and a projector (1280 × 720, ?present=true). On each, every page's main figure starts
inside the first screen, nothing scrolls sideways, and no single Chinese character lies on its
side on any axis."""

import pytest
from browser_support import (
    count_runs,
    launch,
    require_browser,
    screenshot,
    streamlit_server,
    wait_idle,
)

from ui.kit.pages import PAGES

pytestmark = pytest.mark.browser
SCREENS = {  # name: (context options, query, language)
    "phone": ({"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
               "device_scale_factor": 2}, "", "zh"),
    "laptop": ({"viewport": {"width": 1280, "height": 720}}, "", "en"),
    "laptop-wide": ({"viewport": {"width": 1366, "height": 768}}, "", "zh"),
    "projector": ({"viewport": {"width": 1280, "height": 720}}, "&present=true", "en"),
}  # fmt: skip
WITH_FIGURE = [page for page in PAGES if page.chart]


@pytest.fixture(scope="module")
def browser():
    require_browser()
    from playwright.sync_api import sync_playwright

    with streamlit_server() as base, sync_playwright() as playwright:
        chromium = launch(playwright)
        yield base, chromium
        chromium.close()


def measure(tab, key):
    """The main figure's top, the page's sideways overflow, and rotated one-character ticks."""
    return tab.evaluate(
        """(key) => {
          const chart = document.querySelector(`.st-key-${key}`);
          const rotated = [...document.querySelectorAll('.xtick text, .ytick text')].filter(e =>
            /^[\\u4e00-\\u9fff]$/.test(e.textContent.trim()) &&
            /rotate\\((?!0\\))/.test(e.getAttribute('transform') || '')).map(e => e.textContent);
          return {top: chart ? chart.getBoundingClientRect().top : null,
                  overflow: document.documentElement.scrollWidth - window.innerWidth,
                  rotated};
        }""",
        key,
    )


@pytest.mark.parametrize("screen", list(SCREENS))
@pytest.mark.parametrize("page", WITH_FIGURE, ids=[page.path for page in WITH_FIGURE])
def test_the_main_figure_is_on_the_first_screen(browser, screen, page):
    base, chromium = browser
    options, extra, lang = SCREENS[screen]
    context = count_runs(chromium.new_context(**options))
    tab = context.new_page()
    try:
        path = "" if page.path == "lab" else page.path
        tab.goto(f"{base}/{path}?lang={lang}{extra}")
        wait_idle(tab, settle_ms=800)
        tab.wait_for_selector(f".st-key-{page.chart} .main-svg", timeout=30_000)
        found = measure(tab, page.chart)
        screenshot(tab, f"screen-{screen}-{page.path}")
        height = options["viewport"]["height"]
        assert found["top"] is not None and found["top"] < height, found
        assert found["overflow"] <= 1, found
        assert found["rotated"] == [], found
    finally:
        context.close()
