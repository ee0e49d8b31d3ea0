"""My lesson: Add to my lesson (in any page's link popover) collects the view on screen;
/lesson names and orders the steps, presents them, gives the one link that carries them
(nothing stored on the server) and the TOML;
a link's steps are checked as a lesson file's views are, and a bad one is a note, never a
traceback."""

import base64
import json
import tomllib
import zlib
from urllib.parse import parse_qs, urlsplit

import pytest
import test_classroom_page
from conftest import navigate, open_app
from test_lab_projector import blocks
from test_lesson_bar import bar_text

from ui.kit.lessons import MINE, custom_lesson, parse_view, steps_token
from ui.kit.pages import page_named
from ui.kit.text import t
from ui.scaling.settings import ScalingParams

downloads = test_classroom_page.downloads  # a fixture: each download's deferred callable


def unpack(token):
    """A link's steps read back by hand: base64url, inflate, JSON."""
    return json.loads(zlib.decompress(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))))


def collect(at, page, **query):
    """Open ``page`` with ``query`` in the same session and press Add to my lesson."""
    for key in list(at.query_params):
        del at.query_params[key]
    for key, value in query.items():
        at.query_params[key] = value
    at.switch_page(f"ui/{page}/page.py").run()
    at.button(key="lesson_add").click().run()
    assert not at.exception
    return at


def mine_link(at):
    """The link /lesson shows for my lesson, as its query."""
    (code,) = [c.value for c in at.code if "lesson=custom" in c.value]
    return {key: values[0] for key, values in parse_qs(urlsplit(code).query).items()}


def test_collected_views_are_listed_named_ordered_and_carried_by_one_link():
    """Added on the lab at d = 1,536 unscaled, then on /scaling's variance: /lesson lists them with
    the pages' titles; renamed, moved and one removed, the link carries exactly what is listed."""
    at = open_app("lab", lang="en", d="1536", scale="false")
    at.button(key="lesson_add").click().run()
    collect(at, "scaling", section="variance", lang="en")
    collect(at, "softmax", section="gradient", lang="en")
    navigate(at, "lesson")
    names = [box.value for box in at.text_input if box.key.startswith("mine_title_")]
    titles = [t(page_named(page).title_key, "en") for page in ("lab", "scaling", "softmax")]
    assert names == titles
    token = mine_link(at)["steps"]
    assert [view for view, _ in unpack(token)] == [
        "/lab?d=1536&scale=false", "/scaling?section=variance", "/softmax?section=gradient"
    ]  # fmt: skip
    at.text_input(key="mine_title_1").input("Unscaled, d = 1536").run()
    at.button(key="mine_down_1").click().run()
    at.button(key="mine_drop_3").click().run()
    steps = unpack(mine_link(at)["steps"])
    assert steps == [["/scaling?section=variance", titles[1]],
                     ["/lab?d=1536&scale=false", "Unscaled, d = 1536"]]  # fmt: skip


def test_my_lesson_s_link_opens_its_steps_for_anyone():
    """A fresh session opened from the link: the bar names my lesson and the step, ← → walk the
    steps, each view exactly; the address keeps the steps."""
    token = steps_token(
        [["/lab?d=64&scale=false", "<b>raw</b>"], ["/scaling?section=variance", "σ"]]
    )
    at = open_app("lab", lang="en", lesson="custom", steps=token, step="1")
    assert bar_text(at) == "My lesson · 1 / 2 · <b>raw</b>"  # a title is text, never HTML
    assert at.query_params["d"] == "64" and at.query_params["scale"] == "false"
    assert at.query_params["steps"] == token
    at.button(key="lesson_next").click().run()
    assert bar_text(at) == "My lesson · 2 / 2 · σ"
    assert at.query_params["section"] == "variance"
    assert at.query_params["d"] == str(ScalingParams().d)  # the page's default: none is carried
    popovers = [
        b.proto.popover.label for b in blocks(at._tree) if getattr(b, "type", "") == "popover"
    ]
    assert t("lesson_notes", "en") not in popovers  # my lesson's steps have no notes to open


