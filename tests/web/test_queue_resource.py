"""The administrative REST API's v1 queue and channel resources (``/admin/qmgr/{qmgr}/queue``,
``/channel``) through a real mqweb server and queue manager: a default local queue answered exactly as IBM MQ answers it, the
``type``, ``name``, ``attributes``, ``status`` and ``filter`` query parameters, POST, PATCH and
DELETE as MQSC's DEFINE, ALTER and DELETE, MQ's refusals with their reason codes, and bad input
refused with nothing changed."""
from __future__ import annotations

import base64
import re
from typing import Any

import pytest

from mqlite import pymqi
from tests.web.conftest import call, web_user

# What IBM MQ 9.2's mqweb answered for GET .../queue/Q1?attributes=* on a queue defined with
# DEFINE QLOCAL(Q1) and nothing else (a published transcript), less its two timestamps.
IBM_DEFAULT_QLOCAL = {
    "name": "Q1", "type": "local",
    "cluster": {"namelist": "", "name": "", "workloadQueueUse": "asQmgr", "workloadPriority": 0, "workloadRank": 0,
                "transmissionQueueForChannelName": ""},
    "storage": {"maximumDepth": 5000, "maximumMessageLength": 4194304, "messageDeliverySequence": "priority",
                "nonPersistentMessageClass": "normal"},
    "trigger": {"initiationQueueName": "", "depth": 1, "data": "", "processName": "", "messagePriority": 0,
                "type": "first", "enabled": False},
    "extended": {"allowSharedInput": True, "enableMediaImageOperations": "asQmgr", "backoutRequeueQueueName": "",
                 "custom": "", "supportDistributionLists": False, "backoutThreshold": 0},
    "general": {"inhibitPut": False, "inhibitGet": False, "isTransmissionQueue": False, "description": ""},
    "applicationDefaults": {"putResponse": "synchronous", "messagePriority": 0, "messagePersistence": "nonPersistent",
                            "clusterBind": "onOpen", "sharedInput": True, "readAhead": "no",
                            "messagePropertyControl": "compatible"},
    "events": {"serviceInterval": {"duration": 999999999, "okEnabled": False, "highEnabled": False},
               "depth": {"lowPercentage": 20, "highPercentage": 80, "lowEnabled": False, "fullEnabled": True,
                         "highEnabled": False}},
    "dataCollection": {"accounting": "asQmgr", "monitoring": "asQmgr", "statistics": "asQmgr"},
}


def queue_url(web: dict[str, Any], name: str = "", query: str = "", version: str = "v1") -> str:
    return f"{web['base']}/{version}/admin/qmgr/WEBQM/queue" + (f"/{name}" if name else "") + \
        (f"?{query}" if query else "")


@pytest.fixture(scope="module")
def queues(web: dict[str, Any]) -> dict[str, Any]:
    web["qm"].mqsc("DEFINE QLOCAL(Q1)\nDEFINE QLOCAL(RES.LOCAL) DESCR('the local one')\n"
                   "DEFINE QALIAS(RES.ALIAS) TARGET(RES.LOCAL)\n"
                   "DEFINE QREMOTE(RES.REMOTE) RNAME(FAR.Q) RQMNAME(FARQM) XMITQ(RES.LOCAL)\n"
                   "DEFINE QMODEL(RES.MODEL)\n", check=True)
    return web


def names(body: dict[str, Any]) -> list[str]:
    return [q["name"] for q in body["queue"]]


def test_a_default_local_queue_reads_as_ibm_mq_answers_it(queues: dict[str, Any]) -> None:
    status, _h, body = call(queue_url(queues, "Q1", "attributes=*"))
    assert status == 200 and len(body["queue"]) == 1
    got = body["queue"][0]
    stamps = got.pop("timestamps")
    assert got == IBM_DEFAULT_QLOCAL
    assert set(stamps) == {"created", "altered"} and stamps["created"].endswith(".000Z")
    # Without attributes, the name and type alone (as MQ answers GET .../queue/Q1).
    assert call(queue_url(queues, "Q1"))[2] == {"queue": [{"name": "Q1", "type": "local"}]}


