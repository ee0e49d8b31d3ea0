"""The phone page (/join/CODE) and its JSON API (/api/rooms/CODE/…), served as a plain Starlette
app over a real store: each rule on SQLite and on PostgreSQL (a throwaway schema per session).

Without a PostgreSQL server the PostgreSQL half skips loudly, or fails when CI or
REQUIRE_POSTGRES=1 says the server must be there. What a page or a refusal says is read from the
strings files themselves, never from the code under test.
"""

import gzip
import html
import re
import threading
import time
import tomllib
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

import ui.phone as phone
from classroom import Busy, Store, Unavailable
from classroom.safety import digest
from ui.phone import api as phone_api
from ui.phone import hub as phone_hub

ROOT = Path(__file__).resolve().parent.parent
STRINGS: dict[str, dict[str, str]] = {}
for _file in ("classroom/strings.toml", "ui/classroom/strings.toml", "ui/phone/strings.toml"):
    STRINGS.update(tomllib.loads((ROOT / _file).read_text(encoding="utf-8")))

ORIGIN = "http://testserver"  # the TestClient's own site
EVIL = "https://evil.example"
NUMBER = "softmax_top"  # a number question: "0.66" counts as the bin "0.65–0.7"
CHOICE = "article_xi_share"  # a choice question: one of 我 喜 欢 人 工 智
LONG_CHOICE = "article_why_scale"  # a choice whose options are long sentences (a big payload)


def said(key: str, lang: str = "en", **fields: object) -> str:
    """The sentence ``key`` in ``lang``, as the strings files write it."""
    return STRINGS[key][lang].format(**fields)


# --- fixtures -----------------------------------------------------------------------------------


@pytest.fixture
def make_store(url):
    """Stores on this test's database (no pacing between answers); engines closed afterwards."""
    made: list[Store] = []

    def make(at: str | None = None) -> Store:
        made.append(Store(at or url, pace=0.0))
        return made[-1]

    yield make
    for store in made:
        store.dispose()


@pytest.fixture
def store(make_store):
    return make_store()


@pytest.fixture
def room(store):
    return store.create_room()


class Server:
    """The phone routes over one store, and a TestClient (one phone: one cookie jar) on them."""

    def __init__(self, store: Store, client: TestClient, api: phone_api.Api) -> None:
        self.store = store
        self.client = client
        self.api = api

    def waiting(self) -> int:
        """Requests the hub holds in a long-poll now (the hub exists after a first request)."""
        return self.api.hub().waiting


@contextmanager
def serving(store: Store) -> Iterator[Server]:
    """The app as the brief builds it: plain Starlette, the phone's routes and middleware."""
    routes = phone.routes(lambda: store)
    app = Starlette(routes=routes, middleware=phone.MIDDLEWARE)
    api = next(route.endpoint.__self__ for route in routes if route.path.startswith("/api/"))
    try:
        with TestClient(app, follow_redirects=False) as client:
            yield Server(store, client, api)
    finally:
        let_the_hub_go(api)


def let_the_hub_go(api: phone_api.Api) -> None:
    """Close the hub (its threads, its PostgreSQL listener) if a request made one: no thread or
    connection of one test outlives it."""
    try:
        made = api.hub()
    except RuntimeError:  # no request made one: making one needs the server's running loop
        return
    made.close()


@pytest.fixture
def server(store):
    with serving(store) as served:
        yield served


@pytest.fixture
def client(server):
    return server.client


# --- helpers ------------------------------------------------------------------------------------


def api(code: str, part: str) -> str:
    return f"/api/rooms/{code}/{part}"


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def join(client: TestClient, code: str, **body: Any) -> dict[str, Any]:
    """Join by the API (the client keeps the cookie); the answer's JSON."""
    response = client.post(api(code, "students"), json={"lang": "en", **body})
    assert response.status_code == 201, response.text
    return response.json()


def ask(store: Store, room, question_id: str = NUMBER) -> int:
    """The teacher asks ``question_id``; the room's new version."""
    return store.ask(room.code, room.teacher_key, question_id).version


def state(client: TestClient, code: str, **params: Any) -> dict[str, Any]:
    response = client.get(api(code, "state"), params=params)
    assert response.status_code == 200, response.text
    return response.json()


def refusal(response, status: int, code: str) -> None:
    """The response is the JSON refusal ``code`` with ``status``."""
    assert response.status_code == status, response.text
    assert response.json()["error"] == code


def mine(store: Store, code: str, token: str):
    """The student with ``token`` as the store holds them now (read behind the server's back)."""
    return store.roster(code).students[digest(token)]


def page(client: TestClient, code: str, lang: str = "en", **params: Any):
    return client.get(f"/join/{code}", params={"lang": lang, **params})


def text_of(response) -> str:
    """A page's text as a reader sees it (entities decoded)."""
    return html.unescape(response.text)


def tap(client: TestClient, code: str, headers: dict[str, str] | None = None, **form: str):
    """Submit the page's form (``do`` = join, name or answer), as a browser with JS off."""
    return client.post(f"/join/{code}", data={"lang": "en", **form}, headers=headers)


def option_values(response) -> list[str]:
    """The answer buttons' values on a choice question's page."""
    return re.findall(r'<button type="submit" name="value" value="([^"]*)"', response.text)


@contextmanager
def in_background(action: Callable[[], Any], delay: float = 0.0) -> Iterator[Future]:
    """Run ``action`` in another thread after ``delay`` seconds; its error surfaces at the end."""
    with ThreadPoolExecutor(1) as pool:

        def run() -> Any:
            time.sleep(delay)
            return action()

        done = pool.submit(run)
        yield done
        done.result(timeout=30)


