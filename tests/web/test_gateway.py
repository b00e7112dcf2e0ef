"""The administrative REST API's gateway (``ibm-mq-rest-gateway-qmgr``): a command for another
queue manager goes to the gateway, crosses its channels to the other's command server, and its
answer comes back the same way; a queue manager the gateway has no route to is 404."""
from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from mqlite.cli.proc import free_port
from mqlite.testing import Harness, run_mqlite
from tests.web.conftest import call, web_user


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    h = Harness(str(tmp_path_factory.mktemp("gateway")), channel="APP.SVRCONN")
    try:
        remote = h.add("REMOTEQM", "DEFINE CHANNEL(GW.TO.REMOTE) CHLTYPE(RCVR)\n")
        gateway = h.add("GWQM", "DEFINE QLOCAL(REMOTEQM) USAGE(XMITQ)\n"
                                f"DEFINE CHANNEL(GW.TO.REMOTE) CHLTYPE(SDR) CONNAME('{remote.conname}') "
                                "XMITQ(REMOTEQM) SHORTTMR(1)\nDEFINE CHANNEL(REMOTE.TO.GW) CHLTYPE(RCVR)\n")
        remote.mqsc("DEFINE QLOCAL(GWQM) USAGE(XMITQ)\n"
                    f"DEFINE CHANNEL(REMOTE.TO.GW) CHLTYPE(SDR) CONNAME('{gateway.conname}') XMITQ(GWQM) "
                    "SHORTTMR(1)\n", check=True)
        port = free_port()
        env = dict(os.environ, MQLITE_DATA=h.data_dir)
        for key, value in (("httpHost", "127.0.0.1"), ("httpPort", str(port)), ("httpsPort", "-1")):
            assert run_mqlite("setmqweb", "properties", "-k", key, "-v", value, env=env).returncode == 0
        for qmgr in ("REMOTEQM", "GWQM"):
            web_user(env, qmgr, "admin", "passw0rd", "MQWebAdminGroup")
        assert run_mqlite("strmqweb", env=env).returncode == 0
        yield {"gateway": gateway, "remote": remote, "base": f"http://127.0.0.1:{port}/ibmmq/rest"}
        run_mqlite("endmqweb", env=env)
    finally:
        h.close()


def test_a_command_reaches_another_queue_manager_through_the_gateway(pair: dict[str, Any]) -> None:
    url = f"{pair['base']}/v2/admin/action/qmgr/REMOTEQM/mqsc"
    status, _h, body = call(url, "POST", {"type": "runCommandJSON", "command": "define", "qualifier": "qlocal",
                                          "name": "VIA.GATEWAY", "parameters": {"descr": "made through GWQM"}},
                            headers={"ibm-mq-rest-gateway-qmgr": "GWQM"})
    assert status == 200 and body["overallCompletionCode"] == 0, body
    assert "QUEUE(VIA.GATEWAY)" in pair["remote"].mqsc("DISPLAY QLOCAL(VIA.GATEWAY)\n").stdout
    assert "AMQ8147E" in pair["gateway"].mqsc("DISPLAY QLOCAL(VIA.GATEWAY)\n").stdout
    # It crossed the gateway's channel: the sender moved the command, the answer came back.
    assert "MSGS(0)" not in pair["gateway"].mqsc("DISPLAY CHSTATUS(GW.TO.REMOTE) MSGS\n").stdout
    status, _h, body = call(url, "POST", {"type": "runCommandJSON", "command": "display", "qualifier": "qlocal",
                                          "name": "VIA.GATEWAY", "responseParameters": ["descr"]},
                            headers={"ibm-mq-rest-gateway-qmgr": "GWQM"})
    assert body["commandResponse"][0]["parameters"]["descr"] == "made through GWQM"
    status, _h, body = call(f"{pair['base']}/v2/admin/qmgr/REMOTEQM", headers={"ibm-mq-rest-gateway-qmgr": "GWQM"})
    assert status == 200 and body == {"qmgr": [{"name": "REMOTEQM", "state": "running"}]}


def test_a_queue_manager_the_gateway_cannot_reach_is_404(pair: dict[str, Any]) -> None:
    status, _h, body = call(f"{pair['base']}/v2/admin/action/qmgr/NOWHERE/mqsc", "POST",
                            {"type": "runCommand", "parameters": {"command": "DISPLAY QMGR"}},
                            headers={"ibm-mq-rest-gateway-qmgr": "GWQM"})
    assert status == 404 and body["error"][0]["messageId"] == "MQWB0009E" and body["error"][0]["reasonCode"] == 2087


def test_the_v1_queue_resource_through_the_gateway(pair: dict[str, Any]) -> None:
    url = f"{pair['base']}/v1/admin/qmgr/REMOTEQM/queue"
    gw = {"ibm-mq-rest-gateway-qmgr": "GWQM"}
    status, _h, body = call(url, "POST", {"name": "V1.VIA.GATEWAY", "storage": {"maximumDepth": 42}}, headers=gw)
    assert status == 201, body
    assert "MAXDEPTH(42)" in pair["remote"].mqsc("DISPLAY QLOCAL(V1.VIA.GATEWAY) MAXDEPTH\n").stdout
    status, _h, body = call(f"{url}/V1.VIA.GATEWAY?attributes=storage.maximumDepth&status=status.currentDepth",
                            headers=gw)
    assert status == 200 and body == {"queue": [{"name": "V1.VIA.GATEWAY", "type": "local", "storage": {
        "maximumDepth": 42}, "status": {"currentDepth": 0}}]}
    assert call(f"{url}/V1.VIA.GATEWAY", "DELETE", headers=gw)[0] == 204
    assert "AMQ8147E" in pair["remote"].mqsc("DISPLAY QLOCAL(V1.VIA.GATEWAY)\n").stdout