def test_type_name_and_attribute_selection(queues: dict[str, Any]) -> None:
    # Every type unless one is asked for (IBM: no type reads the cluster queues too, as type=all).
    _s, _h, body = call(queue_url(queues, query="name=RES.*"))
    assert names(body) == ["RES.ALIAS", "RES.LOCAL", "RES.MODEL", "RES.REMOTE"]
    _s, _h, body = call(queue_url(queues, query="name=RES.*&type=local"))
    assert names(body) == ["RES.LOCAL"]
    _s, _h, body = call(queue_url(queues, query="name=RES.*&type=all&attributes=alias,remote,general.description"))
    assert body["queue"] == [
        {"name": "RES.ALIAS", "type": "alias", "general": {"description": ""},
         "alias": {"targetName": "RES.LOCAL", "targetType": "queue"}},
        {"name": "RES.LOCAL", "type": "local", "general": {"description": "the local one"}},
        {"name": "RES.MODEL", "type": "model", "general": {"description": ""}},
        {"name": "RES.REMOTE", "type": "remote", "general": {"description": ""},
         "remote": {"queueName": "FAR.Q", "qmgrName": "FARQM", "transmissionQueueName": "RES.LOCAL"}}]
    _s, _h, body = call(queue_url(queues, query="name=RES.*&type=remote"))
    assert body == {"queue": [{"name": "RES.REMOTE", "type": "remote"}]}
    _s, _h, body = call(queue_url(queues, query="name=NOTHING.*"))
    assert body == {"queue": []}                               # a generic name that matches nothing
    status, _h, body = call(queue_url(queues, "RES.ALIAS", "type=alias&attributes=storage"))
    assert status == 200 and body["queue"] == [{"name": "RES.ALIAS", "type": "alias"}]   # no storage group


def test_status_and_filter(queues: dict[str, Any]) -> None:
    qm = queues["qm"].client()
    try:
        q = pymqi.Queue(qm, "RES.LOCAL", pymqi.CMQC.MQOO_INPUT_SHARED | pymqi.CMQC.MQOO_OUTPUT)
        q.put(b"one")
        q.put(b"two")
        _s, _h, body = call(queue_url(queues, "RES.LOCAL", "status=*"))
        st = body["queue"][0]["status"]
        assert (st["currentDepth"], st["openInputCount"], st["openOutputCount"]) == (2, 1, 1)
        assert st["uncommittedMessages"] == 0 and "lastGet" not in st and st["lastPut"].endswith("Z")
        assert st["onQueueTime"] == {"shortSamplePeriod": -1, "longSamplePeriod": -1}   # monitoring off
        _s, _h, body = call(queue_url(queues, "RES.LOCAL", "status=status.currentDepth,status.lastPut"))
        assert set(body["queue"][0]["status"]) == {"currentDepth", "lastPut"}
        _s, _h, body = call(queue_url(queues, query="name=RES.*&filter=status.currentDepth:greaterThan:0&status=status"
                                                    ".currentDepth"))
        assert body["queue"] == [{"name": "RES.LOCAL", "type": "local", "status": {"currentDepth": 2}}]
        _s, _h, body = call(queue_url(queues, query="type=all&filter=general.description:equalTo:the*"))
        assert names(body) == ["RES.LOCAL"]
        _s, _h, body = call(queue_url(queues, query="name=RES.*&type=all&filter=type:notEqualTo:local"))
        assert names(body) == ["RES.ALIAS", "RES.MODEL", "RES.REMOTE"]
        q.get()
        q.close()
    finally:
        qm.disconnect()
    _s, _h, body = call(queue_url(queues, "RES.LOCAL", "status=*"))
    st = body["queue"][0]["status"]
    assert st["currentDepth"] == 1 and st["openInputCount"] == 0 and st["lastGet"].endswith("Z")


