"""The app's pages, listed once: the entry, the navigation, the warm-up, tests and benches read it.

Adding a page: a folder ``ui/<path>/`` (``page.py``, ``body.py``, ``strings.toml`` with its
``nav_<path>`` title) and one line below.
"""

import importlib
import inspect
from dataclasses import dataclass
from pathlib import Path

from viz_core.settings import AppSettings, Settings


@dataclass(frozen=True)
class Page:
    """One page: its URL path, a Material icon (draws without an emoji font), its main chart."""

    path: str
    icon: str
    chart: str | None  # the key of the figure a first screen must show; None: no figure
    reads: str | None = None  # the page whose whole settings it computes on (the hand-over)

    @property
    def title_key(self) -> str:
        return f"nav_{self.path}"

    @property
    def file(self) -> str:
        return f"ui/{self.path}/page.py"

    @property
    def module(self) -> str:
        return f"ui.{self.path}.body"


PAGES = (  # the default page first; the top bar shows the first ones, a lesson's pages among them
    Page("lab", ":material/biotech:", "weights_heatmap"),
    Page("softmax", ":material/bar_chart:", "softmax_bars"),
    Page("scaling", ":material/straighten:", "dot_histogram"),
    Page("steps", ":material/footprint:", "step_q", reads="lab"),
    Page("train", ":material/fitness_center:", "loss_curves"),
    Page("quiz", ":material/quiz:", None),
    Page("classroom", ":material/groups:", None),
    Page("kernel", ":material/bolt:", "online_softmax_steps", reads="lab"),
    Page("variants", ":material/genetics:", "gqa_heads", reads="lab"),
    Page("model", ":material/psychology:", "model_heads"),
    Page("lesson", ":material/school:", None),
)
PATHS = tuple(page.path for page in PAGES)


def page_named(path: str) -> Page:
    """The page at ``path`` (a settings class names its page this way)."""
    return next(page for page in PAGES if page.path == path)


def declared_settings(path: str) -> list[type[Settings]]:
    """The settings classes a page declares in ``ui/<path>/settings.py``: its own first, then
    any second set (a ``PREFIX``ed one, the lab's B)."""
    try:
        module = importlib.import_module(f"ui.{path}.settings")
    except ModuleNotFoundError:
        return []
    found = [
        value
        for value in vars(module).values()
        if inspect.isclass(value)
        and issubclass(value, Settings)
        and value.__dict__.get("PAGE") == path
    ]
    return sorted(found, key=lambda settings: settings.PREFIX != "")


def own_settings(path: str) -> type[Settings] | None:
    """The settings a page declares in ``ui/<path>/settings.py`` (None for a page without)."""
    found = declared_settings(path)
    return found[0] if found else None


def page_settings(page: Page) -> tuple[type[Settings], ...]:
    """Every settings class a page's link carries: its own, then the page's it reads."""
    paths = (page.path,) + ((page.reads,) if page.reads else ())
    found = (own_settings(path) for path in paths)
    return tuple(settings for settings in found if settings is not None)


def url_keys(page: Page) -> tuple[str, ...]:
    """Every URL key a page reads: its settings' (a second set's too), those of the page it
    reads, lang and present."""
    second = declared_settings(page.path)[1:]
    keys = [
        name for settings in page_settings(page) + tuple(second) for name in settings.url_names()
    ]
    return tuple(dict.fromkeys([*keys, *AppSettings.specs()]))


FAVICON = str(Path(__file__).with_name("favicon.png"))  # an image: no icon font fetched
