"""mqweb's HTTP face: IBM MQ's administrative and messaging REST APIs (``/ibmmq/rest/v1|v2|v3``)
as Starlette routes over the queue managers' own interfaces (web/qmgrs.py).

Every route answers as IBM documents: JSON bodies, MQ's error envelope (``{"error": [{"type",
"messageId", "message", "explanation", "action"}]}``) with the status MQ gives, the caller named by
HTTP basic authentication, and the ``ibm-mq-rest-csrf-token`` header required on POST, PATCH and
DELETE. The endpoints are plain functions: Starlette runs them in its thread pool, as the pymqi
face they call blocks."""
from __future__ import annotations

import asyncio
import json
import logging
import os
import platform
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from functools import partial
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Route

from mqlite import pymqi
from mqlite.cmq import CMQC
from mqlite.cmq import CMQCFC as F
from mqlite.paths import data_root, installation
from mqlite.web import auth as A
from mqlite.web import console as C
from mqlite.web import consoleapi
from mqlite.web import displays as D
from mqlite.web import messaging as Q
from mqlite.web import mqsc as M
from mqlite.web import openapi
from mqlite.web import qmgrs as W
from mqlite.web import queues as V
from mqlite.web import resources as R
from mqlite.web import subscriptions as S
from mqlite.web.checks import (
    MAX_BODY,
    Problem,
    drain,
    error_response,
    json_body,
    need_csrf,
    no_role,
    not_authenticated,
    queue_named,
    read_body,
    too_large,
)
from mqlite.web.qmgrs import BROKEN, Connections, NoAnswer, NotFound, NotRunning, Refused, known, mqsc, pcf_for, state
from mqlite.web.settings import settings_now

VERSION = "9.4.0.0"
COMMAND_LEVEL = 940
WORKERS = 40                        # requests served at once (each holds a connection while it runs)
GATEWAY = "ibm-mq-rest-gateway-qmgr"
LOG = logging.getLogger("mqlite.web")


# The MQI's refusals on the messaging API -> the HTTP status and MQ's message.
MESSAGING_REFUSALS = {
    2085: (404, "MQWB0300E", "Cannot create messaging connection to {queue}: the queue does not exist."),
    2035: (403, "MQWB0103E", "Not authorized to open {queue}."),
    2051: (403, "MQWB0303E", "The queue {queue} is inhibited for put."),
    2016: (403, "MQWB0303E", "The queue {queue} is inhibited for get."),
    2053: (503, "MQWB0303E", "The queue {queue} is full."),
    2030: (413, "MQWB0303E", "The message is longer than the queue {queue} takes."),
    2031: (413, "MQWB0303E", "The message is longer than the queue manager takes."),
    2502: (500, "MQWB0303E", "The publication on {queue} could not be delivered to a subscriber its topic's "
                             "PMSGDLV or NPMSGDLV requires it to reach; no subscriber received it."),
}


def _qmgr_problem(e: Exception, name: str) -> Problem:
    if isinstance(e, NotFound):
        return Problem(404, "MQWB0009E", f"Could not find the queue manager '{name}'.",
                       "The queue manager named in the request does not exist.",
                       "Resubmit the request with the name of an existing queue manager.")
    if isinstance(e, NotRunning):
        return Problem(503, "MQWB0008E", f"The queue manager '{name}' is not running.",
                       "The request needs the queue manager to be running.", "Start the queue manager (strmqm).")
    return Problem(500, "MQWB0003E", f"The queue manager '{name}' refused mqweb's connection (2035).",
                   "mqweb connects as the user that started it; the queue manager did not accept that user.",
                   "Give that user connect authority on the queue manager (setmqaut), or start mqweb as one it accepts.",
                   kind="pcf", completion=2, reason=2035)