def test_post_patch_delete_are_define_alter_delete(queues: dict[str, Any]) -> None:
    qm = queues["qm"]
    status, _h, body = call(queue_url(queues), "POST", {
        "name": "MADE.Q", "general": {"description": "it's (made) here"}, "storage": {"maximumDepth": 7},
        "events": {"serviceInterval": {"highEnabled": True, "duration": 500}},
        "applicationDefaults": {"messagePersistence": "persistent"}})
    assert status == 201 and body is None
    shown = qm.mqsc("DISPLAY QLOCAL(MADE.Q) DESCR MAXDEPTH QSVCIEV QSVCINT DEFPSIST\n").stdout
    for field in ("DESCR(it's (made) here)", "MAXDEPTH(7)", "QSVCIEV(HIGH)", "QSVCINT(500)", "DEFPSIST(YES)"):
        assert field in shown, shown
    status, _h, body = call(queue_url(queues, "MADE.Q"), "PATCH", {
        "general": {"inhibitPut": True}, "trigger": {"enabled": True, "type": "every"},
        "events": {"serviceInterval": {"highEnabled": False}}})
    assert status == 204, body
    shown = qm.mqsc("DISPLAY QLOCAL(MADE.Q) PUT TRIGTYPE QSVCIEV\n").stdout
    assert "PUT(DISABLED)" in shown and "TRIGTYPE(EVERY)" in shown and "QSVCIEV(NONE)" in shown
    assert "NOTRIGGER" not in qm.mqsc("DISPLAY QLOCAL(MADE.Q) TRIGGER\n").stdout
    _s, _h, body = call(queue_url(queues, "MADE.Q", "attributes=trigger.enabled,general.inhibitPut"))
    assert body["queue"][0] == {"name": "MADE.Q", "type": "local", "trigger": {"enabled": True},
                                "general": {"inhibitPut": True}}
    status, _h, _b = call(queue_url(queues, query="like=MADE.Q"), "POST", {"name": "LIKE.Q"})
    assert status == 201 and "MAXDEPTH(7)" in qm.mqsc("DISPLAY QLOCAL(LIKE.Q) MAXDEPTH\n").stdout
    status, _h, _b = call(queue_url(queues), "POST", {"name": "MADE.ALIAS", "type": "alias",
                                                      "alias": {"targetName": "MADE.Q"}})
    assert status == 201 and "TARGET(MADE.Q)" in qm.mqsc("DISPLAY QALIAS(MADE.ALIAS) TARGET\n").stdout
    # DELETE: a queue with messages needs purge, as DELETE QLOCAL does.
    qm.mqsc("ALTER QLOCAL(MADE.Q) PUT(ENABLED)\n", check=True)
    conn = qm.client()
    pymqi.Queue(conn, "MADE.Q", pymqi.CMQC.MQOO_OUTPUT).put(b"keep me")
    conn.disconnect()
    status, _h, body = call(queue_url(queues, "MADE.Q"), "DELETE")
    assert status == 400 and body["error"][0]["reasonCode"] == 2055, body
    assert call(queue_url(queues, "MADE.Q", "purge"), "DELETE")[0] == 204
    assert call(queue_url(queues, "MADE.ALIAS"), "DELETE")[0] == 204
    assert call(queue_url(queues, "LIKE.Q"), "DELETE")[0] == 204
    for gone in ("MADE.Q", "MADE.ALIAS", "LIKE.Q"):
        assert "AMQ8147E" in qm.mqsc(f"DISPLAY QUEUE({gone})\n").stdout


