"""rhea, the Node.js AMQP 1.0 client (installed by tools/services.sh from tests/amqp/node), against
a real queue manager: messages both ways with MQI applications through a queue, and MQI
publications to a rhea subscriber, with the mapping MQ documents (persistence, priority, expiry,
properties, the topic as subject)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from typing import Any

import pytest

from mqlite import pymqi
from tests.amqp.conftest import depth

NODE_DIR = os.path.join(os.path.dirname(__file__), "node")
CLIENT = os.path.join(NODE_DIR, "rhea_client.js")


@pytest.fixture(scope="module", autouse=True)
def rhea_installed() -> None:
    node = shutil.which("node")
    there = node is not None and os.path.isdir(os.path.join(NODE_DIR, "node_modules", "rhea"))
    if not there:                               # (a missing client fails: it is never a silent skip)
        pytest.fail("rhea is not installed: tools/services.sh installs it (npm ci in tests/amqp/node)")


def rhea(rig: dict[str, Any], *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(["node", CLIENT, args[0], str(rig["port"]), "app", "apppw", *args[1:]],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def lines(p: subprocess.Popen[str]) -> list[dict[str, Any]]:
    out, err = p.communicate(timeout=30)
    assert p.returncode == 0, out + err
    return [json.loads(line) for line in out.splitlines()]


def test_rhea_sends_to_a_queue_that_an_mqi_application_reads(rig: dict[str, Any]) -> None:
    rig["qm"].mqsc("CLEAR QLOCAL(ORDERS)\n")
    got = lines(rhea(rig, "send", "ORDERS", "5"))
    assert [o.get("outcome") for o in got if "outcome" in o] == ["accepted"] * 5
    qm = rig["qm"].bindings()
    try:
        q = pymqi.Queue(qm, "ORDERS", pymqi.CMQC.MQOO_INPUT_SHARED)
        for i in range(1, 6):
            md, gmo = pymqi.MD(), pymqi.GMO(Options=pymqi.CMQC.MQGMO_NO_WAIT | pymqi.CMQC.MQGMO_PROPERTIES_IN_HANDLE)
            hmsg = pymqi.MessageHandle(qm)
            gmo.MsgHandle = hmsg.msg_handle
            body = q.get(None, md, gmo)
            assert body == f"rhea {i}".encode()
            assert (md.Persistence, md.Priority, md.Format) == (1, 6, pymqi.CMQC.MQFMT_STRING)
            assert md.PutApplType == pymqi.CMQC.MQAT_AMQP and 5900 < md.Expiry <= 6000
            assert hmsg.properties.get("seq") == i and hmsg.properties.get("from") == "rhea"
        q.close()
    finally:
        qm.disconnect()


def test_an_mqi_application_sends_to_rhea(rig: dict[str, Any]) -> None:
    rig["qm"].mqsc("CLEAR QLOCAL(ORDERS)\n")
    qm = rig["qm"].bindings()
    try:
        q = pymqi.Queue(qm, "ORDERS", pymqi.CMQC.MQOO_OUTPUT)
        for i in range(3):
            q.put(b"mqi %d" % i, pymqi.MD(Format=pymqi.CMQC.MQFMT_STRING, Persistence=i % 2, Priority=i))
        q.close()
    finally:
        qm.disconnect()
    got = [o for o in lines(rhea(rig, "receive", "ORDERS", "3")) if "body" in o]
    assert [(o["body"], o["durable"], o["priority"]) for o in got] == \
        [("mqi 2", False, 2), ("mqi 1", True, 1), ("mqi 0", False, 0)]           # priority order, as MQ gets
    assert depth(rig, "ORDERS") == 0                                             # accepted: gone


def test_rhea_subscribes_to_mqi_publications(rig: dict[str, Any]) -> None:
    p = rhea(rig, "receive", "rhea/#", "2", "topic")
    assert p.stdout is not None and json.loads(p.stdout.readline()) == {"ready": True}   # (its ATTACH answered)
    qm = rig["qm"].bindings()
    try:
        t = pymqi.Topic(qm, topic_string="rhea/prices")
        t.open(open_opts=pymqi.CMQC.MQOO_OUTPUT)
        t.pub(b"1.08", pymqi.MD(Format=pymqi.CMQC.MQFMT_STRING))
        t.pub(b"1.09", pymqi.MD(Format=pymqi.CMQC.MQFMT_STRING))
        t.close()
    finally:
        qm.disconnect()
    got = [o for o in lines(p) if "body" in o]
    assert [(o["body"], o["subject"]) for o in got] == [("1.08", "rhea/prices"), ("1.09", "rhea/prices")]


def test_rhea_is_refused_on_a_queue_it_may_not_use(rig: dict[str, Any]) -> None:
    p = rhea(rig, "send", "SECRET", "1")
    out, _ = p.communicate(timeout=30)
    assert p.returncode == 2 and "unauthorized-access" in out