def timed(action: Callable[[], Any]) -> tuple[Any, float]:
    start = time.monotonic()
    result = action()
    return result, time.monotonic() - start


def wait_until(condition: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.01)


# --- joining by the API -------------------------------------------------------------------------


def test_joining_by_the_api_gives_a_token_and_an_httponly_lax_cookie(client, room):
    """201 with the token and the nickname; the class's cookie holds the token, HttpOnly and
    SameSite=Lax, and not Secure over plain HTTP."""
    response = client.post(api(room.code, "students"), json={"lang": "en"})
    assert response.status_code == 201
    joined = response.json()
    assert joined["token"] and joined["nickname"]
    cookie = response.headers["set-cookie"]
    assert cookie.startswith(f"phone_{room.code}={joined['token']};")
    assert "httponly" in cookie.lower()
    assert "samesite=lax" in cookie.lower()
    assert "secure" not in cookie.lower()


def test_the_cookie_is_secure_behind_https(client, room):
    """Behind a proxy that says HTTPS, the cookie is Secure."""
    response = client.post(
        api(room.code, "students"), json={"lang": "en"}, headers={"X-Forwarded-Proto": "https"}
    )
    assert response.status_code == 201
    assert "secure" in response.headers["set-cookie"].lower()


def test_a_phone_that_joined_stays_the_same_student_by_cookie_or_bearer(client, store, room):
    """One device, one student: joining again with the cookie, or with the token as Bearer,
    answers 200 with the same token, and the store still has one student."""
    first = join(client, room.code)
    again = client.post(api(room.code, "students"), json={"lang": "en"})
    assert again.status_code == 200
    assert again.json() == {"token": first["token"], "nickname": first["nickname"]}
    client.cookies.clear()
    by_bearer = client.post(
        api(room.code, "students"), json={"lang": "en"}, headers=bearer(first["token"])
    )
    assert by_bearer.status_code == 200
    assert by_bearer.json()["token"] == first["token"]
    assert len(store.roster(room.code).students) == 1


def test_a_nickname_given_at_joining_is_kept_and_a_bad_one_refused(client, room):
    """{"nickname"} names the student; a nickname past 24 characters is 422, nobody joined."""
    assert join(client, room.code, nickname="Ada")["nickname"] == "Ada"
    client.cookies.clear()
    too_long = client.post(
        api(room.code, "students"), json={"nickname": "<script>alert(1)</script>"}
    )
    refusal(too_long, 422, "nickname_too_long")
    assert "set-cookie" not in too_long.headers


# --- the state and its long-poll ----------------------------------------------------------------


def test_state_without_since_answers_at_once_with_the_room_and_my_answer(client, store, room):
    """No since: the room as it is now (version, phase, question, kind, options) and my part."""
    me = join(client, room.code)
    version = ask(store, room)
    found, elapsed = timed(lambda: state(client, room.code))
    assert elapsed < 1.0
    assert found["version"] == version
    assert (found["phase"], found["question_id"], found["kind"]) == ("open", NUMBER, "number")
    assert found["number"] == 1
    assert "0.65–0.7" in found["options"]
    assert found["me"] == {
        "nickname": me["nickname"], "answer": None, "answer_key": None, "right": None
    }  # fmt: skip


def test_a_long_poll_is_woken_by_an_ask_on_this_server(client, store, room, monkeypatch):
    """state?since=V waits while the room is at V; the teacher's ask (another thread, this
    store) answers it at once with the new version, far inside the 25 s wait. (The hub's own
    looks at the database are slowed to 30 s here: only the change itself can wake it.)"""
    monkeypatch.setattr(phone_hub, "WAIT", 8.0)  # a broken wake fails in 8 s, not 25
    monkeypatch.setattr(phone_hub, "CHECK", 30.0)
    monkeypatch.setattr(phone_hub, "CHECK_HEARD", 30.0)
    join(client, room.code)
    version = state(client, room.code)["version"]
    with in_background(lambda: ask(store, room), delay=0.5):
        found, elapsed = timed(lambda: state(client, room.code, since=version))
    assert 0.4 < elapsed < 2.0
    assert found["version"] > version
    assert found["question_id"] == NUMBER


def test_a_long_poll_is_woken_by_a_change_made_through_another_store(
    client, make_store, room, monkeypatch
):
    """A change made by another Store on the same database (another replica) reaches a phone
    waiting here within about a second (SQLite: the hub's look every 0.25 s; PostgreSQL: its
    NOTIFY)."""
    monkeypatch.setattr(phone_hub, "WAIT", 8.0)
    join(client, room.code)
    elsewhere = make_store()
    version = state(client, room.code)["version"]
    asked_at: list[float] = []

    def ask_elsewhere() -> None:
        ask(elsewhere, room)
        asked_at.append(time.monotonic())

    with in_background(ask_elsewhere, delay=0.5):
        found = state(client, room.code, since=version)
        heard_at = time.monotonic()
    assert found["version"] > version
    assert found["question_id"] == NUMBER
    assert heard_at - asked_at[0] < 1.0


def test_a_long_poll_with_nothing_new_answers_after_the_wait_unchanged(client, room, monkeypatch):
    """When nothing moves, the long-poll answers after WAIT with the same version."""
    monkeypatch.setattr(phone_hub, "WAIT", 0.6)
    join(client, room.code)
    version = state(client, room.code)["version"]
    found, elapsed = timed(lambda: state(client, room.code, since=version))
    assert found["version"] == version
    assert 0.5 < elapsed < 2.0


