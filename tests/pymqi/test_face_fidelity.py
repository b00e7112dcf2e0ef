"""Issue 33's fidelity defects in the pymqi face, each as pymqi 1.12 behaves: field names checked
by ``set`` and ``[]``, RFH2 folders that must be XML and byte order that stays, a queue's handle
None while it is not open, a collected Subscription closing its handle, and MQSO_WILDCARD_CHAR's
'%' escape (MQRC_TOPIC_STRING_ERROR when it escapes nothing)."""
from __future__ import annotations

import gc

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqlite import pymqi
from mqlite.cmq import CMQC
from mqlite.pubsub.matching import char_match, char_pattern_valid
from mqlite.testing import Harness


@pytest.fixture(scope="module")
def qm(tmp_path_factory):
    with Harness(str(tmp_path_factory.mktemp("data"))) as h:
        yield h.add("QMFACE", "DEFINE QLOCAL(FACE.Q)\n")


def test_unknown_field_names_raise_attribute_error():
    with pytest.raises(AttributeError):
        pymqi.MD(NoSuchField=1)
    gmo = pymqi.GMO()
    with pytest.raises(AttributeError):
        gmo["NoSuchField"] = 1
    with pytest.raises(AttributeError):
        gmo.set(NoSuchField=1)
    gmo["WaitInterval"] = 5
    gmo.ReportOptions = 1          # plain attribute assignment stays permissive, as in pymqi
    assert gmo.WaitInterval == 5 and gmo.ReportOptions == 1


def test_rfh2_folders_must_be_xml_and_byte_order_stays():
    r = pymqi.RFH2()
    for bad in (b"<a><b></a>", b"not xml", b"<a>"):
        with pytest.raises(pymqi.PYIFError):
            r.add_folder(bad)
    r.add_folder(b"<mcd><Msd>jms_text</Msd></mcd>")
    assert r.get_folders() == ["mcd"]
    little = r.pack()
    assert little[4:8] == b"\x02\x00\x00\x00"
    for enc in (CMQC.MQENC_FLOAT_S390, 17, 257, 272, 273, 785):
        big = pymqi.RFH2().unpack(little).pack(enc)
        assert big[4:8] == b"\x00\x00\x00\x02", enc
    again = pymqi.RFH2().unpack(big, 273)
    assert again.pack()[4:8] == b"\x00\x00\x00\x02"          # unpacked big-endian, packed so again
    assert again["mcd"].rstrip() == b"<mcd><Msd>jms_text</Msd></mcd>"


def test_get_handle_is_none_until_open_and_after_close(qm):
    c = qm.client()
    q = pymqi.Queue(c, "FACE.Q")
    assert q.get_handle() is None
    q.open("FACE.Q", CMQC.MQOO_OUTPUT)
    assert isinstance(q.get_handle(), int)
    q.close()
    assert q.get_handle() is None
    c.disconnect()


def _durable_sub(c, name: str, topic: str):
    """A new managed durable subscription, open."""
    sd = pymqi.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_DURABLE | CMQC.MQSO_MANAGED)
    sd.set_vs("SubName", name)
    sd.set_vs("ObjectString", topic)
    sub = pymqi.Subscription(c)
    sub.sub(sub_desc=sd)
    return sub


def test_a_collected_subscription_closes_its_handle(qm):
    c = qm.client()
    sub = _durable_sub(c, "face.dropped", "face/dropped")
    del sub
    gc.collect()
    resume = pymqi.SD(Options=CMQC.MQSO_RESUME | CMQC.MQSO_DURABLE | CMQC.MQSO_MANAGED)
    resume.set_vs("SubName", "face.dropped")
    again = pymqi.Subscription(c)
    again.sub(sub_desc=resume)             # 2429 MQRC_SUBSCRIPTION_IN_USE while the first was open
    again.close(sub_close_options=CMQC.MQCO_REMOVE_SUB, close_sub_queue=True)
    c.disconnect()


