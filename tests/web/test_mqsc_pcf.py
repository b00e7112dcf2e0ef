"""runCommandJSON's displays are answered from PCF (issue 62, web/displays.py): a value a client
chose (a DESCR, an APPLTAG) written to look like other fields is read as the value it is, and what
the PCF path answers is what the MQSC display shows (the items a runCommand display's text reads
as), for every display the table holds, with its TYPE and WHERE parameters."""
from __future__ import annotations

from typing import Any

import pytest

from mqlite import pymqi
from mqlite.web import displays as D
from mqlite.web import mqsc as M
from tests.web.test_rest import mqsc

FORGED = "x) QUEUE(PAYROLL.Q) TYPE(QALIAS) ALTDATE(1999-01-01) DESCR(y"


def test_a_description_cannot_forge_a_display(web: dict[str, Any]) -> None:
    web["qm"].mqsc(f"DEFINE QLOCAL(PCF.FORGED) DESCR('{FORGED}') REPLACE\n"
                   "DEFINE CHANNEL(PCF.SDR) CHLTYPE(SDR) CONNAME('good.host(1414)') XMITQ(PCF.FORGED) "
                   "DESCR('x) CONNAME(evil.host(666)') REPLACE\n"
                   "DEFINE NAMELIST(PCF.NL) NAMES(A) DESCR('x) NAMES(EVIL,ONE') REPLACE\n", check=True)
    status, _h, body = mqsc(web, {"type": "runCommandJSON", "command": "display", "qualifier": "qlocal",
                                  "name": "PCF.FORGED"})
    (item,) = body["commandResponse"]
    p = item["parameters"]
    assert (p["queue"], p["type"], p["descr"]) == ("PCF.FORGED", "QLOCAL", FORGED) and p["altdate"] != "1999-01-01"
    status, _h, body = mqsc(web, {"type": "runCommandJSON", "command": "display", "qualifier": "channel",
                                  "name": "PCF.SDR", "responseParameters": ["conname", "descr"]})
    assert body["commandResponse"][0]["parameters"] == {"channel": "PCF.SDR", "chltype": "SDR",
                                                        "conname": "good.host(1414)", "descr": "x) CONNAME(evil.host(666)"}
    status, _h, body = mqsc(web, {"type": "runCommandJSON", "command": "display", "qualifier": "namelist",
                                  "name": "PCF.NL"})
    assert body["commandResponse"][0]["parameters"]["names"] == ["A"]
    web["qm"].mqsc("DELETE QLOCAL(PCF.FORGED)\nDELETE CHANNEL(PCF.SDR)\nDELETE NAMELIST(PCF.NL)\n", check=True)


def test_an_application_tag_cannot_forge_a_connection(web: dict[str, Any]) -> None:
    """APPLTAG is the client's to choose (MQCNO's ApplName): DISPLAY CONN and QSTATUS TYPE(HANDLE)
    read it as the tag it is."""
    tag = "a) USERID(mqm"
    cd = pymqi.CD(ChannelName=b"APP.SVRCONN", ConnectionName=web["qm"].conname.encode())
    qmgr = pymqi.QueueManager(None)
    qmgr.connect_with_options("WEBQM", cd=cd, cno=pymqi.CNO(Version=7, ApplName=tag.encode()))
    try:
        q = pymqi.Queue(qmgr, "WEB.KEPT", pymqi.CMQC.MQOO_INPUT_SHARED)
        for qualifier, extra in (("conn", {"type": "all"}), ("qstatus", {"type": "handle"})):
            status, _h, body = mqsc(web, {"type": "runCommandJSON", "command": "display", "qualifier": qualifier,
                                          "name": "*" if qualifier == "conn" else "WEB.KEPT", "parameters": extra})
            mine = [i["parameters"] for i in body["commandResponse"] if i["parameters"].get("appltag") == tag]
            assert mine and all(p["userid"] != "mqm" for p in mine), (qualifier, body)
        q.close()
    finally:
        qmgr.disconnect()


