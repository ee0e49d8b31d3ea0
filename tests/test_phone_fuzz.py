"""Hostile input to the phone page and its API: whatever a browser or a script sends (a code, a
token, a body, a query), the answer is a page or a JSON refusal with a 2xx–4xx status, never a
server error; what a student typed comes back escaped, never as markup."""

import json
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markupsafe import escape
from starlette.applications import Starlette
from starlette.testclient import TestClient

import ui.phone as phone
from classroom import Store

HOSTILE = [
    "<script>alert(1)</script>",
    "**bold** [x](javascript:alert(1))",
    '=HYPERLINK("http://x")',
    "\u202etxt.exe",
    "\x00\x07",
    "' OR 1=1 --",
    "𝕏" * 40,
    "",
    " ",
    "9" * 400,
]
TEXT = st.one_of(st.sampled_from(HOSTILE), st.text(max_size=60))
PATHS = ["/join/{code}", "/api/rooms/{code}/state", "/join"]
POSTS = ["/join/{code}", "/api/rooms/{code}/students", "/api/rooms/{code}/answers",
         "/api/rooms/{code}/nickname"]  # fmt: skip


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """A store with an open question and one student, and a client over the phone's routes."""
    store = Store(f"sqlite:///{tmp_path_factory.mktemp('fuzz') / 'class.db'}")
    room = store.create_room()
    student = store.join(room.code, lang="en")
    store.ask(room.code, room.teacher_key, "model_fill")
    app = Starlette(routes=phone.routes(lambda: store), middleware=phone.MIDDLEWARE)
    with TestClient(app, raise_server_exceptions=True) as client:
        yield store, room, student, client


def sane(response) -> None:
    """A page or a refusal, never a server error; JSON refusals carry their code."""
    assert response.status_code < 500 or response.status_code == 503, response.text[:300]
    if response.headers.get("content-type", "").startswith("application/json"):
        body = response.json()
        assert "error" in body or response.status_code < 400


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(code=TEXT, query=TEXT, path=st.sampled_from(PATHS))
def test_any_get_is_a_page_or_a_refusal(world, code, query, path):
    """A junk code or query string in any GET route: never a server error."""
    _, _, _, client = world
    url = path.format(code=quote(code, safe=""))
    sane(client.get(url, params={"lang": query, "since": query, "code": query, "part": query}))


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(value=TEXT, form=st.booleans(), path=st.sampled_from(POSTS), own=st.booleans())
def test_any_post_is_a_page_or_a_refusal(world, value, form, path, own):
    """Any value, as a form or as JSON, to any POST route of the real room or none: never a
    server error, and the store still answers."""
    store, room, student, client = world
    url = path.format(code=room.code if own else quote(value[:12], safe="") or "X")
    headers = {"Authorization": f"Bearer {student.token}"}
    fields = {"do": value, "value": value, "nickname": value, "lang": value, "number": value}
    if form:
        response = client.post(url, data=fields, headers=headers, follow_redirects=False)
    else:
        body = json.dumps(fields if len(value) % 2 else value)
        response = client.post(url, content=body, headers=headers)
    sane(response)
    assert store.room(room.code).question_id == "model_fill"


@pytest.mark.parametrize("name", HOSTILE[:3])
def test_a_hostile_nickname_and_answer_come_back_as_text(world, name):
    """A nickname and an answer full of markup are drawn escaped on the student's own page."""
    store, room, _, client = world
    joined = client.post(f"/api/rooms/{room.code}/students", json={"lang": "en"}).json()
    headers = {"Authorization": f"Bearer {joined['token']}"}
    client.post(f"/api/rooms/{room.code}/nickname", json={"nickname": name[:24]}, headers=headers)
    page = client.get(f"/join/{room.code}", headers=headers).text
    shown = store.me(room.code, joined["token"]).nickname
    assert str(escape(shown)) in page  # as Jinja escapes it: text, not markup
    assert "<script>alert" not in page and 'href="javascript' not in page