def test_character_wildcards_escape_with_percent(qm):
    c = qm.client()
    for bad in ("bad/%x", "bad/%", "a%b*"):
        sd = pymqi.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED | CMQC.MQSO_WILDCARD_CHAR)
        sd.set_vs("ObjectString", bad)
        with pytest.raises(pymqi.MQMIError) as e:
            pymqi.Subscription(c).sub(sub_desc=sd)
        assert e.value.reason == CMQC.MQRC_TOPIC_STRING_ERROR
    out = qm.mqsc("DEFINE SUB(FACE.BAD) TOPICSTR('bad/%x') WSCHEMA(CHAR) DEST(FACE.Q)\n").stdout
    assert "FACE.BAD" not in qm.mqsc("DISPLAY SUB(*)\n").stdout, out
    sd = pymqi.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED | CMQC.MQSO_WILDCARD_CHAR)
    sd.set_vs("ObjectString", "price%*/*")
    sub = pymqi.Subscription(c)
    sub.sub(sub_desc=sd)
    for topic in ("price*/eu", "priceX/eu"):
        with pymqi.Topic(c, topic_string=topic) as t:
            t.pub(topic.encode())
    got = sub.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=2000))
    assert got == b"price*/eu"
    with pytest.raises(pymqi.MQMIError) as e:
        sub.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_NO_WAIT))
    assert e.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    sub.close(close_sub_queue=True)
    c.disconnect()


def _escape(literal: str) -> str:
    return "".join("%" + ch if ch in "*?%" else ch for ch in literal)


@given(st.text(alphabet="ab/*?%", max_size=12), st.text(alphabet="ab/", min_size=1, max_size=3))
def test_an_escaped_literal_matches_itself_alone(literal, extra):
    pattern = _escape(literal)
    assert char_pattern_valid(pattern)
    assert char_match(pattern, literal)
    assert not char_match(pattern, literal + extra)


@given(st.text(alphabet="ab/", max_size=6), st.sampled_from("ab/x"), st.text(alphabet="ab/*?%", max_size=6))
def test_a_percent_before_anything_else_is_invalid(head, after, tail):
    assert not char_pattern_valid(head + "%" + after + tail)
    assert not char_pattern_valid(head + "%")


# --- the ibmmq face, as ibmmq 2.x has it ------------------------------------------------------
def test_ibmmq_structures_name_their_first_field_strucid_with_an_underscore():
    from mqlite import ibmmq
    for cls in (ibmmq.MD, ibmmq.GMO, ibmmq.PMO, ibmmq.OD, ibmmq.CNO, ibmmq.CSP, ibmmq.SCO, ibmmq.SD, ibmmq.SRO,
                ibmmq.STS, ibmmq.MDE, ibmmq.BNO, ibmmq.CMHO, ibmmq.DLH, ibmmq.XQH):
        s = cls()
        assert s["_StrucId"] == s.StrucId and len(s._StrucId) == 4, cls
        assert "StrucId" not in s.get()
    r = ibmmq.RFH2()
    r["_StrucId"] = CMQC.MQRFH_STRUC_ID
    assert ibmmq.RFH2().unpack(r.pack())["_StrucId"] == CMQC.MQRFH_STRUC_ID
    assert pymqi.RFH2()["StrucId"] == CMQC.MQRFH_STRUC_ID                 # pymqi's name stays
    # ibmmq's errors from its RFH2, word for word (its test_rfh2.py compares them).
    with pytest.raises(ibmmq.PYIFError) as e:
        ibmmq.RFH2().unpack(b"ame>" + bytes(40))
    assert str(e.value) == "PYIBMMQ Error: RFH2 - _StrucId not MQRFH_STRUC_ID. Value: b'ame>'"
    with pytest.raises(ibmmq.PYIFError) as e:
        ibmmq.RFH2().unpack(CMQC.MQRFH_STRUC_ID + bytes(28))
    assert str(e.value) == "PYIBMMQ Error: RFH2 - Buffer too short. Should be 36+ bytes instead of 32"
    with pytest.raises(pymqi.PYIFError) as e:
        pymqi.RFH2().unpack(b"ame>" + bytes(40))
    assert str(e.value) == "PYMQI Error: RFH2 - StrucId not MQRFH_STRUC_ID. Value: b'ame>'"   # pymqi's words


