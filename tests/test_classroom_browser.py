"""One lesson of the class mode in real Chromium: a projector and three phones on one server.

The teacher's window (1280 × 720, presenter mode) starts a class; three phones (390 × 844, touch)
open the join link shown on the projector, which leads to the light phone page (``/join/CODE``,
``ui.phone``: no Streamlit on the phones), and tap Join; the teacher asks; the phones show the
question by themselves (the page's long-poll), answer with a tap (a number: typed, then Send),
and the projector counts them by itself (it polls); the teacher closes, shows the class's
answers and reveals the truth, and each phone hears each step without a reload within
PHONE_DELAY; a phone reloads and is still the same student with the same answer. Once in
Chinese with a choice question, once in English with a number question.

The server has its own SQLite file (CLASSROOM_DB_URL in a temporary folder): it never touches
anyone else's class. The teacher's key is read as a teacher would, with the "copy my teacher
link" button (from the clipboard), and is never in the projector's address, text or page. After
the reveal the first screen of the projector and of a phone are saved to
/tmp/classroom_shots/<lang>-projector.png and <lang>-phone.png, and the whole page of each (the
projector made taller) to <lang>-projector-full.png and <lang>-phone-full.png.

What a teacher or a student would see wrong while the lesson still works (labels that overlap,
a chart below the projector's first screen, a phone page wider than the phone) fails the test
too, each said in a sentence: see ``rough_edges``.

The projector polls (its count every 0.5 s), so a script run ends every second or so whatever the
test does: ``wait_idle`` cannot tell a click's run from a poll's. The test waits for what each
action must show instead. The class is ended at the end (by the store): that answers the
phones' waiting long-polls, which would otherwise hold the server's shutdown for up to 25 s
(test_phone_browser.py::test_a_phone_gone_lets_the_server_stop).
"""

import re
import time
from contextlib import suppress
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
from browser_support import (
    boxes,
    count_runs,
    launch,
    overlapping,
    require_browser,
    streamlit_server,
    wait_idle,
)

import ui.phone  # noqa: F401  (registers the phone page's strings)
from classroom import QUESTIONS, Refusal, Store
from ui.kit.figures import format_value
from ui.kit.text import t
from ui.phone.hub import CHECK

pytestmark = pytest.mark.browser

SHOTS = Path("/tmp/classroom_shots")
PROJECTOR = {"width": 1280, "height": 720}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
LOCALE = {"zh": "zh-CN", "en": "en-US"}  # the join link carries no language: the phone's own
PHONE_DELAY = 3.0  # s: each of the teacher's steps reaches every phone within this, no reload
COUNT_DELAY = 3.0  # s: the projector counts the last answer within this, untouched
WAIT_MS = 15_000  # ms: the longest any step may take before the test gives up
STREAMLIT_PROBE = re.compile(r"/[\w-]+/_stcore/(health|host-config)$")
ERRORS = "[data-testid='stException']"
CHARTS = "[data-testid='stPlotlyChart']"
# What can overlap on a phone's page: its lines, buttons and the bars' labels and numbers (not
# the closed Rename box's: hidden, yet laid out where the question is).
PHONE_PARTS = "main#live > p, main#live > h2, main#live > form button, summary, .bar > span"

# (language, question, what the three phones answer: the option they tap, or the number they
# type). The first two phones give the truth, the third does not.
LESSONS = [
    pytest.param("zh", "lab_top_key", ("喜", "喜", "我"), id="zh-choice"),
    pytest.param("en", "softmax_top", ("0.66", "0.659", "0.3"), id="en-number"),
]


@pytest.fixture(scope="module")
def class_server(tmp_path_factory):
    """A server of its own whose class store is a SQLite file in a temporary folder: (its base
    URL, the store's URL)."""
    require_browser()
    folder = tmp_path_factory.mktemp("classroom")
    url = f"sqlite:///{folder / 'class.db'}"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CLASSROOM_DB_URL", url)
        patch.setenv("CLASSROOM_DATA_DIR", str(folder))
        with streamlit_server() as base:
            yield base, url
            time.sleep(2 * CHECK)  # the last ended class's waiting long-polls answered


@pytest.fixture(scope="module")
def chromium_browser(class_server):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = launch(playwright)
        yield chromium
        chromium.close()