@pytest.mark.parametrize("case,method,name,query,body,status,message_id,reason", [
    ("unknown queue", "GET", "NO.SUCH.Q", "", None, 404, "AMQ8147E", 2085),
    ("patch unknown", "PATCH", "NO.SUCH.Q", "", {"general": {"description": "x"}}, 404, "AMQ8147E", 2085),
    ("delete unknown", "DELETE", "NO.SUCH.Q", "", None, 404, "AMQ8147E", 2085),
    ("already exists", "POST", "", "", {"name": "RES.LOCAL"}, 400, "AMQ8150E", 4001),
    ("unknown group", "POST", "", "", {"name": "BAD.Q", "nonsense": {"a": 1}}, 400, "MQWB0118E", None),
    ("unknown attribute", "POST", "", "", {"name": "BAD.Q", "general": {"colour": "red"}}, 400, "MQWB0118E", None),
    ("wrong kind", "POST", "", "", {"name": "BAD.Q", "storage": {"maximumDepth": "lots"}}, 400, "MQWB0115E", None),
    ("bad enum", "POST", "", "", {"name": "BAD.Q", "trigger": {"type": "sometimes"}}, 400, "MQWB0115E", None),
    ("not for alias", "POST", "", "", {"name": "BAD.Q", "type": "alias", "storage": {"maximumDepth": 3}}, 400,
     "MQWB0118E", None),
    ("injection", "POST", "", "", {"name": "X) DELETE QLOCAL(RES.LOCAL"}, 400, "MQWB0119E", None),
    ("injection in a value", "POST", "", "", {"name": "BAD.Q", "general": {"description": "a\nDELETE QLOCAL(Q1)"}},
     400, "MQWB1104E", None),
    ("both service events", "POST", "", "", {"name": "BAD.Q", "events": {"serviceInterval": {
        "highEnabled": True, "okEnabled": True}}}, 400, "MQWB0115E", None),
    ("rename", "PATCH", "RES.LOCAL", "", {"name": "OTHER"}, 400, "MQWB0118E", None),
    ("nothing to change", "PATCH", "RES.LOCAL", "", {}, 400, "MQWB0118E", None),
    ("bad attributes", "GET", "", "attributes=colours", None, 400, "MQWB0116E", None),
    ("bad status", "GET", "", "status=status.colour", None, 400, "MQWB0116E", None),
    ("bad filter", "GET", "", "filter=status.currentDepth:about:3", None, 400, "MQWB0117E", None),
    ("bad type", "GET", "", "type=queueish", None, 400, "MQWB0115E", None),
    ("two names", "GET", "RES.LOCAL", "name=Q1", None, 400, "MQWB0119E", None),
    ("not json", "POST", "", "", b"{name:", 400, "MQWB2004E", None),
])
def test_bad_requests_get_mq_answers_and_change_nothing(queues: dict[str, Any], case: str, method: str, name: str,
                                                        query: str, body: Any, status: int, message_id: str,
                                                        reason: int | None) -> None:
    before = queues["qm"].mqsc("DISPLAY QUEUE(*) ALL\n").stdout
    raw = body if isinstance(body, bytes) else None
    got, _h, answer = call(queue_url(queues, name, query), method, None if raw else body, raw=raw)
    assert got == status, (case, answer)
    err = answer["error"][0]
    assert err["messageId"] == message_id, (case, err)
    assert err.get("reasonCode") == reason and (reason is None or err["type"] == "pcf"), (case, err)
    after = queues["qm"].mqsc("DISPLAY QUEUE(*) ALL\n").stdout
    assert _definitions(after) == _definitions(before), case


def _definitions(display: str) -> list[str]:
    """DISPLAY QUEUE(*) ALL's blocks but the REST API's own reply queues, their times left out."""
    blocks = re.split(r"\n(?=AMQ8409I)", display)
    return [re.sub(r"(ALT|CR)(DATE|TIME)\([^)]*\)", "", b) for b in blocks if "REST.REPLY" not in b]


def test_v1_only_and_the_roles(queues: dict[str, Any]) -> None:
    status, _h, body = call(queue_url(queues, "Q1", version="v2"))
    assert status == 404 and body["error"][0]["messageId"] == "MQWB0006E"
    web_user(queues["env"], "WEBQM", "reader", "passw0rd", "MQWebAdminROGroup")
    ro = "Basic " + base64.b64encode(b"reader:passw0rd").decode()
    status, _h, body = call(queue_url(queues, "Q1", "attributes=general"), auth=ro)
    assert status == 200 and body["queue"][0]["general"]["inhibitPut"] is False
    status, _h, body = call(queue_url(queues), "POST", {"name": "RO.Q"}, auth=ro)
    assert status == 403 and body["error"][0]["messageId"] == "MQWB0103E"
    status, _h, body = call(queue_url(queues, "Q1"), "DELETE", auth=ro)
    assert status == 403
    assert "AMQ8147E" in queues["qm"].mqsc("DISPLAY QUEUE(RO.Q)\n").stdout
    status, _h, body = call(queue_url(queues), "POST", {"name": "NO.CSRF"}, csrf=False)
    assert status == 403 and body["error"][0]["messageId"] == "MQWB0100E"


def test_queue_manager_status_and_state(queues: dict[str, Any]) -> None:
    base = f"{queues['base']}/v1/admin/qmgr"
    _s, _h, body = call(f"{base}/WEBQM?status=*")
    (entry,) = body["qmgr"]
    st = entry.pop("status")
    assert entry == {"name": "WEBQM", "state": "running"}
    assert st["channelInitiatorState"] == "running" and st["ldapConnectionState"] == "disconnected"
    assert st["started"].endswith(".000Z") and st["connectionCount"] >= 1
    _s, _h, body = call(f"{base}?status=status.connectionCount&state=running")
    assert set(body["qmgr"][0]["status"]) == {"connectionCount"}
    assert call(f"{base}?state=ended")[2] == {"qmgr": []}
    assert call(f"{base}/WEBQM")[2] == {"qmgr": [{"name": "WEBQM", "state": "running"}]}
    status, _h, body = call(f"{base}?status=status.mood")
    assert status == 400 and body["error"][0]["messageId"] == "MQWB0116E"
    status, _h, body = call(f"{base}?state=sleepy")
    assert status == 400 and body["error"][0]["messageId"] == "MQWB0115E"


