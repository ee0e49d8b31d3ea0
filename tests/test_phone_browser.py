"""The class's light phone page (``/join/CODE``, ``ui.phone``) in real Chromium, as a student's
phone (390 × 844, touch) sees it, in Chinese and in English, in three browsers: JavaScript on;
JavaScript off (plain forms, the page's Reload button); and JavaScript on in an old in-app
browser, without the built-ins of the last years (``fetch``, ``Array.prototype.at``,
``structuredClone``, …: see OLD_BROWSER).

One ``streamlit run`` server has its own SQLite file in a temporary folder; the test plays the
teacher through ``classroom.Store`` on that same file (another process: the server hears the
change by looking at the database, as it would from another replica). The phone opens the join
link, taps Join, and is the nickname the store gave it; the teacher asks, and the question
appears by itself with JavaScript (the page never navigates: a marker set on ``window`` stays),
after a tap on Reload without; the phone answers a choice (a tap) and a number (typed in a box
that opens the phone's number keyboard), sees "received", reloads and is the same student with
the same answer. The token lives in an HttpOnly cookie, never in the address bar. Then the
teacher closes, shows and reveals: the phone shows the class's answers and whether it was right.

Every response the page downloads is recorded: joining and answering one question must cost at
most BUDGET bytes on the wire, and nothing may come from another host; Streamlit's own bundle
(the projector's) must come gzipped. The sizes measured are written to
``artifacts/screenshots/phone-bytes-<lang>-<mode>.json``, and screenshots of each view (join,
waiting, question, answered, revealed, number) to ``phone-<lang>-<view>.png`` there (``-no-js``
without JavaScript; four of them copied to /tmp/phone_shots/).

"""

import json
import os
import re
import shutil
import signal
import time
from contextlib import suppress
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from browser_support import ARTIFACTS, launch, require_browser, screenshot, streamlit_server

import ui.phone  # noqa: F401  (registers the phone page's strings)
from classroom import QUESTIONS, NotFound, Refusal, Store
from classroom.refusals import sentence
from ui.kit.text import t
from ui.phone.hub import CHECK, FRESH, WAIT

pytestmark = pytest.mark.browser

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
LOCALE = {"zh": "zh-CN", "en": "en-US"}  # the projector's link has no language: the phone's
# An old in-app browser: JavaScript runs, but none of the last years' built-ins are there.
OLD_BROWSER = """
delete Object.hasOwn; delete window.structuredClone; delete AbortSignal.timeout;
delete Array.prototype.at; delete String.prototype.replaceAll; delete Object.fromEntries;
delete Array.prototype.flat; delete Array.prototype.flatMap; delete Promise.allSettled;
delete window.fetch;
"""
MODES = ["js", "no-js", "old-js"]
PHONE_DELAY = 3.0  # s: a teacher's step reaches a phone within this, without a reload
WAIT_MS = 15_000  # ms: the longest any step may take before the test gives up
BUDGET = 100_000  # bytes on the wire: open the link, join, see a question, answer it
SHOTS = Path("/tmp/phone_shots")
COPIED = {"zh-join", "zh-revealed", "en-question", "en-revealed"}  # to SHOTS as well

# (language, a choice question, the option the phone taps). Chinese taps the right one (short
# options, three to a row); English a wrong one (long options: A–D buttons under their texts).
CHOICE = {"zh": ("lab_top_key", "喜"), "en": ("article_why_scale", "B")}
NUMBER = ("softmax_top", "0.66")  # a number question: 0.66 is in the right bin, 0.65–0.7


@pytest.fixture(scope="module")
def phone_server(tmp_path_factory):
    """A server of its own, its class store a SQLite file in a temporary folder: (base URL, the
    teacher's Store on that file)."""
    require_browser()
    folder = tmp_path_factory.mktemp("phone")
    url = f"sqlite:///{folder / 'classroom.db'}"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CLASSROOM_DB_URL", url)
        patch.setenv("CLASSROOM_DATA_DIR", str(folder))
        with streamlit_server() as base:
            teacher = Store(url, pace=0.0)
            yield base, teacher
            teacher.dispose()
            time.sleep(2 * CHECK)  # the last ended class's waiting long-polls have answered


@pytest.fixture
def room(phone_server):
    """A class of this test, ended afterwards: that answers its phones' waiting long-polls,
    which would otherwise hold the server's shutdown (test_a_phone_gone_lets_the_server_stop)."""
    _, teacher = phone_server
    made = teacher.create_room()
    yield made
    with suppress(Refusal):
        teacher.end(made.code, made.teacher_key)