def test_a_long_poll_behind_the_room_answers_at_once(client, store, room):
    """since=V for a V the room has passed answers at once (the phone missed a step)."""
    join(client, room.code)
    old = state(client, room.code)["version"]
    ask(store, room)
    found, elapsed = timed(lambda: state(client, room.code, since=old))
    assert elapsed < 1.0
    assert found["version"] > old


# --- answers ------------------------------------------------------------------------------------


def test_an_answer_is_saved_and_shown_in_my_state(client, store, room):
    """POST answers: 200 with the answer's key once committed; state's me shows the answer."""
    me = join(client, room.code)
    ask(store, room)
    response = client.post(api(room.code, "answers"), json={"value": "0.66"})
    assert response.status_code == 200
    assert response.json() == {"answer_key": "0.65–0.7"}
    assert state(client, room.code)["me"]["answer"] == "0.66"
    assert state(client, room.code)["me"]["answer_key"] == "0.65–0.7"
    assert mine(store, room.code, me["token"]).answer == "0.66"


def test_an_answer_after_close_is_refused_409_closed_and_not_saved(client, store, room):
    join(client, room.code)
    ask(store, room)
    store.close(room.code, room.teacher_key)
    response = client.post(api(room.code, "answers"), json={"value": "0.66"})
    refusal(response, 409, "closed")
    assert response.json()["message"] == said("closed", "zh")  # no language named: Chinese
    assert state(client, room.code)["me"]["answer"] is None


def test_an_api_answer_for_an_old_question_number_is_refused_moved_on(client, store, room):
    """{"number"} names the question the phone saw: a late tap never answers the next one."""
    join(client, room.code)
    ask(store, room)
    ask(store, room)  # question 2
    response = client.post(api(room.code, "answers"), json={"value": "0.66", "number": 1})
    refusal(response, 409, "moved_on")
    assert state(client, room.code)["me"]["answer"] is None
    right = client.post(api(room.code, "answers"), json={"value": "0.66", "number": 2})
    assert right.status_code == 200


def test_a_tap_for_an_old_question_is_refused_even_just_after_another_server_moved_on(
    tmp_path, monkeypatch
):
    """A phone saw question 1; the teacher, on another server (replica), asks question 2; the
    tap meant for question 1 arrives a moment later: moved_on, never an answer to question 2.
    (SQLite: no NOTIFY; FRESH is widened from 0.25 s to 5 s so the window is certain.)"""
    monkeypatch.setattr(phone_hub, "FRESH", 5.0)
    url = f"sqlite:///{tmp_path / 'classroom.db'}"
    here, elsewhere = Store(url, pace=0.0), Store(url, pace=0.0)
    try:
        room = here.create_room()
        with serving(here) as served:
            client = served.client
            me = join(client, room.code)
            ask(here, room)
            assert state(client, room.code)["number"] == 1
            ask(elsewhere, room)  # question 2, through the other server
            answer = {"value": "0.66", "number": 1}
            response = client.post(api(room.code, "answers"), json=answer)
            refusal(response, 409, "moved_on")
            assert mine(here, room.code, me["token"]).answer is None
    finally:
        here.dispose()
        elsewhere.dispose()


@pytest.mark.parametrize(
    ("question_id", "value", "code"),
    [
        (NUMBER, "banana", "not_a_number"),
        (CHOICE, "Z", "not_an_option"),
        (NUMBER, "", "answer_empty"),
    ],
)
def test_an_answer_that_does_not_fit_is_refused_422(client, store, room, question_id, value, code):
    join(client, room.code)
    ask(store, room, question_id)
    refusal(client.post(api(room.code, "answers"), json={"value": value}), 422, code)
    assert state(client, room.code)["me"]["answer"] is None


@pytest.mark.parametrize("body", [b"[1, 2]", b"{not json", b"\xff\xfe"])
def test_a_body_that_is_no_json_object_is_refused_422_bad_request(client, store, room, body):
    join(client, room.code)
    ask(store, room)
    response = client.post(
        api(room.code, "answers"), content=body, headers={"Content-Type": "application/json"}
    )
    refusal(response, 422, "bad_request")


@pytest.mark.parametrize("code", ["ZZZZZZ", "nope"])
def test_an_unknown_room_is_404_no_room(client, code):
    """A code no class has (or that cannot be a code) is 404 no_room, on every route."""
    refusal(client.post(api(code, "students"), json={"lang": "en"}), 404, "no_room")
    refusal(client.get(api(code, "state"), headers=bearer("x")), 404, "no_room")
    refusal(client.post(api(code, "answers"), json={"value": "1"}), 404, "no_room")


def test_an_unknown_token_is_404(client, store, room):
    ask(store, room)
    refusal(client.get(api(room.code, "state"), headers=bearer("nobody")), 404, "not_in_class")
    refusal(client.get(api(room.code, "state")), 404, "not_in_class")  # no token at all
    response = client.post(api(room.code, "answers"), json={"value": "0.66"}, headers=bearer("x"))
    refusal(response, 404, "not_in_class")


def padded(size: int) -> bytes:
    """A valid answer body of exactly ``size`` bytes (JSON white space does the padding)."""
    core = b'{"value": "0.66"}'
    return core[:-1] + b" " * (size - len(core)) + b"}"


def test_a_body_of_4096_bytes_is_read_and_one_byte_more_is_refused_413(client, store, room):
    """The cap is 4096 bytes: at the cap the answer is saved, one byte over it is 413."""
    join(client, room.code)
    ask(store, room)
    assert client.post(api(room.code, "answers"), content=padded(4096)).status_code == 200
    refusal(client.post(api(room.code, "answers"), content=padded(4097)), 413, "too_large")


