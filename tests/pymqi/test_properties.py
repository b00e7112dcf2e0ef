"""Message properties through ``from mqlite import pymqi`` against a real queue manager (issue 18,
items 1 and 2): message handles, MQSETMP/MQINQMP/MQDLTMP with MQ's reason codes, PROPCTL and the
MQGMO property options."""
from __future__ import annotations

import pytest

from mqlite import pymqi
from mqlite.props import rfh2
from mqlite.pymqi import CMQC
from tests.conftest import RunningQM, mqlite
from tests.helpers import reason
from tests.server.test_durability import kill9


def put_with(qm, queue: str, props: dict, body: bytes = b"data", fmt: bytes = CMQC.MQFMT_STRING) -> pymqi.MD:
    mh = pymqi.MessageHandle(qm)
    for name, (value, ptype) in props.items():
        mh.properties.set(name, value, ptype)
    md = pymqi.MD(Format=fmt)
    pymqi.Queue(qm, queue).put(body, md, pymqi.PMO(OriginalMsgHandle=mh.msg_handle))
    mh.dlt()
    return md


def get_with(qm, queue: str, options: int = 0, handle: bool = True) -> tuple[bytes, pymqi.MD, pymqi.MessageHandle | None]:
    mh = pymqi.MessageHandle(qm) if handle else None
    gmo = pymqi.GMO(Options=options, MsgHandle=mh.msg_handle if mh else 0)
    md = pymqi.MD()
    return pymqi.Queue(qm, queue).get(None, md, gmo), md, mh


def test_pymqi_message_property_tests(running_qm: RunningQM):
    """pymqi's own test_message_property.py, as it does it: PMO.OriginalMsgHandle on the put,
    MQGMO_PROPERTIES_IN_HANDLE on the get, then the value whole, and 2469 when it does not fit."""
    qm = running_qm.client()
    value = "test_valuetest_valuetest_valuetest_valuetest_value"       # a string property is str (pymqi 1.12)
    put = pymqi.MessageHandle(qm, pymqi.CMHO())
    put.properties.set(b"test_name", value.encode())                   # set from bytes or str alike
    md_put = pymqi.MD()
    pymqi.Queue(qm, "TEST.Q", CMQC.MQOO_OUTPUT).put(b"", md_put, pymqi.PMO(OriginalMsgHandle=put.msg_handle))
    assert (md_put.Format, md_put.Encoding) == (pymqi.MD().Format, pymqi.MD().Encoding)  # as the application gave it
    got = pymqi.MessageHandle(qm, pymqi.CMHO())
    gmo = pymqi.GMO(Options=CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_PROPERTIES_IN_HANDLE,
                    MatchOptions=CMQC.MQMO_MATCH_MSG_ID, MsgHandle=got.msg_handle)
    md_get = pymqi.MD(MsgId=md_put.MsgId)
    assert pymqi.Queue(qm, "TEST.Q", CMQC.MQOO_INPUT_AS_Q_DEF).get(None, md_get, gmo) == b""
    assert md_get.Format == CMQC.MQFMT_NONE
    assert got.properties.get(b"test_name", max_value_length=len(value)) == value
    assert reason(got.properties.get, b"test_name", max_value_length=len(value) // 2) == (
        CMQC.MQCC_WARNING, CMQC.MQRC_PROPERTY_VALUE_TOO_BIG)
    assert got.properties.get(b"test_name") == value          # 50 bytes: within pymqi's default of 64
    assert reason(got.properties.get, b"other") == (CMQC.MQCC_FAILED, CMQC.MQRC_PROPERTY_NOT_AVAILABLE)
    qm.disconnect()


