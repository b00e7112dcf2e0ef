"""Helpers for the tests that run clusters of real queue-manager processes."""
from __future__ import annotations

import contextlib
import re
import struct
import time
from collections.abc import Callable, Iterator
from typing import Any

from mqlite import pymqi
from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.testing import Harness, free_port


def reason(fn: Callable[..., Any], *args: Any, **kw: Any) -> tuple[int, int]:
    """(comp, reason) of a pymqi call that fails; (0, 0) when it succeeds."""
    try:
        fn(*args, **kw)
    except pymqi.MQMIError as e:
        return e.comp, e.reason
    return 0, 0


def wait_until(check: Callable[[], Any], timeout: float = 20.0, what: str = "") -> Any:
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        try:
            last = check()
            if last:
                return last
        except (pymqi.MQMIError, AssertionError) as e:
            last = e
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what or check}: last {last!r}")


def depth(h: Harness, qm: str, q: str) -> int:
    out = h.qm(qm).mqsc(f"DISPLAY QLOCAL({q}) CURDEPTH").stdout
    found = re.findall(r"CURDEPTH\((\d+)\)", out)
    return int(found[0]) if found else -1


def drain(h: Harness, qm: str, q: str) -> list[bytes]:
    conn = h.qm(qm).client()
    try:
        queue = pymqi.Queue(conn, q, C.MQOO_INPUT_SHARED)
        out = []
        while True:
            try:
                out.append(queue.get())
            except pymqi.MQMIError as e:
                assert e.reason == C.MQRC_NO_MSG_AVAILABLE
                return out
    finally:
        conn.disconnect()


def clusqmgr(h: Harness, qm: str) -> dict[str, str]:
    """CLUSQMGR name -> QMTYPE as ``qm`` sees the cluster."""
    out = h.qm(qm).mqsc("DISPLAY CLUSQMGR(*) QMTYPE").stdout
    blocks = out.split("AMQ8441I: Display Cluster Queue Manager details.")[1:]
    return dict(re.findall(r"CLUSQMGR\((\S+?)\).*?QMTYPE\((\w+)\)", b, re.S)[0] for b in blocks)


def put_reason(conn: Any, name: str, options: int) -> int:
    """MQOPEN and MQPUT one message: the reason code they fail with, 0 when they do not."""
    try:
        pymqi.Queue(conn, name, options).put(b"x")
    except pymqi.MQMIError as e:
        return int(e.reason)
    return 0


def open_q(h: Harness, qm: str, name: str, options: int) -> tuple[Any, Any]:
    conn = h.qm(qm).client()
    q = pymqi.Queue(conn)
    q.open(name, options)
    return conn, q


def parse_pcf(body: bytes) -> tuple[tuple[int, ...], list[tuple[int, int, Any]]]:
    """A PCF message (statistics, event) read by hand: MQCFH's nine fields and its parameters as
    (type, parameter, value), a group's value the list of its own."""
    cfh = struct.unpack_from("<9i", body, 0)

    def params(off: int, count: int) -> tuple[list[tuple[int, int, Any]], int]:
        out = []
        for _ in range(count):
            ptype, length, par = struct.unpack_from("<3i", body, off)
            if ptype == F.MQCFT_GROUP:
                n = struct.unpack_from("<i", body, off + 12)[0]
                inner, off = params(off + 16, n)
                out.append((ptype, par, inner))
                continue
            if ptype == F.MQCFT_INTEGER:
                value: Any = struct.unpack_from("<i", body, off + 12)[0]
            elif ptype == F.MQCFT_INTEGER64:
                value = struct.unpack_from("<q", body, off + 16)[0]
            elif ptype == F.MQCFT_INTEGER_LIST:
                n = struct.unpack_from("<i", body, off + 12)[0]
                value = list(struct.unpack_from(f"<{n}i", body, off + 16))
            elif ptype == F.MQCFT_INTEGER64_LIST:
                n = struct.unpack_from("<i", body, off + 12)[0]
                value = list(struct.unpack_from(f"<{n}q", body, off + 16))
            elif ptype == F.MQCFT_STRING:
                n = struct.unpack_from("<i", body, off + 16)[0]
                value = body[off + 20:off + 20 + n].decode().strip()
            elif ptype == F.MQCFT_BYTE_STRING:
                n = struct.unpack_from("<i", body, off + 12)[0]
                value = body[off + 16:off + 16 + n]
            elif ptype == F.MQCFT_STRING_LIST:
                n, size = struct.unpack_from("<2i", body, off + 16)
                value = [body[off + 24 + i * size:off + 24 + (i + 1) * size].decode().strip() for i in range(n)]
            else:
                raise AssertionError(f"unexpected parameter type {ptype}")
            out.append((ptype, par, value))
            off += length
        return out, off
    return cfh, params(36, cfh[8])[0]


