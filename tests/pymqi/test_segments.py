"""Message segmentation (issue 18, item 7; docs/segments.md) through ``from mqlite import pymqi``
against real queue-manager processes: the queue manager's segmentation at MQPUT, reassembly with
MQGMO_COMPLETE_MSG, application segments in logical order, the reasons MQ gives, segmentation by
a sending channel whose MAXMSGL is smaller, and segments across kill -9. The pure rules are
checked against a simple model with hypothesis."""
from __future__ import annotations

import os

from hypothesis import given, settings
from hypothesis import strategies as st

from mqlite import pymqi
from mqlite.cmq import segments as S
from mqlite.cmq.headers import DLH
from mqlite.pymqi import CMQC as C
from tests.channels.test_channels import WAIT, harness, pair, sender  # noqa: F401  (harness: a fixture)
from tests.conftest import RunningQM, mqlite
from tests.helpers import reason
from tests.server.test_durability import kill9

SEGMENTED = C.MQMF_SEGMENTATION_ALLOWED
DLH_LEN = len(DLH().pack())
COMPLETE = pymqi.GMO(Options=C.MQGMO_COMPLETE_MSG | C.MQGMO_NO_WAIT)


def segments_on(q: pymqi.Queue) -> list[tuple[int, int, int, bytes]]:
    """Every message on the queue browsed one by one: (MsgFlags, Offset, SegmentStatus, data)."""
    out = []
    opts = C.MQGMO_BROWSE_FIRST
    while True:
        md, gmo = pymqi.MD(), pymqi.GMO(Options=opts)
        try:
            data = q.get(None, md, gmo)
        except pymqi.MQMIError as e:
            assert e.reason == C.MQRC_NO_MSG_AVAILABLE
            return out
        out.append((md.MsgFlags, md.Offset, gmo.SegmentStatus, data))
        opts = C.MQGMO_BROWSE_NEXT


def test_queue_manager_segments_a_message_too_big_for_the_queue(running_qm: RunningQM):
    running_qm.mqsc("DEFINE QLOCAL(SMALL.Q) MAXMSGL(100)\nDEFINE QLOCAL(REPLY.Q)")
    qm = running_qm.client()
    q = pymqi.Queue(qm, "SMALL.Q", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED | C.MQOO_BROWSE)
    data = bytes(range(256)) * 2 + b"tail"                  # 516 bytes: six segments of 100, one of 16
    # Without the flag: too big (2030); nothing put.
    assert reason(q.put, data, pymqi.MD()) == (C.MQCC_FAILED, C.MQRC_MSG_TOO_BIG_FOR_Q)
    md = pymqi.MD(MsgFlags=SEGMENTED, Report=C.MQRO_COA | C.MQRO_COD, ReplyToQ=b"REPLY.Q")
    q.put(data, md)
    assert md.GroupId != b"\0" * 24 and md.MsgSeqNumber == 1 and md.Offset == 0
    segs = segments_on(q)
    assert [(off, len(d)) for _f, off, _s, d in segs] == [(i * 100, 100) for i in range(5)] + [(500, 16)]
    assert [s for _f, _o, s, _d in segs] == [C.MQSS_SEGMENT] * 5 + [C.MQSS_LAST_SEGMENT]
    assert [f for f, _o, _s, _d in segs] == [SEGMENTED | C.MQMF_SEGMENT] * 5 + [SEGMENTED | C.MQMF_LAST_SEGMENT]
    # A buffer too short for the whole: 2080, nothing taken.
    assert reason(q.get, 100, pymqi.MD(), COMPLETE) == (C.MQCC_WARNING, C.MQRC_TRUNCATED_MSG_FAILED)
    assert len(segments_on(q)) == 6
    out, gmo = pymqi.MD(), pymqi.GMO(Options=C.MQGMO_COMPLETE_MSG)
    assert q.get(None, out, gmo) == data
    assert (out.MsgId, out.GroupId, out.Offset) == (md.MsgId, md.GroupId, 0)
    assert out.MsgFlags == SEGMENTED | C.MQMF_LAST_SEGMENT and gmo.SegmentStatus == C.MQSS_LAST_SEGMENT
    assert gmo.Segmentation == C.MQSEG_ALLOWED
    assert segments_on(q) == []
    # A COA for each segment (its Offset and length), one COD for the whole message.
    replies = pymqi.Queue(qm, "REPLY.Q")
    coas = []
    for _ in range(6):
        coa = pymqi.MD()
        replies.get(None, coa)
        coas.append((coa.Feedback, coa.Offset, coa.OriginalLength, coa.GroupId == md.GroupId))
    assert coas == [(C.MQFB_COA, i * 100, 100, True) for i in range(5)] + [(C.MQFB_COA, 500, 16, True)]
    cod = pymqi.MD()
    replies.get(None, cod)
    assert (cod.Feedback, cod.CorrelId, cod.Offset, cod.OriginalLength) == (C.MQFB_COD, md.MsgId, 0, len(data))
    assert reason(replies.get) == (C.MQCC_FAILED, C.MQRC_NO_MSG_AVAILABLE)
    # A segment limit under 16 bytes cannot be made: 2030 still, nothing put.
    running_qm.mqsc("ALTER QLOCAL(SMALL.Q) MAXMSGL(15)")
    assert reason(q.put, b"x" * 40, pymqi.MD(MsgFlags=SEGMENTED)) == (C.MQCC_FAILED, C.MQRC_MSG_TOO_BIG_FOR_Q)
    assert segments_on(q) == []
    qm.disconnect()