def test_a_large_body_without_content_length_is_refused_413(client, store, room):
    """A streamed (chunked) body is counted as it comes: no Content-Length, still 413."""
    me = join(client, room.code)
    ask(store, room)
    body = padded(6000)
    response = client.post(api(room.code, "answers"), content=iter([body[:3000], body[3000:]]))
    assert "content-length" not in response.request.headers
    assert response.request.headers["transfer-encoding"] == "chunked"
    refusal(response, 413, "too_large")
    assert mine(store, room.code, me["token"]).answer is None
    declared = client.post(api(room.code, "students"), content=b"{}" + b" " * 5000)
    refusal(declared, 413, "too_large")


def test_a_page_form_over_4096_bytes_is_refused_413(client, store, room):
    join(client, room.code)
    ask(store, room)
    english = {"Accept-Language": "en"}  # the body, and its lang, are never read
    response = tap(client, room.code, english, do="answer", value="0.66", pad="x" * 5000)
    assert response.status_code == 413
    assert said("too_large", limit=4096) in text_of(response)


def test_a_database_that_is_away_is_503_with_retry_after():
    """PostgreSQL not answering: the API says 503 "unavailable" and Retry-After: 1; the page
    says so with 503 too. Nothing hangs."""
    dead = Store("postgresql+psycopg://postgres@127.0.0.1:1/x", pace=0.0)
    try:
        with serving(dead) as served:
            client = served.client
            client.headers["Accept-Language"] = "en"
            for response in (
                client.post(api("ABCDEF", "students"), json={"lang": "en"}),
                client.get(api("ABCDEF", "state"), headers=bearer("x")),
                client.post(api("ABCDEF", "answers"), json={"value": "1"}, headers=bearer("x")),
            ):
                refusal(response, 503, "unavailable")
                assert response.headers["retry-after"] == "1"
                assert response.json()["message"] == said("unavailable")
            shown = page(client, "ABCDEF")
            assert shown.status_code == 503
            assert said("unavailable") in text_of(shown)
    finally:
        dead.dispose()


@pytest.mark.parametrize(
    ("error", "retry"), [(Unavailable(), "1"), (Busy("too_many_waiting"), "5")]
)
def test_a_store_that_cannot_save_now_is_503(client, store, room, monkeypatch, error, retry):
    """The store's Unavailable or Busy during an answer: 503 with Retry-After, nothing saved."""
    me = join(client, room.code)
    ask(store, room)

    def fails(*args: Any) -> tuple[str, str]:
        raise error

    monkeypatch.setattr(store, "save_answer", fails)
    response = client.post(api(room.code, "answers"), json={"value": "0.66"})
    refusal(response, 503, error.code)
    assert response.headers["retry-after"] == retry
    assert mine(store, room.code, me["token"]).answer is None


# --- cross-site requests ------------------------------------------------------------------------

ELSEWHERE = [
    {"Origin": EVIL},
    {"Origin": "null"},  # a sandboxed frame, a file:// page
    {"Referer": f"{EVIL}/trap.html"},  # an old browser that sends no Origin
    {"Origin": "http://testserver.evil.example"},
]


@pytest.mark.parametrize("sent", ELSEWHERE, ids=["origin", "null", "referer", "suffix"])
def test_a_cross_site_post_carrying_the_cookie_is_refused_and_saves_nothing(
    client, store, room, sent
):
    """Another site's page may make the browser send the phone's cookie: 403 cross_site on every
    POST (API and page form), and nothing is saved or renamed."""
    me = join(client, room.code)
    ask(store, room)
    answer = client.post(api(room.code, "answers"), json={"value": "0.66"}, headers=sent)
    refusal(answer, 403, "cross_site")
    rename = client.post(api(room.code, "nickname"), json={"nickname": "Pwned"}, headers=sent)
    refusal(rename, 403, "cross_site")
    rejoin = client.post(api(room.code, "students"), json={"lang": "en"}, headers=sent)
    refusal(rejoin, 403, "cross_site")
    form = tap(client, room.code, headers=sent, do="answer", value="0.66", number="1")
    assert form.status_code == 403
    assert said("cross_site") in text_of(form)
    now = mine(store, room.code, me["token"])
    assert (now.answer, now.nickname) == (None, me["nickname"])
    assert len(store.roster(room.code).students) == 1


def test_a_same_site_post_carrying_the_cookie_works(client, store, room):
    """The page's own Origin (or Referer) is this server: the POST goes through."""
    me = join(client, room.code)
    ask(store, room)
    answer = client.post(
        api(room.code, "answers"), json={"value": "0.66"}, headers={"Origin": ORIGIN}
    )
    assert answer.status_code == 200
    rename = client.post(
        api(room.code, "nickname"), json={"nickname": "Ada"},
        headers={"Referer": f"{ORIGIN}/join/{room.code}"},
    )  # fmt: skip
    assert rename.json() == {"nickname": "Ada"}
    form = tap(client, room.code, headers={"Origin": ORIGIN}, do="answer", value="0.6", number="1")
    assert form.status_code == 303
    assert mine(store, room.code, me["token"]).answer == "0.6"


def test_a_bearer_post_without_the_cookie_from_another_origin_is_allowed(client, store, room):
    """A token in Authorization is no ambient credential (no page of another site can set it
    without this server's consent): any Origin may use it."""
    me = join(client, room.code)
    ask(store, room)
    client.cookies.clear()
    headers = {"Origin": EVIL, **bearer(me["token"])}
    response = client.post(api(room.code, "answers"), json={"value": "0.66"}, headers=headers)
    assert response.status_code == 200
    assert mine(store, room.code, me["token"]).answer == "0.66"


