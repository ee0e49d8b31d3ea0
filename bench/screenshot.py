"""The README's picture: the lab in Chinese, laid out at 1280×720. By hand:

    python -m bench.screenshot [--out docs/lab-zh.png]

Starts the app on a free port (with the repository's .streamlit/config.toml, whose toolbar is a
viewer's: no local Deploy button), opens the lab with ``?lang=zh`` in Debian's Chromium at
1280×720, waits until the script has finished and the weights heatmap is drawn, then makes the
window taller (the width, and so the layout, unchanged) until the heatmap fits, and writes the
screenshot: controls, tokens, the heatmap and the selected row. Run it again after any change to
the lab's page.
"""

import argparse
import math
from pathlib import Path

from bench.bench import HEATMAP, IDLE, VIEWPORT, launch
from bench.serve import ROOT, streamlit_server

OUT = ROOT / "docs" / "lab-zh.png"
QUERY = "?lang=zh"
MARGIN = 24  # px below the heatmap


def screenshot(out: Path) -> None:
    """Serve the app, open the lab in Chinese and save its first screen to ``out``."""
    from playwright.sync_api import sync_playwright

    with streamlit_server() as (base, _pid), sync_playwright() as playwright:
        chromium = launch(playwright)
        try:
            page = chromium.new_page(viewport=VIEWPORT, locale="zh-CN")
            page.goto(f"{base}/{QUERY}")
            page.wait_for_selector(IDLE, timeout=60_000)
            page.wait_for_selector(f"{HEATMAP} .main-svg", timeout=60_000)
            page.wait_for_selector(IDLE, timeout=60_000)  # a run the first one started, if any
            page.evaluate("document.fonts.ready")
            box = page.locator(HEATMAP).bounding_box()
            assert box is not None, "the weights heatmap is not on the page"
            height = math.ceil(box["y"] + box["height"]) + MARGIN
            page.set_viewport_size({"width": VIEWPORT["width"], "height": height})
            page.wait_for_timeout(500)  # Plotly's last layout pass after the fonts
            out.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(out))
        finally:
            chromium.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=OUT, help="where to write the PNG")
    args = parser.parse_args()
    screenshot(args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
