"""runCommandJSON's displays of queues and channels are answered from PCF (issue 62): a DESCR
written to look like other fields is read as the DESCR it is, and what the PCF path answers is what
the MQSC display shows (the same items a runCommand display's text reads as)."""
from __future__ import annotations

from typing import Any

from mqlite.web import mqsc as M
from tests.web.test_rest import mqsc

FORGED = "x) QUEUE(PAYROLL.Q) TYPE(QALIAS) ALTDATE(1999-01-01) DESCR(y"


def test_a_description_cannot_forge_a_display(web: dict[str, Any]) -> None:
    web["qm"].mqsc(f"DEFINE QLOCAL(PCF.FORGED) DESCR('{FORGED}') REPLACE\n"
                   "DEFINE CHANNEL(PCF.SDR) CHLTYPE(SDR) CONNAME('good.host(1414)') XMITQ(PCF.FORGED) "
                   "DESCR('x) CONNAME(evil.host(666)') REPLACE\n", check=True)
    status, _h, body = mqsc(web, {"type": "runCommandJSON", "command": "display", "qualifier": "qlocal",
                                  "name": "PCF.FORGED"})
    (item,) = body["commandResponse"]
    p = item["parameters"]
    assert (p["queue"], p["type"], p["descr"]) == ("PCF.FORGED", "QLOCAL", FORGED) and p["altdate"] != "1999-01-01"
    status, _h, body = mqsc(web, {"type": "runCommandJSON", "command": "display", "qualifier": "channel",
                                  "name": "PCF.SDR", "responseParameters": ["conname", "descr"]})
    assert body["commandResponse"][0]["parameters"] == {"channel": "PCF.SDR", "chltype": "SDR",
                                                        "conname": "good.host(1414)", "descr": "x) CONNAME(evil.host(666)"}


def test_the_pcf_answer_is_what_the_display_shows(web: dict[str, Any]) -> None:
    web["qm"].mqsc("DEFINE QLOCAL(PCF.SAME) DESCR('plain (with parentheses)') MAXDEPTH(123) DEFPSIST(YES) "
                   "TRIGTYPE(DEPTH) TRIGDPTH(7) BOTHRESH(3) BOQNAME(PCF.BO) REPLACE\n"
                   "DEFINE QALIAS(PCF.ALIAS) TARGET(PCF.SAME) REPLACE\n", check=True)
    keys = ["descr", "maxdepth", "curdepth", "defpsist", "trigtype", "trigdpth", "bothresh", "boqname", "usage",
            "msgdlvsq", "crdate", "target", "targtype", "defbind", "clwluseq", "monq", "acctq"]
    for name in ("PCF.SAME", "PCF.ALIAS"):
        status, _h, body = mqsc(web, {"type": "runCommandJSON", "command": "display", "qualifier": "queue",
                                      "name": name, "responseParameters": keys})
        from_pcf = body["commandResponse"]
        text = web["qm"].mqsc(f"DISPLAY QUEUE({name}) {' '.join(k.upper() for k in keys)}\n").stdout
        lines = text.splitlines()
        at = next(i for i, ln in enumerate(lines) if ln.startswith("AMQ8409I"))
        body_lines = [lines[at]]
        for ln in lines[at + 1:]:
            if not ln.startswith("   "):
                break
            body_lines.append(ln)
        assert from_pcf == M.json_items("\n".join(body_lines), True), name
    status, _h, body = mqsc(web, {"type": "runCommandJSON", "command": "display", "qualifier": "qlocal",
                                  "name": "PCF.NONE*"})
    assert body["commandResponse"] == [{"completionCode": 2, "reasonCode": 2085,
                                        "message": ["AMQ8147E: IBM MQ object PCF.NONE* not found."]}]