def test_a_subscriptions_user_data_cannot_forge_it(web: dict[str, Any]) -> None:
    """USERDATA and SELECTOR are the subscriber's to choose (MQSD): DISPLAY SUB reads them as they are."""
    web["qm"].mqsc("DEFINE SUB(PCF.FORGEDSUB) TOPICSTR('pcf/forged') DEST(WEB.KEPT) "
                   "USERDATA('x) DEST(EVIL.Q) SUBUSER(mqm') SELECTOR('a = 1') REPLACE\n", check=True)
    try:
        status, _h, body = mqsc(web, {"type": "runCommandJSON", "command": "display", "qualifier": "sub",
                                      "name": "PCF.FORGEDSUB"})
        p = body["commandResponse"][0]["parameters"]
        assert (p["sub"], p["dest"], p["userdata"], p["selector"]) == \
            ("PCF.FORGEDSUB", "WEB.KEPT", "x) DEST(EVIL.Q) SUBUSER(mqm", "a = 1") and p["subuser"] != "mqm"
    finally:
        web["qm"].mqsc("DELETE SUB(PCF.FORGEDSUB)\n", check=True)


def test_a_topic_string_cannot_forge_a_topic_status(web: dict[str, Any]) -> None:
    """A topic string is the publisher's or subscriber's to choose: TPSTATUS reads it as it is."""
    forged = "pcf/x) ADMIN(EVIL) SUBCOUNT(99"
    web["qm"].mqsc(f"DEFINE SUB(PCF.TOPICSUB) TOPICSTR('{forged}') DEST(WEB.KEPT) REPLACE\n", check=True)
    try:
        status, _h, body = mqsc(web, {"type": "runCommandJSON", "command": "display", "qualifier": "tpstatus",
                                      "name": forged})
        (item,) = body["commandResponse"]
        p = item["parameters"]
        assert (p["topicstr"], p["admin"], p["subcount"]) == (forged, "", 1), p
    finally:
        web["qm"].mqsc("DELETE SUB(PCF.TOPICSUB)\n", check=True)


def _text_items(web: dict[str, Any], command: str) -> list[dict[str, Any]]:
    """What reading ``command``'s display text gives (runmqsc's echo and summary left out)."""
    r = web["qm"].mqsc(command + "\n")
    lines = r.stdout.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.strip().startswith("1 :")) + 1
    end = max(i for i, ln in enumerate(lines) if "MQSC command read" in ln)
    return M.json_items("\n".join(lines[start:end]), r.returncode == 0)


CASES = [
    ("queue", "PCF.*", {}, None), ("qlocal", "PCF.SAME", {}, None), ("qalias", "*", {}, None),
    ("queue", "*", {"type": "qremote"}, None), ("qmodel", "SYSTEM.DEFAULT.MODEL.QUEUE", {}, None),
    ("queue", "*", {"where": "maxdepth gt 100000"}, None), ("qlocal", "*", {"where": "descr lk 'plain*'"}, None),
    ("queue", "*", {"where": "defpsist eq yes"}, ["descr"]), ("channel", "*", {}, None),
    ("channel", "*", {"chltype": "svrconn"}, None), ("namelist", "*", {}, None), ("listener", "*", {}, None),
    ("authinfo", "*", {}, None), ("process", "*", {}, None), ("service", "*", {}, None), ("comminfo", "*", {}, None),
    ("topic", "*", {}, None), ("qmgr", None, {}, None), ("qmgr", None, {}, ["maxmsgl", "descr"]),
    ("qstatus", "WEB.KEPT", {}, None), ("qstatus", "PCF.*", {"where": "curdepth gt 0"}, None),
    ("chstatus", "*", {}, None), ("sub", "PCF.SUB*", {}, None), ("sbstatus", "PCF.SUB*", {}, None),
    ("sub", "PCF.NOSUCH", {}, None), ("lsstatus", "*", {}, None), ("svstatus", "*", {}, None),
    ("qstatus", "PCF.SAME", {"type": "handle"}, None), ("apstatus", "pcf.held", {}, None),
    ("apstatus", "pcf.held", {"type": "local"}, None), ("conn", "*", {"where": "appltag eq 'pcf.held'"}, None),
    ("tpstatus", "pcf/#", {}, None), ("tpstatus", "pcf/one", {"type": "sub"}, None),
    ("tpstatus", "pcf/held", {"type": "pub"}, None),
]


