"""MQRFH2 (issue 18, item 3): pymqi's RFH2 class and put_rfh2/get_rfh2 checked as pymqi's own
test_rfh2.py and test_rfh2_put_get.py check them, MQ's reason codes for bad headers, and
hypothesis round trips of the header chain and of property values of every type."""
from __future__ import annotations

import struct

from hypothesis import given, settings
from hypothesis import strategies as st

from mqlite import pymqi
from mqlite.cmq import CMQC as C
from mqlite.props import rfh2
from mqlite.props.values import Properties
from tests.conftest import RunningQM

PSC = (b"<psc><Command>RegSub</Command><Topic>$topictree/topiccat/topic</Topic><QMgrName>DebugQM</QMgrName>"
       b"<QName>PUBOUT</QName><RegOpt>PersAsPub</RegOpt></psc>")
TEST = b"<testFolder><testVar>testValue</testVar></testFolder>"
MCD = b"<mcd><Msd>xmlnsc</Msd></mcd>"
DATA = b"<testData><testVar>testValue</testVar></testData>"


def header(fmt: bytes, *folders: bytes) -> bytes:
    """An MQRFH2 written out by hand, big-endian (Encoding 273), as a third-party program sends it."""
    body = b"".join(struct.pack(">i", len(f) + (-len(f)) % 4) + f + b" " * ((-len(f)) % 4) for f in folders)
    return struct.pack(">4siiii8sii", b"RFH ", 2, 36 + len(body), 273, 1208, fmt, 0, 1208) + body


SINGLE = header(C.MQFMT_STRING, PSC, TEST, MCD) + DATA
MULTIPLE = header(C.MQFMT_RF_HEADER_2, PSC, TEST) + header(C.MQFMT_STRING, PSC, TEST, MCD) + DATA


class Both:
    """A put queue and a get queue on TEST.Q, as pymqi's tests hold them."""

    def __init__(self, qm) -> None:
        self.p, self.g = pymqi.Queue(qm, "TEST.Q"), pymqi.Queue(qm, "TEST.Q")
        self.put, self.put_rfh2 = self.p.put, self.p.put_rfh2
        self.get, self.get_rfh2, self.inquire = self.g.get, self.g.get_rfh2, pymqi.Queue(qm, "TEST.Q").inquire


def check_single(h: pymqi.RFH2) -> None:
    assert len(h.get()) == 14
    assert (h["StrucId"], h["Version"], h["StrucLength"], h["Encoding"], h["CodedCharSetId"]) == (
        C.MQRFH_STRUC_ID, 2, 284, 273, 1208)
    assert (h["Format"], h["Flags"], h["NameValueCCSID"]) == (C.MQFMT_STRING, 0, 1208)
    assert (h["pscLength"], h["psc"]) == (152, PSC + b" ")
    assert (h["testFolderLength"], h["testFolder"]) == (56, TEST + b"   ")
    assert (h["mcdLength"], h["mcd"]) == (28, MCD)


def test_rfh2_class_as_pymqi_tests_it():
    h = pymqi.RFH2()
    h.unpack(SINGLE)
    check_single(h)
    assert h.pack(273) == SINGLE[:284]
    h.add_folder(b"<testFolder2><testVar>testValue</testVar></testFolder2>")
    assert (len(h.get()), h["StrucLength"], h["testFolder2Length"]) == (16, 344, 56)
    assert h["testFolder2"] == b"<testFolder2><testVar>testValue</testVar></testFolder2> "
    default = pymqi.RFH2()
    default.unpack(SINGLE[:36])
    assert len(default.get()) == 8 and default["StrucLength"] == 284
    h2 = pymqi.RFH2()
    h2.unpack(SINGLE, 273)
    check_single(h2)
    try:
        pymqi.RFH2().unpack(SINGLE, 546)
        raise AssertionError("no error")
    except pymqi.PYIFError as e:
        assert str(e) == "PYMQI Error: RFH2 - Buffer too short. Expected: 469827584 Buffer Length: 333"
    try:
        pymqi.RFH2().add_folder(b"<a><b></a>x")
        raise AssertionError("no error")
    except pymqi.PYIFError as e:
        assert "XML Folder not well formed" in str(e)