@pytest.fixture
def windows(chromium_browser):
    """Opens a window in a fresh browser context (a device of its own, its own session), whose
    console errors are collected in ``.console_errors``; every one is closed afterwards."""
    contexts = []

    def window(**options):
        context = count_runs(chromium_browser.new_context(**options))
        contexts.append(context)
        tab = context.new_page()
        tab.console_errors = []

        def on_console(msg):
            # Opening /classroom directly, Streamlit first probes /classroom/_stcore/health and
            # /classroom/_stcore/host-config and gets 404 (streamlit/streamlit#7074): ignored.
            if msg.type == "error" and not STREAMLIT_PROBE.search(msg.location.get("url", "")):
                tab.console_errors.append(f"{msg.text} ({msg.location.get('url', '')})")

        tab.on("console", on_console)
        tab.on("pageerror", lambda error: tab.console_errors.append(str(error)))
        return tab

    yield window
    for context in contexts:
        context.close()


def query(tab):
    """The window's URL query, one value per name."""
    return {name: values[0] for name, values in parse_qs(urlparse(tab.url).query).items()}


def key_of(name):
    """The element of whatever Streamlit drew under the key ``name``."""
    return f".st-key-{name}"


def bars_drawn(tab, key):
    """Wait until the bar chart keyed ``key`` is drawn."""
    tab.locator(f"{key_of(key)} g.trace.bars").first.wait_for(timeout=WAIT_MS)


def figure_data(tab, key):
    """The first trace of the Plotly chart keyed ``key``, as the page's Plotly holds it: x its
    labels, y its values (along whichever axis its bars lie)."""
    return tab.locator(f"{key_of(key)} .js-plotly-plot").evaluate(
        """plot => ({x: plot.data[0].customdata, text: plot.data[0].text,
                     y: Array.from(plot.data[0].orientation === 'h' ? plot.data[0].x
                                                                    : plot.data[0].y)})"""
    )


def drawn_bar_texts(tab, key):
    """The numbers Plotly drew on the bars of the chart keyed ``key``, in bar order."""
    found = tab.locator(f"{key_of(key)} g.trace.bars g.point text").all_text_contents()
    return [text.strip() for text in found]


def phone_bars(phone):
    """The class's answers as a phone's page draws them: label → count, and the ticked label."""
    labels = [label.strip() for label in phone.locator(".bar .label").all_inner_texts()]
    counts = [int(n) for n in phone.locator(".bar .n").all_inner_texts()]
    ticked = [label for label in labels if label.endswith(" ✓")]
    counted = {label.removesuffix(" ✓"): n for label, n in zip(labels, counts, strict=True)}
    return counted, ticked


def bin_of(value, bins):
    """The label "low–high" of the bin that holds ``value``."""
    for label in bins:
        low, _, high = label.partition("–")
        if float(low) <= value < float(high or "inf"):
            return label
    raise AssertionError(f"{value} is in no bin of {bins}")


def start_class(teacher, base, lang):
    """The teacher opens the class page on the projector and starts a class: its code and the
    join link the projector shows."""
    teacher.goto(f"{base}/classroom?lang={lang}&present=true")
    wait_idle(teacher)
    teacher.locator(f"{key_of('classroom_start')} button").click()
    teacher.wait_for_url(re.compile(r"[?&]room=\w{6}(&|$)"), timeout=WAIT_MS)
    room = query(teacher)["room"]
    join = teacher.locator("[data-testid='stCode']", has_text=f"/join/{room}").first
    join.wait_for(timeout=WAIT_MS)
    teacher.locator(key_of("classroom_question")).wait_for(timeout=WAIT_MS)
    wait_idle(teacher)
    return room, join.inner_text().strip()


def teacher_key(teacher, lang):
    """The teacher's key, read as a teacher would: the "Teacher link" popover's copy button,
    then the clipboard; the popover closed again."""
    teacher.get_by_role("button", name=t("cl_teacher_link", lang)).click()
    teacher.get_by_role("button", name=t("cl_copy_link", lang), exact=True).click()
    teacher.get_by_role("button", name=t("cl_copied", lang), exact=True).wait_for(timeout=WAIT_MS)
    link = teacher.evaluate("navigator.clipboard.readText()")
    teacher.keyboard.press("Escape")
    teacher.get_by_role("button", name=t("cl_copied", lang)).wait_for(
        state="detached", timeout=WAIT_MS
    )
    assert "/classroom?room=" in link and "&key=" in link, link
    return link.split("&key=")[1]


