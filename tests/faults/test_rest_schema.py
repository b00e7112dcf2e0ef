"""mqweb's REST API against its own description (issue 62): API discovery serves the Swagger
description at /ibm/api/docs (when the apiDiscovery setting is on, to an authenticated user, as
MQ's mqweb with the apiDiscovery-1.0 feature), the description names every route mqweb serves and
no other, and schemathesis (property-based requests generated from the description) finds no
server error, no answer a schema does not allow, no body of an undeclared content type, and no
traceback in mqweb's log; the queue manager still serves after. Bounded: MQLITE_SCHEMA_CASES
examples an operation (10 by default), each call 15 s at most."""
from __future__ import annotations

import base64
import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import content_type_conformance, response_schema_conformance

from mqlite.cli.proc import free_port
from mqlite.testing import Harness, run_mqlite
from mqlite.web.app import create_app
from mqlite.web.openapi import OPERATIONS
from tests.faults.kit import start_mqweb

CASES = int(os.environ.get("MQLITE_SCHEMA_CASES", "10"))
AUTH = "Basic " + base64.b64encode(b"admin:passw0rd").decode()


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    h = Harness(str(tmp_path_factory.mktemp("schema")))
    try:
        qm = h.add("SCHEMAQM", "DEFINE QLOCAL(SCHEMA.Q)\n")
        env = dict(os.environ, MQLITE_DATA=h.data_dir)
        port = free_port()
        start_mqweb(env, "SCHEMAQM", port)
        yield {"qm": qm, "env": env, "base": f"http://127.0.0.1:{port}"}
        run_mqlite("endmqweb", env=env)
    finally:
        h.close()


def _get(url: str, auth: str | None = AUTH) -> tuple[int, Any]:
    req = urllib.request.Request(url, headers={"Authorization": auth} if auth else {})
    try:
        with urllib.request.urlopen(req, timeout=15) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def _described(web: dict[str, Any]) -> dict[str, Any]:
    """API discovery turned on, and the description it serves (mqweb reads its settings again
    within a second of a change)."""
    assert run_mqlite("setmqweb", "properties", "-k", "apiDiscovery", "-v", "true", env=web["env"]).returncode == 0
    deadline = time.monotonic() + 10
    while True:
        status, doc = _get(web["base"] + "/ibm/api/docs")
        if status == 200 or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert status == 200, doc
    return dict(doc)


def test_api_discovery_serves_the_description(web: dict[str, Any]) -> None:
    status, body = _get(web["base"] + "/ibm/api/docs")
    assert status == 404 and body["error"][0]["messageId"] == "MQWB0006E"          # off until it is enabled
    r = run_mqlite("setmqweb", "properties", "-k", "apiDiscovery", "-v", "maybe", env=web["env"])
    assert r.returncode == 1 and "MQWB1103E" in r.stdout
    doc = _described(web)
    assert doc["swagger"] == "2.0" and doc["basePath"] == "/ibmmq/rest"
    status, body = _get(web["base"] + "/ibm/api/docs", auth=None)
    assert status == 401 and body["error"][0]["messageId"] == "MQWB0103E"
    assert {"get", "post", "delete"} <= set(doc["paths"]["/v2/messaging/qmgr/{qmgrName}/queue/{queueName}/message"])


def test_the_description_names_every_route_and_no_other() -> None:
    served = set()
    for route in create_app().routes:
        path = getattr(route, "path", "")
        if path.startswith("/ibmmq/rest/{version:str}"):
            rest = path.removeprefix("/ibmmq/rest/{version:str}")
            served |= {(_shape(rest), m) for m in route.methods or () if m != "HEAD"}
    described = {(_shape(op.path), op.method) for op in OPERATIONS}
    assert described == served


def _shape(path: str) -> str:
    """A path with its parameters' names left out: /a/{x:str}/b and /a/{qmgrName}/b alike."""
    return "/".join("{}" if part.startswith("{") else part for part in path.split("/"))


def test_schemathesis_finds_nothing(web: dict[str, Any]) -> None:
    schema = schemathesis.openapi.from_dict(_described(web))
    checks = [not_a_server_error, response_schema_conformance, content_type_conformance]
    headers = {"Authorization": AUTH}
    calls = 0
    succeeded: set[tuple[str, str]] = set()
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) == sum(len(op.versions) for op in OPERATIONS)
    for operation in operations:
        if operation.path.endswith("/login") and operation.method.upper() == "DELETE":
            continue                     # (basic authentication has no token to end: a 401 every time)

        @settings(max_examples=CASES, deadline=None, database=None, derandomize=True,
                  suppress_health_check=list(HealthCheck))
        @given(case=operation.as_strategy())
        def run(case: Any) -> None:
            nonlocal calls
            if case.path_parameters and "qmgrName" in case.path_parameters and calls % 2:
                # (half the calls reach the queue manager and its queue, so that answers other than
                # 404 are checked against their schemas too)
                case.path_parameters["qmgrName"] = "SCHEMAQM"
                if "queueName" in case.path_parameters and "/messaging/" in case.path:
                    case.path_parameters["queueName"] = "SCHEMA.Q"     # (not the admin DELETE's: it would go)
            response = case.call(base_url=web["base"] + "/ibmmq/rest", headers=headers, timeout=15)
            calls += 1
            succeeded.add((case.method, case.path)) if response.status_code < 300 else None
            # (an answer with no body, 201 or 204, has no content type to conform)
            case.validate_response(response, checks=checks if response.content else checks[:2])
        run()
    assert calls >= len(operations)
    # Success answers were met and checked at every kind of resource, messages included.
    assert {p.split("/")[2] for _m, p in succeeded} >= {"admin", "messaging", "login"}, sorted(succeeded)
    assert any(p.endswith("/messagelist") for _m, p in succeeded), sorted(succeeded)
    log = os.path.join(web["env"]["MQLITE_DATA"], "web", "mqweb.log")
    assert "Traceback" not in (open(log, encoding="utf-8", errors="replace").read() if os.path.exists(log) else "")
    status, body = _get(web["base"] + "/ibmmq/rest/v1/admin/qmgr/SCHEMAQM")
    assert status == 200 and body["qmgr"][0]["name"] == "SCHEMAQM"
