"""IBM's triggered server samples amqsinq and amqsset (issue 65 item 4): started by a trigger monitor
with the MQTMC2 as their argument, they get request messages from the triggered queue, each
naming a queue, and answer each with a reply (amqsinq: its depth, how many have it open for input,
whether gets are inhibited; amqsset: PUT inhibited, done by MQSET) or, when the queue cannot be
opened, inquired or set, a report whose Feedback is the reason (only if the request asked for
exception reports; with its data only under MQRO_EXCEPTION_WITH_DATA). Their output, texts and
exit codes are the samples' (docs/pymqi.md)."""
from __future__ import annotations

from typing import Any, Callable

from mqlite.cmq import CMQC as C
from mqlite.cli.samples import _close, _command, _connect, _write

BUFFER = 99                  # the samples' buffer (100 bytes, one kept for the string's end)
WAIT_MS = 5000
_QNAME, _QMGR = slice(8, 56), slice(684, 732)    # MQTMC2's QName and QMgrName


def _on_queue(qm: Any, name: bytes, options: int, work: Callable[[Any], Any]) -> tuple[Any, int]:
    """MQOPEN the named queue, ``work(queue)``, MQCLOSE (its result not checked, as in the
    samples): (what the work gave, 0) or (None, the reason that failed)."""
    from mqlite import pymqi
    try:
        q = pymqi.Queue(qm, name, options | C.MQOO_FAIL_IF_QUIESCING)
    except pymqi.MQMIError as e:
        return None, e.reason
    try:
        return work(q), 0
    except pymqi.MQMIError as e:
        return None, e.reason
    finally:
        _quiet_close(q)


def _inquire(qm: Any, name: bytes) -> tuple[bytes | None, int]:
    """amqsinq's work on the named queue: (text added to the request's, 0) or (None, reason)."""
    got, reason = _on_queue(qm, name, C.MQOO_INQUIRE, lambda q: q.inquire(
        [C.MQIA_INHIBIT_GET, C.MQIA_CURRENT_Q_DEPTH, C.MQIA_OPEN_INPUT_COUNT]))
    if got is None:
        return None, reason
    text = f" has {got[C.MQIA_CURRENT_Q_DEPTH]} messages, used by {got[C.MQIA_OPEN_INPUT_COUNT]} jobs"
    if got[C.MQIA_INHIBIT_GET]:
        text += "; GET inhibited"
    return text.encode(), 0


def _inhibit(qm: Any, name: bytes) -> tuple[bytes | None, int]:
    """amqsset's work: MQSET InhibitPut to MQQA_PUT_INHIBITED on the named queue."""
    done, reason = _on_queue(qm, name, C.MQOO_SET, lambda q: q.set(C.MQIA_INHIBIT_PUT, C.MQQA_PUT_INHIBITED) or True)
    return (b" PUT inhibited", 0) if done else (None, reason)


def _quiet_close(q: Any) -> None:
    try:
        q.close()
    except Exception:       # noqa: BLE001 - "Result not checked in this example"
        pass


def _answer(qm: Any, md: Any, buffer: bytes, work: Callable[[Any, bytes], tuple[bytes | None, int]]) -> int:
    """One request: the reply or report put with MQPUT1; the MQPUT1's completion code."""
    from mqlite import pymqi
    name = buffer[:48].split(b"\0", 1)[0]
    added, reason = work(qm, name)
    data = buffer
    if added is not None:
        data = buffer + added
        md.MsgType = C.MQMT_REPLY
    else:
        md.MsgType = C.MQMT_REPORT
        md.Feedback = reason
        if md.Report & C.MQRO_EXCEPTION_WITH_DATA != C.MQRO_EXCEPTION_WITH_DATA:
            data = b""
    if md.MsgType != C.MQMT_REPLY and not md.Report & C.MQRO_EXCEPTION:
        return C.MQCC_OK
    od = pymqi.OD(ObjectName=md.ReplyToQ, ObjectQMgrName=md.ReplyToQMgr)
    if not md.Report & C.MQRO_PASS_CORREL_ID:
        md.CorrelId = md.MsgId
    if not md.Report & C.MQRO_PASS_MSG_ID:
        md.MsgId = C.MQMI_NONE
    discard = md.Report & C.MQRO_PASS_DISCARD_AND_EXPIRY and md.Report & C.MQRO_DISCARD_MSG
    md.Report = C.MQRO_DISCARD_MSG if discard else C.MQRO_NONE
    try:
        qm.put1(od, data, md, pymqi.PMO(Options=C.MQPMO_NO_SYNCPOINT))
    except pymqi.MQMIError as e:
        _write(f"MQPUT1 ended with reason code {e.reason}")
        return int(e.comp)
    return C.MQCC_OK


def _server(name: str, argv: list[str], work: Callable[[Any, bytes], tuple[bytes | None, int]], convert: bool,
            client: bool) -> int:
    from mqlite import pymqi
    _write(f"Sample {name} start")
    if not argv:
        _write("Missing parameter - start program by MQI trigger")
        return 99
    tmc = argv[0]
    if not tmc.startswith(C.MQTMC_STRUC_ID.decode()):
        _write("Parameter supplied is not a trigger message")
        _write("This program must be started by MQI trigger")
        return 2
    _write(tmc[_QMGR])
    try:
        qm = _connect(tmc[_QMGR].strip(), client)
    except pymqi.MQMIError as e:
        _write(f"MQCONN ended with reason code {e.reason}")
        return int(e.reason) % 256
    try:
        try:
            q = pymqi.Queue(qm, tmc[_QNAME].strip(), C.MQOO_INPUT_SHARED | C.MQOO_FAIL_IF_QUIESCING)
        except pymqi.MQMIError as e:
            _write(f"MQOPEN (input) ended with reason code {e.reason}")
            return int(e.reason) % 256
        comp = C.MQCC_OK
        while comp == C.MQCC_OK:
            md = pymqi.MD()
            gmo = pymqi.GMO(Options=C.MQGMO_ACCEPT_TRUNCATED_MSG | C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT
                            | (C.MQGMO_CONVERT if convert else 0), WaitInterval=WAIT_MS)
            try:
                buffer = q.get(BUFFER, md, gmo)
            except pymqi.MQMIError as e:
                _write(f"MQGET ended with reason code {e.reason}")
                comp = e.comp
                continue
            _write(buffer.split(b"\0", 1)[0])
            if md.MsgType != C.MQMT_REQUEST:
                _write("  -- not a request and discarded")
                continue
            comp = _answer(qm, md, buffer.split(b"\0", 1)[0], work)
        _close(q, C.MQCO_NONE)
    finally:
        try:
            qm.disconnect()
        except pymqi.MQMIError as e:
            _write(f"MQDISC ended with reason code {e.reason}")
    _write(f"Sample {name} end")
    return 0


def amqsinq(argv: list[str], client: bool = False) -> int:
    return _server("AMQSINQ0", argv, _inquire, True, client)


def amqsset(argv: list[str], client: bool = False) -> int:
    return _server("AMQSSET0", argv, _inhibit, False, client)


amqsinq_main, amqsinqc_main = _command(amqsinq, False), _command(amqsinq, True)
amqsset_main, amqssetc_main = _command(amqsset, False), _command(amqsset, True)