@pytest.fixture(scope="module")
def chromium(phone_server):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch(playwright)
        yield browser
        browser.close()


class Phone:
    """One phone: a browser context in a mode and a language, its tab, what the tab downloaded
    and every error its console said."""

    def __init__(self, chromium, base: str, mode: str, lang: str, locale: str = "") -> None:
        self.base, self.mode, self.lang = base, mode, lang
        self.context = chromium.new_context(
            **PHONE, locale=locale or LOCALE[lang], java_script_enabled=mode != "no-js"
        )
        if mode == "old-js":
            self.context.add_init_script(OLD_BROWSER)
        self.page = self.context.new_page()
        self.downloads: list[dict] = []
        self.hosts: set[str] = set()
        self.errors: list[str] = []
        self.requested: list[str] = []
        self.page.on("request", self._requested)
        self.page.on("response", self._downloaded)
        self.page.on("console", self._said)
        self.page.on("pageerror", lambda error: self.errors.append(f"pageerror: {error}"))

    def _requested(self, request) -> None:
        self.requested.append(request.url)
        self.hosts.add(urlsplit(request.url).netloc)

    def _downloaded(self, response) -> None:
        """A response's size on the wire (its headers and its encoded body) and as decoded."""
        try:
            sizes = response.request.sizes()
            wire = sizes["responseHeadersSize"] + sizes["responseBodySize"]
        except Exception:  # the page went on before the sizes were known: count the header's
            wire = int(response.headers.get("content-length", "0") or 0)
        try:
            body = len(response.body())
        except Exception:  # a redirect has no body
            body = 0
        self.downloads.append({
            "url": response.url, "status": response.status, "wire": wire, "body": body,
            "encoding": response.headers.get("content-encoding", ""),
        })  # fmt: skip

    def _said(self, message) -> None:
        if message.type == "error":
            self.errors.append(f"{message.text} ({message.location.get('url', '')})")

    def says(self, key: str, **fields) -> str:
        return t(key, self.lang, **fields)

    def wire(self) -> int:
        return sum(row["wire"] for row in self.downloads)

    def navigating(self):
        """Wait for the navigation a form's button starts (a POST and its redirect)."""
        return self.page.expect_navigation(wait_until="load", timeout=WAIT_MS)

    def heard(self, selector: str, has_text: str = "", since: float = 0.0) -> float:
        """Wait for ``selector`` (with ``has_text``) to show: by itself with JavaScript, within
        PHONE_DELAY of ``since`` and with no navigation; after a tap on Reload without.
        Seconds it took."""
        found = self.page.locator(selector, has_text=has_text or None).first
        if self.mode == "no-js":
            # (Playwright's text matching skips <noscript>: its text is read as it is.)
            said = self.page.locator("noscript p").text_content()
            assert said == self.says("ph_no_script"), said
            # The server trusts the room it read for FRESH s: the teacher's step, made in
            # another process here, is read once that has passed (on the projector's own
            # server it wakes the room at once).
            time.sleep(max(0.0, since + FRESH + 0.05 - time.monotonic()))
            with self.navigating():
                self.page.get_by_role("button", name=self.says("ph_reload"), exact=True).tap()
            found.wait_for(timeout=1_000)  # one tap on Reload shows it
        found.wait_for(timeout=WAIT_MS)
        took = time.monotonic() - since
        if self.mode != "no-js":
            assert took <= PHONE_DELAY, f"{selector} {has_text!r} after {took:.2f} s"
            assert self.page.evaluate("window.__marker") == "still here", "the page navigated"
        return took

    def mark(self) -> None:
        """Set the marker that only a navigation or a reload takes away."""
        if self.mode != "no-js":
            self.page.evaluate("window.__marker = 'still here'")

    def check_private(self, token: str) -> None:
        """The token is in no address, and in no cookie a script could read."""
        assert token not in self.page.url and "me=" not in self.page.url, self.page.url
        cookies = [c for c in self.context.cookies() if c["name"].startswith("phone_")]
        assert cookies and all(c["httpOnly"] for c in cookies), cookies
        if self.mode != "no-js":
            assert token not in self.page.evaluate("document.cookie")

    def token(self, code: str) -> str:
        """The phone's token, as its cookie keeps it."""
        cookies = {c["name"]: c["value"] for c in self.context.cookies()}
        return cookies[f"phone_{code}"]

    def main_text(self) -> str:
        return self.page.locator("main#live").inner_text()


