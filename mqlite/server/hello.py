"""A connection's first frame (HELLO) and what it is let in as: a message channel, an
administration connection, or an application's MQI connection through a SVRCONN channel, admitted
against the queue manager's channel limits and the channel's MAXINST/MAXINSTC. ``s`` is the
server's :class:`~mqlite.server.server.Session`."""
from __future__ import annotations

import os
import threading
from typing import Any

from mqlite.catalogue import entry, message
from mqlite.channels.status import ChannelError
from mqlite.cmq import CMQC as C
from mqlite.cmq.errors import MQIError
from mqlite.net import protocol as P
from mqlite.objects.model import MQObject
from mqlite.security import tls
from mqlite.server.auth import Refused, check_tls, identify, peer_pid, peer_user, refuse_later


def greet(s: Any, req: Any) -> bool:
    """Answer a connection's HELLO: a message channel is handed to the channel manager; runmqsc
    and the control commands get an administration connection over local bindings; an application
    gets an MQI connection, through a SVRCONN it may use (the channel limits, MAXINST, MAXINSTC)
    with its MAXMSGL and HBINT agreed. False: refused (and answered so), or served as a channel."""
    srv = s.server
    if not isinstance(req, dict) or req.get("proto") != P.PROTOCOL_VERSION:
        raise P.ProtocolError(f"unsupported protocol version in HELLO: {req!r:.200}")
    P.checked(req, "HELLO", qmgr="str", channel="str", appl="str", user="str", kind="str", appl_type="int",
              maxmsgl="int", hbint="int")
    if req.get("kind") == "channel":
        if s.kind != "tcp":
            return refuse(s, C.MQRC_NOT_AUTHORIZED, "a message channel over local bindings")
        s.sock.settimeout(None)
        try:
            srv.channels.accept(s, req)
        except ChannelError as e:
            srv.log.write(e.msgid, e.text, (f"{e.detail} " if e.detail else "")
                          + f"A channel connection from {s.peer} was refused.")
            P.send_frame(s.sock, P.ERROR, P.encode_json({"comp": C.MQCC_FAILED, "reason": 0, "msgid": e.msgid,
                                                         "text": e.text, "detail": e.detail}))
        return False
    qmname = str(req.get("qmgr") or "")
    if qmname and qmname != srv.name and not qmname.startswith("*"):
        return refuse(s, C.MQRC_Q_MGR_NAME_ERROR, f"queue manager {qmname} requested")
    if req.get("control"):
        # runmqsc and the control commands: MQSC and CONTROL frames, no MQI connection, for the
        # queue manager's administrators (the mqm group) over local bindings.
        if s.kind != "bindings":
            return refuse(s, C.MQRC_NOT_AUTHORIZED, "administration over a network connection")
        user = peer_user(s.sock)
        with srv.lock:
            admin = srv.qm.security.is_admin(user)
        if not admin:
            srv.qm.log(message("AMQ8077W", entity=user, name=srv.name),
                       "It is not a member of the mqm group: it may not administer the queue manager.")
            return refuse(s, C.MQRC_NOT_AUTHORIZED, f"user {user} is not an administrator")
        s.control_only = True
        s.control_user = user               # the issuer of its commands (command and configuration events)
        P.send_frame(s.sock, P.HELLO_OK, P.encode_json({"qmgr": srv.name, "proto": P.PROTOCOL_VERSION}))
        return True
    obj: MQObject | None = None
    if s.kind == "tcp":
        chl = str(req.get("channel") or "")
        obj = srv.qm.lookup("CHANNEL", chl)
        if obj is None:
            srv.log.write(*entry("AMQ9519E", channel=chl),
                          f"A client at {s.peer} asked for a channel that is not defined.")
            return refuse(s, C.MQRC_UNKNOWN_CHANNEL_NAME, f"channel {chl} not found")
        if obj.kind != "SVRCONN":
            srv.log.write(*entry("AMQ9547E"), f"Channel {chl} is not a server-connection channel.")
            return refuse(s, C.MQRC_CHANNEL_CONFIG_ERROR, f"channel {chl} is not SVRCONN")
        mismatch = check_tls(s, obj, str(req.get("sslciph") or ""))
        if mismatch is not None:
            reason, msgid, text = mismatch
            srv.log.write(msgid, text, f"The connection from {s.peer} was refused.")
            with srv.lock:
                srv.qm.events.ssl_error(tls.SSL_QUALIFIERS[msgid], chl, s.peer.split("(")[0], peer=tls.peer_dn(s.sock))
            return refuse(s, reason, text)
        with srv.lock:
            stopped = bool(srv.qm.uow.record(chl).get("stopped"))
        if stopped:
            srv.log.write(*entry("AMQ9558E", chl=chl, name=srv.name),
                          f"Channel '{chl}' is STOPPED (STOP CHANNEL): a client at {s.peer} was refused "
                          "until START CHANNEL.")
            return refuse(s, C.MQRC_CHANNEL_NOT_AVAILABLE, f"channel {chl} is stopped")
        refused = admit(s, chl, obj)
        if refused:
            return refuse(s, C.MQRC_CHANNEL_NOT_AVAILABLE, refused)
        # MAXMSGL of the conversation: the lower of the SVRCONN's and the client's.
        s.maxmsgl = min(obj["MAXMSGL"], int(req.get("maxmsgl") or obj["MAXMSGL"]))
        # HBINT of the conversation: the larger of the SVRCONN's and the client's (0 at both: none).
        s.hbint = max(obj["HBINT"], int(req.get("hbint") or 0))
    try:
        principal = identify(s, req, obj)
    except Refused as e:
        with srv.lock:
            srv.qm.mqi.conn_fails += 1
            if e.blocked:
                srv.qm.events.channel_blocked(e.blocked, s.channel, s.peer.split("(")[0], user=e.user)
            if e.qualifier:
                srv.qm.events.not_authorized(e.qualifier, user=e.user, csp_user=e.csp_user,
                                             appltype=int(req.get("appl_type") or C.MQAT_UNIX),
                                             applname=str(req.get("appl") or "")[-28:], channel=s.channel,
                                             conname=s.peer.split("(")[0] if obj is not None else "")
        refuse_later(e.delay)
        srv.forget(s)
        return refuse(s, C.MQRC_NOT_AUTHORIZED, e.why)
    # The reconnection a client asked for (its MQCNO options or its channel definition's), and
    # the accounting its MQCNO asks for (heeded under ACCTCONO(ENABLED): engine/accounting.py).
    cno = int(req.get("reconnect") or 0) & (C.MQCNO_RECONNECT | C.MQCNO_RECONNECT_Q_MGR | C.MQCNO_RECONNECT_DISABLED)
    cno |= int(req.get("accounting") or 0) & (C.MQCNO_ACCOUNTING_MQI_ENABLED | C.MQCNO_ACCOUNTING_MQI_DISABLED
                                              | C.MQCNO_ACCOUNTING_Q_ENABLED | C.MQCNO_ACCOUNTING_Q_DISABLED)
    with srv.lock:
        try:
            if s.kind == "bindings":
                # The application's own process (as the kernel says) and the thread it names.
                pid, tid, conname = peer_pid(s.sock), int(req.get("tid") or 0), ""
            else:
                # A client's, as MQ shows them: the channel agent serving it, and its address.
                pid, tid, conname = os.getpid(), threading.get_native_id(), s.peer.split("(")[0]
            s.conn = srv.qm.connect(str(req.get("appl") or "")[-28:], int(req.get("appl_type") or C.MQAT_UNIX),
                                    principal.user, channel=s.channel, conname=conname, pid=pid, tid=tid,
                                    conn_opts=C.MQCNO_HANDLE_SHARE_BLOCK | C.MQCNO_SHARED_BINDING | cno)
        except MQIError as e:
            srv.qm.mqi.conn_fails += 1
            return refuse(s, e.reason, "queue manager quiescing")
        s.conn.principal = principal
    info = {"qmgr": srv.name, "proto": P.PROTOCOL_VERSION, "hconn": s.conn.hconn,
            "ccsid": srv.qm.qmgr["CCSID"], "qmid": srv.qm.qmgr["QMID"], "maxmsgl": s.maxmsgl, "hbint": s.hbint}
    P.send_frame(s.sock, P.HELLO_OK, P.encode_json(info))
    return True