def test_every_type_round_trips_and_converts(running_qm: RunningQM):
    qm = running_qm.client()
    props = {"s": ("text <&>", CMQC.MQTYPE_STRING), "b": (True, CMQC.MQTYPE_BOOLEAN),
             "by": (b"\x00\x01\xfe", CMQC.MQTYPE_BYTE_STRING), "i1": (-128, CMQC.MQTYPE_INT8),
             "i2": (32767, CMQC.MQTYPE_INT16), "i4": (-5, CMQC.MQTYPE_INT32), "i8": (1 << 62, CMQC.MQTYPE_INT64),
             "f4": (1.5, CMQC.MQTYPE_FLOAT32), "f8": (0.1, CMQC.MQTYPE_FLOAT64), "n": (None, CMQC.MQTYPE_NULL),
             "mq_usr.grp.x": ("g", CMQC.MQTYPE_STRING), "JMSCorrelationID": ("cid", CMQC.MQTYPE_STRING)}
    put_with(qm, "TEST.Q", props, b"payload")
    body, md, mh = get_with(qm, "TEST.Q", CMQC.MQGMO_PROPERTIES_IN_HANDLE)
    assert (body, md.Format) == (b"payload", CMQC.MQFMT_STRING)
    for name, (value, _t) in props.items():
        assert mh.properties.get(name, max_value_length=100) == value, name
    assert mh.properties.get("usr.s", max_value_length=100) == "text <&>"       # usr. is the same property
    assert mh.properties.get("jms.Cid") == "cid"
    # Conversions on request (MQIMPO_CONVERT_TYPE), MQ's refusals otherwise.
    conv = CMQC.MQIMPO_CONVERT_TYPE
    assert mh.properties.get("i4", impo_options=conv, property_type=CMQC.MQTYPE_STRING) == "-5"
    assert mh.properties.get("i2", impo_options=conv, property_type=CMQC.MQTYPE_INT64) == 32767
    assert reason(mh.properties.get, "i2", property_type=CMQC.MQTYPE_INT64) == (2, CMQC.MQRC_PROPERTY_TYPE_ERROR)
    assert reason(mh.properties.get, "i8", impo_options=conv, property_type=CMQC.MQTYPE_INT8) == (
        2, CMQC.MQRC_PROP_CONV_NOT_SUPPORTED)
    assert reason(mh.properties.get, "s", impo_options=conv, property_type=CMQC.MQTYPE_INT32) == (
        2, CMQC.MQRC_PROP_NUMBER_FORMAT_ERROR)
    # Root.MQMD: the descriptor of the message got into the handle.
    assert mh.properties.get("Root.MQMD.Format") == "MQSTR"
    assert mh.properties.get("JMSMessageID") == md.MsgId
    # Iteration with a wildcard: every property once, in the order set.
    names, options = [], CMQC.MQIMPO_INQ_FIRST
    while True:
        try:
            _value, name = mh.properties.get("%", max_value_length=100, impo_options=options)
        except pymqi.MQMIError as e:
            assert e.reason == CMQC.MQRC_PROPERTY_NOT_AVAILABLE
            break
        names.append(name)
        options = CMQC.MQIMPO_INQ_NEXT
    assert names == ["s", "b", "by", "i1", "i2", "i4", "i8", "f4", "f8", "n", "mq_usr.grp.x", "jms.Cid"]
    mh.properties.dlt("i4")
    assert reason(mh.properties.get, "i4") == (2, CMQC.MQRC_PROPERTY_NOT_AVAILABLE)
    assert reason(mh.properties.dlt, "i4") == (2, CMQC.MQRC_PROPERTY_NOT_AVAILABLE)
    qm.disconnect()


@pytest.mark.parametrize("name", ["JMSFoo", "usr.JMSX", "NULL", "usr.between", "Root.x", "Body", "a..b", "a.",
                                  "mqx.a.b", "1abc", "a b", "Root.MQMD.Priority"])