def join(phone: Phone, code: str, teacher: Store, key: str) -> tuple[str, str]:
    """The phone opens the projector's link and taps Join: its token and its nickname, which
    the page shows and the store holds."""
    page = phone.page
    page.goto(f"{phone.base}/join/{code}")
    assert page.locator("html").get_attribute("lang").startswith(phone.lang)
    assert page.locator("p.code").inner_text() == code
    save(phone, "join")
    with phone.navigating():
        page.get_by_role("button", name=phone.says("cl_join"), exact=True).tap()
    token = phone.token(code)
    phone.check_private(token)
    [student] = teacher.students(code, key)
    assert teacher.me(code, token).nickname == student.nickname
    you_are = phone.says("cl_you_are", name=student.nickname)
    page.get_by_text(you_are, exact=True).wait_for(timeout=WAIT_MS)
    page.get_by_text(phone.says("cl_waiting")).wait_for(timeout=WAIT_MS)
    return token, student.nickname


def reload_same(phone: Phone, code: str, token: str, name: str, answer: str | None) -> None:
    """A reload: the same student (the page and the store say so), with the same answer."""
    phone.page.reload()
    phone.page.get_by_text(phone.says("cl_you_are", name=name), exact=True).wait_for()
    phone.check_private(token)
    assert phone.token(code) == token
    assert phone.main_text().count(phone.says("cl_you_are", name=name)) == 1
    if answer is not None:
        assert phone.page.get_by_text(phone.says("cl_your_answer", answer=answer)).count() == 1


def old_browser_is_old(phone: Phone) -> None:
    """The init script did take the built-ins away (else the mode tests nothing)."""
    if phone.mode == "old-js":
        gone = phone.page.evaluate(
            """() => [typeof fetch, typeof structuredClone, typeof [].at, typeof Object.hasOwn,
                      typeof ''.replaceAll, typeof Object.fromEntries, typeof [].flat,
                      typeof Promise.allSettled, typeof AbortSignal.timeout]"""
        )
        assert set(gone) == {"undefined"}, gone


