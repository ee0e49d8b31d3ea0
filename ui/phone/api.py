"""The class's JSON API under ``/api/rooms/CODE/``: the phone page's JavaScript, the benchmark and
any other client use it. A phone is its cookie or ``Authorization: Bearer TOKEN``; refusals are
the store's codes with their HTTP status (``web.status``)."""

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from classroom import QUESTIONS, Forbidden, Invalid, NotFound, Refusal
from classroom.refusals import sentence
from classroom.safety import digest
from classroom.store import Mine, Roster
from ui.classroom.compute import view_link, why_text
from ui.kit.lessons import step_named
from ui.phone import web
from ui.phone.hub import Hub, Watched

T = TypeVar("T")
LANGS = ("zh", "en")
Handler = Callable[["Api", Request], Awaitable[Response]]


def refused(error: Refusal, lang: str) -> JSONResponse:
    """A refusal as JSON: its code, its sentence in ``lang``, its status (503: when to retry)."""
    code = web.status(error)
    headers = {"Retry-After": "1" if error.code == "unavailable" else "5"} if code == 503 else {}
    message = {"error": error.code, "message": sentence(error, lang)}
    return JSONResponse(message, status_code=code, headers=headers)


def answered(handler: Handler) -> Handler:
    """Say any refusal the handler meets as JSON."""

    async def wrapped(self: "Api", request: Request) -> Response:
        try:
            return await handler(self, request)
        except Refusal as error:
            return refused(error, web.lang(request))

    return wrapped