def test_my_lesson_downloads_as_an_offline_file(downloads):
    """My lesson's offline button sends the exported file of exactly its steps, names as text."""
    from ui.lesson.export import lesson_html

    at = open_app("lab", lang="en", d="64")
    at.button(key="lesson_add").click().run()
    navigate(at, "lesson")
    at.text_input(key="mine_title_1").input("</script><b>x</b>").run()
    (offline,) = [d for d in at.get("download_button") if "offline_mine" in d.proto.id]
    sent = downloads[offline.proto.deferred_file_id]()
    token = mine_link(at)["steps"]
    assert sent == lesson_html(custom_lesson(token), "en").encode("utf-8")
    assert b"</script><b>x</b>" not in sent


def test_present_opens_step_one_of_my_lesson():
    """Present opens my lesson's first step, beside its Download."""
    at = open_app("lab", lang="zh", d="64")
    at.button(key="lesson_add").click().run()
    navigate(at, "lesson")
    (download,) = [d for d in at.get("download_button") if d.proto.id.endswith("download_mine")]
    at.button(key="present_mine").click().run()
    assert bar_text(at) == f"我的课程 · 1 / 1 · {t(page_named('lab').title_key, 'zh')}"
    assert at.query_params["lesson"] == "custom" and at.query_params["d"] == "64"
    assert download is not None


def test_the_toml_of_my_lesson_reads_back():
    from ui.kit.lesson_bar import Collected
    from ui.lesson.body import mine_toml

    steps = (Collected(1, "/lab?d=1536&scale=false", 'say "hi"'), Collected(2, "/softmax", "二"))
    raw = tomllib.loads(mine_toml(steps, "en"))
    assert [(s["view"], s["title"]["zh"], s["title"]["en"]) for s in raw["steps"]] == [
        ("/lab?d=1536&scale=false", 'say "hi"', 'say "hi"'), ("/softmax", "二", "二")
    ]  # fmt: skip
    for step in raw["steps"]:
        parse_view(step["view"])


def test_a_link_of_eight_steps_stays_short():
    """Eight of the shipped lessons' views with Chinese names: well under 2,000 characters."""
    from ui.kit.lessons import lessons

    views = [step.view for lesson in lessons().values() for step in lesson.steps][:8]
    token = steps_token([[view, "为什么要除以根号 d 第几步"] for view in views])
    assert len(token) < 1000, len(token)
    assert [view for view, _ in unpack(token)] == views


BAD = [
    "not base64 !!",
    steps_token([["/lab", "x"]]) + "A" * 100_000,  # a lesson, then more than any link carries
    base64.urlsafe_b64encode(zlib.compress(b'[["/lab","x"]]') + b"tail").decode(),
    base64.urlsafe_b64encode(b"not deflated").decode(),
    base64.urlsafe_b64encode(zlib.compress(b'{"a": 1}')).decode(),
    steps_token([["/nowhere", "x"]]),
    steps_token([["/lab?d=many", "x"]]),
    steps_token([["/lab", "x"]] * (MINE + 1)),
    base64.urlsafe_b64encode(
        zlib.compress(b"[" + b'["/lab","x"],' * 2000 + b'["/lab","x"]]')
    ).decode(),
]


@pytest.mark.parametrize("token", BAD)
def test_bad_steps_are_refused(token):
    with pytest.raises(ValueError):
        custom_lesson(token)


@pytest.mark.parametrize("token", BAD[:4])
def test_a_link_with_bad_steps_gets_a_note_and_the_page_works(token):
    at = open_app("lab", lang="en", lesson="custom", steps=token)
    assert at.info and bar_text(at) is None
    assert "lesson" not in at.query_params


def test_adding_stops_at_the_most_steps():
    at = open_app("lab", lang="en")
    for _ in range(MINE + 1):
        at.button(key="lesson_add").click().run()
    navigate(at, "lesson")
    assert len([b for b in at.text_input if b.key.startswith("mine_title_")]) == MINE


@pytest.mark.parametrize(("page", "query"), [("variants", {"variant": "cross"}), ("kernel", {})])
def test_a_page_that_reads_the_lab_adds_its_own_view(page, query):
    """/variants and /kernel close with the lab's settings first: the step is their page's."""
    at = open_app(page, lang="en", **query)
    at.button(key="lesson_add").click().run()
    navigate(at, "lesson")
    (view,) = [view for view, _ in unpack(mine_link(at)["steps"])]
    assert view.split("?")[0] == f"/{page}", view
    assert all(f"{key}={value}" in view for key, value in query.items())
