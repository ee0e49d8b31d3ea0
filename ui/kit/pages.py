"""The app's pages, listed once: the entry, the navigation, the warm-up, tests and benches read it.

Adding a page: a folder ``ui/<path>/`` (``page.py``, ``body.py``, ``strings.toml`` with its
``nav_<path>`` title) and one line below.
"""

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Page:
    """One page: its URL path, a Material icon (draws without an emoji font), its main chart."""

    path: str
    icon: str
    chart: str | None  # the key of the figure a first screen must show; None: no figure

    @property
    def title_key(self) -> str:
        return f"nav_{self.path}"

    @property
    def file(self) -> str:
        return f"ui/{self.path}/page.py"

    @property
    def module(self) -> str:
        return f"ui.{self.path}.body"


PAGES = (  # the default page first
    Page("lab", ":material/biotech:", "weights_heatmap"),
    Page("softmax", ":material/bar_chart:", "softmax_bars"),
    Page("scaling", ":material/straighten:", "dot_histogram"),
    Page("steps", ":material/footprint:", "step_q"),
    Page("quiz", ":material/quiz:", None),
    Page("train", ":material/fitness_center:", "loss_curves"),
    Page("kernel", ":material/bolt:", "online_softmax_steps"),
    Page("variants", ":material/genetics:", "gqa_heads"),
    Page("model", ":material/psychology:", "model_heads"),
)
PATHS = tuple(page.path for page in PAGES)
FAVICON = str(Path(__file__).with_name("favicon.png"))  # an image: no icon font fetched