def join(phone, link, lang):
    """A phone opens the join link and taps Join: its token (its HttpOnly cookie) and the line
    naming it."""
    phone.goto(link)
    assert phone.locator("p.code").inner_text() == link.rsplit("/", 1)[1]
    with phone.expect_navigation(timeout=WAIT_MS):  # a plain form: POST, then back to the page
        phone.get_by_role("button", name=t("cl_join", lang), exact=True).tap()
    you_are = phone.locator("main#live p", has_text=t("cl_you_are", lang, name="")).first
    you_are.wait_for(timeout=WAIT_MS)
    [cookie] = [c for c in phone.context.cookies() if c["name"].startswith("phone_")]
    assert cookie["httpOnly"], cookie
    return cookie["value"], you_are.inner_text().strip()


def ask(teacher, question_id, lang):
    """The teacher picks ``question_id`` in the question box and clicks Ask; when it clicked."""
    question = QUESTIONS[question_id]
    label = question.text(lang, question.truth())
    box = teacher.locator(f"{key_of('classroom_question')} input")
    if box.input_value() != label:
        box.click()
        teacher.get_by_role("option", name=label, exact=True).click()  # in a form: no run
    assert box.input_value() == label
    teacher.locator(f"{key_of('classroom_ask')} button").click()
    return time.monotonic()


def truth_line(truth, lang):
    """The line that says the app's answer (a number with its bin)."""
    if truth.value is None:
        return t("cl_truth", lang, answer=truth.answer)
    return t("cl_truth_number", lang, value=format_value(truth.value, 4), bin=truth.answer)


def step(teacher, action):
    """The teacher clicks Close, Show the class's answers or Reveal; when it clicked."""
    button = teacher.locator(f"{key_of(f'classroom_{action}')} button")
    button.wait_for(timeout=WAIT_MS)
    clicked = time.monotonic()
    button.click()
    return clicked


def heard(phones, since, selector, has_text=""):
    """Wait until every phone shows ``selector`` (with ``has_text``), by itself: seconds after
    ``since`` for each."""
    delays = []
    for phone in phones:
        phone.locator(selector, has_text=has_text or None).first.wait_for(timeout=WAIT_MS)
        delays.append(round(time.monotonic() - since, 2))
    return delays


def mark(windows_):
    """A marker that only a reload or a navigation takes away."""
    for window in windows_:
        window.evaluate("window.notReloaded = true")


def answer(phone, question, value, lang):
    """Tap a choice's button, or type a number and tap Send (a plain form: the page comes back
    with what was saved); then the phone says "received". When it was tapped."""
    if question.kind == "choice":
        button = phone.get_by_role("button", name=value, exact=True)
    else:
        box = phone.locator("main#live input[name=value]")
        assert box.get_attribute("inputmode") == "decimal"  # the phone's number keyboard
        box.fill(value)
        button = phone.get_by_role("button", name=t("cl_send", lang), exact=True)
    button.wait_for(timeout=WAIT_MS)
    tapped = time.monotonic()
    with phone.expect_navigation(timeout=WAIT_MS):
        button.tap()
    phone.get_by_text(t("cl_received", lang)).first.wait_for(timeout=WAIT_MS)
    return tapped


REVEALED = ("class_answers", "class_truth", "class_contrast")  # a reveal's charts, if drawn


def rough_edges(teacher, phone, lang):
    """What a teacher or a student would see wrong: labels that overlap, a chart below a
    projector's first screen, a phone's page wider than the phone."""
    seen = []
    drawn = [key for key in REVEALED if teacher.locator(key_of(key)).count()]
    for key in drawn:
        ticks = f"{key_of(key)} g.xtick text, {key_of(key)} g.ytick text"
        clashes = overlapping(boxes(teacher, ticks))
        if clashes:
            seen.append(f"projector: {key}'s labels overlap, e.g. {clashes[:3]}")
    height = teacher.viewport_size["height"]  # a projector does not scroll while it is shown
    for key in drawn:
        box = teacher.locator(key_of(key)).bounding_box()
        if box and box["y"] + box["height"] > height:
            bottom = box["y"] + box["height"]
            seen.append(f"projector: {key} ends at y = {bottom:.0f}, below its {height} px")
    clashes = overlapping(boxes(phone, PHONE_PARTS))
    if clashes:
        seen.append(f"phone: parts of the page overlap, e.g. {clashes[:3]}")
    wide, width = phone.evaluate("document.documentElement.scrollWidth"), phone.viewport_size
    if wide > width["width"]:
        seen.append(f"phone: the page is {wide} px wide, on a {width['width']} px phone")
    return seen


