"""The console's own API beside the REST API it otherwise uses (issue 67): the attribute table as
the forms need it (``/ibmmq/console/api/schema``), and the message operations of
web/consoleops.py on ``/ibmmq/console/api/messages/{qmgr}/{queue}`` and
``/ibmmq/console/api/activity/{qmgr}``.

Roles as mqweb's: every role may read (MQWebAdmin and MQWebAdminRO as mqweb's own user,
MQWebUser as itself, whose OAM authority decides); only MQWebAdmin (as mqweb's user) and
MQWebUser (as itself) may change anything, and a change needs the CSRF header."""
from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from mqlite import pymqi
from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.cmq.errors import reason_name
from mqlite.mqsc.topics import SUB_KEYWORDS
from mqlite.objects.attrbase import ENUM, FLAG, INT, LIST
from mqlite.objects.attrs import TABLE
from mqlite.objects.help import HELP
from mqlite.objects.layout import display_order
from mqlite.web import auth as A
from mqlite.web import consoleops as O
from mqlite.web.checks import Problem, error_response, json_body, need_csrf, no_role, queue_named, read_body
from mqlite.web import displays as D
from mqlite.web import mqsc as M
from mqlite.web.qmgrs import NotFound, NotRunning, Refused, pcf_for

# The object types the console administers, by the attribute table's kind, and their MQSC qualifier
# (a channel's type goes in its CHLTYPE).
TYPES: dict[str, str] = {
    "QLOCAL": "QLOCAL", "QMODEL": "QMODEL", "QALIAS": "QALIAS", "QREMOTE": "QREMOTE",
    **{t: "CHANNEL" for t in ("SDR", "SVR", "RCVR", "RQSTR", "CLNTCONN", "SVRCONN", "CLUSSDR", "CLUSRCVR", "AMQP",
                              "MQTT")},
    "TOPIC": "TOPIC", "LISTENER": "LISTENER", "SERVICE": "SERVICE", "PROCESS": "PROCESS", "NAMELIST": "NAMELIST",
    "AUTHINFO": "AUTHINFO", "COMMINFO": "COMMINFO", "QMGR": "QMGR",
}
# A subscription's keywords are not in the attribute table (they are the subscription's, not an
# object's): their kinds for the form, with MQ's words.
SUB_FIELDS: dict[str, dict[str, Any]] = {
    "TOPICSTR": {"kind": "str", "length": 10240}, "TOPICOBJ": {"kind": "str", "length": 48},
    "DEST": {"kind": "str", "length": 48}, "DESTQMGR": {"kind": "str", "length": 48},
    "DESTCLAS": {"kind": "enum", "values": ["PROVIDED", "MANAGED"], "default": "PROVIDED"},
    "DESTCORL": {"kind": "str", "length": 48}, "USERDATA": {"kind": "str", "length": 10240},
    "SELECTOR": {"kind": "str", "length": 10240}, "SUBUSER": {"kind": "str", "length": 12},
    "WSCHEMA": {"kind": "enum", "values": ["TOPIC", "CHAR"], "default": "TOPIC"},
    "VARUSER": {"kind": "enum", "values": ["ANY", "FIXED"], "default": "ANY"},
    "EXPIRY": {"kind": "str", "length": 10, "default": "UNLIMITED"},
    "PSPROP": {"kind": "enum", "values": ["NONE", "COMPAT", "RFH2", "MSGPROP"], "default": "MSGPROP"},
    "PUBACCT": {"kind": "str", "length": 64}, "PUBAPPID": {"kind": "str", "length": 32},
    "PUBPRTY": {"kind": "str", "length": 6, "default": "ASPUB"},
    "REQONLY": {"kind": "enum", "values": ["NO", "YES"], "default": "NO"},
    "SUBLEVEL": {"kind": "int", "lo": 1, "hi": 9, "default": 1},
    "SUBSCOPE": {"kind": "enum", "values": ["ALL", "QMGR"], "default": "ALL"},
}
DEFINE_ONLY = {"TOPICSTR", "AUTHTYPE"}          # (set by DEFINE, never by ALTER)
SUB_HELP = {
    "TOPICSTR": "The topic string subscribed to (with wildcards).", "TOPICOBJ": "A topic object whose string is used.",
    "DEST": "The queue publications are put to.", "DESTQMGR": "The queue manager of that queue.",
    "DESTCLAS": "PROVIDED: DEST names the queue; MANAGED: the queue manager makes one.",
    "DESTCORL": "The CorrelId of publications put for this subscription.",
    "USERDATA": "Data given with each publication (the MQSubUserData property).",
    "SELECTOR": "An SQL92 selector publications must match.", "SUBUSER": "The user that owns the subscription.",
    "WSCHEMA": "How wildcards in the topic string are read: TOPIC (# and +) or CHAR (* and ?).",
    "VARUSER": "Whether other users may take over the subscription.",
    "EXPIRY": "Tenths of a second the subscription lasts, or UNLIMITED.",
    "PSPROP": "How publish/subscribe properties are added to publications.",
    "PUBACCT": "The accounting token of publications.", "PUBAPPID": "The ApplIdentityData of publications.",
    "PUBPRTY": "The priority of publications: ASPUB, ASQDEF or 0 to 9.",
    "REQONLY": "Whether publications are sent only when asked for (MQSUBRQ).",
    "SUBLEVEL": "The level of an intercepting subscription.", "SUBSCOPE": "Whether the subscription reaches other queue managers.",
}
assert set(SUB_FIELDS) | {"REPLACE", "NOREPLACE", "CMDSCOPE"} == SUB_KEYWORDS


