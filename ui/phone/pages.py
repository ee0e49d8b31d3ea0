"""The phone page: ``/join`` asks for the code, ``/join/CODE`` joins, renames and answers with
plain forms (a reload shows the state), and its few lines of script only add live updates.
Server-rendered from the app's own strings; Jinja2 escapes everything a student typed."""

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote

from jinja2 import Environment, FileSystemLoader
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.templating import Jinja2Templates

from classroom import QUESTIONS, Invalid, NotFound, Refusal, Unavailable
from classroom.refusals import sentence
from classroom.safety import normalise_code
from classroom.store import Mine, Roster
from ui.classroom.compute import view_link, why_text
from ui.kit.lessons import step_named
from ui.kit.text import t
from ui.phone import web
from ui.phone.api import Api, mine

HERE = Path(__file__).parent
# Everything escaped, whatever a template's name: a nickname or an answer is a student's text.
TEMPLATES = Jinja2Templates(
    env=Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=True)
)
SCRIPT = (HERE / "phone.js").read_text(encoding="utf-8")
LANGUAGES = (("zh", "中文"), ("en", "EN"))
log = logging.getLogger(__name__)
GONE = {"ended", "expired", "no_room"}  # the class is not there: nothing to join


@dataclass(frozen=True)
class Screen:
    """What one phone's page shows: which view, for which class, and a note (a refusal)."""

    view: str  # ask_code, gone, join, student, or away (the database did not answer)
    code: str | None = None
    roster: Roster | None = None
    me: Mine | None = None
    note: str = ""
    note_kind: str = "warn"


def question(roster: Roster, me: Mine, lang: str) -> dict[str, Any] | None:
    """The question as the page draws it; None while the teacher has asked none."""
    view = roster.view
    if view.question_id is None or view.question_id not in QUESTIONS:
        return None
    texts = view.option_text.get(lang, view.options)
    long = view.kind == "choice" and tuple(texts) != view.options  # the articles' A–D
    long_texts = (
        [f"{key}. {text}" for key, text in zip(view.options, texts, strict=True)] if long else []
    )
    options = [
        {"key": key, "text": key if long_texts else text, "picked": key == me.answer_key}
        for key, text in zip(view.options, texts, strict=True)
    ]
    return {
        "number": view.number or 1, "phase": view.phase, "kind": view.kind, "options": options,
        "short": all(len(text) <= 6 for text in texts),  # three to a row
        "prompt": QUESTIONS[view.question_id].say(lang, view.args), "long_texts": long_texts,
        "bars": bars(roster), "answered": view.answered or 0, "truth": truth(roster, lang),
        **reveal(roster, lang),
    }  # fmt: skip


def bars(roster: Roster) -> list[dict[str, Any]]:
    """The class's answers as plain bars, once shown; the right one marked once revealed."""
    counts = roster.view.counts or {}
    top = max(counts.values(), default=0) or 1
    right = roster.view.answer
    return [
        {"label": key, "count": n, "width": round(100 * n / top), "right": key == right}
        for key, n in counts.items()
    ]


def reveal(roster: Roster, lang: str) -> dict[str, str]:
    """Once revealed: why the truth is what it is, and the link that opens the app's view of
    the question (the app's own page: no room, token or key)."""
    view = roster.view
    if view.phase != "revealed" or view.question_id not in QUESTIONS:
        return {"why": "", "link": ""}
    link = view_link(view.question_id or "", view.settings, lang, view.answer)
    return {"why": why_text(view.chart, lang), "link": link}


def truth(roster: Roster, lang: str) -> str:
    """The right answer the app computed, once revealed (a number with its bin)."""
    view = roster.view
    if view.answer is None:
        return ""
    if view.value is not None:
        from ui.kit.figures import format_value  # plotly's import: not at the server's start

        return t("cl_truth_number", lang, value=format_value(view.value, 4), bin=view.answer)
    return t("cl_truth", lang, answer=view.answer)


def render(request: Request, shown: Screen, lang: str, status: int = 200) -> Response:
    """The whole page, or only its main part (``?part=main``, what the script draws anew)."""
    me = shown.me
    view = shown.roster.view if shown.roster else None
    title = t("ph_title", lang, code=shown.code) if shown.code else t("ph_join_title", lang)
    context = {
        "t": lambda key, **fields: t(key, lang, **fields), "lang": lang, "title": title,
        "languages": LANGUAGES, "view": shown.view, "code": shown.code,
        "version": view.version if view else -1, "live": shown.view in ("student", "away"),
        "locked": bool(view and view.locked), "me": me, "note": shown.note,
        "note_kind": shown.note_kind, "script": SCRIPT,
        "question": question(shown.roster, me, lang) if shown.roster and me else None,
        "right": mine(shown.roster, me)["right"] if shown.roster and me else None,
        "step": step_named(view.lesson, view.step, lang) if view else None,
    }  # fmt: skip
    name = "main.html" if request.query_params.get("part") == "main" else "page.html"
    response = TEMPLATES.TemplateResponse(request, name, context, status_code=status)
    response.headers["Cache-Control"] = "no-store"
    return response