@pytest.mark.parametrize(("lang", "question_id", "given"), LESSONS)
def test_one_lesson_on_a_projector_and_three_phones(
    class_server, windows, lang, question_id, given
):
    """The issue's "done when": predict, commit, reveal on a projector and three phones."""
    base, url = class_server
    question = QUESTIONS[question_id]
    timings = {}

    # 1. The projector starts a class: the room in its URL and its join link, never the key.
    teacher = windows(
        viewport=PROJECTOR, locale=LOCALE[lang], permissions=["clipboard-read", "clipboard-write"]
    )
    room, link = start_class(teacher, base, lang)
    key = ""
    try:
        assert link == f"{base}/join/{room}", link
        assert set(query(teacher)) == {"room", "lang", "present"}, teacher.url
        key = teacher_key(teacher, lang)
        assert len(key) >= 22
        assert key not in teacher.url and key not in teacher.locator("body").inner_text()
        assert key not in teacher.content()  # not even hidden: the link is never written out
        qr = teacher.locator("[data-testid='stHtml'] img[alt=QR]")  # drawn, not sanitised away
        assert qr.count() == 1 and qr.bounding_box()["height"] >= 150
        lesson(teacher, windows, base, room, link, lang, question, given, timings)
    finally:
        if key:  # ended: the phones' waiting long-polls answer at once, not in 25 s
            with suppress(Refusal):
                Store(url).end(room, key)
    print(f"\n{lang} {question_id}: {timings}")


