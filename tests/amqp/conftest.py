"""What the AMQP channel tests share: a queue manager with MQ's security on, two AMQP channels (one
with PLAIN through CONNAUTH, one with ANONYMOUS as its MCAUSER), a user who may and one who may not,
and the helpers that read it back through MQI and MQSC."""
from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from proton import symbol
from proton.reactor import LinkOption
from proton.utils import BlockingConnection

from mqlite import pymqi
from mqlite.cli.proc import free_port
from mqlite.testing import Harness, run_mqlite

WAIT = 10


class Capability(LinkOption):
    """ATTACH with a capability on the link's target (sending) or source (receiving)."""

    def __init__(self, cap: str, copy: bool = False) -> None:
        self.cap, self.copy = cap, copy

    def apply(self, link: Any) -> None:
        term = link.source if link.is_receiver else link.target
        term.capabilities.put_object(symbol(self.cap))
        if self.copy:
            term.distribution_mode = term.DIST_MODE_COPY


@pytest.fixture(scope="module")
def rig(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    h = Harness(str(tmp_path_factory.mktemp("amqp")), security=True)
    try:
        port, anon, cid = free_port(), free_port(), free_port()
        qm = h.add("AMQPQM", f"DEFINE CHANNEL(AMQP.APPS) CHLTYPE(AMQP) PORT({port}) LOCLADDR('127.0.0.1')\n"
                             f"DEFINE CHANNEL(AMQP.ANON) CHLTYPE(AMQP) PORT({anon}) LOCLADDR('127.0.0.1') "
                             "MCAUSER('app')\n"
                             f"DEFINE CHANNEL(AMQP.CID) CHLTYPE(AMQP) PORT({cid}) LOCLADDR('127.0.0.1') USECLTID(YES) "
                             "AMQPKA(1000)\n"
                             "DEFINE QLOCAL(ORDERS)\nDEFINE QLOCAL(SECRET)\n"
                             "START SERVICE(SYSTEM.AMQP.SERVICE)\n")
        env = dict(os.environ, MQLITE_DATA=h.data_dir)
        for user, pw in (("app", "apppw"), ("eve", "evepw")):
            assert run_mqlite("setmqusr", "-m", "AMQPQM", "-u", user, "-p", pw, "-g", f"{user}grp",
                              env=env).returncode == 0
        for args in (("-t", "qmgr", "-p", "app", "+connect"), ("-t", "qmgr", "-p", "eve", "+connect"),
                     ("-t", "topic", "-n", "SYSTEM.BASE.TOPIC", "-p", "app", "+pub", "+sub"),
                     ("-t", "queue", "-n", "ORDERS", "-p", "app", "+put", "+get", "+browse"),
                     ("-t", "queue", "-n", "SYSTEM.DEFAULT.MODEL.QUEUE", "-p", "app", "+get", "+dsp")):
            r = run_mqlite("setmqaut", "-m", "AMQPQM", *args, env=env)
            assert r.returncode == 0, r.stdout + r.stderr
        yield {"qm": qm, "port": port, "anon": anon, "cid": cid, "env": env}
    finally:
        h.close()


def connect(rig: dict[str, Any], user: str = "app", password: str = "apppw") -> BlockingConnection:
    return BlockingConnection(f"amqp://127.0.0.1:{rig['port']}", user=user, password=password,
                              allowed_mechs="PLAIN", timeout=WAIT)


def mq_get(rig: dict[str, Any], queue: str) -> tuple[pymqi.MD, bytes] | None:
    qm = rig["qm"].bindings()
    try:
        q = pymqi.Queue(qm, queue, pymqi.CMQC.MQOO_INPUT_SHARED)
        md = pymqi.MD()
        try:
            body = q.get(None, md, pymqi.GMO(Options=pymqi.CMQC.MQGMO_NO_WAIT | pymqi.CMQC.MQGMO_NO_PROPERTIES))
        except pymqi.MQMIError as e:
            assert e.reason == pymqi.CMQC.MQRC_NO_MSG_AVAILABLE
            return None
        q.close()
        return md, body
    finally:
        qm.disconnect()


def depth(rig: dict[str, Any], queue: str) -> int:
    out = rig["qm"].mqsc(f"DISPLAY QLOCAL({queue}) CURDEPTH\n").stdout
    return int(out.split("CURDEPTH(")[1].split(")")[0])
