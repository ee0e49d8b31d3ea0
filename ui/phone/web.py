"""What the phone's routes share: who is asking (a cookie or a bearer token), in which language,
whether a POST comes from this site, a body read within its cap, and a refusal's HTTP status."""

import json
from typing import Any
from urllib.parse import urlsplit

from starlette.requests import Request

from classroom import Busy, Forbidden, Invalid, NotFound, Refusal, Unavailable
from classroom.safety import normalise_code
from viz_core.settings import LANGUAGES, locale_to_lang

MAX_BODY = 4096  # bytes: a nickname, an answer and a language fit many times over
COOKIE_AGE = 12 * 3600  # s: a room's whole life
# 409: not now (closed, not asked, moved on), or taken (full, a nickname)
CONFLICTS = {"closed", "not_asked", "moved_on", "class_full", "nickname_taken"}


class TooLarge(Refusal):
    """A request body over MAX_BODY bytes."""


class CrossSite(Refusal):
    """A POST carrying a phone's cookie, sent by a page of another site."""


def cookie_name(code: str) -> str:
    """One cookie per class: a phone may have been in yesterday's class too."""
    return f"phone_{code}"


def room_code(request: Request) -> str | None:
    """The path's class code, cleaned (upper case, no spaces), or None when it is no code."""
    return normalise_code(request.path_params.get("code", ""))


def token(request: Request, code: str) -> tuple[str, bool]:
    """This phone's token and whether it came from the cookie: ``Authorization: Bearer`` first
    (a script, the benchmark), else the class's cookie; "" for none."""
    header = request.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip(), False
    return request.cookies.get(cookie_name(code), ""), True


def lang(request: Request, asked: Any = None) -> str:
    """The language: ``asked`` (a body's), the link's ?lang=, else the browser's first."""
    for value in (asked, request.query_params.get("lang")):
        if value in LANGUAGES:
            return str(value)
    first = request.headers.get("accept-language", "").split(",")[0].strip()
    return locale_to_lang(first)


def same_site(request: Request) -> bool:
    """Whether a POST comes from a page of this server: its Origin (else its Referer) names this
    host, or it names none (a script, an old browser: no cookie of another site's page)."""
    sent = request.headers.get("origin") or request.headers.get("referer")
    if not sent or sent == "null":
        return sent != "null"
    host = request.headers.get("x-forwarded-host") or request.headers.get("host", "")
    return urlsplit(sent).netloc.lower() == host.split(",")[0].strip().lower()


async def body(request: Request) -> bytes:
    """The request's body, refused past MAX_BODY bytes whatever Content-Length claims."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY:
        raise TooLarge("too_large", limit=MAX_BODY)
    data = b""
    async for chunk in request.stream():
        data += chunk
        if len(data) > MAX_BODY:
            raise TooLarge("too_large", limit=MAX_BODY)
    return data


async def json_body(request: Request) -> dict[str, Any]:
    """A JSON object body; Invalid("bad_request") for anything else."""
    try:
        found = json.loads(await body(request) or b"{}")
    except (ValueError, UnicodeDecodeError):
        raise Invalid("bad_request") from None
    if not isinstance(found, dict):
        raise Invalid("bad_request")
    return found


def status(error: Refusal) -> int:
    """The HTTP status of a refusal."""
    if isinstance(error, TooLarge):
        return 413
    if isinstance(error, Forbidden | CrossSite):
        return 403
    if isinstance(error, NotFound):
        return 404
    if isinstance(error, Unavailable | Busy):
        return 503
    return 409 if error.code in CONFLICTS else 422


def set_cookie(response: Any, request: Request, code: str, value: str) -> None:
    """The phone's cookie: HttpOnly (no script reads it), SameSite=Lax (another site's form
    cannot send it), Secure behind HTTPS, for the class's life."""
    https = request.url.scheme == "https" or request.headers.get("x-forwarded-proto") == "https"
    response.set_cookie(
        cookie_name(code), value, max_age=COOKIE_AGE, path="/", httponly=True,
        samesite="lax", secure=https,
    )  # fmt: skip