@pytest.mark.parametrize("qualifier,name,params,wanted", CASES)
def test_the_pcf_answer_is_what_the_display_shows(web: dict[str, Any], qualifier: str, name: str | None,
                                                  params: dict[str, str], wanted: list[str] | None) -> None:
    web["qm"].mqsc("DEFINE QLOCAL(PCF.SAME) DESCR('plain (with parentheses)') MAXDEPTH(123456) DEFPSIST(YES) "
                   "TRIGTYPE(DEPTH) TRIGDPTH(7) BOTHRESH(3) BOQNAME(PCF.BO) REPLACE\n"
                   "DEFINE QALIAS(PCF.ALIAS) TARGET(PCF.SAME) REPLACE\n"
                   "DEFINE QREMOTE(PCF.REMOTE) RNAME(X) RQMNAME(Y) REPLACE\n"
                   "DEFINE SUB(PCF.SUB1) TOPICSTR('pcf/one') DEST(PCF.SAME) USERDATA('u (1)') REPLACE\n", check=True)
    body: dict[str, Any] = {"type": "runCommandJSON", "command": "display", "qualifier": qualifier}
    if name is not None:
        body["name"] = name
    if params:
        body["parameters"] = params
    if wanted:
        body["responseParameters"] = wanted
    assert D.request(body) is not None, "answered from PCF"
    client = web["qm"].client() if qualifier == "chstatus" else None      # (a SVRCONN instance to show)
    held: Any = ()
    if qualifier in ("qstatus", "apstatus", "conn"):         # (an application with the queue open)
        cd = pymqi.CD(ChannelName=b"APP.SVRCONN", ConnectionName=web["qm"].conname.encode())
        client = pymqi.QueueManager(None)
        client.connect_with_options("WEBQM", cd=cd, cno=pymqi.CNO(Version=7, ApplName=b"pcf.held"))
        held = pymqi.Queue(client, "PCF.SAME", pymqi.CMQC.MQOO_INPUT_SHARED | pymqi.CMQC.MQOO_BROWSE)
    if qualifier == "tpstatus":                               # (a publisher on pcf/held)
        client = web["qm"].client()
        held = pymqi.Topic(client, topic_string="pcf/held")
        held.open(open_opts=pymqi.CMQC.MQOO_OUTPUT)
    words = " ".join(f"{k.upper()}({v})" if k != "where" else f"WHERE({v})" for k, v in params.items())
    named = f"('{name}')" if name else ""
    command = f"DISPLAY {qualifier.upper()}{named} {words} {' '.join(wanted or ['ALL'])}"
    try:
        status, _h, answer = mqsc(web, body)
        expected = _text_items(web, command)
    finally:
        if client is not None:
            client.disconnect()
    assert status == 200 and held is not None
    if qualifier == "chstatus":                 # (counters move between the two asks)
        drop = {"msgs", "bytsrcvd", "bytssent", "bufsrcvd", "bufssent", "lstmsgda", "lstmsgti", "substate"}
        for items in (answer["commandResponse"], expected):
            for i in items:
                for k in drop:
                    i.get("parameters", {}).pop(k, None)
    for items in (answer["commandResponse"], expected):   # (PCF does not return a channel's password)
        for i in items:
            i.get("parameters", {}).pop("password", None)
    assert answer["commandResponse"] == expected, command


def test_a_display_of_nothing_answers_as_mq_does(web: dict[str, Any]) -> None:
    status, _h, body = mqsc(web, {"type": "runCommandJSON", "command": "display", "qualifier": "qlocal",
                                  "name": "PCF.NONE*"})
    assert body["commandResponse"] == [{"completionCode": 2, "reasonCode": 2085,
                                        "message": ["AMQ8147E: IBM MQ object PCF.NONE* not found."]}]