class Web:
    """The routes, over one pool of queue-manager connections and one authenticator."""

    def __init__(self) -> None:
        self.connections = Connections()
        self.auth = A.Authenticator(W.registry_check, settings_now)
        self.threads = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="mqweb")
        self.snapshots = C.Snapshots(self.run_on)

    def run_on(self, qmgr: str, fn: Callable[[Any], Any]) -> Any:
        with self.connections.connection(qmgr) as qm:
            return fn(qm)

    async def console_api(self, request: Request) -> Response:
        """GET /ibmmq/console/api/snapshot (one) and /stream (one a second, Server-Sent Events), for
        any role, in the context a display runs in (the rest of the console's API: web/consoleapi.py)."""
        try:
            ident = await self.identify(request)
            context = A.context_for(ident.roles, True)
            if context is None:
                raise no_role(ident, "use the console")
        except Problem as p:
            return error_response(p, request)
        user = ident.user if context == A.USER else ""
        loop = asyncio.get_running_loop()
        if not request.url.path.endswith("/stream"):
            return JSONResponse(await loop.run_in_executor(self.threads, self.snapshots.take, user))

        async def events() -> AsyncIterator[str]:
            while True:
                snap = await loop.run_in_executor(self.threads, self.snapshots.take, user)
                yield f"data: {json.dumps(snap)}\n\n"
                await asyncio.sleep(C.KEEP_SECONDS)
        return StreamingResponse(events(), media_type="text/event-stream", headers={"Cache-Control": "no-cache"})

    def handle(self, request: Request, fn: Any, *args: Any) -> Response:
        try:
            response: Response = fn(request, *args)
            return response
        except Problem as p:
            return error_response(p)
        except Exception:        # a defect: logged, answered as MQ's mqweb answers one, never a traceback
            LOG.exception("mqweb: %s %s failed", request.method, request.url.path)
            return error_response(Problem(500, "MQWB0000E", "An unexpected error occurred.",
                                          "The request could not be completed because of an internal error.",
                                          "See the mqweb log (mqweb.log) for details."))

    async def identify(self, request: Request) -> A.Identity:
        """The caller: the login token's session, else HTTP basic authentication checked against the
        queue managers' registries (a refusal waits authFailDelay, in this request alone)."""
        token = request.cookies.get(self.auth.cookie)
        if token:
            ident = self.auth.session(token)
            if ident is None:
                raise not_authenticated("The login token is not valid or has expired.")
            return ident
        creds = A.basic_credentials(request.headers.get("authorization", ""))
        if creds is None:
            raise not_authenticated("The request gave no user and password, or they could not be read.")
        try:
            return await self.auth.check(creds[0], creds[1], request.path_params.get("qmgr", ""))
        except A.AuthError as e:
            await asyncio.sleep(e.delay)
            raise not_authenticated("The user and password were not accepted.") from None

    def work(self, request: Request, qmgr: str, fn: Callable[[Any, str], Any], read_only: bool = False,
             messaging: bool = False) -> Any:
        """``fn(connection, user)`` on a connection to ``qmgr`` in the context the caller's roles give
        (``user`` empty for mqweb's own, the caller's for MQWebUser's; the messaging API is
        MQWebUser's only); a kept connection that proves broken (the queue manager restarted) is
        replaced once. The queue manager's refusals as MQ's errors (404 no such queue manager, 503
        not running)."""
        ident: A.Identity = request.state.identity
        context = (A.USER if "MQWebUser" in ident.roles else None) if messaging \
            else A.context_for(ident.roles, read_only)
        if context is None:
            raise no_role(ident, "use the messaging API" if messaging else "run this command")
        user = ident.user if context == A.USER else ""
        for attempt in (0, 1):
            try:
                with self.connections.connection(qmgr, fresh=attempt == 1) as qm:
                    return fn(qm, user)
            except (NotFound, NotRunning, Refused) as e:
                raise _qmgr_problem(e, qmgr) from None
            except pymqi.MQMIError as e:
                if e.reason in BROKEN and attempt == 0:
                    continue
                raise Problem(500, "MQWB0003E", f"An unexpected MQ related exception {e.reason} occurred.",
                              kind="pcf", completion=e.comp, reason=e.reason) from None
        raise AssertionError("unreachable")

    # --- /admin/installation, /admin/qmgr ---------------------------------------------------------
    def installation(self, request: Request) -> Response:
        return JSONResponse({"installation": [{
            "name": installation()["INSTNAME"], "version": VERSION, "platform": platform.system().lower(),
            "architecture": 64, "installationPath": installation()["INSTPATH"],
            "dataPath": data_root(), "maximumCommandLevel": COMMAND_LEVEL, "primaryInstallation": True}]})

    def qmgrs(self, request: Request, name: str | None = None) -> Response:
        """GET /admin/qmgr[/{qm}]: name and state; ``state=`` keeps those in that state; ``status``
        (``*``, ``status`` or ``status.x``) adds a running queue manager's status from PCF Inquire Queue Manager Status."""
        query = request.query_params
        try:
            keep = R.wanted(query.get("status"), ["status"], {f"status.{k}" for k in R.QMGR_STATUS}, "status")
        except M.BadRequest as e:
            raise Problem(400, e.message_id, str(e)) from None
        wanted_state = query.get("state")
        if wanted_state not in (None, "running", "ended"):
            raise Problem(400, "MQWB0115E", f"The state '{wanted_state}' is not valid: running or ended.")
        gateway = request.headers.get(GATEWAY, "").strip()
        remote = name is not None and bool(gateway) and gateway != name
        if remote:
            # A remote queue manager, asked through the gateway: running if its command server answers.
            assert name is not None
            names, states = [name], {name: "running"}
        else:
            names = known()
            if name is not None:
                if name not in names:
                    raise _qmgr_problem(NotFound(name), name)
                names = [name]
            states = {n: state(n) for n in names}
        out = []
        for n in names:
            if wanted_state is not None and states[n] != wanted_state:
                continue
            entry: dict[str, Any] = {"name": n, "state": states[n]}
            if ("status" in query or remote) and states[n] == "running":
                try:                # (from PCF Inquire Queue Manager Status; remote: it answers)
                    shown = self.inquire(request, n, F.MQCMD_INQUIRE_Q_MGR_STATUS, {})
                except V.Refused:
                    shown = []
                if shown and "status" in query:
                    st = R.qmgr_status_json(shown[0])
                    entry["status"] = st if keep is None else R.project({"status": st}, keep).get("status", {})
            out.append(entry)
        return JSONResponse({"qmgr": out})

    # --- /admin/action/qmgr/{qmgr}/mqsc -----------------------------------------------------------
    def mqsc(self, request: Request, qmgr: str) -> Response:
        body = json_body(request)
        kind = body.get("type")
        if kind == "runCommand":
            params = body.get("parameters")
            command = params.get("command") if isinstance(params, dict) else None
            if not isinstance(command, str) or not command.strip():
                raise Problem(400, "MQWB1102E", "Mandatory arguments missing from command.")
            if any(c in command for c in "\r\n\0"):
                raise Problem(400, "MQWB1104E", "Unknown arguments specified.")
        elif kind == "runCommandJSON":
            try:
                command = M.command_text(body)
            except M.BadRequest as e:
                raise Problem(400, e.message_id, str(e)) from None
        else:
            raise Problem(400, "MQWB1104E", "Unknown arguments specified.",
                          'The request\'s "type" must be "runCommand" or "runCommandJSON".')
        ask = D.request(body) if kind == "runCommandJSON" else None
        if ask is not None:
            # A display answered from PCF (no display text to read back: a DESCR cannot pose as
            # other fields), as the v1 resources are (web/displays.py).
            try:
                items = [M.fields_item(D.shown(ask.display, values, ask.keep))
                         for values in self.inquire(request, qmgr, ask.display.inquiry, ask.params, ask.filters)]
            except V.Refused as e:
                items = [{"completionCode": 2, "reasonCode": e.reason, "message": [e.line]}]
        else:
            text, ok = self.command(request, qmgr, command, M.read_only(command))
            items = M.text_items(text, ok) if kind == "runCommand" else M.json_items(text, ok)
        cc, rc = M.overall(items)
        return JSONResponse({"commandResponse": items, "overallCompletionCode": cc, "overallReasonCode": rc})

    def command(self, request: Request, qmgr: str, command: str, read_only: bool) -> tuple[str, bool]:
        """One MQSC command for ``qmgr``'s command server, in the caller's context: its response
        text and whether it succeeded."""
        gateway = request.headers.get(GATEWAY, "").strip()
        if gateway and gateway != qmgr:
            # Through the gateway queue manager: the command reaches ``qmgr`` over its channels.
            result: tuple[str, bool] = self.work(
                request, gateway, lambda qm, user: self._remote(qm, command, qmgr, gateway, user), read_only)
            return result
        if not read_only:
            self.connections.sweep(0)          # (mqweb's own kept handles do not hold up a DELETE or ALTER)
        result = self.work(request, qmgr, lambda qm, user: mqsc(qm, command, user=user), read_only)
        return result

    # --- /admin/qmgr/{qmgr}/queue[/{name}], /channel[/{name}] (v1) --------------------------------
    def _v1(self, request: Request, qmgr: str, answer: Callable[[V.Run, V.Inquire, str | None], Response]) -> Response:
        """A v1 object resource's request: ``answer(run, inquire, name)`` with ``run`` sending MQSC
        and ``inquire`` PCF inquiries to ``qmgr`` in the caller's context; refusals as MQ's errors."""
        if request.path_params["version"] != "v1":
            raise Problem(404, "MQWB0006E", f"The resource {request.url.path} was not found.",
                          "The object resources are in version 1 of the REST API only.",
                          "Use /admin/action/qmgr/{qmgr}/mqsc in later versions.")

        def run(command: str, read_only: bool) -> tuple[str, bool]:
            return self.command(request, qmgr, command, read_only)

        def inquire(command: int, params: dict[int, Any]) -> list[dict[int, Any]]:
            return self.inquire(request, qmgr, command, params)
        try:
            return answer(run, inquire, request.path_params.get("name"))
        except M.BadRequest as e:
            raise Problem(400, e.message_id, str(e)) from None
        except V.Refused as e:
            raise Problem(e.status, e.message_id, e.line[10:], kind="pcf", completion=2, reason=e.reason) from None

    def queue(self, request: Request, qmgr: str) -> Response:
        def answer(run: V.Run, inquire: V.Inquire, name: str | None) -> Response:
            if request.method == "GET":
                return JSONResponse(V.get(inquire, name, request.query_params))
            if request.method == "POST":             # (the routes: POST without a name, the others with)
                V.create(run, json_body(request), request.query_params)
                return Response(status_code=201)
            assert name is not None
            if request.method == "PATCH":
                V.change(run, inquire, name, json_body(request))
            else:
                V.delete(run, inquire, name, request.query_params)
            return Response(status_code=204)
        return self._v1(request, qmgr, answer)

    def channel(self, request: Request, qmgr: str) -> Response:
        return self._v1(request, qmgr, lambda _run, inquire, name: JSONResponse(
            V.channels(inquire, name, request.query_params)))

    def inquire(self, request: Request, qmgr: str, command: int, params: dict[int, Any],
                filters: list[Any] | None = None) -> list[dict[int, Any]]:
        """One PCF inquiry for ``qmgr``'s command server in the caller's context (through the
        gateway header's queue manager when there is one): its answers; V.Refused when MQ refuses."""
        gateway = request.headers.get(GATEWAY, "").strip()
        remote = qmgr if gateway and gateway != qmgr else ""

        def run(qm: Any, user: str) -> list[dict[int, Any]] | int:
            # (MQ's refusal comes back as its reason, not raised: an exception leaving the
            # connection's block would have it dropped as broken)
            try:
                return list(pcf_for(qm, remote, user).run(command, params, filters))
            except pymqi.MQMIError as e:
                if e.reason in BROKEN:
                    raise
                return e.reason
        result: list[dict[int, Any]] | int = self.work(request, gateway or qmgr, run, read_only=True)
        if isinstance(result, int):
            if remote and result == CMQC.MQRC_NO_MSG_AVAILABLE:
                raise Problem(504, "MQWB0004E", f"An internal error occurred while communicating with the queue "
                                                f"manager '{qmgr}' through the gateway '{gateway}'.")
            named = next((v.decode("utf-8", "replace") for v in params.values() if isinstance(v, bytes)), "")
            raise V.Refused.of(result, named)
        return result

    def subscription(self, request: Request, qmgr: str) -> Response:
        """GET /admin/qmgr/{qmgr}/subscription[/{name}] (v1): from PCF Inquire Subscription (and
        Inquire Topic for the topic objects' strings) in the caller's context (web/subscriptions.py)."""
        if request.path_params["version"] != "v1":
            raise Problem(404, "MQWB0006E", f"The resource {request.url.path} was not found.",
                          "The object resources are in version 1 of the REST API only.",
                          "Use /admin/action/qmgr/{qmgr}/mqsc in later versions.")

        def inquire(params: dict[int, Any]) -> list[dict[int, Any]]:
            try:
                return self.inquire(request, qmgr, F.MQCMD_INQUIRE_SUBSCRIPTION, params)
            except V.Refused as e:
                if e.reason == CMQC.MQRC_NO_SUBSCRIPTION:
                    return []
                raise

        def topic_strings(names: set[str]) -> dict[str, str]:
            return {name: S.text(values.get(CMQC.MQCA_TOPIC_STRING)) for name in names
                    for values in self.inquire(request, qmgr, F.MQCMD_INQUIRE_TOPIC,
                                               {CMQC.MQCA_TOPIC_NAME: name.encode()})[:1]}
        try:
            return JSONResponse(S.subscriptions(inquire, topic_strings, request.path_params.get("name"),
                                                request.query_params))
        except M.BadRequest as e:
            raise Problem(400, e.message_id, str(e)) from None
        except S.NoSuchSubscription as e:
            raise Problem(404, "AMQ8147E", f"IBM MQ object {e} not found.", kind="pcf", completion=2,
                          reason=CMQC.MQRC_NO_SUBSCRIPTION) from None
        except V.Refused as e:
            raise Problem(e.status, e.message_id, e.line[10:], kind="pcf", completion=2, reason=e.reason) from None

    @staticmethod
    def _remote(qm: Any, command: str, qmgr: str, gateway: str, user: str) -> tuple[str, bool]:
        try:
            return mqsc(qm, command, remote=qmgr, user=user)
        except NoAnswer:
            raise Problem(504, "MQWB0004E", f"An internal error occurred while communicating with the queue "
                                            f"manager '{qmgr}' through the gateway queue manager '{gateway}'.",
                          f"The queue manager '{qmgr}' did not answer through '{gateway}' in time.",
                          "Check the channels between the gateway and the queue manager, and that the queue "
                          "manager's command server runs.") from None
        except pymqi.MQMIError as e:
            if e.reason in (2085, 2087, 2196, 2197):
                raise Problem(404, "MQWB0009E", f"Could not find the queue manager '{qmgr}'.",
                              f"The gateway queue manager '{gateway}' has no route to '{qmgr}' (reason {e.reason}).",
                              "Define a transmission queue or queue manager alias for it on the gateway.",
                              kind="pcf", completion=e.comp, reason=e.reason) from None
            raise

    # --- /messaging/qmgr/{qmgr}/queue/{queue}/message, messagelist ------------------------------
    def messaging(self, request: Request, qmgr: str, fn: Callable[[Any, str], Any]) -> Any:
        """``fn(connection, user)`` as the caller (MQWebUser), the MQI's refusals as MQ's messaging errors."""
        queue = request.path_params.get("queue") or request.path_params.get("topic", "")

        def call(qm: Any, user: str) -> Any:
            try:
                return fn(qm, user)
            except Q.MessageError as e:
                raise Problem(e.status, e.message_id, str(e)) from None
            except pymqi.MQMIError as e:
                if e.reason in BROKEN:
                    raise
                status, message_id, text = MESSAGING_REFUSALS.get(
                    e.reason, (500, "MQWB0303E", "An unforeseen error occurred while sending, publishing, "
                                                 "receiving, or browsing the message."))
                raise Problem(status, message_id, text.format(queue=queue), kind="pcf", completion=e.comp,
                              reason=e.reason) from None
        return self.work(request, qmgr, call, messaging=True)

    def message(self, request: Request, qmgr: str) -> Response:
        version = request.path_params["version"]
        topic = "topic" in request.path_params
        queue = request.path_params["topic"] if topic else queue_named(request.path_params["queue"])
        if request.method == "POST":
            msgid = self.messaging(request, qmgr, lambda qm, user: Q.put(
                qm, queue, request.state.body, request.headers.get("content-type", "text/plain"), request.headers,
                version, user, topic))
            return Response(status_code=201, headers={"ibm-mq-md-messageId": Q.format_id(msgid, version)})
        got = self.messaging(request, qmgr, lambda qm, user: Q.take(qm, queue, request.query_params, version,
                                                                     request.method == "DELETE", user))
        if got is None:
            return Response(status_code=204)
        body, headers = got
        return Response(body, status_code=200, headers=headers, media_type="text/plain;charset=utf-8")

    def message_list(self, request: Request, qmgr: str) -> Response:
        version, queue = request.path_params["version"], queue_named(request.path_params["queue"])
        return JSONResponse(self.messaging(request, qmgr, lambda qm, user: Q.message_list(
            qm, queue, request.query_params, version, user)))

    # --- /login -----------------------------------------------------------------------------------
    def who(self, request: Request) -> Response:
        ident: A.Identity = request.state.identity
        return JSONResponse({"user": [{"name": ident.user, "role": sorted(ident.roles),
                                       "authenticationMechanism": ident.mechanism}]})

    def logout(self, request: Request) -> Response:
        token = request.cookies.get(self.auth.cookie, "")
        if not self.auth.logout(token):
            raise not_authenticated("The request gave no login token to end.")
        response = Response(status_code=204)
        response.delete_cookie(self.auth.cookie, path="/")
        return response

    async def login(self, request: Request) -> Response:
        """POST /login: the user and password of the JSON body checked, a session and its cookie."""
        body = json_body(request)
        user, password = body.get("username"), body.get("password")
        if not isinstance(user, str) or not isinstance(password, str) or not user:
            raise Problem(400, "MQWB1102E", "Mandatory arguments missing from command.",
                          'The request\'s body must give "username" and "password" as strings.')
        try:
            ident = await self.auth.check(user, password, "")
        except A.AuthError as e:
            await asyncio.sleep(e.delay)
            raise not_authenticated("The user and password were not accepted.") from None
        if not ident.roles:
            raise no_role(ident, "log in")
        response = Response(status_code=204)
        response.set_cookie(self.auth.cookie, self.auth.login(ident), path="/", httponly=True,
                            secure=request.url.scheme == "https", samesite="strict")
        return response


