"""Reveals that teach (issue 46): each class question's reveal says why the truth is what it is
in one sentence of computed numbers, shows the contrast that makes the point (√d beside the
measured σ and the scaled histogram beside the raw one; a lab row scaled beside unscaled), and
links to the app's view that shows it. On the projector with figures, on a phone as plain HTML,
in zh and en. A lab row is named by its token, and a row number says that row 0 is the first
token. Every expected number here is computed again with numpy, never copied."""

import html
import json
import math
import re
import sqlite3
from urllib.parse import parse_qsl, urlsplit

import numpy as np
import pytest
from conftest import chart_keys, decode, figure, open_app
from starlette.applications import Starlette
from starlette.testclient import TestClient

import ui.phone
from classroom import QUESTIONS, Store, Truth
from viz_core import align, load_model, make_qkv, run_model, sample_dot_products, tokenize
from viz_core.lab_settings import LabParams
from viz_core.model import SPECIAL_IDS

XI_ROW = [15.3, 22.7, 18.2, 2.1, 1.8, 3.2, 2.9, 5.6, 4.1]
XI_TOKENS = ["我", "喜", "欢", "人", "工", "智", "能", "[CLS]", "[SEP]"]


def plain_softmax(scores):
    """e^x / Σ e^x after subtracting the largest (-inf where masked gives 0)."""
    scores = np.asarray(scores, dtype=float)
    exps = np.exp(scores - np.max(scores))
    return exps / exps.sum()


def lab_logits(settings):
    """The selected row's scores entering softmax, ÷√d and not, by a plain loop over keys
    (one random head, no mask: the questions' default views)."""
    tokens = tokenize(settings.get("text", "我喜欢人工智能"))
    d, row = settings["d"], settings["row"]
    q, k, _ = make_qkv(tokens, d, settings.get("seed", 0))
    raw = np.array([sum(q[row, i] * k[j, i] for i in range(d)) for j in range(len(tokens))])
    return tokens, raw / math.sqrt(d), raw


def two_best(values):
    """The positions of the largest and the second largest value."""
    order = np.argsort(-np.asarray(values), kind="stable")
    return int(order[0]), int(order[1])


def lab_numbers(settings):
    """What a lab row's sentence quotes: the top key's score and its lead over the next, the
    weight it takes, and the same with ÷√d switched."""
    tokens, scaled, raw = lab_logits(settings)
    shown, other = (scaled, raw) if settings["scale"] else (raw, scaled)
    best, runner = two_best(shown)
    weights, contrast = plain_softmax(shown), plain_softmax(other)
    return [tokens[settings["row"]], tokens[best], tokens[runner], f"{shown[best]:.2f}",
            f"{shown[best] - shown[runner]:.2f}", f"{other[best] - other[runner]:.2f}",
            f"{weights[best]:.3f}", f"{contrast[best]:.3f}"]  # fmt: skip


def expected_numbers(question_id):
    """Every number (and token) the reveal's sentence of ``question_id`` at its default settings
    must quote, computed here."""
    settings = QUESTIONS[question_id].settings()
    if question_id.startswith("lab_"):
        return lab_numbers(settings)
    if question_id == "score_std":
        d = settings["d"]
        dots = sample_dot_products(d, settings["samples"], "normal", settings["seed"])
        return [f"{d:,}", f"{settings['samples']:,}", f"{math.sqrt(d):.2f}",
                f"{np.std(dots):.2f}", f"{np.std(dots / math.sqrt(d)):.2f}"]  # fmt: skip
    if question_id in ("softmax_top", "article_softmax_ops"):
        exps = np.exp(np.array([2.0, 1.0, 0.1]))
        return [f"{exps[0]:.4g}", f"{exps.sum():.4g}", f"{exps[0] / exps.sum():.3f}"]
    if question_id == "model_fill":
        run = run_model("我喜[MASK]人工智能")
        probs = plain_softmax(run.logits[run.tokens.index("[MASK]"), SPECIAL_IDS:])
        best, runner = two_best(probs)
        vocab = load_model().vocab
        return [vocab[SPECIAL_IDS + best], f"{probs[best]:.3f}", vocab[SPECIAL_IDS + runner],
                f"{probs[runner]:.3f}"]  # fmt: skip
    if question_id == "translator_word":
        run = align("I like artificial intelligence.", "我喜欢人工智能")
        last = np.mean(run.cross[-1], axis=0)[1]
        first = np.mean(run.cross[0], axis=0)[1]
        best, runner = two_best(last)
        return [run.source_tokens[best], f"{last[best]:.3f}", run.source_tokens[runner],
                f"{last[runner]:.3f}", f"{first[best]:.3f}"]  # fmt: skip
    if question_id == "article_xi_share":
        scaled, raw = plain_softmax(np.array(XI_ROW) / 8), plain_softmax(XI_ROW)
        best, runner = two_best(XI_ROW)
        return [XI_TOKENS[best], f"{XI_ROW[best] / 8:.2f}", XI_TOKENS[runner],
                f"{XI_ROW[runner] / 8:.2f}", f"{scaled[best]:.3f}", f"{raw[best]:.3f}"]  # fmt: skip
    chart = QUESTIONS[question_id].truth().chart  # article_why_scale: its own figure's numbers
    return [f"{chart['raw'][-1]:.3f}", f"{chart['scaled'][-1]:.3f}"]