def test_complete_msg_waits_for_every_segment_and_under_syncpoint_takes_all(running_qm: RunningQM):
    qm = running_qm.client()
    q = pymqi.Queue(qm, "TEST.Q", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED | C.MQOO_BROWSE)
    # The application segments, without logical order: it sets the Offsets and reuses the GroupId.
    first = pymqi.MD(MsgFlags=C.MQMF_SEGMENT)
    q.put(b"hello ", first)
    assert first.GroupId != b"\0" * 24                     # MQGI_NONE: the queue manager made one
    # A single message before the rest: COMPLETE_MSG skips the incomplete logical message.
    q.put(b"single")
    assert q.get(None, pymqi.MD(), COMPLETE) == b"single"
    assert reason(q.get, None, pymqi.MD(), COMPLETE) == (C.MQCC_FAILED, C.MQRC_NO_MSG_AVAILABLE)
    assert reason(q.get, None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_ALL_SEGMENTS_AVAILABLE)) == (
        C.MQCC_FAILED, C.MQRC_NO_MSG_AVAILABLE)
    q.put(b"world", pymqi.MD(MsgFlags=C.MQMF_LAST_SEGMENT, GroupId=first.GroupId, Offset=6))
    # Browse the whole, then MSG_UNDER_CURSOR on a later segment is 2246.
    assert q.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_BROWSE_FIRST | C.MQGMO_COMPLETE_MSG)) == b"hello world"
    q.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_BROWSE_NEXT))
    assert reason(q.get, None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_MSG_UNDER_CURSOR | C.MQGMO_COMPLETE_MSG)) == (
        C.MQCC_FAILED, C.MQRC_INVALID_MSG_UNDER_CURSOR)
    # Under syncpoint both segments go into the unit of work: a backout puts both back.
    sync = pymqi.GMO(Options=C.MQGMO_COMPLETE_MSG | C.MQGMO_SYNCPOINT)
    assert q.get(None, pymqi.MD(), sync) == b"hello world"
    assert segments_on(q) == []
    qm.backout()
    assert len(segments_on(q)) == 2
    assert q.get(None, pymqi.MD(), sync) == b"hello world"
    qm.commit()
    assert segments_on(q) == []
    qm.disconnect()