def test_put_rfh2_and_get_rfh2(running_qm: RunningQM):
    qm = running_qm.client()
    q = Both(qm)
    for message, count in ((SINGLE, 1), (MULTIPLE, 2)):
        q.put(message, pymqi.MD(Format=C.MQFMT_RF_HEADER_2, Encoding=273, CodedCharSetId=1208))
        got: list[pymqi.RFH2] = []
        assert q.get_rfh2(None, pymqi.MD(), pymqi.GMO(), got) == DATA
        assert len(got) == count
        check_single(got[-1])
        if count == 2:
            assert (got[0]["StrucLength"], got[0]["Format"], len(got[0].get())) == (252, C.MQFMT_RF_HEADER_2, 12)
    # put_rfh2 builds the same bytes a third-party program sent (PROPCTL(COMPAT): the <mcd> folder
    # is one the application sees the MQRFH2 for, so the message comes back as it was put).
    for folders in ([[PSC, TEST, MCD]], [[PSC, TEST], [PSC, TEST, MCD]]):
        headers = []
        for i, fs in enumerate(folders):
            h = pymqi.RFH2()
            h["Encoding"], h["CodedCharSetId"], h["NameValueCCSID"] = 273, 1208, 1208
            h["Format"] = C.MQFMT_RF_HEADER_2 if i < len(folders) - 1 else C.MQFMT_STRING
            for f in fs:
                h.add_folder(f)
            headers.append(h)
        md = pymqi.MD(Format=C.MQFMT_RF_HEADER_2, Encoding=273, CodedCharSetId=1208)
        q.put_rfh2(DATA, md, pymqi.PMO(), headers)
        assert q.get(None, pymqi.MD(), pymqi.GMO()) == (SINGLE if len(folders) == 1 else MULTIPLE)
        q.put_rfh2(DATA, pymqi.MD(Format=C.MQFMT_RF_HEADER_2, Encoding=273, CodedCharSetId=1208), pymqi.PMO(),
                   headers)
        back: list[pymqi.RFH2] = []
        assert q.get_rfh2(None, pymqi.MD(), pymqi.GMO(), back) == DATA
        assert [h.get() for h in back] == [h.get() for h in headers]
    qm.disconnect()


def test_rfh2_folders_become_properties_in_a_handle(running_qm: RunningQM):
    """A JMS-style message put as an MQRFH2: an application with a handle gets the <mcd>/<usr>
    folders as properties, the application's own folders stay in the header before the data."""
    qm = running_qm.client()
    q = Both(qm)
    usr = b"<usr><Colour>red</Colour><Size dt='i4'>10</Size></usr>"
    q.put(header(C.MQFMT_STRING, PSC, usr, MCD) + DATA,
          pymqi.MD(Format=C.MQFMT_RF_HEADER_2, Encoding=273, CodedCharSetId=1208))
    mh = pymqi.MessageHandle(qm)
    md = pymqi.MD()
    body = q.get(None, md, pymqi.GMO(MsgHandle=mh.msg_handle))
    assert (mh.properties.get("Colour"), mh.properties.get("Size"), mh.properties.get("mcd.Msd")) == (
        "red", 10, "xmlnsc")
    kept: list[pymqi.RFH2] = []
    assert pymqi.Queue.get_rfh2 and rfh2.parse_chain(md.Format, md.Encoding, body)[0][0].folders == [PSC + b" "]
    assert body.endswith(DATA) and md.Format == C.MQFMT_RF_HEADER_2 and not kept
    # A header with only property folders goes altogether: the data is the application's.
    q.put(header(C.MQFMT_STRING, usr) + DATA, pymqi.MD(Format=C.MQFMT_RF_HEADER_2, Encoding=273))
    md = pymqi.MD()
    assert q.get(None, md, pymqi.GMO(MsgHandle=mh.msg_handle)) == DATA
    assert (md.Format, md.Encoding, md.CodedCharSetId) == (C.MQFMT_STRING, 273, 1208)
    qm.disconnect()