# --- a class on the phone page's routes ---------------------------------------------------------


@pytest.fixture
def store(tmp_path):
    made = Store(f"sqlite:///{tmp_path / 'class.db'}", pace=0.0)
    yield made
    made.dispose()


@pytest.fixture
def client(store):
    app = Starlette(routes=ui.phone.routes(lambda: store), middleware=ui.phone.MIDDLEWARE)
    with TestClient(app, follow_redirects=False) as made:
        yield made


def answer_of(truth):
    """A right answer as a student types it: the number, the choice, or the character."""
    return str(truth.value) if truth.value is not None else truth.answer


def revealed_phone(store, client, question_id, lang, reveal=True):
    """A student who answered ``question_id``, revealed; the phone's page (its text)."""
    room = store.create_room()
    student = store.join(room.code, "Ada", lang)
    store.ask(room.code, room.teacher_key, question_id)
    truth = QUESTIONS[question_id].truth()
    store.answer(room.code, student.token, answer_of(truth))
    if reveal:
        store.reveal(room.code, room.teacher_key)
    client.cookies.set(f"phone_{room.code}", student.token)
    shown = client.get(f"/join/{room.code}", params={"lang": lang})
    assert shown.status_code == 200
    return room, student, shown.text


def why_paragraph(page):
    """The phone page's why sentence, as a reader sees it ("" when there is none)."""
    found = re.search(r'<p class="why">(.*?)</p>', page, re.S)
    return html.unescape(found.group(1)) if found else ""


def view_links(page):
    """The hrefs of the phone page's "Open this view" links."""
    return [html.unescape(href) for href in re.findall(r'<a class="view" href="([^"]*)"', page)]


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("question_id", QUESTIONS)
def test_a_phones_reveal_says_why_with_the_numbers_computed(store, client, question_id, lang):
    """Revealed, the phone says in one sentence why, in its language, quoting numbers computed
    from the question's own settings; the class's bars and the truth stay."""
    _room, _student, page = revealed_phone(store, client, question_id, lang)
    why = why_paragraph(page)
    assert why, "no why sentence on the phone"
    for number in expected_numbers(question_id):
        assert number in why, (number, why)
    if lang == "zh":
        assert re.search(r"[\u4e00-\u9fff]", why)
    else:
        assert not re.search(r"[\u3000-\u303f\uff00-\uffef]", why)  # no Chinese punctuation
    assert 'class="bar right"' in page


@pytest.mark.parametrize("question_id", QUESTIONS)
def test_no_why_link_or_contrast_before_the_reveal(store, client, question_id):
    """Before the reveal the phone shows no sentence and no link (they give the answer away),
    and the API's state carries neither."""
    room, _student, page = revealed_phone(store, client, question_id, "en", reveal=False)
    assert why_paragraph(page) == "" and view_links(page) == []
    store.show_answers(room.code, room.teacher_key)
    found = client.get(f"/api/rooms/{room.code}/state").json()
    assert found.get("why") is None and found.get("link") is None


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("question_id", QUESTIONS)
def test_a_phones_reveal_links_to_the_view_without_the_class(store, client, question_id, lang):
    """The phone's "Open this view" link opens the app (a path of the app, not /join) with the
    question's settings, in the phone's language; no room code, token or teacher key."""
    room, student, page = revealed_phone(store, client, question_id, lang)
    (link,) = view_links(page)
    parts = urlsplit(link)
    assert not parts.scheme and not parts.netloc and not parts.path.startswith(("/join", "/api"))
    query = dict(parse_qsl(parts.query))
    assert query["lang"] == lang and not {"room", "key", "me"} & set(query)
    for secret in (room.code, student.token, room.teacher_key):
        assert secret not in link
    found = client.get(f"/api/rooms/{room.code}/state").json()
    assert found["link"][lang] == link
    assert set(found["why"]) == {"zh", "en"} and found["why"][lang] == why_paragraph(page)


