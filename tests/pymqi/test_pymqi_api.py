"""The pymqi-compatible surface: structures, layouts, errors and constant modules."""
from __future__ import annotations

import inspect
import os

import pytest

from mqlite import pymqi
from mqlite.pymqi import CMQC, CMQCFC, CMQXC
from mqlite.server.errlog import ErrorLog


@pytest.mark.parametrize("cls,length", [(pymqi.MD, CMQC.MQMD_CURRENT_LENGTH), (pymqi.OD, CMQC.MQOD_CURRENT_LENGTH),
                                         (pymqi.PMO, CMQC.MQPMO_CURRENT_LENGTH),
                                         (pymqi.GMO, CMQC.MQGMO_CURRENT_LENGTH),
                                         (pymqi.XQH, CMQC.MQXQH_CURRENT_LENGTH),
                                         (pymqi.DLH, CMQC.MQDLH_CURRENT_LENGTH), (pymqi.SCO, 632)])
def test_structure_lengths_match_mq(cls, length):
    assert cls().get_length() == length == len(cls().pack())


def test_defaults_match_pymqi():
    md = pymqi.MD()
    assert (md.StrucId, md.Version, md.MsgType, md.Expiry, md.Encoding, md.Priority, md.Persistence) == (
        b"MD  ", 1, CMQC.MQMT_DATAGRAM, -1, 0x222, -1, 2)
    gmo = pymqi.GMO()
    assert (gmo.Options, gmo.WaitInterval, gmo.MatchOptions, gmo.GroupStatus) == (0, 0, 3, ord(" "))
    od = pymqi.OD()
    assert (od.ObjectType, od.DynamicQName) == (CMQC.MQOT_Q, b"AMQ.*")
    assert pymqi.PMO().Timeout == -1
    cd = pymqi.CD()
    assert (cd.ChannelType, cd.TransportType, cd.MaxMsgLength) == (CMQC.MQCHT_CLNTCONN, CMQC.MQXPT_TCP, 4194304)


def test_pack_unpack_round_trip_and_item_access():
    md = pymqi.MD(Priority=7, CorrelId=b"abc", Format=CMQC.MQFMT_STRING)
    md2 = pymqi.MD()
    md2.unpack(md.pack())
    assert md2.Priority == 7 and md2.CorrelId.rstrip(b"\0") == b"abc" and md2["Format"] == b"MQSTR   "
    md2["Priority"] = 3
    assert md2.get()["Priority"] == 3
    md2.set(Expiry=100)
    assert md2.Expiry == 100
    with pytest.raises(AttributeError):
        pymqi.MD(NoSuchField=1)
    md.ReportOptions = CMQC.MQRO_COPY_MSG_ID_TO_CORREL_ID    # IBM's request sample: accepted, not an MQMD field
    assert md.ReportOptions == CMQC.MQRO_COPY_MSG_ID_TO_CORREL_ID and pymqi.MD().unpack(md.pack()).Report == 0
    cd = pymqi.CD(ConnectionName="host(1414)")
    assert pymqi.CD().unpack(cd.pack()).ConnectionName.rstrip(b"\0") == b"host(1414)"
    assert pymqi.md is pymqi.MD and pymqi.gmo is pymqi.GMO


def test_errors():
    e = pymqi.MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_Q_FULL)
    assert (e.comp, e.reason) == (2, 2053)
    assert e.errorAsString() == "FAILED: MQRC_Q_FULL"
    assert str(e) == "MQI Error. Comp: 2, Reason 2053: FAILED: MQRC_Q_FULL"
    assert pymqi.MQMIError(1, 2079).errorAsString() == "WARNING: MQRC_TRUNCATED_MSG_ACCEPTED"
    assert pymqi.MQMIError(2, 3008).errorAsString() == "FAILED: MQRCCF_COMMAND_FAILED"
    assert pymqi.MQMIError(2, 1).errorAsString() == "FAILED: Error code 1 not defined"
    assert str(pymqi.PYIFError("not open")) == "PYMQI Error: not open"
    assert isinstance(e, pymqi.Error)


def test_constant_modules_are_real_source():
    import importlib
    for name in ("CMQC", "CMQCFC", "CMQXC"):
        mod = importlib.import_module(f"mqlite.pymqi.{name}")
        lines, _ = inspect.getsourcelines(mod)
        assigned = [ln.split("=")[0].strip() for ln in lines if "=" in ln and ln[:1].isupper()]
        assert len(assigned) == len(set(assigned)), name
    assert CMQC.MQRC_NO_MSG_AVAILABLE == 2033 and CMQCFC.MQCMD_PING_Q_MGR == 40 and CMQXC.MQCHT_SVRCONN == 7
    assert pymqi.__mqbuild__ == "client" and "9.4.0" in pymqi.__mqlevels__


def test_connect_argument_checks():
    with pytest.raises(TypeError):
        pymqi.connect(None)
    qmgr = pymqi.QueueManager(None)
    with pytest.raises(pymqi.PYIFError):
        qmgr.disconnect()
    with pytest.raises(ValueError):
        qmgr.connect_with_options("QM", user="u", password=None)


def test_error_log_rotates(tmp_path):
    log = ErrorLog(str(tmp_path), "QM1", limit=2000)
    for i in range(60):
        log.write("AMQ9999E", f"entry {i}", "x" * 50)
    names = sorted(os.listdir(tmp_path))
    assert names == ["AMQERR01.LOG", "AMQERR02.LOG", "AMQERR03.LOG"]
    assert all(os.path.getsize(tmp_path / n) <= 2000 for n in names)
    assert "entry 59" in (tmp_path / "AMQERR01.LOG").read_text()