def lesson(teacher, windows, base, room, link, lang, question, given, timings):
    """Steps 2 to 7 of the lesson, once the projector shows how to join."""
    truth = question.truth()

    # 2. Three phones open the join link and tap Join: each its own token and nickname, in
    # the phone's own language, and no token in any address.
    phones = [windows(**PHONE, locale=LOCALE[lang]) for _ in range(3)]
    joined = [join(phone, link, lang) for phone in phones]
    tokens, names = [token for token, _ in joined], [name for _, name in joined]
    assert len(set(tokens)) == 3 and all(len(token) >= 22 for token in tokens), tokens
    assert len(set(names)) == 3, names
    you_are = t("cl_you_are", lang, name="")
    assert all(name.startswith(you_are) and name != you_are for name in names), names
    for phone, token in zip(phones, tokens, strict=True):
        assert urlparse(phone.url).path == f"/join/{room}" and query(phone) == {"lang": lang}
        assert token not in phone.url

    # 3. The teacher asks; each phone shows the question by itself (its long-poll), and no bars.
    mark([teacher, *phones])
    asked = ask(teacher, question_id=question.id, lang=lang)
    prompt = question.say(lang, truth.args)
    timings["Ask → question on each phone (s)"] = heard(phones, asked, "h2", prompt)
    for phone in phones:
        assert phone.get_by_text(t("cl_question_number", lang, number=1), exact=True).count() == 1
        assert phone.locator(".bar").count() == 0  # nothing gives the answer away
        assert phone.evaluate("window.notReloaded === true")
    answered = t("cl_answered", lang, answered=0, joined=3)
    teacher.get_by_text(answered).wait_for(timeout=WAIT_MS)

    # 4. The phones answer; the projector counts them by itself (it polls).
    tapped = [answer(phone, question, given[i], lang) for i, phone in enumerate(phones)]
    answered = t("cl_answered", lang, answered=3, joined=3)
    teacher.get_by_text(answered).wait_for(timeout=WAIT_MS)
    timings["last tap → 3 / 3 on the projector (s)"] = round(time.monotonic() - tapped[-1], 2)
    assert timings["last tap → 3 / 3 on the projector (s)"] <= COUNT_DELAY, timings
    assert teacher.locator(CHARTS).count() == 0  # no counts before the teacher shows them
    assert teacher.evaluate("window.notReloaded === true")  # all of it by polling
    for phone, token in zip(phones, tokens, strict=True):
        assert phone.locator(".bar").count() == 0 and token not in phone.url

    # 5. Close: every phone hears it. Show: the class's three answers counted on the projector
    # and on every phone. Reveal: the truth's chart, ✓ on its bar, on the phones too.
    mark(phones)  # each answer came back as a page of its own
    picked = [value if question.kind == "choice" else bin_of(float(value), truth.options)
              for value in given]  # fmt: skip
    expected = {label: picked.count(label) for label in picked}
    closed = step(teacher, "close")
    timings["Close → each phone (s)"] = heard(phones, closed, "p.note", t("cl_closed", lang))
    shown = step(teacher, "show_answers")
    timings["Show → bars on each phone (s)"] = heard(phones, shown, ".bar")
    bars_drawn(teacher, "class_answers")
    histogram = figure_data(teacher, "class_answers")
    counts = dict(zip(histogram["x"], histogram["y"], strict=True))
    assert {label: count for label, count in counts.items() if count} == expected, counts
    assert not any("✓" in text for text in histogram["text"])
    for phone in phones:
        counted, ticked = phone_bars(phone)
        assert {label: n for label, n in counted.items() if n} == expected, counted
        assert ticked == []
    revealed = step(teacher, "reveal")
    says_truth = truth_line(truth, lang)
    timings["Reveal → truth on each phone (s)"] = heard(phones, revealed, ".bar.right")
    bars_drawn(teacher, "class_truth")
    teacher.wait_for_function(  # the histogram redrawn with the truth's ✓
        "sel => [...document.querySelectorAll(sel)].some(text => text.textContent.includes('✓'))",
        arg=f"{key_of('class_answers')} g.trace.bars g.point text",
        timeout=WAIT_MS,
    )
    histogram = figure_data(teacher, "class_answers")
    right = histogram["x"].index(truth.answer)
    ticked = f"{expected[truth.answer]} ✓"
    assert [i for i, text in enumerate(histogram["text"]) if "✓" in text] == [right]
    assert histogram["text"][right] == ticked
    # drawn as sent: an empty bar's "" draws no text, so the drawn ones are the others in order
    drawn = [text for text in histogram["text"] if text]
    assert drawn_bar_texts(teacher, "class_answers") == drawn and ticked in drawn
    assert figure_data(teacher, "class_truth")["y"] == pytest.approx(truth.chart["values"])
    teacher_truth = t("cl_truth", lang, answer="").strip()
    assert teacher.get_by_text(teacher_truth).count() == 1
    bars_drawn(teacher, "class_contrast")  # both lessons' truths have a contrast beside them
    open_view = teacher.get_by_role("link", name=t("cl_open_view", lang))
    assert open_view.count() == 1 and room not in open_view.get_attribute("href")
    for phone, label in zip(phones, picked, strict=True):
        counted, ticks = phone_bars(phone)
        assert ticks == [f"{truth.answer} ✓"], ticks
        assert {label: n for label, n in counted.items() if n} == expected, counted
        assert phone.get_by_text(says_truth).count() == 1
        assert phone.locator("p.why").count() == 1  # why, in a sentence
        link = phone.locator("a.view").get_attribute("href")  # the app's view, not the class
        assert link.startswith("/") and room not in link and not link.startswith("/join")
        verdict = t("cl_right" if label == truth.answer else "cl_wrong", lang)
        assert phone.get_by_text(verdict, exact=True).count() == 1
        assert phone.evaluate("window.notReloaded === true")  # every step by its long-poll
    for name, delays in timings.items():
        if name.endswith("each phone (s)"):
            assert max(delays) <= PHONE_DELAY, timings

    SHOTS.mkdir(parents=True, exist_ok=True)
    teacher.wait_for_timeout(600)  # the charts' last transition
    teacher.screenshot(path=str(SHOTS / f"{lang}-projector.png"))
    phones[0].screenshot(path=str(SHOTS / f"{lang}-phone.png"))
    assert rough_edges(teacher, phones[0], lang) == []

    # 6. A phone reloads: the same student, the same answer, its verdict, no token in its
    # address.
    phones[0].reload()
    phones[0].get_by_text(t("cl_right", lang), exact=True).wait_for(timeout=WAIT_MS)
    phones[0].get_by_text(names[0], exact=True).wait_for(timeout=WAIT_MS)
    your_answer = t("cl_your_answer", lang, answer=given[0])
    assert phones[0].get_by_text(your_answer, exact=True).count() == 1
    [cookie] = [c for c in phones[0].context.cookies() if c["name"] == f"phone_{room}"]
    assert cookie["value"] == tokens[0] and tokens[0] not in phones[0].url
    assert query(phones[0]) == {"lang": lang}
    assert phone_bars(phones[0])[1] == [f"{truth.answer} ✓"]

    # 7. No exception box and no console error on any window.
    for window in [teacher, *phones]:
        assert window.locator(ERRORS).count() == 0
        assert window.console_errors == [], window.console_errors

    # The whole pages, for the eye: the projector made taller (the app scrolls inside its main
    # block, so a full-page screenshot would show the first screen only); the phone's page is
    # a plain page.
    teacher.set_viewport_size({"width": PROJECTOR["width"], "height": 1500})
    teacher.wait_for_timeout(600)
    teacher.screenshot(path=str(SHOTS / f"{lang}-projector-full.png"))
    phones[0].screenshot(path=str(SHOTS / f"{lang}-phone-full.png"), full_page=True)
