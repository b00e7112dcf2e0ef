"""A client conversation as MQ shows it: a SVRCONN channel instance in DISPLAY CHSTATUS and PCF
Inquire Channel Status, from what the session serving it counts (``Conversation``); and its
heartbeats (HBINT), which the server's heartbeat thread checks."""
from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any, Protocol

from mqlite.catalogue import entry, message
from mqlite.engine.clock import mq_date_time
from mqlite.engine.core import Conn
from mqlite.net import protocol as P
from mqlite.objects.names import generic_match


class Conversation(Protocol):
    """What a session (``server.Session``) counts of the conversation it serves."""
    channel: str                  # the SVRCONN ("" for a bindings connection)
    peer: str                     # host(port)
    conn: Conn | None
    started_at: float
    last_heard: float             # when the last frame came (time.monotonic())
    calls: int                    # MQI calls served, MQCONN included (MSGS, BUFSRCVD)
    bytes_in: int
    bytes_out: int
    frames_out: int
    hbint: int


def status_row(s: Conversation) -> dict[str, Any]:
    """One SVRCONN instance's status, keyed as DISPLAY CHSTATUS shows it: MSGS counts the MQI
    calls served, as MQ counts them for server-connection channels. A message channel's batch,
    sequence-number and in-doubt fields are not a server-connection channel's: MQ shows none of
    them for one, and neither does this row."""
    conn = s.conn
    # The last call's wall time, from the monotonic time the session keeps for its heartbeats.
    last = mq_date_time(time.time() - (time.monotonic() - s.last_heard)) if s.calls > 1 else ("", "")
    started = mq_date_time(s.started_at)
    return {"CHANNEL": s.channel, "CHLTYPE": "SVRCONN", "CONNAME": s.peer.split("(")[0], "CURRENT": None,
            "RQMNAME": "", "STATUS": "RUNNING", "SUBSTATE": "MQGET" if conn is not None and conn.waiting
            else "RECEIVE", "XMITQ": "", "MSGS": s.calls, "BYTSSENT": s.bytes_out, "BYTSRCVD": s.bytes_in, "LSTMSGDA": last[0],
            "LSTMSGTI": last[1], "CHSTADA": started[0], "CHSTATI": started[1], "CURSHCNV": 1, "MAXSHCNV": 1,
            "RAPPLTAG": conn.appl_name if conn is not None else "",
            "MCAUSER": conn.user if conn is not None else "", "HBINT": s.hbint,
            "BUFSSENT": s.frames_out, "BUFSRCVD": s.calls, "MCASTAT": "RUNNING", "SSLRKEYS": 0}


def status_rows(sessions: Iterable[Conversation], pattern: str) -> list[dict[str, Any]]:
    """The rows of the client conversations whose channel ``pattern`` matches, in channel and
    start order."""
    found = [s for s in sessions if s.channel and s.conn is not None and generic_match(pattern, s.channel)]
    return [status_row(s) for s in sorted(found, key=lambda s: (s.channel, s.started_at))]


def stop_connection(sessions: Iterable[Any], hconn: int) -> str | None:
    """STOP CONN: the session is ended (its socket shut down), so the application's next call
    fails with 2009 and its unit of work is backed out; the queue manager's own are refused."""
    found = [s for s in sessions if s.conn is not None and s.conn.hconn == hconn]
    if not found:
        return message("AMQ8463E")
    found[0].kill()
    return None


def end_conversations(sessions: Iterable[Any], channel: str) -> bool:
    """STOP CHANNEL of a SVRCONN: every conversation through it ends (its sockets shut down, so
    the applications' next calls get 2009 and their units of work are backed out). Whether there
    was one."""
    ended = [s for s in sessions if s.channel == channel]
    for s in ended:
        s.kill()
    return bool(ended)


def heartbeat_wait(hbint: int) -> float:
    """How long a client has to answer a heartbeat: the interval itself (5 s at least: a busy
    machine must not end a live client), at most 60 s."""
    return float(min(max(hbint, 5), 60))


def heartbeat(s: Any, now: float) -> None:
    """Called by the server's heartbeat thread. A client conversation that has said nothing
    for its heartbeat interval between calls is asked, once; one that does not answer (its
    process stopped, its host gone) is ended, and its unit of work backed out as for any
    broken connection. Not while a call is in progress (an MQGET waiting, for one)."""
    if not s.hbint or s.in_call or s.outbox.entries or s.closed or s.conn is None:
        return
    if not s.hb_sent:
        if now - s.last_heard >= s.hbint:
            try:
                if not s.outbox.heartbeat(P.frame(P.HEARTBEAT), s.tls, lambda: s.in_call):
                    return
            except OSError:
                return
            s.hb_sent = now
        return
    wait = heartbeat_wait(s.hbint)
    if now - s.hb_sent >= wait:
        s.server.log.write(*entry("AMQ9259E", peer=s.peer),
                           f"The client on channel '{s.channel}' did not answer a heartbeat within "
                           f"{wait:g} s (HBINT {s.hbint}); the conversation was ended and its unit of "
                           "work backed out.")
        s.kill()