def _shown(attr: Any, value: Any) -> Any:
    """A default as the form shows it: MQSC's word for an enumeration, a list, a number, text."""
    if attr.kind == FLAG:
        return bool(value)
    if attr.kind == ENUM or (attr.kind == INT and attr.values and value in attr.values.values()):
        return attr.word(value)
    if attr.kind == LIST:
        return list(value or [])
    return value


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    """Each type's attributes in DISPLAY's order: kind, limits, MQSC words, default, whether it
    may be set, and its help; the subscription's fields."""
    types: dict[str, Any] = {}
    for kind, qualifier in TYPES.items():
        table = TABLE.attrs(kind)
        order = display_order(kind, list(table))       # (what MQ shows for the type: no z/OS-only ones)
        attrs = []
        for name in order:
            a = table[name]
            item: dict[str, Any] = {"name": name, "kind": a.kind, "alterable": a.alterable or name in DEFINE_ONLY,
                                    "help": HELP[name], "default": _shown(a, a.default_for(kind))}
            if name in DEFINE_ONLY:
                item["createOnly"] = True
            if a.kind == ENUM or (a.kind == INT and a.values):
                item["values"] = list(a.values)
            if a.kind == FLAG:
                item["off"] = a.flag_off
            if a.kind == INT:
                item["lo"], item["hi"] = a.lo, a.hi
            if a.length:
                item["length"] = a.length
            attrs.append(item)
        types[kind] = {"qualifier": qualifier, "attrs": attrs}
    sub = [{"name": k, "alterable": True, "createOnly": k in ("TOPICSTR", "TOPICOBJ", "DESTCLAS"), "help": SUB_HELP[k], **v}
           for k, v in SUB_FIELDS.items()]
    types["SUB"] = {"qualifier": "SUB", "attrs": sub}
    return {"types": types}


NONE_FOUND = {2085, 2428, F.MQRCCF_CHL_STATUS_NOT_FOUND, F.MQRCCF_LSTR_STATUS_NOT_FOUND,
              F.MQRCCF_SERV_STATUS_NOT_FOUND, F.MQRCCF_NONE_FOUND, F.MQRCCF_CHANNEL_NOT_FOUND}


# The inquiries whose answer can be narrowed to the attributes asked for, and the parameter that asks.
ATTRS_PARAM = {F.MQCMD_INQUIRE_Q: F.MQIACF_Q_ATTRS, F.MQCMD_INQUIRE_CHANNEL: F.MQIACF_CHANNEL_ATTRS,
               F.MQCMD_INQUIRE_TOPIC: F.MQIACF_TOPIC_ATTRS, F.MQCMD_INQUIRE_LISTENER: F.MQIACF_LISTENER_ATTRS,
               F.MQCMD_INQUIRE_SERVICE: F.MQIACF_SERVICE_ATTRS, F.MQCMD_INQUIRE_PROCESS: F.MQIACF_PROCESS_ATTRS,
               F.MQCMD_INQUIRE_NAMELIST: F.MQIACF_NAMELIST_ATTRS, F.MQCMD_INQUIRE_AUTH_INFO: F.MQIACF_AUTH_INFO_ATTRS,
               F.MQCMD_INQUIRE_COMM_INFO: F.MQIACF_COMM_INFO_ATTRS}