def save(phone: Phone, view: str) -> None:
    """The page fits the phone's width (no sideways scrolling, in every mode); a screenshot of
    the whole page for the eye (JavaScript on, and off: ``-no-js``)."""
    wide = phone.page.evaluate("document.documentElement.scrollWidth")
    assert wide <= PHONE["viewport"]["width"], f"{view}: the page is {wide} px wide"
    if phone.mode == "old-js":
        return  # the same page as with JavaScript
    name = f"{phone.lang}-{view}" + ("-no-js" if phone.mode == "no-js" else "")
    screenshot(phone.page, f"phone-{name}")
    if name in COPIED:
        SHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copy(ARTIFACTS / f"phone-{name}.png", SHOTS / f"{name}.png")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_phone_joins_answers_and_hears_the_teacher(phone_server, chromium, room, lang, mode):
    base, teacher = phone_server
    code, key = room.code, room.teacher_key
    phone = Phone(chromium, base, mode, lang)
    page = phone.page
    try:
        # 1. The projector's link (no language in it: the phone's own) and one tap on Join.
        token, name = join(phone, code, teacher, room.teacher_key)
        old_browser_is_old(phone)
        save(phone, "waiting")

        # 2. The teacher asks a choice: the question comes by itself (JavaScript) or after a tap
        # on Reload (none), with its options as buttons and nothing of the class's answers.
        question_id, picked = CHOICE[lang]
        question = QUESTIONS[question_id]
        truth = question.truth()
        phone.mark()
        asked = time.monotonic()
        teacher.ask(code, key, question_id)
        phone.heard("h2", question.say(lang, truth.args), since=asked)
        phone.check_private(token)
        assert page.get_by_text(phone.says("cl_question_number", number=1)).count() == 1
        buttons = page.locator("main#live form button[name=value]")
        assert buttons.count() == len(truth.options)
        assert page.locator(".bar").count() == 0  # nothing gives the answer away
        save(phone, "question")

        # 3. A tap on an option: "received", and the answer is the store's.
        with phone.navigating():
            page.get_by_role("button", name=picked, exact=True).tap()
        page.get_by_text(phone.says("cl_received")).wait_for(timeout=WAIT_MS)
        phone.check_private(token)
        assert teacher.me(code, token).answer == picked
        assert page.get_by_role("button", name=picked, exact=True).get_attribute(
            "aria-pressed"
        ) == "true"  # fmt: skip
        joined_and_answered = phone.wire()
        save(phone, "answered")

        # 4. A reload: the same student with the same answer; one student in the roster.
        reload_same(phone, code, token, name, picked)
        assert [s.nickname for s in teacher.students(code, key)] == [name]

        # 5. Close, show, reveal: each heard without a reload (JavaScript), the class's bars,
        # then the truth marked on its bar and whether this phone was right.
        phone.mark()
        stepped = time.monotonic()
        teacher.close(code, key)
        phone.heard("p.note", phone.says("cl_closed"), since=stepped)
        assert page.locator(".bar").count() == 0
        stepped = time.monotonic()
        teacher.show_answers(code, key)
        phone.heard(".bar", since=stepped)
        bars = page.locator(".bar")
        assert bars.count() == len(truth.options)
        labels = [label.strip() for label in page.locator(".bar .label").all_inner_texts()]
        counts = [int(n) for n in page.locator(".bar .n").all_inner_texts()]
        assert dict(zip(labels, counts, strict=True)) == {
            option: int(option == picked) for option in truth.options
        }
        assert page.locator(".bar.right").count() == 0
        stepped = time.monotonic()
        teacher.reveal(code, key)
        right = picked == truth.answer
        verdict = phone.says("cl_right" if right else "cl_wrong")
        assert not right or lang == "zh"  # each verdict in one language
        phone.heard("p.note", verdict, since=stepped)
        assert page.get_by_text(phone.says("cl_truth", answer=truth.answer)).count() == 1
        assert page.locator(".bar.right .label").inner_text().strip() == f"{truth.answer} ✓"
        phone.check_private(token)
        save(phone, "revealed")

        # 6. A number: the box opens the number keyboard; typed, sent, received, kept.
        phone.mark()
        number_id, typed = NUMBER
        asked = time.monotonic()
        teacher.ask(code, key, number_id)
        number = QUESTIONS[number_id]
        phone.heard("h2", number.say(lang, number.truth().args), since=asked)
        assert page.get_by_text(phone.says("cl_question_number", number=2)).count() == 1
        box = page.locator("main#live input[name=value]")
        assert box.get_attribute("inputmode") == "decimal"
        box.tap()
        box.fill(typed)
        with phone.navigating():
            page.get_by_role("button", name=phone.says("cl_send"), exact=True).tap()
        page.get_by_text(phone.says("cl_received")).wait_for(timeout=WAIT_MS)
        phone.check_private(token)
        assert teacher.me(code, token).answer == typed
        save(phone, "number")
        reload_same(phone, code, token, name, typed)
        assert page.locator("main#live input[name=value]").input_value() == typed

        # 7. A phone that lost its cookie opens its old ?me= link: the same student, and the
        # token leaves the address at once.
        other = Phone(chromium, base, mode, lang)
        other.page.goto(f"{base}/join/{code}?me={token}")
        other.page.get_by_text(phone.says("cl_you_are", name=name), exact=True).wait_for()
        other.check_private(token)
        assert other.token(code) == token and urlsplit(other.page.url).query == f"lang={lang}"
        other.context.close()

        # What it cost, where it came from, and no error on the way.
        assert phone.hosts == {urlsplit(base).netloc}, phone.hosts
        assert joined_and_answered <= BUDGET, phone.downloads
        big = [row for row in phone.downloads if row["body"] > 1000 and not row["encoding"]]
        assert big == [], big  # whatever is worth compressing is gzipped
        assert phone.errors == [], phone.errors
        measured = {"join_and_answer_wire": joined_and_answered, "whole_test_wire": phone.wire(),
                    "responses": phone.downloads}  # fmt: skip
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        saved = json.dumps(measured, indent=1, ensure_ascii=False)
        (ARTIFACTS / f"phone-bytes-{lang}-{mode}.json").write_text(saved, encoding="utf-8")
    finally:
        phone.context.close()


def test_streamlit_bundle_is_gzipped(phone_server, chromium):
    """The projector's page (Streamlit's bundle, half a megabyte as written) is sent gzipped."""
    base, _ = phone_server
    context = chromium.new_context()
    try:
        page = context.new_page()
        scripts = []
        page.on(
            "response",
            lambda r: scripts.append(r) if re.search(r"/static/.*\.js$", r.url) else None,
        )
        page.goto(base)
        page.locator("[data-testid='stApp']").wait_for(timeout=60_000)
        page.wait_for_load_state("load")
        bodies = {response: len(response.body()) for response in scripts}
        largest = max(bodies, key=bodies.get)
        assert bodies[largest] > 100_000, (largest.url, bodies[largest])  # the main bundle
        assert largest.headers.get("content-encoding") == "gzip", largest.headers
        wire = largest.request.sizes()["responseBodySize"]
        assert wire < bodies[largest] / 2, (wire, bodies[largest])
    finally:
        context.close()