# --- the page: a link with the token, forms without script --------------------------------------


def test_a_me_link_sets_the_cookie_and_leaves_the_token_out_of_the_address(client, store, room):
    """/join/CODE?me=TOKEN: 303 to /join/CODE?lang=… with no token in it; the cookie is set,
    and the page that follows knows the student."""
    student = store.join(room.code, "Ada", "en")
    response = page(client, room.code, me=student.token)
    assert response.status_code == 303
    assert response.headers["location"] == f"/join/{room.code}?lang=en"
    assert student.token not in response.headers["location"]
    cookie = response.headers["set-cookie"]
    assert cookie.startswith(f"phone_{room.code}={student.token};")
    assert "httponly" in cookie.lower()
    shown = client.get(response.headers["location"])
    assert said("cl_you_are", name="Ada") in text_of(shown)


def test_the_whole_flow_works_by_forms_without_script(client, store, room):
    """Join, answer a choice question and rename with plain forms: each POST is a 303 back to
    the page, which then shows what was saved."""
    first = page(client, room.code)
    assert first.status_code == 200
    assert 'name="do" value="join"' in first.text
    joined = tap(client, room.code, do="join")
    assert joined.status_code == 303
    assert joined.headers["location"] == f"/join/{room.code}?lang=en"
    assert joined.headers["set-cookie"].startswith(f"phone_{room.code}=")
    (student,) = store.roster(room.code).students.values()
    assert said("cl_you_are", name=student.nickname) in text_of(page(client, room.code))

    ask(store, room, CHOICE)
    shown = page(client, room.code)
    options = option_values(shown)
    assert options == list(store.room(room.code).options)
    assert 'name="number" value="1"' in shown.text
    tapped = tap(client, room.code, do="answer", value=options[2], number="1")
    assert tapped.status_code == 303
    after = page(client, room.code)
    assert said("cl_received") in text_of(after)
    assert f'value="{options[2]}" class="picked" aria-pressed="true"' in after.text
    assert store.roster(room.code).students[student_key(store, room)].answer == options[2]

    renamed = tap(client, room.code, do="name", nickname="Ada")
    assert renamed.status_code == 303
    assert said("cl_you_are", name="Ada") in text_of(page(client, room.code))
    assert tap(client, room.code, do="join").status_code == 303  # joined already: no one new
    assert len(store.roster(room.code).students) == 1


def student_key(store: Store, room) -> str:
    """The one student's token hash."""
    (key,) = store.roster(room.code).students
    return key


def test_a_number_question_is_answered_by_the_form(client, store, room):
    tap(client, room.code, do="join")
    ask(store, room, NUMBER)
    shown = page(client, room.code)
    assert 'inputmode="decimal"' in shown.text
    assert tap(client, room.code, do="answer", value="0.66", number="1").status_code == 303
    after = text_of(page(client, room.code))
    assert said("cl_received") in after
    assert said("cl_your_answer", answer="0.66") in after


def test_a_tap_after_close_says_closed_and_not_saved(client, store, room):
    """Closed between the page's load and the tap: 409, the page says it was not saved and why."""
    tap(client, room.code, do="join")
    ask(store, room, CHOICE)
    value = option_values(page(client, room.code))[0]
    store.close(room.code, room.teacher_key)
    response = tap(client, room.code, do="answer", value=value, number="1")
    assert response.status_code == 409
    assert said("ph_not_saved", reason=said("closed")) in text_of(response)
    assert store.roster(room.code).students[student_key(store, room)].answer is None


def test_a_store_error_it_did_not_expect_is_not_saved_never_a_500(client, store, room, caplog):
    """The store fails in a way no refusal names (a bug, or a database error of a new kind):
    the phone is told its answer was not saved (503), the page still polls, the error is logged."""
    tap(client, room.code, do="join")
    ask(store, room, CHOICE)
    value = option_values(page(client, room.code))[0]

    def broken(*_):
        raise RuntimeError("a store bug")

    store.save_answer = broken
    response = tap(client, room.code, do="answer", value=value, number="1")
    assert response.status_code == 503
    assert said("ph_not_saved", reason=said("unavailable")) in text_of(response)
    assert 'data-live="yes"' in response.text
    assert any("a store bug" in (r.exc_text or "") for r in caplog.records)


def test_a_tap_for_an_old_question_is_refused_moved_on_and_not_saved(client, store, room):
    """A page still showing question 1 taps after question 2 was asked: 409 moved_on, and the
    tap is not taken as an answer to question 2 (whose options it may share)."""
    tap(client, room.code, do="join")
    ask(store, room, CHOICE)
    value = option_values(page(client, room.code))[0]
    ask(store, room, CHOICE)  # question 2: the same options
    response = tap(client, room.code, do="answer", value=value, number="1")
    assert response.status_code == 409
    assert said("ph_not_saved", reason=said("moved_on")) in text_of(response)
    assert store.roster(room.code).students[student_key(store, room)].answer is None


@pytest.mark.parametrize("nickname", ["<script>x()</script>", "<img src=x onerror=f()>"])
def test_a_nickname_with_markup_is_escaped_on_the_page(client, room, nickname):
    """A student's nickname is text: its < and > arrive as entities, never as a tag."""
    tap(client, room.code, do="join")
    assert tap(client, room.code, do="name", nickname=nickname).status_code == 303
    shown = page(client, room.code)
    assert html.escape(nickname, quote=False) in shown.text
    assert nickname not in shown.text
    assert "<script>x()" not in shown.text and "<img" not in shown.text


