"""One path for a setting: a page's typed settings carry a value from its widgets to its core
call and its link, widget keys are scoped to the page, and what crosses pages is declared once
and means the same on both sides."""

import ast

from conftest import ROOT, figure, navigate, open_app

from ui.kit.pages import PAGES, page_settings, url_keys
from ui.lab.compute import compute_lab
from ui.lab.settings import LabParams
from viz_core import run_lab, tokenize
from viz_core.settings import CARRIED, Settings


def page_modules():
    """Every Python file of a page folder (ui/<page>/), and the Streamlit script."""
    files = [path for page in PAGES for path in sorted((ROOT / "ui" / page.path).glob("*.py"))]
    return [*files, ROOT / "dashboard.py"]


def test_no_page_module_touches_session_state():
    """Pages read and write their settings through the kit's typed API (``state.current``,
    ``state.put``, ``state.Slot``): no ``st.session_state`` in a page folder or the entry."""
    touching = []
    for path in page_modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr == "session_state":
                touching.append(f"{path.relative_to(ROOT)}:{node.lineno}")
            if isinstance(node, ast.alias) and node.name == "session_state":
                touching.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert touching == []


def test_every_settings_widget_key_is_scoped_to_its_page():
    """A page's widget keys are ``<page>_<field>``, while its link keeps the short name: two
    pages with a field of one name (``section``, ``d``) never share a widget."""
    keys = {}
    for page in PAGES:
        for settings in page_settings(page)[:1]:
            assert page.path == settings.PAGE
            for name in settings.specs():
                key = settings.widget_key(name)
                assert key == f"{page.path}_{name}"
                assert keys.setdefault(key, page.path) == page.path
    assert LabParams(d=96).to_query()["d"] == "96"


def test_compute_lab_takes_the_labs_typed_settings():
    """compute_lab(params) is run_lab at those settings; the row and stage are only views, so
    every row and stage of one sentence share one result."""
    params = LabParams(text="我爱北京", d=96, scale=False, mask="causal", seed=3, row=4)
    result = compute_lab(params)
    expected = run_lab("我爱北京", d=96, scale=False, mask="causal", seed=3)
    assert (result.steps.weights == expected.steps.weights).all()
    other_view = LabParams(text="我爱北京", d=96, scale=False, mask="causal", seed=3, stage="all")
    assert compute_lab(other_view) is result


def test_a_section_of_one_page_is_not_another_pages():
    """Bug: /softmax, then /kernel from the top bar, said "The value of `section` from another
    page does not fit this page". Each page's section is its own now."""
    at = open_app("softmax", lang="en", section="stability")
    navigate(at, "kernel")
    assert not at.exception
    assert at.query_params["section"] == "softmax"
    assert not [info.value for info in at.info if "section" in info.value]
    navigate(at, "softmax")
    assert at.query_params["section"] == "stability"


def test_the_labs_row_means_the_same_character_in_the_translator():
    """Bug: /variants?variant=cross took the lab's row 2 (喜, with [CLS] at 0) and outlined the
    translator's row 2, 欢. The outline is on the row that produces 喜."""
    at = open_app("variants", lang="en", variant="cross", row="2", text="我喜欢人工智能")
    spec = figure(at, "cross_heatmap")
    (outline,) = [shape for shape in spec["layout"]["shapes"] if shape["line"]["width"] >= 2]
    rows = [int(y) for y in spec["layout"]["yaxis"]["tickvals"]]
    labels = dict(zip(rows, spec["layout"]["yaxis"]["ticktext"], strict=True))
    assert tokenize("我喜欢人工智能")[2] == "喜"
    assert labels[round(outline["y0"] + 0.5)] == "喜"


def test_a_lab_row_with_no_character_outlines_nothing_in_the_translator():
    """[CLS] (row 0) has no row among the characters the translator produces: none outlined."""
    at = open_app("variants", lang="en", variant="cross", row="0")
    shapes = figure(at, "cross_heatmap")["layout"].get("shapes", [])
    assert [shape for shape in shapes if shape["line"]["width"] >= 2] == []


def test_the_sentence_and_d_follow_the_user_and_nothing_else():
    """CARRIED is the sentence and d: a new sentence and d on the lab reach /scaling and /model,
    but the lab's seed does not reach /train's seed, nor its row /model's blank."""
    assert CARRIED == ("text", "d")
    at = open_app(lang="en")
    at.text_input(key="lab_text").set_value("我爱我家").run()
    at.number_input(key="lab_d").set_value(96).run()
    at.number_input(key="lab_seed").set_value(7).run()
    at.switch_page("ui/scaling/page.py").run()
    assert at.number_input(key="scaling_d").value == 96
    at.switch_page("ui/model/page.py").run()
    assert at.text_input(key="model_text").value == "我爱我家"
    assert at.number_input(key="model_mask_at").value == 2
    at.text_input(key="model_text").set_value("你好吗").run()
    at.switch_page("ui/train/page.py").run()
    assert at.number_input(key="train_seed").value == 0 and at.query_params["d"] == "96"
    at.switch_page("ui/lab/page.py").run()
    assert at.text_input(key="lab_text").value == "你好吗"
    assert at.number_input(key="lab_seed").value == 7


def test_the_model_page_hands_a_head_to_the_lab_in_one_typed_call():
    """A click on a head (the kept (layer, head)) opens the lab on that trained head, on the
    model page's sentence, with the lab's other settings at their defaults."""
    at = open_app("model", lang="en", text="我爱我家")
    at.session_state["_model_open_in_lab"] = (1, 2)
    at.run()
    assert not at.exception
    query = at.query_params
    assert (query["source"], query["layer"], query["head"]) == ("trained", "1", "2")
    assert query["text"] == "我爱我家" and query["stage"] == "weights"
    assert "weights_heatmap" in [c.proto.id.rsplit("-", 1)[-1] for c in at.get("plotly_chart")]


def test_pages_that_read_the_labs_settings_are_declared_once():
    """/steps, /kernel and /variants compute on the lab's settings: PAGES says so, and their
    links carry the lab's keys; no other page's link does."""
    readers = {page.path for page in PAGES if page.reads == "lab"}
    assert readers == {"steps", "kernel", "variants"}
    for page in PAGES:
        keys = url_keys(page)
        assert ("temperature" in keys) == (page.path in readers | {"lab"}), page.path
    at = open_app("steps", lang="en", d="96", seed="4")
    assert at.query_params["d"] == "96" and at.query_params["seed"] == "4"


def test_settings_classes_are_frozen_dataclasses_of_declared_fields():
    """Every page's settings: frozen, each field declared (its URL name, bounds or choices)."""
    for page in PAGES:
        for settings in page_settings(page):
            assert issubclass(settings, Settings)
            values, notes = settings.parse({})
            assert notes == [] and settings.parse(values.to_query())[0] == values