async def api_docs(web: Web, request: Request) -> Response:
    """GET /ibm/api/docs: the REST API's Swagger description (API discovery), for any role,
    when the apiDiscovery setting is on (MQ: the apiDiscovery-1.0 feature)."""
    try:
        if not settings_now().get("apiDiscovery"):
            raise Problem(404, "MQWB0006E", f"The resource {request.url.path} was not found.",
                          "API discovery is not enabled.", "setmqweb properties -k apiDiscovery -v true")
        ident = await web.identify(request)
        if not ident.roles:
            raise no_role(ident, "use mqweb")
    except Problem as p:
        return error_response(p, request)
    return JSONResponse(openapi.description(VERSION))


def create_app() -> Starlette:
    web = Web()

    def route(path: str, fn: Any, methods: list[str], who: bool = True) -> Route:
        async def endpoint(request: Request) -> Response:
            # Everything that can refuse a request without its body does so before it is read
            # (an unauthenticated 256 MiB POST was read whole: issue 62); the body is read up to
            # MAX_BODY and no further, in BODY_WAIT.
            try:
                if request.path_params.get("version") not in ("v1", "v2", "v3"):
                    raise Problem(404, "MQWB0006E", f"The resource {request.url.path} was not found.")
                need_csrf(request)
                announced = request.headers.get("content-length", "")
                if announced and (not announced.isdigit() or int(announced) > MAX_BODY):
                    raise too_large()
                if who:
                    request.state.identity = ident = await web.identify(request)
                    if not ident.roles:
                        raise no_role(ident, "use mqweb")
                request.state.body = await read_body(request)
                if not who:                    # (POST /login checks its body's user itself)
                    response: Response = await fn(request)
                    return response
            except Problem as p:
                await drain(request)
                return error_response(p, request)
            args = [request.path_params[k] for k in ("qmgr",) if k in request.path_params]
            # (the pymqi face blocks: a plain executor, lighter than anyio's thread pool)
            return await asyncio.get_running_loop().run_in_executor(web.threads, web.handle, request, fn, *args)
        return Route(path, endpoint, methods=methods)

    base = "/ibmmq/rest/{version:str}"
    routes = [
        route(base + "/login", web.login, ["POST"], who=False),
        route(base + "/login", web.who, ["GET"]),
        route(base + "/login", web.logout, ["DELETE"]),
        route(base + "/admin/installation", web.installation, ["GET"]),
        route(base + "/admin/qmgr", web.qmgrs, ["GET"]),
        route(base + "/admin/qmgr/{qmgr:str}", web.qmgrs, ["GET"]),
        route(base + "/admin/action/qmgr/{qmgr:str}/mqsc", web.mqsc, ["POST"]),
        route(base + "/admin/qmgr/{qmgr:str}/queue", web.queue, ["GET", "POST"]),
        route(base + "/admin/qmgr/{qmgr:str}/queue/{name:str}", web.queue, ["GET", "PATCH", "DELETE"]),
        route(base + "/admin/qmgr/{qmgr:str}/channel", web.channel, ["GET"]),
        route(base + "/admin/qmgr/{qmgr:str}/channel/{name:str}", web.channel, ["GET"]),
        route(base + "/admin/qmgr/{qmgr:str}/subscription", web.subscription, ["GET"]),
        route(base + "/admin/qmgr/{qmgr:str}/subscription/{name:str}", web.subscription, ["GET"]),
        route(base + "/messaging/qmgr/{qmgr:str}/queue/{queue:str}/message", web.message, ["POST", "DELETE", "GET"]),
        route(base + "/messaging/qmgr/{qmgr:str}/queue/{queue:str}/messagelist", web.message_list, ["GET"]),
        route(base + "/messaging/qmgr/{qmgr:str}/topic/{topic:path}/message", web.message, ["POST"]),
    ]
    static = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static", "console")
    kinds = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}

    async def console_page(request: Request) -> Response:
        if not request.url.path.endswith("/"):
            return RedirectResponse("/ibmmq/console/")
        return FileResponse(os.path.join(static, "index.html"), media_type="text/html; charset=utf-8",
                            headers={"Cache-Control": "no-cache"})

    async def console_file(request: Request) -> Response:
        name = request.path_params["file"]         # (a file of the console's own folder: no other path)
        if name not in os.listdir(static) or os.path.splitext(name)[1] not in kinds:
            return error_response(Problem(404, "MQWB0006E", f"The resource {request.url.path} was not found."))
        return FileResponse(os.path.join(static, name), media_type=kinds[os.path.splitext(name)[1]],
                            headers={"Cache-Control": "no-cache"})
    routes += [Route("/ibmmq/console", console_page, methods=["GET"]),
               Route("/ibmmq/console/", console_page, methods=["GET"]),
               Route("/ibmmq/console/static/{file:str}", console_file, methods=["GET"]),
               Route("/ibmmq/console/api/snapshot", web.console_api, methods=["GET"]),
               Route("/ibmmq/console/api/stream", web.console_api, methods=["GET"]),
               Route("/ibm/api/docs", partial(api_docs, web), methods=["GET"])] + consoleapi.routes(web)

    @asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        yield
        web.threads.shutdown(wait=False)
        web.connections.close()             # the queue managers see mqweb's connections end

    async def not_routed(request: Request, exc: Exception) -> Response:
        # (Starlette's own 404 and 405, as MQ's error bodies)
        if getattr(exc, "status_code", 404) == 405:
            return error_response(Problem(405, "MQWB2005E", f"The {request.method} HTTP method is not allowed for the "
                                                             f"{request.url.path} resource request."))
        return error_response(Problem(404, "MQWB0006E", f"The resource {request.url.path} was not found."))

    app = Starlette(routes=routes, lifespan=lifespan, exception_handlers={404: not_routed, 405: not_routed})
    app.state.web = web
    return app