def test_a_nickname_with_markdown_is_shown_as_typed(client, room):
    tap(client, room.code, do="join")
    tap(client, room.code, do="name", nickname="**bold** [a](b)")
    shown = page(client, room.code)
    assert "**bold** [a](b)" in shown.text
    assert "<strong>" not in shown.text and '<a href="b"' not in shown.text


@pytest.mark.parametrize(
    ("value", "verdict"),
    [
        ("A", "cl_right"),
        ("B", "cl_wrong"),
        (None, "cl_not_answered"),
    ],
    ids=["right", "wrong", "not_answered"],
)
def test_after_the_reveal_the_page_says_right_wrong_or_not_answered(
    client, store, room, value, verdict
):
    """Revealed (the truth of article_why_scale is A): a right answer is told it is right, a
    wrong one wrong, and a phone that did not answer is told so; the state says the same."""
    student = store.join(room.code, "Ada", "en")
    ask(store, room, LONG_CHOICE)
    if value is not None:
        store.answer(room.code, student.token, value)
    store.reveal(room.code, room.teacher_key)
    right = {"cl_right": True, "cl_wrong": False, "cl_not_answered": None}[verdict]
    found = client.get(api(room.code, "state"), headers=bearer(student.token)).json()
    assert found["me"]["right"] is right
    client.cookies.set(f"phone_{room.code}", student.token)
    shown = text_of(page(client, room.code))
    assert said(verdict) in shown
    others = {"cl_right", "cl_wrong", "cl_not_answered"} - {verdict}
    assert not any(said(other) in shown for other in others)


def test_the_main_part_alone_is_what_the_script_redraws(client, store, room):
    """?part=main: the page's main part, without the document around it."""
    tap(client, room.code, do="join")
    part = page(client, room.code, part="main")
    assert part.status_code == 200
    assert "<html" not in part.text and "<script" not in part.text
    assert said("cl_waiting") in text_of(part)


# --- the lock -----------------------------------------------------------------------------------


def test_a_locked_room_takes_no_new_student_and_unlocks(client, store, room):
    """Locked: joining by the API is 403 locked, the page says it is locked and offers no Join
    button (the form too is 403); the student who joined before stays. Unlocked: joining works."""
    old = store.join(room.code, "Ada", "en")
    store.lock(room.code, room.teacher_key)
    refusal(client.post(api(room.code, "students"), json={"lang": "en"}), 403, "locked")
    shown = page(client, room.code)
    assert shown.status_code == 200
    assert said("locked") in text_of(shown)
    assert 'value="join"' not in shown.text
    form = tap(client, room.code, do="join")
    assert form.status_code == 403
    assert said("locked") in text_of(form)
    assert "set-cookie" not in form.headers
    assert client.get(api(room.code, "state"), headers=bearer(old.token)).json()["locked"]
    assert len(store.roster(room.code).students) == 1

    store.lock(room.code, room.teacher_key, False)
    assert client.post(api(room.code, "students"), json={"lang": "en"}).status_code == 201
    assert 'value="join"' not in page(client, room.code).text  # now a student: no join form
    assert len(store.roster(room.code).students) == 2


def test_locking_with_a_wrong_key_raises_permission_error(client, store, room):
    with pytest.raises(PermissionError):
        store.lock(room.code, "not-the-key")
    assert client.post(api(room.code, "students"), json={"lang": "en"}).status_code == 201


# --- ended rooms, removed students --------------------------------------------------------------


def test_an_ended_room_says_so_and_offers_no_join(client, store, room):
    """The page says the class has ended (404) with no join form; a phone's state is 404 ended,
    and joining is refused the same way."""
    me = join(client, room.code)
    store.end(room.code, room.teacher_key)
    shown = page(client, room.code)
    assert shown.status_code == 404
    assert said("ended") in text_of(shown)
    assert 'value="join"' not in shown.text and "<form" not in shown.text
    refusal(client.get(api(room.code, "state")), 404, "ended")
    refusal(client.get(api(room.code, "state"), headers=bearer(me["token"])), 404, "ended")
    client.cookies.clear()
    refusal(client.post(api(room.code, "students"), json={"lang": "en"}), 404, "ended")


def test_a_waiting_long_poll_is_answered_ended_when_the_room_ends(client, store, room, monkeypatch):
    monkeypatch.setattr(phone_hub, "WAIT", 8.0)
    join(client, room.code)
    version = state(client, room.code)["version"]
    with in_background(lambda: store.end(room.code, room.teacher_key), delay=0.5):
        response, elapsed = timed(
            lambda: client.get(api(room.code, "state"), params={"since": version})
        )
    refusal(response, 404, "ended")
    assert elapsed < 2.0


def test_a_removed_student_is_told_so(client, store, room, monkeypatch):
    """Removed: state is 404 removed (a waiting long-poll too); the page says so once and
    offers to join again."""
    monkeypatch.setattr(phone_hub, "WAIT", 8.0)
    me = join(client, room.code)
    (row,) = store.students(room.code, room.teacher_key)
    version = state(client, room.code)["version"]
    with in_background(partial(store.remove, room.code, room.teacher_key, row.id), delay=0.3):
        response, elapsed = timed(
            lambda: client.get(api(room.code, "state"), params={"since": version})
        )
    refusal(response, 404, "removed")
    assert elapsed < 2.0
    refusal(client.get(api(room.code, "state"), headers=bearer(me["token"])), 404, "removed")
    shown = page(client, room.code)
    assert said("removed") in text_of(shown)
    assert 'value="join"' in shown.text


