"""What mqweb checks of a request before it runs (issue 62): MQ's error body (``Problem``), the CSRF
rule, and the body read within its limits (MAX_BODY, BODY_WAIT, a refused one drained up to
DRAIN_MAX), parsed as JSON that can be encoded, and a queue name from a URL that MQ could have."""
from __future__ import annotations

import asyncio
import json
import re
from typing import Any

from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse

from mqlite.web import auth as A

MAX_BODY = 4 * 1024 * 1024          # MQ's messaging REST API takes messages up to 4 MB; MQSC less
DRAIN_MAX = 64 * 1024 * 1024        # a refused body is read (and dropped) up to this, so its client hears why
BODY_WAIT = 10.0                    # seconds a request's body may take to arrive (a slow client is 408)
CSRF = "ibm-mq-rest-csrf-token"
OBJECT_NAME = re.compile(r"[A-Za-z0-9._/%]{1,48}")     # the characters and length of an MQ object name


class Problem(Exception):
    """An answer other than success: the HTTP status and MQ's error object."""

    def __init__(self, status: int, message_id: str, message: str, explanation: str = "", action: str = "",
                 kind: str = "rest", completion: int | None = None, reason: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.body: dict[str, Any] = {"type": kind, "messageId": message_id, "message": f"{message_id}: {message}",
                                     "explanation": explanation or message, "action": action or
                                     "Resubmit the request, correcting any issues."}
        if completion is not None:
            self.body.update(completionCode=completion, reasonCode=reason)


def error_response(p: Problem, request: Request | None = None) -> JSONResponse:
    """MQ's error body. A 401 challenges for basic authentication, except a script's request that
    says it is one (X-Requested-With: XMLHttpRequest, as the console's), which a browser would
    otherwise answer with its own password dialog."""
    script = request is not None and request.headers.get("x-requested-with", "").lower() == "xmlhttprequest"
    headers = {"WWW-Authenticate": 'Basic realm="mqweb"'} if p.status == 401 and not script else None
    return JSONResponse({"error": [p.body]}, status_code=p.status, headers=headers)


def not_authenticated(why: str) -> Problem:
    return Problem(401, "MQWB0103E", "Not authorized.", why,
                   "Resubmit the request with HTTP basic authentication or the token POST /login gives.")


def no_role(ident: A.Identity, what: str) -> Problem:
    return Problem(403, "MQWB0103E", f"Not authorized to {what}.",
                   f"The user '{ident.user}' has no role that allows this request.",
                   "Ask for a role that allows it: MQWebAdmin, MQWebAdminRO or MQWebUser (setmqweb properties).")


def need_csrf(request: Request) -> None:
    """A state-changing request names the CSRF header. POST /login may instead send its JSON as
    application/json, as IBM's documented login does: a page of another site cannot send that (nor
    the header) without the CORS preflight mqweb never grants, so neither way logs a browser in
    from a form elsewhere (a text/plain body could: issue 62)."""
    json_login = request.method == "POST" and request.url.path.endswith("/login") and \
        request.headers.get("content-type", "").split(";")[0].strip().lower() == "application/json"
    if request.method in ("POST", "PATCH", "DELETE") and CSRF not in request.headers and not json_login:
        raise Problem(403, "MQWB0100E", f"The CSRF header {CSRF} was omitted from the request.",
                      "The REST API request cannot be completed because the CSRF header was omitted.",
                      "Resubmit the request with the correct CSRF header.")


def queue_named(name: str) -> str:
    """A queue name from a URL; one MQ could not have (other characters, over 48) is not found, as
    MQOPEN would answer it (it made a 500 with a traceback: issue 62)."""
    if not OBJECT_NAME.fullmatch(name):
        raise Problem(404, "MQWB0300E", f"Cannot create messaging connection to {name}: the queue does not exist.",
                      kind="pcf", completion=2, reason=2085)
    return name


def too_large() -> Problem:
    return Problem(413, "MQWB0306E", "The request body is too large.",
                   f"mqweb takes request bodies of up to {MAX_BODY} bytes.", "Resubmit the request with a smaller body.")


async def read_body(request: Request) -> bytes:
    """The request's body, read as it arrives: 413 once it passes MAX_BODY (whatever it announced),
    408 if it has not all come within BODY_WAIT seconds."""
    chunks: list[bytes] = []
    size = 0
    request.state.reading = True

    async def read() -> None:
        nonlocal size
        async for chunk in request.stream():
            size += len(chunk)
            if size > MAX_BODY:
                chunks.clear()
                if size > DRAIN_MAX:
                    break
            else:
                chunks.append(chunk)
    try:
        await asyncio.wait_for(read(), BODY_WAIT)
    except asyncio.TimeoutError:
        raise Problem(408, "MQWB0002E", "The request body did not arrive in time.",
                      f"The client sent less of the body than it announced within {BODY_WAIT:g} seconds.",
                      "Resubmit the request with its whole body.") from None
    if size > MAX_BODY:
        raise too_large()
    return b"".join(chunks)


async def drain(request: Request) -> None:
    """Before a refusal the body was not read for: read what the client sends, keeping none of it,
    up to DRAIN_MAX bytes or BODY_WAIT seconds, so that it reads the answer (a client still
    sending when the connection closes sees it reset instead). A body announced larger is not
    waited for."""
    announced = request.headers.get("content-length", "")
    if getattr(request.state, "reading", False) or (announced.isdigit() and int(announced) > DRAIN_MAX):
        return

    async def discard() -> None:
        size = 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > DRAIN_MAX:
                return
    try:
        await asyncio.wait_for(discard(), BODY_WAIT)
    except (asyncio.TimeoutError, OSError, ClientDisconnect):
        pass


def _plain(value: Any) -> bool:
    """Whether a parsed JSON value holds only text that can be encoded (no lone surrogate, which
    JSON's escapes allow and UTF-8 does not)."""
    if isinstance(value, str):
        return not any("\ud800" <= c <= "\udfff" for c in value)
    if isinstance(value, dict):
        return all(_plain(k) and _plain(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_plain(v) for v in value)
    return True


def json_body(request: Request) -> dict[str, Any]:
    raw = request.state.body
    try:
        body = json.loads(raw.decode("utf-8")) if raw else None
    except (UnicodeDecodeError, ValueError, RecursionError):
        # (ValueError: bad JSON, or a number of more digits than Python converts; RecursionError:
        # arrays nested thousands deep)
        body = None
    if not isinstance(body, dict) or not _plain(body):
        raise Problem(400, "MQWB2004E", "The body of the request could not be parsed.",
                      "The body of the HTTP request could not be parsed, possibly due to bad formatting of the data.",
                      "Ensure the request contains valid data that matches the data format expected for the "
                      "specified HTTP resource, HTTP method, and HTTP content type.")
    return body