def admit(s: Any, chl: str, obj: MQObject) -> str:
    """Take a channel instance of SVRCONN ``chl`` for this conversation if the limits allow
    (MaxChannels, MaxActiveChannels, then the channel's MAXINST and MAXINSTC); else say why.
    Counted and taken under the channel manager's admission lock, which receivers and senders
    take too, so two instances cannot both take the last slot."""
    srv = s.server
    host = s.peer.split("(")[0]
    with srv.channels.admission:
        why = srv.channels.room()
        if why is not None:
            srv.channels.limit_reached(chl, why)
            return f"channel {chl}: maximum number of channels reached"
        with srv.sessions_lock:
            same = [other for other in srv.sessions if other.channel == chl and other is not s]
        if len(same) >= obj["MAXINST"]:
            return f"channel {chl} has MAXINST({obj['MAXINST']}) instances running"
        if sum(1 for other in same if other.peer.split("(")[0] == host) >= obj["MAXINSTC"]:
            return f"channel {chl} has MAXINSTC({obj['MAXINSTC']}) instances from {host} running"
        s.channel = chl
    return ""


def refuse(s: Any, reason: int, why: str) -> bool:
    s.server.log.write(*entry("AMQ9999E", channel=s.channel or "????", host=s.peer), f"{why} (reason {reason}).")
    P.send_frame(s.sock, P.ERROR, P.encode_json({"comp": C.MQCC_FAILED, "reason": reason}))
    return False