def test_a_phone_with_javascript_hears_that_the_class_ended(phone_server, chromium, room):
    """The teacher ends the class while the phone waits: the page says so by itself. (It once
    kept the old view: the page's part for an ended class comes with 404, and the script drew
    only a 200.)"""
    base, teacher = phone_server
    phone = Phone(chromium, base, "js", "en")
    try:
        join(phone, room.code, teacher, room.teacher_key)
        phone.mark()
        phone.page.wait_for_timeout(500)  # the long-poll is waiting
        ended = time.monotonic()
        teacher.end(room.code, room.teacher_key)
        phone.heard("main#live", sentence(NotFound("ended"), "en"), since=ended)
    finally:
        phone.context.close()


def test_reload_without_javascript_keeps_the_language(phone_server, chromium, room):
    base, _ = phone_server
    phone = Phone(chromium, base, "no-js", "zh", locale="en-US")  # an English phone
    page = phone.page
    try:
        page.goto(f"{base}/join/{room.code}")
        assert page.locator("html").get_attribute("lang") == "en"  # the phone's language
        with phone.navigating():
            page.get_by_role("link", name="中文").tap()
        with phone.navigating():
            page.get_by_role("button", name=t("cl_join", "zh"), exact=True).tap()
        page.get_by_text(t("cl_waiting", "zh")).wait_for(timeout=WAIT_MS)
        with phone.navigating():
            page.get_by_role("button", name=t("ph_reload", "zh"), exact=True).tap()
        assert page.locator("html").get_attribute("lang") == "zh-CN", page.url
        page.get_by_text(t("cl_waiting", "zh")).wait_for(timeout=2_000)
    finally:
        phone.context.close()


@pytest.mark.parametrize("mode", ["js", "no-js"])
def test_the_phone_says_right_or_not(phone_server, chromium, room, mode):
    """After the reveal: "Right!" to a phone that answered right, "You did not answer" to one
    that did not answer (and "Not this time" to a wrong one: in the test above). The page once
    told everyone "Not this time": it read a field the roster does not have."""
    base, teacher = phone_server
    code, key = room.code, room.teacher_key
    question_id, picked = CHOICE["zh"]
    assert QUESTIONS[question_id].truth().answer == picked
    phone = Phone(chromium, base, mode, "en")
    try:
        join(phone, code, teacher, key)
        teacher.ask(code, key, question_id)
        time.sleep(FRESH + 0.05)  # the server's kept room is then read again (see heard)
        phone.page.reload()
        with phone.navigating():
            phone.page.get_by_role("button", name=picked, exact=True).tap()
        phone.page.get_by_text(phone.says("cl_received")).wait_for(timeout=WAIT_MS)
        silent = teacher.join(code, lang="en")  # a second phone, which never answers
        teacher.reveal(code, key)
        time.sleep(FRESH + 0.05)
        phone.page.reload()
        notes = phone.page.locator("p.note").all_inner_texts()
        assert notes == [phone.says("cl_right")], notes
        silent_page = phone.context.new_page()
        phone.context.add_cookies([{"name": f"phone_{code}", "value": silent.token,
                                    "url": base}])  # fmt: skip
        silent_page.goto(f"{base}/join/{code}")
        notes = silent_page.locator("p.note").all_inner_texts()
        assert notes == [phone.says("cl_not_answered")], notes
    finally:
        phone.context.close()