def _narrowed(display: Any, params: dict[int, Any], attrs: list[str]) -> dict[int, Any]:
    """The inquiry asking only for ``attrs`` (and what names and types each object), as MQ's PCF
    lets a client ask: a list of 1,000 queues then costs what its columns cost."""
    param = ATTRS_PARAM.get(display.inquiry)
    if param is None or not display.kinds:
        return params
    selectors = {display.name}
    for kind in display.kinds:
        for word in attrs:
            attr = TABLE.lookup(kind, word)
            if attr is not None and attr.selector is not None:
                selectors.add(attr.selector)
    if display.inquiry == F.MQCMD_INQUIRE_Q:
        selectors.add(C.MQIA_Q_TYPE)
    elif display.inquiry == F.MQCMD_INQUIRE_CHANNEL:
        selectors.add(F.MQIACH_CHANNEL_TYPE)
    return {**params, param: sorted(selectors)}


def read_objects(qm: Any, user: str, qualifier: str, name: str, attrs: list[str] | None = None) -> list[dict[str, Any]]:
    """What DISPLAY ... ALL shows of each object, read from the PCF inquiry it stands for (as
    runCommandJSON's displays), keyed by MQSC keyword, with a flag as its attribute's true or false
    (SHARE false for NOSHARE: what the forms need, which the display's KEY(value) fields leave out);
    with ``attrs``, those alone (a list's columns)."""
    ask = D.request({"command": "display", "qualifier": qualifier, "name": name or "*", "responseParameters": ["all"]})
    if ask is None:
        raise O.OpError(400, "MQWB0115E", f"The console cannot display {qualifier!r}.")
    params = _narrowed(ask.display, ask.params, attrs) if attrs else ask.params
    try:
        answers = pcf_for(qm, "", user).run(ask.display.inquiry, params)
    except pymqi.MQMIError as e:
        if e.reason in NONE_FOUND:
            return []
        raise
    out = []
    for values in answers:
        read = ask.display.read(values)
        pairs = [(k, v) for k, v in read.items() if not k.startswith("=")]
        item = {k.upper(): v for k, v in M.fields_item(pairs)["parameters"].items()}
        kind = read.get("CHLTYPE") or read.get("TYPE") or (ask.display.kinds[0] if ask.display.kinds else "")
        for key in read:
            attr = TABLE.lookup(kind, key[1:]) if key.startswith("=") and kind in TABLE.by_kind else None
            if attr is not None:
                item[attr.name] = key[1:] == attr.name
        out.append(item)
    return out


def _mq_problem(e: pymqi.MQMIError, what: str) -> Problem:
    status = {2035: 403, 2085: 404, 2082: 404}.get(e.reason, 400)
    return Problem(status, "MQWB0303E" if status != 403 else "MQWB0103E",
                   f"{what} failed: {reason_name(e.reason)} ({e.reason}).", kind="pcf", completion=e.comp, reason=e.reason)