async def unless_gone(request: Request, waiting: Awaitable[T]) -> T | None:
    """``waiting``'s result, or None once the client has gone (a phone that left, a page that
    answered and moved on): its wait ends then, not WAIT seconds later."""
    work = asyncio.ensure_future(waiting)
    gone = asyncio.ensure_future(_disconnected(request))
    try:
        await asyncio.wait({work, gone}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (work, gone):
            if not task.done():
                task.cancel()
    return work.result() if work.done() and not work.cancelled() else None


async def _disconnected(request: Request) -> None:
    """Return when the client closes the connection (a GET's body is already read)."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


def code_of(request: Request) -> str:
    """The path's class code; NotFound("no_room") when it cannot be one."""
    code = web.room_code(request)
    if code is None:
        raise NotFound("no_room")
    return code


def _version(room: Watched) -> int:
    """The room's version as last read (-1 before any read)."""
    return -1 if room.roster is None else room.roster.view.version


def shared(roster: Roster) -> dict[str, Any]:
    """What every phone of the room is told at this version: the question, its options and
    prompt in both languages; counts once shown, the truth once revealed, with why (a sentence)
    and the link to the app's view behind it, each in both languages."""
    view = roster.view
    question = QUESTIONS.get(view.question_id or "")
    prompt = {lang: question.say(lang, view.args) for lang in LANGS} if question else None
    return {
        "version": view.version, "phase": view.phase, "question_id": view.question_id,
        "number": view.number, "kind": view.kind, "options": list(view.options),
        "option_text": {k: list(v) for k, v in view.option_text.items()}, "prompt": prompt,
        "counts": view.counts, "answered": view.answered, "answer": view.answer,
        "value": view.value, "locked": view.locked, **taught(roster),
        "step": {lang: step_named(view.lesson, view.step, lang) for lang in LANGS},
    }  # fmt: skip


def taught(roster: Roster) -> dict[str, dict[str, str] | None]:
    """Once revealed: ``why`` (None for a truth stored before reveals said why) and ``link``,
    each by language; both None before."""
    view = roster.view
    if view.phase != "revealed" or view.question_id not in QUESTIONS:
        return {"why": None, "link": None}
    why = {lang: why_text(view.chart, lang) for lang in LANGS}
    link = {lang: view_link(view.question_id or "", view.settings, lang, view.answer)
            for lang in LANGS}  # fmt: skip
    return {"why": why if all(why.values()) else None, "link": link}


def mine(roster: Roster, me: Mine) -> dict[str, Any]:
    """One student's part: their nickname, their answer, and once revealed whether it is right."""
    view = roster.view
    right = None
    if view.phase == "revealed" and me.answer_key is not None:
        right = me.answer_key == view.answer
    return {"nickname": me.nickname, "answer": me.answer, "answer_key": me.answer_key,
            "right": right}  # fmt: skip


class Api:
    """The API's handlers over one hub (made on the first request, in the server's loop)."""

    def __init__(self, hub: Callable[[], Hub]) -> None:
        self.hub = hub

    def payload(self, code: str, roster: Roster) -> bytes:
        """The shared part as JSON bytes, built once per roster (per room version) and kept
        with the room (the hub's rooms are bounded)."""
        room = self.hub().rooms.get(code)
        if room is not None and room.told is not None and room.told[0] is roster:
            return room.told[1]
        told = json.dumps(shared(roster), ensure_ascii=False).encode()
        if room is not None:
            room.told = (roster, told)
        return told

    def state_body(self, code: str, roster: Roster, me: Mine) -> bytes:
        """This phone's state: its own part spliced before the room's shared JSON."""
        own = json.dumps(mine(roster, me), ensure_ascii=False).encode()
        return b'{"me":' + own + b"," + self.payload(code, roster)[1:]

    async def known(self, code: str, token: str) -> Mine | None:
        """The student this token already is in the class; None for none (removed, another
        class's, no token): one device stays one student."""
        if not token:
            return None
        try:
            return (await self.student(code, token))[1]
        except NotFound:
            return None

    async def student(self, code: str, token: str) -> tuple[Roster, Mine]:
        """The room and the student with this token: from the kept roster, read again once if
        the token is not in it (joined a moment ago, elsewhere); the store says why otherwise."""
        hub = self.hub()
        roster = await hub.roster(code)
        hashed = digest(token) if token else ""
        if hashed not in roster.students and token:
            roster = await hub.roster(code, again=True)
        if hashed not in roster.students:
            if not token:
                raise NotFound("not_in_class")
            await hub.call(hub.store.me, code, token)  # raises why: removed, not in the class
            raise NotFound("not_in_class")
        return roster, roster.students[hashed]

    @answered
    async def state(self, request: Request) -> Response:
        """GET …/state?since=V: at once without since or when the room is past V; else waits
        up to WAIT seconds for the version to move (a long-poll)."""
        code = code_of(request)
        token, _ = web.token(request, code)
        roster, me = await self.student(code, token)
        since = request.query_params.get("since", "")
        if since.lstrip("-").isdigit():
            past = int(since)
            waiting = self.hub().wait(code, lambda room: _version(room) > past)
            if await unless_gone(request, waiting) is None:
                return Response(status_code=204)  # nobody is listening any more
            roster, me = await self.student(code, token)
        return Response(self.state_body(code, roster, me), media_type="application/json")

    @answered
    async def join(self, request: Request) -> Response:
        """POST …/students {"lang", "nickname"?}: 201 and the cookie; a phone that is already a
        student of this class (its cookie or token) stays that student (200)."""
        code = code_of(request)
        token, from_cookie = web.token(request, code)
        if from_cookie and token and not web.same_site(request):
            raise web.CrossSite("cross_site")
        asked = await web.json_body(request)
        me = await self.known(code, token)
        if me is not None:
            return JSONResponse({"token": token, "nickname": me.nickname})
        lang = web.lang(request, asked.get("lang"))
        hub = self.hub()
        joined = await hub.call(hub.store.join, code, asked.get("nickname"), lang)
        response = JSONResponse({"token": joined.token, "nickname": joined.nickname}, 201)
        web.set_cookie(response, request, code, joined.token)
        return response

    async def _posted(self, request: Request) -> tuple[str, str, dict[str, Any]]:
        """A student's POST: the code, the token (a cross-site page's cookie refused), the body."""
        code = code_of(request)
        token, from_cookie = web.token(request, code)
        if from_cookie and not web.same_site(request):
            raise web.CrossSite("cross_site")
        return code, token, await web.json_body(request)

    @answered
    async def answer(self, request: Request) -> Response:
        """POST …/answers {"value"}: 200 only once the answer is committed."""
        code, token, asked = await self._posted(request)
        hub = self.hub()
        number = asked.get("number")  # the question the phone saw: a late tap never answers
        if number is not None and (not isinstance(number, int) or isinstance(number, bool)):
            raise Invalid("bad_request")
        text, key = await hub.call(hub.store.save_answer, code, token, asked.get("value"), number)
        hub.note_answer(code, token, text, key)
        return JSONResponse({"answer_key": key})

    @answered
    async def rename(self, request: Request) -> Response:
        """POST …/nickname {"nickname"}: the nickname as stored."""
        code, token, asked = await self._posted(request)
        hub = self.hub()
        name = await hub.call(hub.store.rename, code, token, asked.get("nickname"))
        return JSONResponse({"nickname": name})

    @answered
    async def count(self, request: Request) -> Response:
        """GET …/count?since=N, for the teacher's key only: the answer counter, those who
        answered the current question and those who joined; waits while the counter is N."""
        code = code_of(request)
        key, _ = web.token(request, code)
        hub = self.hub()
        if not key:
            raise Forbidden("not_teacher")
        await hub.call(hub.store.tally, code, key)  # the key, checked before anything waits
        since = request.query_params.get("since", "")
        past = int(since) if since.lstrip("-").isdigit() else -2
        room = await unless_gone(request, hub.wait(code, lambda r: r.answers > past, True))
        if room is None:
            return Response(status_code=204)  # nobody is listening any more
        tally = await hub.call(hub.store.tally, code, key)
        counts = {"answers": room.answers, "answered": tally.answered, "joined": tally.joined}
        return JSONResponse(counts)
