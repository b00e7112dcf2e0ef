"""The rules of asynchronous consume as MQ's MQCB and MQCTL pages give them, as pure functions:
what MQCTL does to the connection's state, what MQCB does to a handle's callback, the MQCBC State
a reason puts a consumer in, and which consumers read-ahead can serve (mqlite/pymqi/consume.py
runs them)."""
from __future__ import annotations

from mqlite.cmq import CMQC as C
from mqlite.cmq.structs import GMO, MD

STOPPED, STARTED, SUSPENDED = "stopped", "started", "suspended"
_NOT_BATCHED = (C.MQGMO_BROWSE_FIRST | C.MQGMO_BROWSE_NEXT | C.MQGMO_BROWSE_MSG_UNDER_CURSOR
                | C.MQGMO_MSG_UNDER_CURSOR | C.MQGMO_SYNCPOINT_IF_PERSISTENT | C.MQGMO_LOGICAL_ORDER
                | C.MQGMO_ALL_MSGS_AVAILABLE | C.MQGMO_COMPLETE_MSG | C.MQGMO_ALL_SEGMENTS_AVAILABLE
                | C.MQGMO_LOCK | C.MQGMO_UNLOCK | C.MQGMO_MARK_SKIP_BACKOUT | C.MQGMO_CONVERT
                | C.MQGMO_PROPERTIES_FORCE_MQRFH2 | C.MQGMO_NO_PROPERTIES | C.MQGMO_PROPERTIES_IN_HANDLE
                | C.MQGMO_PROPERTIES_COMPATIBILITY | C.MQGMO_ACCEPT_TRUNCATED_MSG)


def control(state: str, op: int, in_callback: bool, active: int) -> tuple[str, int]:
    """MQCTL: the connection's next state and the reason (0: done). ``active``: consumers
    registered and not suspended."""
    if op == C.MQOP_START:
        return (state, C.MQRC_OPERATION_NOT_ALLOWED) if state == SUSPENDED else (STARTED, 0)
    if op == C.MQOP_START_WAIT:
        if in_callback:
            return state, C.MQRC_ENVIRONMENT_ERROR
        if state != STOPPED:
            return state, C.MQRC_OPERATION_NOT_ALLOWED
        return (state, C.MQRC_NO_CALLBACKS_ACTIVE) if not active else (STARTED, 0)
    if op == C.MQOP_STOP:
        return STOPPED, 0
    if op in (C.MQOP_SUSPEND, C.MQOP_RESUME):
        if state == STOPPED:
            return state, C.MQRC_OPERATION_NOT_ALLOWED
        return (SUSPENDED if op == C.MQOP_SUSPEND else STARTED), 0
    return state, C.MQRC_OPERATION_ERROR


def register(registered: bool, suspended: bool, op: int) -> tuple[bool, bool, int]:
    """MQCB on one handle: (registered, suspended, reason). MQOP_REGISTER may be combined with
    MQOP_SUSPEND or MQOP_RESUME; a registration replaces the one there (keeping its suspension);
    the other operations need a registered callback (MQRC_CALLBACK_NOT_REGISTERED)."""
    base = op & ~(C.MQOP_SUSPEND | C.MQOP_RESUME)
    if op & C.MQOP_SUSPEND and op & C.MQOP_RESUME or base not in (0, C.MQOP_REGISTER, C.MQOP_DEREGISTER) \
            or base == C.MQOP_DEREGISTER and op != base or op == 0:
        return registered, suspended, C.MQRC_OPERATION_ERROR
    if base == C.MQOP_REGISTER:
        return True, bool(op & C.MQOP_SUSPEND) or (registered and suspended and not op & C.MQOP_RESUME), 0
    if not registered:
        return registered, suspended, C.MQRC_CALLBACK_NOT_REGISTERED
    if base == C.MQOP_DEREGISTER:
        return False, False, 0
    return True, bool(op & C.MQOP_SUSPEND), 0


def call_state(reason: int) -> int:
    """The MQCBC State a consumer is told with a reason, and what happens to it (MQ's table):
    none (2033 after its wait, truncation accepted), suspended for a while (get inhibited),
    suspended until the application acts (a message too big for it), suspended (its handle is no
    good), stopped (the connection or queue manager ends)."""
    if reason in (C.MQRC_NONE, C.MQRC_NO_MSG_AVAILABLE, C.MQRC_TRUNCATED_MSG_ACCEPTED, C.MQRC_RECONNECTED):
        return C.MQCS_NONE
    if reason in (C.MQRC_GET_INHIBITED, C.MQRC_RECONNECTING):
        return C.MQCS_SUSPENDED_TEMPORARY
    if reason == C.MQRC_TRUNCATED_MSG_FAILED:
        return C.MQCS_SUSPENDED_USER_ACTION
    if reason in (C.MQRC_CONNECTION_BROKEN, C.MQRC_Q_MGR_QUIESCING, C.MQRC_CONNECTION_QUIESCING,
                  C.MQRC_Q_MGR_STOPPING, C.MQRC_RECONNECT_FAILED):
        return C.MQCS_STOPPED
    return C.MQCS_SUSPENDED


def batched(md: MD, gmo: GMO, max_len: int) -> bool:
    """Whether read-ahead can serve a consumer: destructive whole-message gets of any message."""
    if gmo.Options & _NOT_BATCHED or gmo.MsgHandle or max_len >= 0:
        return False
    match = gmo.MatchOptions if gmo.Version >= C.MQGMO_VERSION_2 else (C.MQMO_MATCH_MSG_ID | C.MQMO_MATCH_CORREL_ID)
    if match & C.MQMO_MATCH_MSG_ID and md.MsgId.strip(b"\0") or match & C.MQMO_MATCH_CORREL_ID and md.CorrelId.strip(b"\0"):
        return False
    return not match & ~(C.MQMO_MATCH_MSG_ID | C.MQMO_MATCH_CORREL_ID)