def test_logical_order_segments_in_a_group_and_the_reasons(running_qm: RunningQM):
    qm = running_qm.client()
    q = pymqi.Queue(qm, "TEST.Q", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED | C.MQOO_BROWSE)
    logical = pymqi.PMO(Options=C.MQPMO_LOGICAL_ORDER | C.MQPMO_SYNCPOINT)
    # IBM's example: a group of logical messages, some segmented by the application.
    plan = [(C.MQMF_MSG_IN_GROUP | C.MQMF_SEGMENT, b"a1"), (C.MQMF_MSG_IN_GROUP | C.MQMF_LAST_SEGMENT, b"a2"),
            (C.MQMF_MSG_IN_GROUP, b"b"),
            (C.MQMF_LAST_MSG_IN_GROUP | C.MQMF_SEGMENT, b"c11"), (C.MQMF_LAST_MSG_IN_GROUP | C.MQMF_SEGMENT, b"c2"),
            (C.MQMF_LAST_MSG_IN_GROUP | C.MQMF_LAST_SEGMENT, b"c3")]
    put = []
    for flags, data in plan:
        md = pymqi.MD(MsgFlags=flags)
        q.put(data, md, logical)
        put.append((md.MsgSeqNumber, md.Offset))
    assert put == [(1, 0), (1, 2), (2, 0), (3, 0), (3, 3), (3, 5)]
    qm.commit()
    # Whole logical messages in order, with COMPLETE_MSG and LOGICAL_ORDER.
    got = []
    gmo = pymqi.GMO(Options=C.MQGMO_COMPLETE_MSG | C.MQGMO_LOGICAL_ORDER | C.MQGMO_ALL_MSGS_AVAILABLE)
    while True:
        md = pymqi.MD()
        got.append((q.get(None, md, gmo), md.MsgSeqNumber, gmo.GroupStatus))
        if gmo.GroupStatus == C.MQGS_LAST_MSG_IN_GROUP:
            break
    assert got == [(b"a1a2", 1, C.MQGS_MSG_IN_GROUP), (b"b", 2, C.MQGS_MSG_IN_GROUP),
                   (b"c11c2c3", 3, C.MQGS_LAST_MSG_IN_GROUP)]
    # 2242: a message that is not a segment while a logical message is unfinished; 2253: an empty
    # middle segment; 2251: an Offset out of range; 2249: an unknown flag.
    q.put(b"s1", pymqi.MD(MsgFlags=C.MQMF_SEGMENT), logical)
    assert reason(q.put, b"x", pymqi.MD(), logical) == (C.MQCC_FAILED, C.MQRC_INCOMPLETE_MSG)
    # Outside logical order meanwhile: put, with the warning.
    assert reason(q.put, b"other", pymqi.MD(), pymqi.PMO(Options=C.MQPMO_SYNCPOINT)) == (
        C.MQCC_WARNING, C.MQRC_INCOMPLETE_MSG)
    assert reason(q.put, b"", pymqi.MD(MsgFlags=C.MQMF_SEGMENT), logical) == (C.MQCC_FAILED, C.MQRC_SEGMENT_LENGTH_ZERO)
    q.put(b"", pymqi.MD(MsgFlags=C.MQMF_LAST_SEGMENT), logical)          # an empty last segment is allowed
    qm.commit()
    assert q.get(None, pymqi.MD(), COMPLETE) == b"s1"
    assert q.get() == b"other"
    assert reason(q.put, b"x", pymqi.MD(MsgFlags=C.MQMF_SEGMENT, Offset=-1)) == (C.MQCC_FAILED, C.MQRC_OFFSET_ERROR)
    assert reason(q.put, b"x", pymqi.MD(MsgFlags=0x40)) == (C.MQCC_FAILED, C.MQRC_MSG_FLAGS_ERROR)
    # Segments one by one in logical order: SegmentStatus says where each is.
    q.put(b"x" * 40, pymqi.MD(MsgFlags=SEGMENTED))
    running_qm.mqsc("ALTER QLOCAL(TEST.Q) MAXMSGL(16)")
    q.put(b"y" * 40, pymqi.MD(MsgFlags=SEGMENTED))
    statuses = []
    gmo = pymqi.GMO(Options=C.MQGMO_LOGICAL_ORDER)
    for _ in range(4):
        md = pymqi.MD()
        data = q.get(None, md, gmo)
        statuses.append((len(data), md.Offset, gmo.SegmentStatus))
    assert statuses == [(40, 0, C.MQSS_NOT_A_SEGMENT), (16, 0, C.MQSS_SEGMENT), (16, 16, C.MQSS_SEGMENT),
                        (8, 32, C.MQSS_LAST_SEGMENT)]
    # A get outside logical order while a logical message is unfinished: returned, with the warning.
    q.put(b"z" * 40, pymqi.MD(MsgFlags=SEGMENTED))
    assert len(q.get(None, pymqi.MD(), gmo)) == 16
    try:
        q.get(None, pymqi.MD())
        raise AssertionError("no warning")
    except pymqi.MQMIError as e:
        assert (e.comp, e.reason, len(e.message)) == (C.MQCC_WARNING, C.MQRC_INCOMPLETE_MSG, 16)
    qm.disconnect()