def test_bad_property_names_are_refused(name: str):
    mh = pymqi.MessageHandle()
    assert reason(mh.properties.set, name, "v") == (2, CMQC.MQRC_PROPERTY_NAME_ERROR)
    mh.properties.set("a.b", "v")
    assert reason(mh.properties.set, "a.b.c", "v") == (2, CMQC.MQRC_MIXED_CONTENT_NOT_ALLOWED)
    assert reason(mh.properties.set, "x", 5, CMQC.MQTYPE_INT8 | 1) == (2, CMQC.MQRC_PROP_TYPE_NOT_SUPPORTED)
    assert reason(mh.properties.set, "x", 300, CMQC.MQTYPE_INT8) == (2, CMQC.MQRC_PROPERTY_TYPE_ERROR)
    mh.dlt()
    assert reason(mh.properties.set, "a", "v") == (2, CMQC.MQRC_HMSG_ERROR)


def test_propctl_and_gmo_options_decide_where_properties_go(running_qm: RunningQM):
    qm = running_qm.client()
    user = {"colour": ("red", CMQC.MQTYPE_STRING)}
    other = {"mq_usr.colour": ("red", CMQC.MQTYPE_STRING)}         # not one COMPAT looks for
    # PROPCTL(COMPAT), no handle: a usr property, so the RFH2 comes with the data.
    put_with(qm, "TEST.Q", user)
    body, md, _ = get_with(qm, "TEST.Q", handle=False)
    assert md.Format == CMQC.MQFMT_RF_HEADER_2 and body.endswith(b"data")
    assert rfh2.properties_of(md.Format, md.Encoding, body) == {"colour": (CMQC.MQTYPE_STRING, "red")}
    # ... no property COMPAT looks for: properties dropped, plain data.
    put_with(qm, "TEST.Q", other)
    body, md, _ = get_with(qm, "TEST.Q", handle=False)
    assert (body, md.Format) == (b"data", CMQC.MQFMT_STRING)
    # MQGMO_NO_PROPERTIES and MQGMO_PROPERTIES_FORCE_MQRFH2 (handle ignored).
    put_with(qm, "TEST.Q", user)
    assert get_with(qm, "TEST.Q", CMQC.MQGMO_NO_PROPERTIES, handle=False)[:2][0] == b"data"
    put_with(qm, "TEST.Q", user)
    body, md, mh = get_with(qm, "TEST.Q", CMQC.MQGMO_PROPERTIES_FORCE_MQRFH2)
    assert md.Format == CMQC.MQFMT_RF_HEADER_2
    assert reason(mh.properties.get, "colour") == (2, CMQC.MQRC_PROPERTY_NOT_AVAILABLE)
    # Two property options at once: 2046; PROPERTIES_IN_HANDLE without a handle: 2460. Nothing taken.
    put_with(qm, "TEST.Q", user)
    assert reason(get_with, qm, "TEST.Q", CMQC.MQGMO_NO_PROPERTIES | CMQC.MQGMO_PROPERTIES_IN_HANDLE) == (
        2, CMQC.MQRC_OPTIONS_ERROR)
    assert reason(get_with, qm, "TEST.Q", CMQC.MQGMO_PROPERTIES_IN_HANDLE, handle=False) == (2, CMQC.MQRC_HMSG_ERROR)
    assert get_with(qm, "TEST.Q")[2].properties.get("colour") == "red"
    # PROPCTL(NONE): gone even with a handle; PROPCTL(ALL): RFH2 without a handle even for mq_usr;
    # PROPCTL(FORCE): RFH2 even with a handle.
    for propctl, props, with_handle, want_rfh2, want_prop in (
            ("NONE", user, True, False, False), ("ALL", other, False, True, False),
            ("FORCE", user, True, True, False), ("V6COMPAT", user, True, False, True)):
        running_qm.mqsc(f"ALTER QLOCAL(TEST.Q) PROPCTL({propctl})")
        put_with(qm, "TEST.Q", props)
        body, md, mh = get_with(qm, "TEST.Q", handle=with_handle)
        assert (md.Format == CMQC.MQFMT_RF_HEADER_2) == want_rfh2, propctl
        if mh is not None:
            assert (reason(mh.properties.get, "colour")[1] == 0) == want_prop, propctl
    assert "PROPCTL(V6COMPAT)" in running_qm.mqsc("DISPLAY QLOCAL(TEST.Q) PROPCTL").stdout
    assert "Value SOME is not valid for PROPCTL" in running_qm.mqsc("ALTER QLOCAL(TEST.Q) PROPCTL(SOME)").stdout
    assert "PROPCTL(V6COMPAT)" in running_qm.mqsc("DISPLAY QLOCAL(TEST.Q) PROPCTL").stdout
    qm.disconnect()