def admin_messages(qm: Any, queue: str) -> list[tuple[tuple[int, ...], list[tuple[int, int, Any]]]]:
    """Every PCF message waiting on one of the queue manager's SYSTEM.ADMIN queues (events,
    statistics), taken over local bindings and read by hand (``parse_pcf``)."""
    conn = qm.bindings()
    q = pymqi.Queue(conn, queue, C.MQOO_INPUT_SHARED)
    out = []
    while True:
        try:
            out.append(parse_pcf(q.get()))
        except pymqi.MQMIError as e:
            assert e.reason == C.MQRC_NO_MSG_AVAILABLE
            break
    conn.disconnect()
    return out


@contextlib.contextmanager
def scores_cluster(cb_extra: str) -> Iterator[Harness]:
    """Two full repositories of cluster LIVE, CA and CB (processes, fast channel retries), with a
    SUBQ on each, the clustered topic SCORES ('scores') defined on CA, an administrative
    subscription SCORES.CA to 'scores/#' into CA's SUBQ, and ``cb_extra``'s MQSC on CB (a
    protocol channel); ready once CB knows the topic (the proxy subscriptions a test makes are
    for it to wait for: ``proxied``)."""
    h = Harness()
    try:
        ports = {"CA": free_port(), "CB": free_port()}
        retry = "SHORTRTY(60) SHORTTMR(1) LONGTMR(5)"
        for name, other in (("CA", "CB"), ("CB", "CA")):
            h.add(name, f"ALTER QMGR REPOS(LIVE)\n"
                        f"DEFINE CHANNEL(TO.{name}) CHLTYPE(CLUSRCVR) CONNAME('127.0.0.1({ports[name]})') "
                        f"CLUSTER(LIVE) {retry}\n"
                        f"DEFINE CHANNEL(TO.{other}) CHLTYPE(CLUSSDR) CONNAME('127.0.0.1({ports[other]})') "
                        f"CLUSTER(LIVE) {retry}\nDEFINE QLOCAL(SUBQ)\n"
                        + ("DEFINE TOPIC(SCORES) TOPICSTR('scores') CLUSTER(LIVE)\n" if name == "CA" else cb_extra),
                  port=ports[name])
        wait_until(lambda: "CLUSTER(LIVE)" in h.qm("CB").mqsc("DISPLAY TPSTATUS('scores') CLUSTER\n").stdout,
                   timeout=40, what="CB to know the clustered topic")
        h.qm("CA").mqsc("DEFINE SUB(SCORES.CA) TOPICSTR('scores/#') DEST(SUBQ)\n", check=True)
        yield h
    finally:
        h.close()


def proxied(h: Harness, qm: str, origin: str) -> bool:
    """Whether ``qm`` holds a proxy subscription from ``origin``."""
    return f"DESTQMGR({origin})" in h.qm(qm).mqsc("DISPLAY SUB(*) SUBTYPE(PROXY) DESTQMGR\n").stdout