# --- the links ----------------------------------------------------------------------------------


def page_params(path):
    """The settings classes whose URL keys a link to the app page at ``path`` carries."""
    from ui.model.settings import ModelParams
    from ui.scaling.settings import ScalingParams
    from ui.softmax.settings import SoftmaxParams
    from ui.variants.settings import VariantsParams

    return {"/": (LabParams,), "/scaling": (ScalingParams,), "/softmax": (SoftmaxParams,),
            "/model": (ModelParams,), "/variants": (LabParams, VariantsParams)}[path]  # fmt: skip


def parsed(link):
    """The link's path, and each settings class read from its query (no value replaced)."""
    parts = urlsplit(link)
    query = dict(parse_qsl(parts.query))
    classes = page_params(parts.path)
    read = []
    for params in classes:
        values, notes = params.parse(query)
        assert notes == [], notes
        read.append(values)
    canonical = {}
    for values in read:
        canonical |= values.to_query()
    assert list(query) == [*canonical, "lang"], "not the page's own link (order, keys)"
    assert {k: v for k, v in query.items() if k != "lang"} == canonical
    return parts.path, read


LINKED = {  # question → (page, what the linked view must hold)
    "lab_top_key": ("/", {"d": 64, "scale": True, "row": 2, "text": "我喜欢人工智能"}),
    "lab_top_weight": ("/", {"d": 1536, "scale": False, "row": 2}),
    "score_std": ("/scaling", {"d": 1536, "section": "histogram"}),
    "softmax_top": ("/softmax", {"values": "2, 1, 0.1", "divisor": 1.0}),
    "model_fill": ("/model", {"text": "我喜欢人工智能", "mask_at": 2}),
    "translator_word": ("/variants", {"variant": "cross", "text_b": "I like artificial "
                                      "intelligence.", "cross_layer": 1, "cross_head": "mean"}),
    "article_why_scale": ("/scaling", {"section": "saturation"}),
    "article_softmax_ops": ("/softmax", {"values": "2, 1, 0.1"}),
    "article_xi_share": ("/softmax", {"values": ", ".join(f"{v:g}" for v in XI_ROW),
                                      "divisor": 8.0}),
}  # fmt: skip


@pytest.mark.parametrize("question_id", QUESTIONS)
def test_the_link_is_the_pages_own_link_to_the_questions_view(question_id):
    """The link is what the page itself writes for that view (its keys, in its order, each
    value as its declaration reads it back), built from the question's settings (and, for the
    model's blank, the revealed guess)."""
    from ui.classroom.compute import view_link

    settings = QUESTIONS[question_id].settings()
    answer = QUESTIONS[question_id].truth().answer
    path, read = parsed(view_link(question_id, settings, "en", answer))
    want_path, want = LINKED[question_id]
    assert path == want_path
    values = {name: getattr(params, name) for params in read for name in params.specs()}
    assert {name: values[name] for name in want} == want


def test_a_lab_views_link_carries_every_setting_of_the_view_asked():
    """A view the lab handed over (no [CLS], d = 96, row 3, causal, seed 5): the link opens
    the lab at exactly those settings; a sentence with & and # is encoded."""
    from ui.classroom.compute import view_link

    given = {"text": "我爱 A&B #1", "special": False, "d": 96, "row": 3, "mask": "causal",
             "seed": 5}  # fmt: skip
    settings = QUESTIONS["lab_top_key"].settings(given)
    link = view_link("lab_top_key", settings, "zh")
    assert "#" not in link and "&B" not in link
    _path, (lab,) = parsed(link)
    assert {name: getattr(lab, name) for name in settings} == settings


