"""The v1 subscription resource (issue 61's last mqweb resource), built from PCF Inquire
Subscription: the default answer is what a real mqweb sends and real clients read (Solace's event
management agent reads ``id``, ``name`` and ``resolvedTopicString``); ``attributes`` adds the
topic, selector and destination objects with IBM's documented names; name, id and filter select;
what is not MQ's is refused. A subscription name that would forge a field in MQSC text is read as
the name it is."""
from __future__ import annotations

from typing import Any
from urllib.parse import quote

from tests.web.conftest import call

NAME = "FORGE) TOPICSTR(payroll) DEST(SYSTEM.ADMIN.COMMAND.QUEUE"


def _setup(web: dict[str, Any]) -> None:
    out = web["qm"].mqsc("DEFINE TOPIC(SPORTS.T) TOPICSTR('sports') REPLACE\n"
                         "DEFINE QLOCAL(SUB.DEST) REPLACE\n"
                         "DEFINE SUB(FOOTBALL) TOPICOBJ(SPORTS.T) TOPICSTR('football') DEST(SUB.DEST) "
                         "SELECTOR('colour = ''red''') REPLACE\n"
                         "DEFINE SUB(NEWS.ALL) TOPICSTR('news/#') DEST(SUB.DEST) REPLACE\n"
                         f"DEFINE SUB('{NAME}') TOPICSTR('plain') DEST(SUB.DEST) REPLACE\n").stdout
    assert "AMQ8094I" in out or "created" in out, out


def test_the_default_answer_is_what_mqweb_sends(web) -> None:
    _setup(web)
    status, _h, body = call(web["base"] + "/v1/admin/qmgr/WEBQM/subscription")
    assert status == 200
    subs = {s["name"]: s for s in body["subscription"]}
    assert set(subs["FOOTBALL"]) == {"id", "name", "resolvedTopicString"}
    assert subs["FOOTBALL"]["resolvedTopicString"] == "sports/football"
    assert len(subs["FOOTBALL"]["id"]) == 48 and bytes.fromhex(subs["FOOTBALL"]["id"])
    assert subs["NEWS.ALL"]["resolvedTopicString"] == "news/#"
    # The name is the name: nothing in it became another field.
    assert subs[NAME]["resolvedTopicString"] == "plain"


def test_attributes_add_the_topic_selector_and_destination_objects(web) -> None:
    _setup(web)
    status, _h, body = call(web["base"] + "/v1/admin/qmgr/WEBQM/subscription/FOOTBALL?attributes=*")
    assert status == 200
    (sub,) = body["subscription"]
    assert sub["topic"] == {"name": "SPORTS.T", "definedString": "football"}
    assert sub["selector"] == {"value": "colour = 'red'", "type": "standard"}
    assert sub["destination"] == {"isManaged": False, "qmgrName": "WEBQM", "name": "SUB.DEST",
                                  "correlationId": sub["destination"]["correlationId"]}
    assert len(sub["destination"]["correlationId"]) == 48
    status, _h, body = call(web["base"] + "/v1/admin/qmgr/WEBQM/subscription/NEWS.ALL?attributes=selector,topic.name")
    (sub,) = body["subscription"]
    assert sub == {"id": sub["id"], "name": "NEWS.ALL", "resolvedTopicString": "news/#",
                   "selector": {"value": "", "type": "none"}, "topic": {"name": ""}}


def test_name_id_and_filter_select(web) -> None:
    _setup(web)
    status, _h, body = call(web["base"] + "/v1/admin/qmgr/WEBQM/subscription?name=FOOT*")
    assert [s["name"] for s in body["subscription"]] == ["FOOTBALL"]
    subid = body["subscription"][0]["id"]
    status, _h, body = call(web["base"] + f"/v1/admin/qmgr/WEBQM/subscription?id={subid}")
    assert [s["name"] for s in body["subscription"]] == ["FOOTBALL"]
    status, _h, body = call(web["base"] + "/v1/admin/qmgr/WEBQM/subscription?filter="
                            + quote("resolvedTopicString:equalTo:news*"))
    assert [s["name"] for s in body["subscription"]] == ["NEWS.ALL"]
    status, _h, body = call(web["base"] + "/v1/admin/qmgr/WEBQM/subscription/" + quote(NAME, safe=""))
    assert status == 200 and [s["name"] for s in body["subscription"]] == [NAME]


def test_what_is_not_there_is_refused(web) -> None:
    status, _h, err = call(web["base"] + "/v1/admin/qmgr/WEBQM/subscription/NO.SUCH.SUB")
    assert status == 404 and err["error"][0]["reasonCode"] == 2428
    status, _h, err = call(web["base"] + "/v1/admin/qmgr/WEBQM/subscription?attributes=timestamps")
    assert status == 400 and err["error"][0]["messageId"] == "MQWB0116E"
    status, _h, err = call(web["base"] + "/v1/admin/qmgr/WEBQM/subscription?id=xyz")
    assert status == 400
    status, _h, err = call(web["base"] + "/v2/admin/qmgr/WEBQM/subscription")
    assert status == 404 and err["error"][0]["messageId"] == "MQWB0006E"
    status, _h, err = call(web["base"] + "/v1/admin/qmgr/WEBQM/subscription", "POST", body={})
    assert status == 405