def test_properties_survive_restart_and_kill(running_qm: RunningQM):
    qm = running_qm.client()
    md = pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT)
    mh = pymqi.MessageHandle(qm)
    mh.properties.set("n", 42, CMQC.MQTYPE_INT32)
    pymqi.Queue(qm, "TEST.Q").put(b"kept", md, pymqi.PMO(OriginalMsgHandle=mh.msg_handle))
    qm.disconnect()
    kill9(running_qm)
    assert mqlite("strmqm", running_qm.name).returncode == 0
    qm = running_qm.client()
    body, _md, mh = get_with(qm, "TEST.Q")
    assert (body, mh.properties.get("n")) == (b"kept", 42)
    qm.disconnect()


def test_selectors_pick_messages_by_property_without_reading_the_data(running_qm: RunningQM):
    """MQOPEN with a SelectionString: gets see only matching messages, in queue order, the others
    stay; a bad string is 2459 at MQOPEN; a browse with a selector and the Spark-style bulk browse
    see the same messages."""
    qm = running_qm.client()
    running_qm.mqsc("DEFINE QLOCAL(SEL.Q) DEFREADA(YES)")
    mh = pymqi.MessageHandle(qm)
    q = pymqi.Queue(qm, "SEL.Q", CMQC.MQOO_OUTPUT)
    for i in range(50):
        mh.properties.set("n", i, CMQC.MQTYPE_INT32)
        mh.properties.set("colour", "red" if i % 10 == 3 else "blue")
        q.put(b"m%d" % i, pymqi.MD(Priority=i % 3), pymqi.PMO(OriginalMsgHandle=mh.msg_handle))
    q.put(b"no properties")

    def opened(selection: str, options: int = CMQC.MQOO_INPUT_SHARED) -> pymqi.Queue:
        od = pymqi.OD(ObjectName=b"SEL.Q")
        od.set_vs("SelectionString", selection)
        return pymqi.Queue(qm, od, options)

    def drain(sq: pymqi.Queue, options: int = 0) -> list[bytes]:
        out = []
        while True:
            try:
                out.append(sq.get(None, pymqi.MD(), pymqi.GMO(Options=options | CMQC.MQGMO_NO_PROPERTIES)))
            except pymqi.MQMIError as e:
                assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
                return out
            options = options & ~CMQC.MQGMO_BROWSE_FIRST | (CMQC.MQGMO_BROWSE_NEXT if options else 0)

    red = [b"m%d" % i for i in sorted(range(50), key=lambda i: (-(i % 3), i)) if i % 10 == 3]
    assert drain(opened("colour = 'red'", CMQC.MQOO_BROWSE), CMQC.MQGMO_BROWSE_FIRST) == red
    assert drain(opened("colour = 'red' AND n > 20 AND Root.MQMD.Priority >= 1")) == [b"m23", b"m43"]
    assert drain(opened("n IS NULL")) == [b"no properties"]
    assert reason(opened, "colour = ") == (2, CMQC.MQRC_SELECTOR_SYNTAX_ERROR)
    rest = drain(pymqi.Queue(qm, "SEL.Q", CMQC.MQOO_INPUT_SHARED))
    assert len(rest) == 48 and b"m23" not in rest and b"m3" in rest
    qm.disconnect()