# --- the teacher's count ------------------------------------------------------------------------


def test_the_count_is_the_teachers_only(client, store, room):
    """With the teacher's key: the answer counter, who answered, who joined; otherwise 403."""
    me = join(client, room.code)
    ask(store, room)
    client.post(api(room.code, "answers"), json={"value": "0.66"})
    store.join(room.code, "Bo", "en")
    client.cookies.clear()
    response = client.get(api(room.code, "count"), headers=bearer(room.teacher_key))
    assert response.status_code == 200
    assert response.json() == {"answers": 1, "answered": 1, "joined": 2}
    refusal(client.get(api(room.code, "count"), headers=bearer("wrong")), 403, "not_teacher")
    refusal(client.get(api(room.code, "count"), headers=bearer(me["token"])), 403, "not_teacher")
    refusal(client.get(api(room.code, "count")), 403, "not_teacher")


def test_a_count_long_poll_is_woken_by_an_answer(client, store, room, monkeypatch):
    monkeypatch.setattr(phone_hub, "WAIT", 8.0)
    student = store.join(room.code, "Ada", "en")
    ask(store, room)
    with in_background(partial(store.answer, room.code, student.token, "0.66"), delay=0.5):
        response, elapsed = timed(
            lambda: client.get(
                api(room.code, "count"), params={"since": 0}, headers=bearer(room.teacher_key)
            )
        )
    assert response.json() == {"answers": 1, "answered": 1, "joined": 1}
    assert 0.4 < elapsed < 2.0


# --- the server's limits ------------------------------------------------------------------------


def test_past_max_waiting_a_long_poll_is_refused_503(server, store, room, monkeypatch):
    """The server holds at most MAX_WAITING long-polls; the next is 503 too_many_waiting with
    Retry-After, and the one waiting is still answered."""
    monkeypatch.setattr(phone_hub, "MAX_WAITING", 1)
    monkeypatch.setattr(phone_hub, "WAIT", 8.0)
    client = server.client
    me = join(client, room.code)
    version = state(client, room.code)["version"]
    poll = partial(client.get, api(room.code, "state"), params={"since": version})
    with in_background(poll) as first:
        wait_until(lambda: server.waiting() == 1)
        second = client.get(
            api(room.code, "state"), params={"since": version}, headers=bearer(me["token"])
        )
        refusal(second, 503, "too_many_waiting")
        assert second.headers["retry-after"] == "5"
        ask(store, room)
    assert first.result().status_code == 200
    assert first.result().json()["version"] > version


def test_past_max_rooms_the_least_recently_used_quiet_room_is_forgotten(server, store, monkeypatch):
    """The hub keeps MAX_ROOMS rooms; a new one pushes out the oldest nobody waits on, and that
    room is simply read again when a phone asks."""
    monkeypatch.setattr(phone_hub, "MAX_ROOMS", 1)
    client = server.client
    rooms = [store.create_room() for _ in range(2)]
    phones = [store.join(room.code, lang="en") for room in rooms]
    for room, student in [*zip(rooms, phones, strict=True), (rooms[0], phones[0])]:
        response = client.get(api(room.code, "state"), headers=bearer(student.token))
        assert response.status_code == 200
    assert list(server.api.hub().rooms) == [rooms[0].code]


def test_past_max_rooms_with_a_waiter_in_every_room_a_new_room_is_503(server, store, monkeypatch):
    """When every kept room has someone waiting, a new room cannot be kept: 503 and Retry-After
    (Busy "too_many_waiting"), never a server error; the waiting phone is still answered."""
    monkeypatch.setattr(phone_hub, "MAX_ROOMS", 1)
    monkeypatch.setattr(phone_hub, "WAIT", 8.0)
    client = server.client
    busy, quiet = store.create_room(), store.create_room()
    waiter, other = store.join(busy.code, lang="en"), store.join(quiet.code, lang="en")
    first = client.get(api(busy.code, "state"), headers=bearer(waiter.token))
    version = first.json()["version"]

    def poll():
        return client.get(
            api(busy.code, "state"), params={"since": version}, headers=bearer(waiter.token)
        )

    with in_background(poll) as waiting:
        wait_until(lambda: server.waiting() == 1)
        try:
            response = client.get(api(quiet.code, "state"), headers=bearer(other.token))
        finally:
            ask(store, busy)
        refusal(response, 503, "too_many_waiting")
        assert response.headers["retry-after"] == "5"
    assert waiting.result().status_code == 200