def test_the_translators_link_opens_the_lab_row_of_the_same_character():
    """The translator's row 1 writes 喜; the lab's rows start with [CLS]: the link's lab row is
    喜's own row there."""
    from ui.classroom.compute import view_link

    settings = QUESTIONS["translator_word"].settings({"row": 3})
    _path, (lab, _variants) = parsed(view_link("translator_word", settings, "en"))
    assert tokenize(lab.text)[lab.row] == align(settings["english"], lab.text).target_tokens[3]


# --- the contrasts ------------------------------------------------------------------------------


def test_score_stds_reveal_has_the_theory_and_the_scaled_histogram():
    """σ's figure carries √d beside the measured σ, and its contrast is the histogram of the
    same samples ÷√d (σ about 1, theory 1)."""
    truth = QUESTIONS["score_std"].truth({"d": 256})
    dots = sample_dot_products(256, 4000, "normal", 0)
    assert truth.chart["theory"] == pytest.approx(16.0)
    contrast = truth.chart["contrast"]
    counts, edges = np.histogram(dots / 16.0, bins=30)
    assert contrast["counts"] == counts.tolist()
    np.testing.assert_allclose(contrast["edges"], edges, atol=1e-4)
    assert contrast["mark"] == pytest.approx(np.std(dots / 16.0), abs=1e-4)
    assert contrast["theory"] == 1.0


@pytest.mark.parametrize("question_id", ["lab_top_key", "lab_top_weight"])
def test_a_lab_rows_reveal_has_the_row_scaled_and_unscaled(question_id):
    """The row as asked, and beside it the same row with ÷√d switched, by a plain loop."""
    settings = QUESTIONS[question_id].settings()
    _tokens, scaled, raw = lab_logits(settings)
    truth = QUESTIONS[question_id].truth()
    shown, other = (scaled, raw) if settings["scale"] else (raw, scaled)
    np.testing.assert_allclose(truth.chart["values"], plain_softmax(shown), atol=1e-6)
    contrast = truth.chart["contrast"]
    np.testing.assert_allclose(contrast["values"], plain_softmax(other), atol=1e-6)
    assert contrast["labels"] == truth.chart["labels"]
    assert {truth.chart["series"], contrast["series"]} == {"scaled", "raw"}


# --- the row a lab question names ---------------------------------------------------------------


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize(
    "given",
    [{}, {"text": "我爱我家", "special": False, "d": 8, "row": 2}, {"row": 0}],
    ids=["xi", "no-cls", "cls-row"],
)
def test_a_lab_rows_prompt_names_its_token_and_which_token_is_row_0(lang, given):
    """A row question names the row's token; where it also gives the row's number it says
    which token is row 0 ([CLS], or the first character without it)."""
    row_zero = {"zh": "第 0 行是“{}”", "en": "row 0 is “{}”"}[lang]
    numbered = {"zh": "第 {} 行", "en": "row {}"}[lang]
    for question_id in ("lab_top_key", "lab_top_weight"):
        question = QUESTIONS[question_id]
        settings = question.settings(given)
        tokens = tokenize(settings["text"], special_tokens=settings["special"])
        prompt = question.text(lang, question.truth(given))
        assert f"“{tokens[settings['row']]}”" in prompt
        if numbered.format(settings["row"]) in prompt:
            assert row_zero.format(tokens[0]) in prompt
    assert numbered.format(settings["row"]) in QUESTIONS["lab_top_key"].text(
        lang, QUESTIONS["lab_top_key"].truth(given)
    )


def test_an_old_truth_without_the_new_fields_still_loads():
    """A truth stored before reveals taught (no why, no contrast, no series) loads as it was."""
    truth = QUESTIONS["softmax_top"].truth()
    stored = truth.to_json()
    old = {**stored, "chart": {k: v for k, v in stored["chart"].items()
                               if k in ("kind", "labels", "values", "highlight")}}  # fmt: skip
    loaded = Truth.from_json(json.loads(json.dumps(old)))
    assert loaded.answer == truth.answer and loaded.chart == old["chart"]
    assert Truth.from_json(json.loads(json.dumps(stored))) == truth