def test_properties_and_text_survive_segmentation(running_qm: RunningQM):
    """A message with properties is cut after its MQRFH2 (the first segment keeps it); UTF-8 text is
    not cut inside a character; the whole comes back with its properties in the handle."""
    running_qm.mqsc("DEFINE QLOCAL(SMALL.Q) MAXMSGL(400)")
    qm = running_qm.client()
    q = pymqi.Queue(qm, "SMALL.Q", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED | C.MQOO_BROWSE)
    text = ("żółw " * 300).encode()                        # two-byte characters everywhere
    mh = pymqi.MessageHandle(qm)
    mh.properties.set("colour", "green")
    q.put(text, pymqi.MD(MsgFlags=SEGMENTED, Format=C.MQFMT_STRING, CodedCharSetId=1208),
          pymqi.PMO(OriginalMsgHandle=mh.msg_handle))
    segs = segments_on(q)
    assert len(segs) > 3
    for _flags, _off, _status, data in segs[1:]:
        data.decode("utf-8")                                # each later segment is whole characters
    got = pymqi.MessageHandle(qm)
    md = pymqi.MD()
    assert q.get(None, md, pymqi.GMO(Options=C.MQGMO_COMPLETE_MSG, MsgHandle=got.msg_handle)) == text
    assert got.properties.get("colour") == "green" and md.Format == C.MQFMT_STRING
    qm.disconnect()


def test_segments_survive_kill9_all_or_none(running_qm: RunningQM):
    running_qm.mqsc("DEFINE QLOCAL(SMALL.Q) MAXMSGL(1000)")
    qm = running_qm.client()
    data = os.urandom(10_000)
    pymqi.Queue(qm, "SMALL.Q").put(data, pymqi.MD(MsgFlags=SEGMENTED, Persistence=C.MQPER_PERSISTENT))
    qm.disconnect()
    kill9(running_qm)
    assert mqlite("strmqm", running_qm.name).returncode == 0
    qm = running_qm.client()
    q = pymqi.Queue(qm, "SMALL.Q", C.MQOO_INPUT_SHARED | C.MQOO_BROWSE)
    assert len(segments_on(q)) == 10
    assert q.get(None, pymqi.MD(), COMPLETE) == data
    qm.disconnect()


def test_a_sending_channel_segments_what_exceeds_its_maxmsgl(harness):  # noqa: F811
    """QM1's channel to QM2 has MAXMSGL(2000): a 9,000-byte message that allows segmentation
    travels as segments and is got whole at QM2; one that does not goes to QM1's dead-letter queue
    with MQRC_MSG_TOO_BIG_FOR_CHANNEL, and the channel goes on. One that fits the channel but not
    its destination queue is segmented by the receiving queue manager."""
    qm1, qm2 = pair(harness, "DEFINE QLOCAL(SMALL.Q) MAXMSGL(500)\n", chl_extra="MAXMSGL(2000)",
                    rcvr_extra="MAXMSGL(2000)")
    qm1.mqsc("DEFINE QLOCAL(SYSTEM.DEAD.LETTER.QUEUE) REPLACE\nALTER QMGR DEADQ(SYSTEM.DEAD.LETTER.QUEUE)\n"
             "DEFINE QREMOTE(REMOTE.SMALL) RNAME(SMALL.Q) RQMNAME(QM2) XMITQ(QM2)", check=True)
    c1, c2 = qm1.client(), qm2.client()
    data = os.urandom(9000)
    remote = pymqi.Queue(c1, "REMOTE.Q")
    remote.put(data, pymqi.MD(MsgFlags=SEGMENTED, Persistence=C.MQPER_PERSISTENT))
    remote.put(b"n" * 3000)
    remote.put(b"after", pymqi.MD(Persistence=C.MQPER_PERSISTENT))   # in the same batches, so in order
    target = pymqi.Queue(c2, "TARGET.Q")
    gmo = pymqi.GMO(Options=C.MQGMO_WAIT | C.MQGMO_COMPLETE_MSG, WaitInterval=15000)
    md = pymqi.MD()
    assert target.get(None, md, gmo) == data
    assert md.MsgFlags & C.MQMF_LAST_SEGMENT and md.Offset == 0
    assert target.get(None, pymqi.MD(), WAIT) == b"after"
    # Small enough for the channel, too big for the queue it is for: the receiving end segments it.
    pymqi.Queue(c1, "REMOTE.SMALL").put(b"r" * 1200, pymqi.MD(MsgFlags=SEGMENTED, Persistence=C.MQPER_PERSISTENT))
    small = pymqi.Queue(c2, "SMALL.Q", C.MQOO_INPUT_SHARED | C.MQOO_BROWSE)
    browse = pymqi.GMO(Options=C.MQGMO_WAIT | C.MQGMO_BROWSE_FIRST | C.MQGMO_COMPLETE_MSG, WaitInterval=15000)
    assert small.get(None, pymqi.MD(), browse) == b"r" * 1200
    assert [(off, len(d)) for _f, off, _s, d in segments_on(small)] == [(0, 500), (500, 500), (1000, 200)]
    assert small.get(None, pymqi.MD(), COMPLETE) == b"r" * 1200
    assert segments_on(small) == []
    dlh_md = pymqi.MD()
    dead = pymqi.Queue(c1, "SYSTEM.DEAD.LETTER.QUEUE").get(None, dlh_md, WAIT)
    assert dlh_md.Format == C.MQFMT_DEAD_LETTER_HEADER and dead.endswith(b"n" * 3000)
    assert DLH.from_bytes(dead[:DLH_LEN]).Reason == C.MQRC_MSG_TOO_BIG_FOR_CHANNEL
    c1.disconnect()
    c2.disconnect()