def exited(pid: int) -> bool:
    """Whether the process ``pid`` (a child not yet reaped) has exited."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] in "ZX"
    except (FileNotFoundError, IndexError):
        return True


def test_a_phone_gone_lets_the_server_stop(chromium, tmp_path, monkeypatch):
    """A phone waits for the teacher, then its tab closes: the server still stops at once."""
    from bench import serve

    url = f"sqlite:///{tmp_path / 'classroom.db'}"
    monkeypatch.setenv("CLASSROOM_DB_URL", url)
    teacher = Store(url, pace=0.0)
    made = teacher.create_room()
    with serve.streamlit_server() as (base, pid):
        phone = Phone(chromium, base, "js", "en")
        join(phone, made.code, teacher, made.teacher_key)
        deadline = time.monotonic() + 5
        while not any("/state?since=" in url for url in phone.requested):  # the long-poll
            assert time.monotonic() < deadline, phone.requested
            phone.page.wait_for_timeout(50)
        phone.context.close()  # the phone went away
        time.sleep(0.5)
        stopping = time.monotonic()
        os.kill(pid, signal.SIGTERM)
        while not exited(pid) and time.monotonic() - stopping < 6:
            time.sleep(0.1)
        took = time.monotonic() - stopping
        if not exited(pid):
            os.killpg(pid, signal.SIGKILL)  # the server this test started: not 19 s more
        teacher.dispose()
        assert took < 5, f"the server stopped {took:.1f} s after SIGTERM (WAIT = {WAIT} s)"


def test_long_options_say_which_letter_is_which(phone_server, chromium, room):
    base, teacher = phone_server
    question_id, _ = CHOICE["en"]
    truth = QUESTIONS[question_id].truth()
    phone = Phone(chromium, base, "js", "en")
    try:
        join(phone, room.code, teacher, room.teacher_key)
        teacher.ask(room.code, room.teacher_key, question_id)
        phone.page.locator("h2").wait_for(timeout=WAIT_MS)
        shown = phone.main_text()
        for key, text in zip(truth.options, truth.option_text["en"], strict=True):
            button = phone.page.get_by_role("button", name=key, exact=True)
            named = text in (button.inner_text() if button.count() else "")
            lettered = re.search(rf"(^|\n)\(?{key}[).:：、]?\s+{re.escape(text)}", shown)
            assert named or lettered, f"which text is {key}? {shown!r}"
    finally:
        phone.context.close()


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_phone_follows_the_teacher_s_lesson_and_answers_its_question(
    phone_server, chromium, room, lang
):
    """A projector (the app at 1280 × 720, presenter mode, the teacher's link) and a phone: the
    teacher picks why_sqrt_d on /classroom, and the phone shows step 1's title, then step 2's
    after → (each within PHONE_DELAY, no reload); on a step with a question, Ask the class puts
    it on the phone, which answers it; the store holds the answer."""
    from browser_support import count_runs, wait_idle

    from ui.kit.lessons import lessons

    base, teacher = phone_server
    code, key = room.code, room.teacher_key
    phone = Phone(chromium, base, "js", lang)
    projector = count_runs(chromium.new_context(viewport={"width": 1280, "height": 720}))
    tab = projector.new_page()
    lesson = lessons()["why_sqrt_d"]
    try:
        join(phone, code, teacher, key)
        phone.mark()
        tab.goto(f"{base}/classroom?room={code}&key={key}&lang={lang}&present=true")
        wait_idle(tab, settle_ms=800)
        tab.get_by_role("button", name=t("cl_lessons_button", lang)).click()
        since = time.monotonic()
        tab.get_by_role("button", name=lesson.title[lang], exact=True).click()
        took = {"step 1": phone.heard("p.step", lesson.steps[0].title[lang], since=since)}
        wait_idle(tab, settle_ms=800)
        tab.locator(".st-key-lesson_bar").wait_for(timeout=WAIT_MS)
        since = time.monotonic()
        tab.keyboard.press("ArrowRight")
        took["step 2"] = phone.heard("p.step", lesson.steps[1].title[lang], since=since)
        assert teacher.room(code).step == 2
        question = lesson.steps[1].question
        assert question is not None  # the lesson's step 2 asks the class
        wait_idle(tab, settle_ms=800)
        since = time.monotonic()
        tab.locator(".st-key-lesson_ask button").click()
        truth = QUESTIONS[question].truth()
        took["question"] = phone.heard("h2", QUESTIONS[question].say(lang, truth.args), since=since)
        (ARTIFACTS / f"phone-lesson-{lang}.json").write_text(json.dumps(took))  # s, click → phone
        box = phone.page.locator("main#live input[name=value]")
        box.fill(f"{truth.value:.1f}")
        with phone.navigating():
            phone.page.get_by_role("button", name=phone.says("cl_send"), exact=True).tap()
        phone.page.get_by_text(phone.says("cl_received")).wait_for(timeout=WAIT_MS)
        [student] = teacher.students(code, key)
        assert student.answered and teacher.room(code).question_id == question
        save(phone, "lesson-step")
        assert phone.errors == []
    finally:
        phone.context.close()
        projector.close()