def test_bad_rfh2_gets_mq_reasons_and_loses_nothing(running_qm: RunningQM):
    qm = running_qm.client()
    q = Both(qm)
    rfh = pymqi.MD(Format=C.MQFMT_RF_HEADER_2, Encoding=273)
    bad = [SINGLE[:40],                                              # StrucLength beyond the message
           b"RFX " + SINGLE[4:],                                     # StrucId
           SINGLE[:4] + struct.pack(">i", 3) + SINGLE[8:],           # Version
           SINGLE[:36] + struct.pack(">i", 9999) + SINGLE[40:]]      # a folder longer than the header
    for message in bad:
        try:
            q.put(message, rfh)
            raise AssertionError("accepted")
        except pymqi.MQMIError as e:
            assert (e.comp, e.reason) == (C.MQCC_FAILED, C.MQRC_RFH_ERROR)
    assert q.inquire(C.MQIA_CURRENT_Q_DEPTH) == 0
    # A folder that does not parse: the get with a handle warns (2421) and returns it as stored.
    broken = header(C.MQFMT_STRING, b"<usr><a>1</b></usr>") + DATA
    q.put(broken, rfh)
    mh = pymqi.MessageHandle(qm)
    md = pymqi.MD()
    try:
        q.get(None, md, pymqi.GMO(MsgHandle=mh.msg_handle))
        raise AssertionError("no warning")
    except pymqi.MQMIError as e:
        assert (e.comp, e.reason) == (C.MQCC_WARNING, C.MQRC_RFH_FORMAT_ERROR)
    assert q.inquire(C.MQIA_CURRENT_Q_DEPTH) == 0
    qm.disconnect()


# --- round trips -----------------------------------------------------------------------------------
_name = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True).filter(
    lambda n: n.upper() not in ("NULL", "TRUE", "FALSE", "NOT", "AND", "OR", "BETWEEN", "LIKE", "IN", "IS",
                                "ESCAPE") and not n.startswith("JMS") and not n.lower().startswith("mq"))
_value = st.one_of(
    st.tuples(st.just(C.MQTYPE_STRING), st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=20)),
    st.tuples(st.just(C.MQTYPE_BOOLEAN), st.booleans()),
    st.tuples(st.just(C.MQTYPE_BYTE_STRING), st.binary(max_size=20)),
    st.tuples(st.just(C.MQTYPE_INT8), st.integers(-128, 127)),
    st.tuples(st.just(C.MQTYPE_INT16), st.integers(-32768, 32767)),
    st.tuples(st.just(C.MQTYPE_INT32), st.integers(-(1 << 31), (1 << 31) - 1)),
    st.tuples(st.just(C.MQTYPE_INT64), st.integers(-(1 << 63), (1 << 63) - 1)),
    st.tuples(st.just(C.MQTYPE_FLOAT32), st.floats(width=32, allow_nan=False)),
    st.tuples(st.just(C.MQTYPE_FLOAT64), st.floats(allow_nan=False)),
    st.tuples(st.just(C.MQTYPE_NULL), st.none()))


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.one_of(_name, _name.map(lambda n: "grp." + n), _name.map(lambda n: "mq_usr.a." + n)),
                       _value, max_size=8),
       st.binary(max_size=30), st.sampled_from([C.MQFMT_STRING, C.MQFMT_NONE]))
def test_properties_round_trip_through_an_mqrfh2(items, data, fmt):
    props = Properties()
    for name, (ptype, value) in items.items():
        props.set(name, value, ptype)
    f, enc, ccsid, body = rfh2.join(props, fmt, 546, 1208, data)
    assert Properties(rfh2.properties_of(f, enc, body)) == props
    s = rfh2.split(f, enc, ccsid, body)
    assert (s.format, s.encoding, s.ccsid, s.data) == (fmt, 546, 1208, data)   # the data as the application gave it


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.sampled_from([PSC, TEST, MCD, b"<x><y>1</y></x>"]), max_size=3), min_size=1, max_size=3),
       st.booleans(), st.binary(max_size=20))
def test_header_chains_parse_as_they_were_built(chain, big, data):
    """Any chain of headers (either byte order) parses back to the folders it was built from, and
    property folders removed leave the application's folders and data exactly."""
    enc = 273 if big else 546
    out, fmt = b"", C.MQFMT_STRING
    for folders in reversed(chain):
        out = rfh2.Header(big, enc, 1208, fmt, 0, 1208, list(folders)).pack() + out
        fmt = C.MQFMT_RF_HEADER_2
    headers, off, last, _e, _c = rfh2.parse_chain(fmt, enc, out + data)
    assert [[f.rstrip(b" ") for f in h.folders] for h in headers] == chain
    assert (off, last) == (len(out), C.MQFMT_STRING)
    s = rfh2.split(fmt, enc, 1208, out + data)
    assert s.data.endswith(data)
    left = rfh2.parse_chain(s.format, s.encoding, s.data)[0]
    changed = any(MCD in fs for fs in chain)       # nothing removed: the message as it was
    assert [[f.rstrip(b" ") for f in h.folders] for h in left] == ([
        [f for f in fs if f != MCD] for fs in chain if any(f != MCD for f in fs)] if changed else chain)
    assert s.data == out + data or changed