class Pages:
    """The page's handlers, over the API's (one hub, one store)."""

    def __init__(self, api: Api) -> None:
        self.api = api

    async def ask_code(self, request: Request) -> Response:
        """GET /join: a box for the code; ?code= sends the phone on to that class's page."""
        lang = web.lang(request)
        typed = request.query_params.get("code")
        if typed is None:
            return render(request, Screen("ask_code"), lang)
        code = normalise_code(typed[:32])
        if code is None:
            return render(request, Screen("ask_code", note=t("refusal_no_room", lang)), lang, 404)
        return RedirectResponse(f"/join/{code}?lang={lang}", 303)

    async def who(self, request: Request, code: str, lang: str) -> Screen:
        """Who this phone is in the class: a student, someone who may join, or no class."""
        token, _ = web.token(request, code)
        try:
            roster, me = await self.api.student(code, token)
            return Screen("student", code, roster, me)
        except NotFound as error:
            if error.code in GONE:
                return Screen("gone", code, note=sentence(error, lang))
            roster = await self.api.hub().roster(code)
            note = sentence(error, lang) if token else ""  # removed: said once, then join
            return Screen("join", code, roster, note=note)

    async def page(self, request: Request) -> Response:
        """GET /join/CODE: the phone's page; ?me=TOKEN (a phone that lost its cookie) sets the
        cookie and leaves the address bar at once."""
        lang = web.lang(request)
        code = web.room_code(request)
        if code is None:
            return render(request, Screen("gone", note=t("refusal_no_room", lang)), lang, 404)
        given = request.query_params.get("me")
        if given:
            response = RedirectResponse(f"/join/{code}?lang={lang}", 303)
            web.set_cookie(response, request, code, given[:64])
            return response
        try:
            shown = await self.who(request, code, lang)
        except Refusal as error:
            away = Screen("away", code, note=sentence(error, lang))  # the database, a moment
            return render(request, away, lang, web.status(error))
        return render(request, shown, lang, 404 if shown.view == "gone" else 200)

    async def post(self, request: Request) -> Response:
        """POST /join/CODE: join, rename or answer (the form's ``do``), then back to the page
        (303): the page then reads what was saved. A refusal is said on the page itself."""
        lang = web.lang(request)
        code = web.room_code(request) or ""
        form: dict[str, str] = {}
        try:
            form = {k: v[0] for k, v in parse_qs((await web.body(request)).decode()).items()}
            lang = web.lang(request, form.get("lang"))
            if request.cookies.get(web.cookie_name(code)) and not web.same_site(request):
                raise web.CrossSite("cross_site")
            response = await self.act(request, code, form, lang)
        except Refusal as error:
            return await self.refused(request, code, error, lang)
        except UnicodeDecodeError:
            return await self.refused(request, code, Invalid("bad_request"), lang)
        except Exception:  # a store error it did not expect: logged; the phone is told not saved
            log.exception("the phone page's %r failed", form.get("do"))
            return await self.refused(request, code, Unavailable(), lang)
        return response

    async def act(self, request: Request, code: str, form: dict[str, str], lang: str) -> Response:
        """Do what the form asks; the redirect back to the page."""
        hub, token = self.api.hub(), web.token(request, code)[0]
        back = RedirectResponse(f"/join/{quote(code)}?lang={lang}", 303)
        if form.get("do") == "join":
            if await self.api.known(code, token) is not None:
                return back  # one device, one student
            joined = await hub.call(hub.store.join, code, None, lang)
            web.set_cookie(back, request, code, joined.token)
        elif form.get("do") == "name":
            await hub.call(hub.store.rename, code, token, form.get("nickname", ""))
        elif form.get("do") == "answer":
            typed = form.get("number", "")
            number = int(typed) if typed.isdigit() and len(typed) < 6 else None
            if typed and number is None:
                raise Invalid("bad_request")
            saved = await hub.call(
                hub.store.save_answer, code, token, form.get("value", ""), number
            )
            hub.note_answer(code, token, *saved)
        else:
            raise Invalid("bad_request")
        return back

    async def refused(self, request: Request, code: str, error: Refusal, lang: str) -> Response:
        """The page again, with what was not done and why, and the refusal's status."""
        reason = sentence(error, lang)
        note = t("ph_not_saved", lang, reason=reason) if error.code != "locked" else reason
        try:
            shown = await self.who(request, code, lang) if code else Screen("gone")
        except Exception as problem:  # the database is away (or failed): the page looks again
            if not isinstance(problem, Refusal):
                log.exception("the phone page could not read class %s", code)
            shown = Screen("away", code)
        shown = Screen(shown.view, shown.code, shown.roster, shown.me, note, "bad")
        return render(request, shown, lang, web.status(error))