def routes(web: Any) -> list[Route]:
    """The console API's routes over mqweb's ``Web`` (its identification, pool and threads)."""

    def endpoint(fn: Callable[..., Any], read_only: bool) -> Callable[[Request], Any]:
        async def run(request: Request) -> Response:
            try:
                if not read_only:
                    need_csrf(request)
                ident = await web.identify(request)
                context = A.context_for(ident.roles, read_only)
                if context is None:
                    raise no_role(ident, "use the console" if read_only else "change messages from the console")
                request.state.body = await read_body(request)
            except Problem as p:
                return error_response(p, request)
            user = ident.user if context == A.USER else ""
            return await asyncio.get_running_loop().run_in_executor(web.threads, web.handle, request, _on, fn, user)
        return run

    def _on(request: Request, fn: Callable[..., Any], user: str) -> Response:
        params = request.path_params
        qmgr = params["qmgr"]
        queue = queue_named(params["queue"]) if "queue" in params else ""

        def call(qm: Any) -> Any:
            try:
                return fn(qm, request, queue, user)
            except O.OpError as e:
                raise Problem(e.status, e.message_id, str(e)) from None
            except pymqi.MQMIError as e:
                raise _mq_problem(e, request.method + " " + (queue or qmgr)) from None
        try:
            result = web.run_on(qmgr, call)
        except NotFound:
            raise Problem(404, "MQWB0009E", f"Could not find the queue manager '{qmgr}'.") from None
        except NotRunning:
            raise Problem(503, "MQWB0008E", f"The queue manager '{qmgr}' is not running.") from None
        except Refused:
            raise Problem(500, "MQWB0003E", f"The queue manager '{qmgr}' refused mqweb's connection (2035).",
                          kind="pcf", completion=2, reason=2035) from None
        return result if isinstance(result, Response) else JSONResponse(result)

    def browse(qm: Any, request: Request, queue: str, user: str) -> Any:
        limit = request.query_params.get("limit", str(O.BROWSE_LIMIT))
        if not limit.isdigit():
            raise O.OpError(400, "MQWB0302E", f"The limit query parameter cannot be set as {limit} is not valid.")
        return {"messages": O.browse(qm, queue, user, int(limit))}

    def put(qm: Any, request: Request, queue: str, user: str) -> Any:
        return JSONResponse({"messageId": O.put(qm, queue, user, json_body(request))}, status_code=201)

    def delete(qm: Any, request: Request, queue: str, user: str) -> Any:
        if not O.delete(qm, queue, user, request.path_params["msgid"]):
            raise O.OpError(404, "MQWB0304E", "The message is no longer on the queue.")
        return Response(status_code=204)

    def transfer(qm: Any, request: Request, queue: str, user: str) -> Any:
        body = json_body(request)
        target, ids = body.get("to"), body.get("messageIds")
        if not isinstance(target, str) or not target or (ids is not None and not isinstance(ids, list)):
            raise O.OpError(400, "MQWB0302E", 'The body must name the target queue ("to") and may list "messageIds".')
        return O.transfer(qm, queue, queue_named(target), user, ids, bool(body.get("copy")))

    def retry(qm: Any, request: Request, queue: str, user: str) -> Any:
        ids = json_body(request).get("messageIds")
        if not isinstance(ids, list) or not ids:
            raise O.OpError(400, "MQWB0302E", 'The body must list the "messageIds" to retry.')
        return {"results": O.retry(qm, queue, user, ids)}

    def objects(qm: Any, request: Request, queue: str, user: str) -> Any:
        attrs = [a for a in request.query_params.get("attrs", "").upper().split(",") if a.isalnum()]
        return {"objects": read_objects(qm, user, request.path_params["qualifier"], request.query_params.get("name", "*"),
                                        attrs or None)}

    def activity(qm: Any, request: Request, queue: str, user: str) -> Any:
        return {"statistics": O.statistics(qm, user), "events": O.events(qm, user)}

    async def schema_route(request: Request) -> Response:
        try:
            ident = await web.identify(request)
            if A.context_for(ident.roles, True) is None:
                raise no_role(ident, "use the console")
        except Problem as p:
            return error_response(p, request)
        return JSONResponse(schema())

    async def whoami(request: Request) -> Response:
        # (the page asks who is signed in before anyone is: null rather than a 401 the browser logs)
        try:
            ident = await web.identify(request)
        except Problem:
            return JSONResponse({"user": None})
        return JSONResponse({"user": {"name": ident.user, "role": sorted(ident.roles)}})

    base = "/ibmmq/console/api"
    messages = base + "/messages/{qmgr:str}/{queue:str}"
    return [Route(base + "/schema", schema_route, methods=["GET"]),
            Route(base + "/whoami", whoami, methods=["GET"]),
            Route(messages, endpoint(browse, True), methods=["GET"]),
            Route(messages, endpoint(put, False), methods=["POST"]),
            Route(messages + "/move", endpoint(transfer, False), methods=["POST"]),
            Route(messages + "/retry", endpoint(retry, False), methods=["POST"]),
            Route(messages + "/{msgid:str}", endpoint(delete, False), methods=["DELETE"]),
            Route(base + "/objects/{qmgr:str}/{qualifier:str}", endpoint(objects, True), methods=["GET"]),
            Route(base + "/activity/{qmgr:str}", endpoint(activity, True), methods=["GET"])]