def test_the_channel_resource(queues: dict[str, Any]) -> None:
    queues["qm"].mqsc("DEFINE CHANNEL(RES.TO.FAR) CHLTYPE(SDR) CONNAME('far.example(1415),10.0.0.2(1416)') "
                      "XMITQ(RES.LOCAL)\nDEFINE CHANNEL(RES.IN) CHLTYPE(RCVR)\nDEFINE CHANNEL(RES.APP) "
                      "CHLTYPE(SVRCONN)\nDEFINE CHANNEL(RES.CLUS) CHLTYPE(CLUSRCVR) CONNAME('here') CLWLRANK(3) "
                      "CLWLWGHT(7)\n", check=True)
    url = f"{queues['base']}/v1/admin/qmgr/WEBQM/channel"
    _s, _h, body = call(f"{url}?name=RES.*")
    assert body["channel"] == [                          # no server-connection channel: not a TCP message channel
        {"name": "RES.CLUS", "type": "clusterReceiver", "clusterReceiver": {"connection": [{"host": "here"}]}},
        {"name": "RES.IN", "type": "receiver"},
        {"name": "RES.TO.FAR", "type": "sender", "sender": {
            "connection": [{"host": "far.example", "port": 1415}, {"host": "10.0.0.2", "port": 1416}],
            "transmissionQueueName": "RES.LOCAL"}}]
    _s, _h, body = call(f"{url}/RES.CLUS?attributes=clusterRouting")
    assert body["channel"][0]["clusterRouting"] == {"workloadPriority": 0, "workloadRank": 3, "workloadWeight": 7,
                                                    "networkPriority": 0}
    _s, _h, body = call(f"{url}?name=RES.*&filter=clusterRouting.workloadRank:greaterThan:2")
    assert [c["name"] for c in body["channel"]] == ["RES.CLUS"]
    _s, _h, body = call(f"{url}?name=RES.*&type=receiver")
    assert body == {"channel": [{"name": "RES.IN", "type": "receiver"}]}
    status, _h, body = call(f"{url}/RES.APP")
    assert status == 404 and body["error"][0]["reasonCode"] == 2085
    status, _h, body = call(f"{url}?type=svrconn")
    assert status == 400 and body["error"][0]["messageId"] == "MQWB0115E"
    assert call(url, "POST", {"name": "RES.NEW"})[0] == 405          # GET only, as MQ's


def test_a_description_cannot_forge_other_fields(queues: dict[str, Any]) -> None:
    """Issue 62: the resources were read from MQSC display text, where a DESCR of
    ``x) QUEUE(PAYROLL.Q) TYPE(QALIAS) ALTDATE(1999-01-01) DESCR(y`` made the queue read as
    PAYROLL.Q, an alias altered in 1999 (and a channel's, another CONNAME). They are read from the
    command server's PCF answers now: each value is the value it is."""
    forged = "x) QUEUE(PAYROLL.Q) TYPE(QALIAS) ALTDATE(1999-01-01) DESCR(y"
    queues["qm"].mqsc(f"DEFINE QLOCAL(FORGED.Q) DESCR('{forged}') REPLACE\n"
                      f"DEFINE CHANNEL(FORGED.SDR) CHLTYPE(SDR) CONNAME('good.host(1414)') XMITQ(RES.LOCAL) "
                      f"DESCR('x) CONNAME(evil.host(666)) XMITQ(STOLEN') REPLACE\n", check=True)
    status, _h, body = call(queue_url(queues, "FORGED.Q", "attributes=*"))
    assert status == 200
    (q,) = body["queue"]
    assert (q["name"], q["type"], q["general"]["description"]) == ("FORGED.Q", "local", forged)
    assert not q["timestamps"]["altered"].startswith("1999")
    status, _h, body = call(queue_url(queues, "", "name=FORGED*&type=all"))
    assert [(x["name"], x["type"]) for x in body["queue"]] == [("FORGED.Q", "local")]
    status, _h, body = call(f"{queues['base']}/v1/admin/qmgr/WEBQM/channel/FORGED.SDR")
    (ch,) = body["channel"]
    assert ch["sender"] == {"connection": [{"host": "good.host", "port": 1414}], "transmissionQueueName": "RES.LOCAL"}
