"""The rig security's tests share: IBM's developer configuration, a secured queue manager's
error log, client connections and the reason code of a refused call."""
from __future__ import annotations

import os

import pytest

from mqlite import pymqi
from mqlite.cli.dev import DEV_MQSC  # noqa: F401  (IBM's developer configuration: the tests' rig too)
from mqlite.cmq import CMQC
from mqlite.paths import QMPaths


def _log(qm) -> str:
    d = QMPaths.of(qm.name).root
    return "".join(open(os.path.join(d, "errors", f), encoding="utf-8").read()
                   for f in sorted(os.listdir(os.path.join(d, "errors"))))


def _connect(qm, channel: str, user: str | None = None, password: str | None = None):
    q = pymqi.QueueManager(None)
    kw = {} if user is None else {"user": user, "password": password}
    q.connect_tcp_client(qm.name, pymqi.CD(), channel, qm.conname, **kw)
    return q


def _reason(fn) -> int:
    with pytest.raises(pymqi.MQMIError) as e:
        fn()
    return e.value.reason


def _subscribe(qm, topic: str, name: str = "", options: int = 0):
    sd = pymqi.SD(Options=options or CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED | (CMQC.MQSO_DURABLE if name else 0))
    if topic:
        sd.set_vs("ObjectString", topic)
    if name:
        sd.set_vs("SubName", name)
    return pymqi.Subscription(qm, sub_desc=sd)
