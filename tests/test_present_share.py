"""Presenter mode, the link to a view, the zip of the whole state, and alt text on every chart."""

import io
import json
import zipfile
from urllib.parse import parse_qs, urlsplit

import numpy as np
import pandas as pd
import pytest
from conftest import figure, open_app
from numpy.testing import assert_allclose

from ui.kit.pages import PAGES, page_settings, url_keys
from ui.lab.body import every_matrix
from ui.lab.export import matrix_csv, state_zip
from viz_core import run_lab


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("query", [{}, {"heads": "4", "source": "embedding"}])
def test_every_lab_chart_has_alt_text(lang, query):
    """Each Plotly chart carries alternative text in the page's language."""
    at = open_app(lang=lang, **query)
    charts = at.get("plotly_chart")
    assert charts
    for chart in charts:
        assert len(chart.proto.alt) > 10, chart.proto.id
        if lang == "zh":
            assert any("\u4e00" <= ch <= "\u9fff" for ch in chart.proto.alt)


@pytest.mark.parametrize("page", ["softmax", "scaling", "steps"])
def test_every_lesson_chart_has_alt_text(page):
    """Lesson charts too."""
    for chart in open_app(page, lang="en").get("plotly_chart"):
        assert len(chart.proto.alt) > 10, chart.proto.id


def test_share_link_reproduces_the_view():
    """The link box holds the whole query: opening it gives the same settings and numbers."""
    at = open_app(d="96", seed="11", mask="causal", row="4", lang="en")
    (code,) = [c.value for c in at.code if "?" in c.value]
    query = {key: values[-1] for key, values in parse_qs(urlsplit(code).query).items()}
    assert query["d"] == "96" and query["seed"] == "11" and query["row"] == "4"
    again = open_app(**query)
    assert figure(again, "weights_heatmap") == figure(at, "weights_heatmap")


@pytest.mark.parametrize("page", PAGES, ids=[page.path for page in PAGES])
def test_every_page_offers_its_link(page):
    """Every page shows a link with its own parameters and the language: each of the page's
    URL keys (its own, and the lab's where it reads them), with the value the page shows."""
    at = open_app(page.path, lang="en")
    (code,) = [c.value for c in at.code if "lang=en" in c.value]
    query = {key: values[-1] for key, values in parse_qs(urlsplit(code).query).items()}
    shown = {k for settings in page_settings(page) for k in settings.parse(query)[0].to_query()}
    keys = shown | {"lang"}  # present only when it is on; a secret or an empty room never
    assert set(query) == keys and keys <= set(url_keys(page))
    assert all(query[key] == at.query_params[key] for key in keys)


def test_presenter_mode_enlarges_and_is_in_the_link():
    """?present=true: larger numbers in the cells, a larger root font, a heatmap at least as
    large as a laptop's (that it fits a 720-px screen is measured in Chromium:
    tests/test_lesson_screens.py), and present=true kept in the URL."""
    normal = open_app()
    big = open_app(present="true")
    assert big.toggle(key="present").value is True
    assert big.query_params["present"] == "true"
    assert "present" not in normal.query_params
    font = [figure(at, "weights_heatmap")["data"][0]["textfont"]["size"] for at in (normal, big)]
    assert 12 <= font[0] < font[1]
    sizes = [figure(at, "weights_heatmap")["layout"] for at in (normal, big)]
    assert sizes[1]["height"] >= sizes[0]["height"] and sizes[1]["width"] >= sizes[0]["width"]
    assert any("font-size:18px" in element.value for element in big.get("html"))


def test_presenter_mode_is_shared_by_every_page():
    """Turning presenter mode on in the lab keeps it on the lessons."""
    at = open_app()
    at.toggle(key="present").set_value(True).run()
    at.switch_page("ui/softmax/page.py").run()
    assert at.query_params["present"] == "true"


def test_matrix_csv_is_labelled_by_token_and_exact():
    """Rows and columns are '0:[CLS]', '1:我', …; values round-trip to the last bit."""
    result = run_lab("我爱我家")
    text = matrix_csv(result.steps.weights, result.tokens)
    frame = pd.read_csv(io.StringIO(text), index_col=0)
    assert list(frame.index) == ["0:[CLS]", "1:我", "2:爱", "3:我", "4:家", "5:[SEP]"]
    assert list(frame.columns) == list(frame.index)
    np.testing.assert_array_equal(frame.to_numpy(), result.steps.weights)


def test_zip_holds_the_settings_and_every_matrix():
    """settings.json (the link's query and the tokens) and a CSV per matrix, heads and X/W too."""
    result = run_lab("我爱我家", d=32, heads=4, source="embedding")
    settings = {"text": "我爱我家", "d": "32", "heads": "4", "lang": "zh"}
    archive = zipfile.ZipFile(io.BytesIO(state_zip(settings, result.tokens, every_matrix(result))))
    names = set(archive.namelist())
    assert {"settings.json", "weights.csv", "output_all.csv", "w_q.csv", "x.csv"} <= names
    assert {f"head_{h}_weights.csv" for h in range(4)} <= names
    info = json.loads(archive.read("settings.json"))
    assert info["settings"] == settings and info["tokens"][1] == "我"
    frame = pd.read_csv(io.BytesIO(archive.read("output_all.csv")), index_col=0)
    assert frame.shape == (6, 32)
    assert_allclose(frame.to_numpy(), result.output, rtol=1e-15)


def test_lab_offers_both_downloads():
    """A CSV of the chosen matrix and the zip of everything, behind one switch."""
    at = open_app()
    assert not at.get("download_button")  # closed: no widgets to send on every rerun
    at.toggle(key="lab_show_downloads").set_value(True).run()
    keys = {button.proto.id.rsplit("-", 1)[-1] for button in at.get("download_button")}
    assert {"lab_download_csv", "lab_download_zip"} <= keys


def test_a_bad_presenter_value_is_noted():
    """?present=perhaps: presenter mode stays off, and the page says the value was replaced."""
    at = open_app(present="perhaps", lang="en")
    assert at.toggle(key="present").value is False
    assert any("`present`" in info.value for info in at.info)


def test_the_switches_are_handed_their_values_on_every_run():
    """The language radio and the presenter toggle carry their values to the browser on every
    run, not only when they change: a browser that dropped one run's elements (the next run had
    started) drew them at their defaults, 中文 and off, on an English projector page."""
    at = open_app("softmax", lang="en", present="true")
    at.run()  # a second run that changes nothing
    radio = at.radio(key="lang")
    toggle = at.toggle(key="present")
    assert radio.proto.set_value and radio.proto.raw_value == "EN"  # the label it shows
    assert toggle.proto.set_value and toggle.proto.value is True