def test_ibmmq_headers_bytestring_and_error_get():
    from mqlite import ibmmq
    from mqlite.cmq import headers
    inner = headers.XQH(RemoteQName=b"TARGET.Q", RemoteQMgrName=b"QM2")
    inner.MsgDesc.Format, inner.MsgDesc.Priority = CMQC.MQFMT_STRING, 7
    msg = inner.pack() + b"the data"
    xqh = ibmmq.XQH().get_header(msg)
    assert xqh.get_length() == 104 and xqh.to_string().RemoteQName == "TARGET.Q"
    md = ibmmq.XQH().get_embedded_md(msg)
    assert (md.Format, md.Priority) == (CMQC.MQFMT_STRING, 7) and not hasattr(md, "GroupId")
    dlh = headers.DLH(Reason=CMQC.MQRC_Q_FULL, DestQName=b"FULL.Q")
    got = ibmmq.DLH().get_header(dlh.pack() + b"rest of the message")
    assert got.Reason == CMQC.MQRC_Q_FULL and got.to_string().DestQName == "FULL.Q"
    assert ibmmq.ByteString("").value == b"" and ibmmq.ByteString(b"\x01").value == b"\x01"
    e = ibmmq.MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_PROPERTY_VALUE_TOO_BIG, value=b"abc")
    assert e.get("value") == b"abc"


def test_delete_subscription_by_its_identifier_as_ibmmqs_suite_cleans_up(qm):
    """PCF Delete Subscription takes MQBACF_SUB_ID (a ByteString) as well as the name; ibmmq's
    test_pubsub.py removes leftovers that way, and a leftover made the next MQSO_CREATE 2432."""
    from mqlite import ibmmq
    c = qm.client()
    _durable_sub(c, "UNITTEST's leftover", "left/over").close(sub_close_options=0, close_sub_queue=True)
    pcf = ibmmq.PCFExecute(c)
    (found,) = pcf.MQCMD_INQUIRE_SUBSCRIPTION({pymqi.CMQCFC.MQCACF_SUB_NAME: "UNITTEST*"})
    pcf.MQCMD_DELETE_SUBSCRIPTION({pymqi.CMQCFC.MQBACF_SUB_ID: ibmmq.ByteString(found[pymqi.CMQCFC.MQBACF_SUB_ID])})
    with pytest.raises(pymqi.MQMIError) as e:
        pcf.MQCMD_INQUIRE_SUBSCRIPTION({pymqi.CMQCFC.MQCACF_SUB_NAME: "UNITTEST*"})
    assert e.value.reason == CMQC.MQRC_NO_SUBSCRIPTION
    with pytest.raises(pymqi.MQMIError) as e:
        pcf.MQCMD_DELETE_SUBSCRIPTION({pymqi.CMQCFC.MQBACF_SUB_ID: ibmmq.ByteString(bytes(24))})
    assert e.value.reason == CMQC.MQRC_NO_SUBSCRIPTION
    pcf.disconnect()


def test_put_rfh2_refuses_a_str_message_as_pymqi_and_ibmmq_do(qm):
    c = qm.client()
    q = pymqi.Queue(c, "FACE.Q")
    with pytest.raises(TypeError):
        q.put_rfh2("text", pymqi.MD(Format=CMQC.MQFMT_RF_HEADER_2), pymqi.PMO(), [pymqi.RFH2()])
    c.disconnect()
