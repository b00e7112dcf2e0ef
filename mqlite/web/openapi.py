"""The REST API's description, as MQ's mqweb serves it with API discovery (Liberty's
apiDiscovery-1.0 feature: Swagger 2.0 at ``/ibm/api/docs``), so that tools can read and test it
(tests/faults/test_rest_schema.py runs schemathesis against it). Each operation is declared once
here (``OPERATIONS``: path, method, its parameters, body and answers) and a test checks it against
the routes mqweb serves, so the description cannot drift from the server. Served when the
``apiDiscovery`` setting is true (MQ: the feature in mqwebuser.xml), to an authenticated user."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mqlite.web.checks import CSRF

VERSIONS = ("v1", "v2", "v3")
_NAME = {"type": "string", "pattern": r"^[A-Za-z0-9._/%]{1,48}$"}


def _error() -> dict[str, Any]:
    item = {"type": "object", "required": ["type", "messageId", "message", "explanation", "action"],
            "properties": {"type": {"type": "string"}, "messageId": {"type": "string"}, "message": {"type": "string"},
                           "explanation": {"type": "string"}, "action": {"type": "string"},
                           "completionCode": {"type": "integer"}, "reasonCode": {"type": "integer"}}}
    return {"type": "object", "required": ["error"], "properties": {"error": {"type": "array", "items": item}}}


def _listed(key: str, required: tuple[str, ...] = ("name",)) -> dict[str, Any]:
    """A GET's answer: ``{key: [objects]}``."""
    return {"type": "object", "required": [key], "properties": {
        key: {"type": "array", "items": {"type": "object", "required": list(required)}}}}


_COMMAND = {"type": "object", "required": ["type"], "properties": {
    "type": {"type": "string", "enum": ["runCommand", "runCommandJSON"]},
    "parameters": {"type": "object", "properties": {"command": {"type": "string"}}},
    "command": {"type": "string"}, "qualifier": {"type": "string"}, "name": {"type": "string"},
    "responseParameters": {"type": "array", "items": {"type": "string"}}}}
_COMMAND_ANSWER = {"type": "object", "required": ["commandResponse", "overallCompletionCode", "overallReasonCode"],
                   "properties": {"commandResponse": {"type": "array", "items": {
                       "type": "object", "required": ["completionCode", "reasonCode"]}},
                       "overallCompletionCode": {"type": "integer"}, "overallReasonCode": {"type": "integer"}}}
_LOGIN = {"type": "object", "required": ["username", "password"],
          "properties": {"username": {"type": "string"}, "password": {"type": "string"}}}


@dataclass(frozen=True)
class Op:
    """One operation: the path under /ibmmq/rest/{version}, its method, what it is, its query
    parameters, its body (a JSON schema, or "text" for a message), and its answers by status."""
    path: str
    method: str
    summary: str
    versions: tuple[str, ...] = VERSIONS
    query: tuple[str, ...] = ()
    body: dict[str, Any] | str | None = None
    answers: dict[int, dict[str, Any] | str | None] = field(default_factory=dict)


