"""Application status as DISPLAY APSTATUS and PCF Inquire Application Status show it: the
applications connected (by application name, the APPLTAG of DISPLAY CONN), their instances, and
whether each instance could be moved to another queue manager of a uniform cluster.

mqlite has no uniform clusters, so an application is never balanced across queue managers
(BALANCED(NOTAPPLIC), BALSTATE(NOTAPPLIC), CLUSTER blank) and its queue manager is this one. What
is mqlite's choice, where MQ's documentation leaves it to the connection's internals:

- An instance is one application process: the connections a bindings application holds share its
  process id; a client connection is an instance of its own (the client's process is not known
  to the queue manager).
- An instance is movable when every connection in it is a client connection that asked for
  reconnection (MQCNO_RECONNECT, or the channel's DEFRECON(YES)): MQ moves only reconnectable
  clients. Otherwise IMMREASN says why, by its first immovable connection: NOTCLIENT (a bindings
  connection) or NOTRECONN; IMMCOUNT counts its immovable connections; IMMDATE and IMMTIME are when
  the instance's first immovable connection connected.
- The connection tag (CONNTAG) is the first connection's ConnectionId, 24 bytes (MQ's tag is a
  string of up to 128 bytes that the queue manager generates; only its uniqueness is relied on).
- TYPE(QMGR) has one row per application, for this queue manager; its LMSGDATE and LMSGTIME (when
  the queue manager last heard of the application from a uniform-cluster peer) are the time of
  the inquiry, the local queue manager's knowledge being current.

The fields are declared once, as DISPLAY CONN's are (``engine.connections``), so MQSC and PCF
cannot disagree."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.engine.clock import mq_date_time
from mqlite.engine.core import Conn
from mqlite.engine.fields import Field, enum, hex_upper
from mqlite.objects.names import generic_match

NOT_APPLIC = enum({F.MQBALANCED_NOT_APPLICABLE: "NOTAPPLIC", F.MQBALANCED_YES: "YES", F.MQBALANCED_NO: "NO",
                   F.MQBALANCED_UNKNOWN: "UNKNOWN"})
APPL_FIELDS = (
    Field("BALANCED", F.MQIACF_BALANCED, word=NOT_APPLIC),
    Field("CLUSTER", C.MQCA_CLUSTER_NAME, 48),
    Field("COUNT", F.MQIACF_APPL_COUNT),
    Field("MOVCOUNT", F.MQIACF_MOVABLE_APPL_COUNT),
)
QMGR_FIELDS = (
    Field("ACTIVE", F.MQIACF_REMOTE_QMGR_ACTIVE, word=enum({F.MQACTIVE_YES: "YES", F.MQACTIVE_NO: "NO"})),
    Field("BALSTATE", F.MQIACF_BALSTATE, word=enum({F.MQBALSTATE_NOT_APPLICABLE: "NOTAPPLIC", F.MQBALSTATE_LOW: "LOW",
                                                     F.MQBALSTATE_OK: "OK", F.MQBALSTATE_HIGH: "HIGH",
                                                     F.MQBALSTATE_UNKNOWN: "UNKNOWN"})),
    Field("COUNT", F.MQIACF_APPL_COUNT),
    Field("LMSGDATE", F.MQCACF_LAST_MSG_DATE, 12),
    Field("LMSGTIME", F.MQCACF_LAST_MSG_TIME, 8),
    Field("MOVCOUNT", F.MQIACF_MOVABLE_APPL_COUNT),
    Field("QMID", C.MQCA_Q_MGR_IDENTIFIER, 48),
    Field("QMNAME", C.MQCA_Q_MGR_NAME, 48),
)
LOCAL_FIELDS = (
    Field("CONNS", F.MQIACF_CONNECTION_COUNT),
    Field("CONNTAG", F.MQBACF_CONN_TAG, -1, word=hex_upper, binary=True),
    Field("IMMCOUNT", F.MQIACF_APPL_IMMOVABLE_COUNT),
    Field("IMMDATE", F.MQCACF_APPL_IMMOVABLE_DATE, 12),
    Field("IMMREASN", F.MQIACF_APPL_IMMOVABLE_REASON,
          word=enum({F.MQIMMREASON_NONE: "NONE", F.MQIMMREASON_NOT_CLIENT: "NOTCLIENT",
                     F.MQIMMREASON_NOT_RECONNECTABLE: "NOTRECONN", F.MQIMMREASON_MOVING: "MOVING",
                     F.MQIMMREASON_APPLNAME_CHANGED: "APPNAMECHG", F.MQIMMREASON_IN_TRANSACTION: "INTRANS",
                     F.MQIMMREASON_AWAITS_REPLY: "AWAITRPY", F.MQIMMREASON_NO_REDIRECT: "NOREDIR"})),
    Field("IMMTIME", F.MQCACF_APPL_IMMOVABLE_TIME, 8),
    Field("MOVABLE", F.MQIACF_APPL_MOVABLE, word=enum({F.MQAPPL_MOVABLE: "YES", F.MQAPPL_IMMOVABLE: "NO"})),
)
TYPES = {"APPL": APPL_FIELDS, "QMGR": QMGR_FIELDS, "LOCAL": LOCAL_FIELDS}


def immovable_reason(conn: Conn) -> int:
    """Why a connection keeps its instance here (MQIMMREASON_NONE: it could move)."""
    if not conn.channel:
        return F.MQIMMREASON_NOT_CLIENT
    reconnect = conn.conn_opts & (C.MQCNO_RECONNECT | C.MQCNO_RECONNECT_Q_MGR | C.MQCNO_RECONNECT_DISABLED)
    if reconnect != C.MQCNO_RECONNECT:
        return F.MQIMMREASON_NOT_RECONNECTABLE
    return F.MQIMMREASON_NONE


@dataclass
class Instance:
    """One application instance: the connections of one application process."""
    appl: str
    conns: list[Conn] = field(default_factory=list)

    @property
    def immovable(self) -> list[Conn]:
        return [c for c in self.conns if immovable_reason(c) != F.MQIMMREASON_NONE]


def instances(conns: Iterable[Conn]) -> list[Instance]:
    """The application instances among ``conns`` (the queue manager's own connections left out),
    in connection order."""
    found: dict[tuple[str, object], Instance] = {}
    for c in sorted(conns, key=lambda c: c.hconn):
        if c.appl_type == C.MQAT_QMGR:
            continue
        key: tuple[str, object] = (c.appl_name, c.pid) if not c.channel else (c.appl_name, ("client", c.hconn))
        found.setdefault(key, Instance(c.appl_name)).conns.append(c)
    return list(found.values())


def rows(conns: Iterable[Conn], pattern: str, kind: str, qmgr: str, qmid: str, now: float) -> list[dict[str, Any]]:
    """The rows DISPLAY APSTATUS(pattern) TYPE(kind) shows, each with APPLNAME, in name order."""
    insts = [i for i in instances(conns) if generic_match(pattern, i.appl)]
    if kind == "LOCAL":
        out = []
        for i in sorted(insts, key=lambda i: (i.appl, i.conns[0].hconn)):
            stuck = i.immovable
            when = mq_date_time(stuck[0].started) if stuck else ("", "")
            out.append({"APPLNAME": i.appl, "CONNS": len(i.conns), "CONNTAG": i.conns[0].conn_id,
                        "IMMCOUNT": len(stuck), "IMMDATE": when[0], "IMMTIME": when[1],
                        "IMMREASN": immovable_reason(stuck[0]) if stuck else F.MQIMMREASON_NONE,
                        "MOVABLE": F.MQAPPL_IMMOVABLE if stuck else F.MQAPPL_MOVABLE})
        return out
    by_name: dict[str, list[Instance]] = {}
    for i in insts:
        by_name.setdefault(i.appl, []).append(i)
    out = []
    for name in sorted(by_name):
        count, movable = len(by_name[name]), sum(1 for i in by_name[name] if not i.immovable)
        if kind == "APPL":
            out.append({"APPLNAME": name, "BALANCED": F.MQBALANCED_NOT_APPLICABLE, "CLUSTER": "",
                        "COUNT": count, "MOVCOUNT": movable})
        else:
            date, time_ = mq_date_time(now)
            out.append({"APPLNAME": name, "ACTIVE": F.MQACTIVE_YES, "BALSTATE": F.MQBALSTATE_NOT_APPLICABLE,
                        "COUNT": count, "LMSGDATE": date, "LMSGTIME": time_, "MOVCOUNT": movable,
                        "QMID": qmid, "QMNAME": qmgr})
    return out