def test_large_answers_are_gzipped_and_small_ones_are_not(client, store, room):
    """With Accept-Encoding: gzip, the page and a long question's state come compressed; a short
    refusal is sent as it is (compressing it gains nothing)."""
    gz = {"Accept-Encoding": "gzip"}
    join(client, room.code)
    ask(store, room, LONG_CHOICE)
    shown = client.get(f"/join/{room.code}", params={"lang": "en"}, headers=gz)
    assert shown.headers["content-encoding"] == "gzip"
    assert said("cl_you_are", name="").rstrip() in text_of(shown)  # decoded by the client
    found = client.get(api(room.code, "state"), headers=gz)
    assert found.headers["content-encoding"] == "gzip"
    assert found.json()["question_id"] == LONG_CHOICE
    small = client.get(api("ZZZZZZ", "state"), headers=gz)
    assert "content-encoding" not in small.headers
    plain = client.get(api(room.code, "state"), headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers


# --- language -----------------------------------------------------------------------------------


def test_the_language_is_the_links_else_the_browsers(client, room):
    """?lang= wins; without it the browser's Accept-Language (zh-CN: Chinese, en-GB: English)."""
    zh = client.get(f"/join/{room.code}", headers={"Accept-Language": "zh-CN,zh;q=0.9"})
    assert '<html lang="zh-CN">' in zh.text
    assert said("ph_join_why", "zh") in text_of(zh)
    assert said("cl_join", "zh") in zh.text
    en = client.get(f"/join/{room.code}?lang=en", headers={"Accept-Language": "zh-CN"})
    assert '<html lang="en">' in en.text
    assert said("ph_join_why", "en") in text_of(en)
    by_browser = client.get(f"/join/{room.code}", headers={"Accept-Language": "en-GB,en"})
    assert said("ph_join_why", "en") in text_of(by_browser)
    refused = client.get(api("ZZZZZZ", "state"), headers={"Accept-Language": "zh-CN"})
    assert refused.json()["message"] == said("no_room", "zh")
    refused = client.get(api("ZZZZZZ", "state") + "?lang=en", headers={"Accept-Language": "zh"})
    assert refused.json()["message"] == said("no_room", "en")


def test_the_page_form_keeps_the_language_through_the_redirect(client, room):
    joined = client.post(f"/join/{room.code}", data={"do": "join", "lang": "zh"})
    assert joined.headers["location"] == f"/join/{room.code}?lang=zh"
    assert STRINGS["cl_you_are"]["zh"].split("{")[0] in client.get(joined.headers["location"]).text


# --- weight -------------------------------------------------------------------------------------


def wire_bytes(client: TestClient, path: str) -> tuple[bytes, str]:
    """What the server sends for ``path`` to a browser that takes gzip, and the page's HTML."""
    with client.stream("GET", path, headers={"Accept-Encoding": "gzip"}) as response:
        assert response.status_code == 200
        assert response.headers["content-encoding"] == "gzip"
        raw = b"".join(response.iter_raw())
    return raw, gzip.decompress(raw).decode()


def test_the_pages_are_small_and_load_nothing_from_elsewhere(client, store, room):
    """The ask-code page, the join page and a student's busiest page (a revealed question with
    the class's bars) are each under 20 KB gzipped and name no other host: no URL, no script
    or stylesheet to fetch, no image."""
    student = store.join(room.code, "Ada", "en")
    others = [store.join(room.code, lang="en") for _ in range(3)]
    ask(store, room, LONG_CHOICE)
    for someone, value in zip([student, *others], "ABCA", strict=True):
        store.answer(room.code, someone.token, value)
    store.reveal(room.code, room.teacher_key)
    pages = {"ask_code": wire_bytes(client, "/join?lang=en"),
             "join": wire_bytes(client, f"/join/{room.code}?lang=en")}  # fmt: skip
    client.cookies.set(f"phone_{room.code}", student.token)
    pages["student"] = wire_bytes(client, f"/join/{room.code}?lang=zh")
    assert "✓" in pages["student"][1]  # the busiest page: the truth and the class's bars
    for name, (raw, text) in pages.items():
        assert len(raw) < 20_000, name
        assert "http://" not in text and "https://" not in text, name
        assert not re.search(r"<script[^>]*\bsrc\s*=", text, re.I), name
        assert not re.search(r"<link\b", text, re.I), name
        assert not re.search(r"<(img|iframe|object|embed)\b", text, re.I), name
        assert "@import" not in text and "url(" not in text, name
        assert "//" not in re.sub(r"<script>.*?</script>", "", text, flags=re.S), name


# --- one payload per version --------------------------------------------------------------------


def counted(monkeypatch, owner: Any, name: str) -> list[int]:
    """Count the calls of ``owner.name`` (a one-element list, read after)."""
    calls = [0]
    original = getattr(owner, name)
    lock = threading.Lock()

    def counting(*args: Any, **kwargs: Any) -> Any:
        with lock:
            calls[0] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, counting)
    return calls


def test_one_ask_wakes_fifty_waiting_phones_from_one_roster_read(server, store, room, monkeypatch):
    """Fifty phones wait on one room: while nothing moves the hub reads no roster; one ask wakes
    them all at once, from one or two roster reads and a single shared JSON payload for the new
    version, not one per phone."""
    monkeypatch.setattr(phone_hub, "WAIT", 10.0)
    client = server.client
    phones = [store.join(room.code, lang="en") for _ in range(50)]
    first = client.get(api(room.code, "state"), headers=bearer(phones[0].token))
    version = first.json()["version"]
    rosters = counted(monkeypatch, store, "roster")
    payloads = counted(monkeypatch, phone_api, "shared")

    def poll(token: str):
        return client.get(api(room.code, "state"), params={"since": version}, headers=bearer(token))

    with ThreadPoolExecutor(len(phones)) as pool:
        polls = [pool.submit(poll, student.token) for student in phones]
        wait_until(lambda: server.waiting() == len(phones), timeout=10)
        time.sleep(1.0)  # quiet: the hub looks at the counters, which stand still
        reads_while_waiting = rosters[0]
        started = time.monotonic()
        ask(store, room)
        answers = [done.result(timeout=10) for done in polls]
        elapsed = time.monotonic() - started
    assert reads_while_waiting <= 1, "a look that finds the counters still reads nothing more"
    assert all(response.status_code == 200 for response in answers)
    assert {response.json()["version"] for response in answers} == {version + 1}
    assert elapsed < 3.0
    assert rosters[0] - reads_while_waiting <= 2, "the roster is read per version, not per phone"
    assert payloads[0] == 1, "one shared payload for the new version"
    nicknames = {response.json()["me"]["nickname"] for response in answers}
    assert len(nicknames) == len(phones)  # each phone still gets its own part