def test_an_old_stored_truth_and_prompt_still_reveal(store, client, tmp_path):
    """A question asked before this change (its stored truth without why or contrast, a lab
    prompt's args without the row-0 token) reveals on the phone without a sentence and says
    the prompt."""
    room = store.create_room()
    student = store.join(room.code, "Ada", "en")
    store.ask(room.code, room.teacher_key, "lab_top_key")
    with sqlite3.connect(tmp_path / "class.db") as db:
        (raw,) = db.execute("select truth from asked").fetchone()
        truth = json.loads(raw)
        truth["chart"] = {k: truth["chart"][k] for k in ("kind", "labels", "values", "highlight")}
        truth["args"] = {k: truth["args"][k] for k in ("token", "row", "d", "setup_zh",
                                                       "setup_en")}  # fmt: skip
        db.execute("update asked set truth = ?", (json.dumps(truth),))
    store.answer(room.code, student.token, "我")
    store.reveal(room.code, room.teacher_key)
    client.cookies.set(f"phone_{room.code}", student.token)
    shown = client.get(f"/join/{room.code}", params={"lang": "en"})
    assert shown.status_code == 200 and "“喜”" in html.unescape(shown.text)
    assert why_paragraph(shown.text) == ""
    assert len(view_links(shown.text)) == 1  # the link needs only the settings


# --- the projector ------------------------------------------------------------------------------


def projector_reveal(question_id, lang):
    """A teacher's projector (AppTest) that asked ``question_id``, one answer, revealed."""
    at = open_app("classroom", lang=lang)
    at.button(key="classroom_start").click().run()
    room = at.query_params["room"]
    at.selectbox(key="classroom_question").set_value(question_id)
    at.button(key="classroom_ask").click().run()
    store = Store(f"{__import__('os').environ['CLASSROOM_DB_URL']}", pace=0.0)
    student = store.join(room, None, lang)
    truth = QUESTIONS[question_id].truth()
    store.answer(room, student.token, answer_of(truth))
    store.dispose()
    at.button(key="classroom_reveal").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.fixture
def class_db(tmp_path, monkeypatch):
    monkeypatch.setenv("CLASSROOM_DB_URL", f"sqlite:///{tmp_path / 'class.db'}")


def html_texts(at):
    return [html.unescape(element.value) for element in at.get("html")]


PROJECTED = [
    ("score_std", "class_contrast"),
    ("lab_top_weight", "class_contrast"),
    ("article_xi_share", "class_contrast"),
    ("model_fill", None),
]


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize(("question_id", "contrast"), PROJECTED)
def test_the_projectors_reveal_shows_why_the_contrast_and_the_link(
    class_db, question_id, contrast, lang
):
    """Revealed on the projector: the sentence (as text, never Markdown), the truth's figure
    and beside it the contrast's, and an "Open this view" button to the view."""
    from ui.classroom.compute import view_link

    at = projector_reveal(question_id, lang)
    numbers = expected_numbers(question_id)
    whys = [text for text in html_texts(at) if all(number in text for number in numbers)]
    assert len(whys) == 1, html_texts(at)
    keys = chart_keys(at)
    assert keys[:2] == ["class_answers", "class_truth"]
    assert (contrast in keys) if contrast else keys == ["class_answers", "class_truth"]
    (button,) = [b for b in at.get("link_button")]
    settings = QUESTIONS[question_id].settings()
    answer = QUESTIONS[question_id].truth().answer  # the model's guess fills its blank
    assert button.proto.url == view_link(question_id, settings, lang, answer)
    if question_id == "score_std":
        drawn = figure(at, "class_contrast")["data"][0]
        assert sum(decode(drawn["y"])) == settings["samples"]
        theory = f"{math.sqrt(settings['d']):.2f}"
        notes = [a["text"] for a in figure(at, "class_truth")["layout"]["annotations"]]
        assert any(theory in note for note in notes), notes


def test_a_typed_sentence_in_the_why_is_text_never_markup(store, client):
    """The teacher's sentence reaches the why (the row's token and the top key): the phone
    escapes it, and the projector's sentence goes through safe text."""
    room = store.create_room()
    student = store.join(room.code, "Ada", "en")
    given = {"text": "<b>*[x](y)", "special": False, "row": 0}
    store.ask(room.code, room.teacher_key, "lab_top_key", given)
    store.reveal(room.code, room.teacher_key)
    client.cookies.set(f"phone_{room.code}", student.token)
    page = client.get(f"/join/{room.code}", params={"lang": "en"}).text
    why = re.search(r'<p class="why">(.*?)</p>', page, re.S).group(1)
    assert "&lt;" in why and "<b>" not in why
    assert "“&lt;”" in why  # the row's token, as typed