# --- the pure rules against a model ----------------------------------------------------------------
@settings(max_examples=300, deadline=None)
@given(data=st.binary(max_size=600), limit=st.integers(16, 120), head=st.integers(0, 16))
def test_cut_pieces_fit_and_join_back(data: bytes, limit: int, head: int):
    head = min(head, len(data))
    pieces = S.cut(data, limit, head)
    assert b"".join(pieces) == data
    assert all(0 < len(p) <= limit for p in pieces[:-1]) and len(pieces[-1]) <= limit
    assert len(pieces[0]) >= head or len(pieces) == 1
    assert len(pieces) == max(1, -(-len(data) // limit))     # as few as it takes


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=200), limit=st.integers(16, 64))
def test_cut_utf8_never_splits_a_character(text: str, limit: int):
    data = text.encode()
    pieces = S.cut(data, limit, utf8=True)
    assert b"".join(pieces) == data
    for p in pieces:
        p.decode("utf-8")


@settings(max_examples=300, deadline=None)
@given(middle=st.lists(st.integers(1, 50), max_size=7), last=st.integers(0, 50), data=st.data())
def test_whole_only_when_contiguous_and_ended(middle: list[int], last: int, data):
    """Segments as MQPUT allows them (no empty one but the last), in any order: whole in Offset
    order; with any one missing, not whole."""
    lengths = middle + [last]
    offsets, at = [], 0
    for n in lengths:
        offsets.append(at)
        at += n
    segs = [(off, n, i == len(lengths) - 1, i) for i, (off, n) in enumerate(zip(offsets, lengths))]
    shuffled = data.draw(st.permutations(segs))
    assert S.whole(shuffled) == list(range(len(lengths)))
    drop = data.draw(st.integers(0, len(segs) - 1))
    assert S.whole([s for s in shuffled if s[3] != drop]) is None


def test_flags_and_statuses():
    assert S.piece_flags(SEGMENTED, last=False) == SEGMENTED | C.MQMF_SEGMENT
    assert S.piece_flags(SEGMENTED, last=True) == SEGMENTED | C.MQMF_LAST_SEGMENT
    assert S.piece_flags(SEGMENTED | C.MQMF_SEGMENT, last=True) == SEGMENTED | C.MQMF_SEGMENT   # a middle one cut
    assert S.reassembled_flags(C.MQMF_SEGMENT | C.MQMF_MSG_IN_GROUP) == C.MQMF_LAST_SEGMENT | C.MQMF_MSG_IN_GROUP
    assert S.statuses(C.MQMF_LAST_MSG_IN_GROUP | C.MQMF_SEGMENT) == (
        C.MQGS_LAST_MSG_IN_GROUP, C.MQSS_SEGMENT, C.MQSEG_INHIBITED)
    assert S.statuses(0) == (C.MQGS_NOT_IN_GROUP, C.MQSS_NOT_A_SEGMENT, C.MQSEG_INHIBITED)