_Q = "/admin/qmgr/{qmgrName}"
_MSG = "/messaging/qmgr/{qmgrName}/queue/{queueName}"
OPERATIONS = (
    Op("/login", "POST", "Log in: a token in a cookie", body=_LOGIN, answers={204: None}),
    Op("/login", "GET", "The user logged in and their roles", answers={200: _listed("user")}),
    Op("/login", "DELETE", "Log out", answers={204: None}),
    Op("/admin/installation", "GET", "The installation", answers={200: _listed("installation")}),
    Op("/admin/qmgr", "GET", "The queue managers", query=("state", "status"), answers={200: _listed("qmgr")}),
    Op(_Q, "GET", "A queue manager", query=("status",), answers={200: _listed("qmgr")}),
    Op("/admin/action/qmgr/{qmgrName}/mqsc", "POST", "An MQSC command (runCommand, runCommandJSON)",
       body=_COMMAND, answers={200: _COMMAND_ANSWER}),
    Op(_Q + "/queue", "GET", "Queues", ("v1",), ("name", "type", "attributes", "status", "filter"),
       answers={200: _listed("queue", ("name", "type"))}),
    Op(_Q + "/queue", "POST", "Create a queue", ("v1",), ("like",), body={"type": "object"}, answers={201: None}),
    Op(_Q + "/queue/{queueName}", "GET", "A queue", ("v1",), ("type", "attributes", "status", "filter"),
       answers={200: _listed("queue", ("name", "type"))}),
    Op(_Q + "/queue/{queueName}", "PATCH", "Change a queue", ("v1",), body={"type": "object"}, answers={204: None}),
    Op(_Q + "/queue/{queueName}", "DELETE", "Delete a queue", ("v1",), ("purge", "keepAuthorityRecords"),
       answers={204: None}),
    Op(_Q + "/channel", "GET", "Channels", ("v1",), ("name", "type", "attributes", "filter"),
       answers={200: _listed("channel", ("name", "type"))}),
    Op(_Q + "/channel/{channelName}", "GET", "A channel", ("v1",), ("type", "attributes", "filter"),
       answers={200: _listed("channel", ("name", "type"))}),
    Op(_Q + "/subscription", "GET", "Subscriptions", ("v1",), ("name", "id", "attributes", "filter"),
       answers={200: _listed("subscription", ("id",))}),
    Op(_Q + "/subscription/{subscriptionName}", "GET", "A subscription", ("v1",), ("attributes", "filter"),
       answers={200: _listed("subscription", ("id",))}),
    Op(_MSG + "/message", "POST", "Put a message", body="text", answers={201: None}),
    Op(_MSG + "/message", "GET", "Browse a message", query=("messageId", "correlationId", "wait"),
       answers={200: "text", 204: None}),
    Op(_MSG + "/message", "DELETE", "Get a message (destructively)", query=("messageId", "correlationId", "wait"),
       answers={200: "text", 204: None}),
    Op(_MSG + "/messagelist", "GET", "List the messages of a queue", query=("limit", "messageId", "correlationId"),
       answers={200: {"type": "array", "items": {"type": "object"}}}),
    Op("/messaging/qmgr/{qmgrName}/topic/{topicString}/message", "POST", "Publish a message", body="text",
       answers={201: None}),
)


def _operation(op: Op, version: str) -> dict[str, Any]:
    params: list[dict[str, Any]] = []
    for part in op.path.split("/"):
        if part.startswith("{"):
            params.append({"name": part[1:-1], "in": "path", "required": True,
                           **({"type": "string"} if part == "{topicString}" else _NAME)})
    params += [{"name": q, "in": "query", "required": False, "type": "string"} for q in op.query]
    if op.method != "GET" and not (op.path == "/login" and op.method == "POST"):
        params.append({"name": CSRF, "in": "header", "required": True, "type": "string"})
    out: dict[str, Any] = {"summary": op.summary, "operationId": f"{op.method.lower()}{op.path}@{version}",
                           "produces": ["application/json"]}
    if op.body == "text":
        params.append({"name": "message", "in": "body", "required": True, "schema": {"type": "string"}})
        out["consumes"] = ["text/plain;charset=utf-8"]
    elif op.body is not None:
        params.append({"name": "body", "in": "body", "required": True, "schema": op.body})
        out["consumes"] = ["application/json"]
    out["parameters"] = params
    responses: dict[str, Any] = {}
    for status, schema in op.answers.items():
        if schema == "text":
            out["produces"] = ["text/plain;charset=utf-8", "application/json"]
            responses[str(status)] = {"description": "the message", "schema": {"type": "string"}}
        else:
            responses[str(status)] = {"description": "success", **({"schema": schema} if schema else {})}
    responses["default"] = {"description": "MQ's error", "schema": {"$ref": "#/definitions/Error"}}
    out["responses"] = responses
    return out


def description(version: str = "") -> dict[str, Any]:
    """The Swagger 2.0 description of the REST API, every version's operations."""
    paths: dict[str, dict[str, Any]] = {}
    for op in OPERATIONS:
        for v in op.versions:
            paths.setdefault(f"/{v}{op.path}", {})[op.method.lower()] = _operation(op, v)
    return {"swagger": "2.0",
            "info": {"title": "IBM MQ REST API", "description": "mqweb's administrative and messaging REST API "
                     "(mqlite)", "version": version or "2.0"},
            "basePath": "/ibmmq/rest", "schemes": ["https", "http"],
            "securityDefinitions": {"basicAuth": {"type": "basic"}}, "security": [{"basicAuth": []}],
            "paths": paths, "definitions": {"Error": _error()}}
