"""Publish/subscribe in the engine (fake clock, in-memory store): MQOPEN of a topic, MQPUT as a
publication, MQSUB with provided and managed queues, wildcards, retained publications, durable
subscriptions across a recovery, and MQ's reason codes."""
from __future__ import annotations

import re

import pytest

from mqlite.cmq import CMQC as C
from mqlite.cmq.errors import MQIError
from mqlite.cmq.structs import GMO, MD, OD, PMO
from mqlite.cmq.subs import SD
from mqlite.props import rfh2


def sub(eng, topic: str = "", name: str = "", options: int = C.MQSO_CREATE | C.MQSO_MANAGED, obj: str = "",
        hobj: int = 0, user_data: str = ""):
    # PubPriority as published (MQ's C default; pymqi's and ibmmq's SD default to the queue's DEFPRTY).
    sd = SD(Options=options, ObjectName=obj.encode(), PubPriority=C.MQPRI_PRIORITY_AS_PUBLISHED)
    if topic:
        sd.set_vs("ObjectString", topic)
    if name:
        sd.set_vs("SubName", name)
    if user_data:
        sd.set_vs("SubUserData", user_data)
    h, qh = eng.qm.subscribe(eng.conn, sd, hobj)
    return h, qh, sd


def publish(eng, topic: str, body: bytes, pmo_options: int = 0, **md):
    od = OD(ObjectType=C.MQOT_TOPIC)
    od.set_vs("ObjectString", topic)
    h = eng.qm.open(eng.conn, od, C.MQOO_OUTPUT)
    m = MD(**md)
    warning = eng.qm.put(eng.conn, h.hobj, m, PMO(Options=pmo_options), body)
    eng.qm.close(eng.conn, h.hobj)
    return warning, m


def drain(eng, qh: int) -> list[tuple[bytes, dict]]:
    out = []
    while True:
        try:
            r = eng.qm.get(eng.conn, qh, MD(), GMO(Options=C.MQGMO_NO_WAIT | C.MQGMO_PROPERTIES_FORCE_MQRFH2), 100000)
        except MQIError as e:
            assert e.reason == C.MQRC_NO_MSG_AVAILABLE
            return out
        props = rfh2.properties_of(r.md.Format, r.md.Encoding, r.body)
        out.append((rfh2.split(r.md.Format, r.md.Encoding, r.md.CodedCharSetId, r.body).data,
                    {k: v for k, (_t, v) in props.items()} | {"CorrelId": r.md.CorrelId}))


def test_one_publisher_many_subscribers_and_wildcards(eng):
    subs = {pattern: sub(eng, pattern) for pattern in ("price/fruit/apple", "price/#", "price/+/apple", "price/veg/#")}
    char = sub(eng, "price/*apple", options=C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_WILDCARD_CHAR)
    warning, _ = publish(eng, "price/fruit/apple", b"1.20")
    assert warning == C.MQRC_NONE
    publish(eng, "price/veg/carrot", b"0.40")
    got = {p: [b for b, _ in drain(eng, qh)] for p, (_h, qh, _sd) in subs.items()}
    assert got == {"price/fruit/apple": [b"1.20"], "price/#": [b"1.20", b"0.40"], "price/+/apple": [b"1.20"],
                   "price/veg/#": [b"0.40"]}
    ((body, props),) = drain(eng, char[1])
    assert body == b"1.20" and props["mqps.Top"] == "price/fruit/apple"
    assert props["CorrelId"] == char[2].SubCorrelId     # the publication carries the SubCorrelId


def test_provided_queue_user_data_and_no_subscribers(eng):
    eng.mqsc("DEFINE QLOCAL(MY.SUBQ)")
    q = eng.qm.open(eng.conn, OD(ObjectName=b"MY.SUBQ"), C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    sub(eng, "news/sport", options=C.MQSO_CREATE, hobj=q.hobj, user_data="fan")
    warning, _ = publish(eng, "news/weather", b"rain", C.MQPMO_WARN_IF_NO_SUBS_MATCHED)
    assert warning == C.MQRC_NO_SUBS_MATCHED
    publish(eng, "news/sport", b"goal")
    ((body, props),) = drain(eng, q.hobj)
    assert body == b"goal" and props["mqps.Sud"] == "fan"


def test_retained_publications(eng):
    publish(eng, "status/line1", b"up", C.MQPMO_RETAIN)
    publish(eng, "status/line1", b"down", C.MQPMO_RETAIN)
    publish(eng, "status/line2", b"up", C.MQPMO_RETAIN)
    _h, qh, _sd = sub(eng, "status/#")
    got = sorted((b, p["mqps.Top"], p.get("mqps.Ret")) for b, p in drain(eng, qh))
    assert got == [(b"down", "status/line1", True), (b"up", "status/line2", True)]
    _h, qh2, _sd = sub(eng, "status/#", options=C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_NEW_PUBLICATIONS_ONLY)
    assert drain(eng, qh2) == []
    h3, qh3, _sd = sub(eng, "status/line1", options=C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_PUBLICATIONS_ON_REQUEST)
    publish(eng, "status/line1", b"ignored until asked")
    assert drain(eng, qh3) == []
    assert eng.qm.request_publications(eng.conn, h3.hobj) == 1
    assert [b for b, _ in drain(eng, qh3)] == [b"down"]
    _h, _q, _sd = h4 = sub(eng, "empty/topic", options=C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_PUBLICATIONS_ON_REQUEST)
    with pytest.raises(MQIError) as e:
        eng.qm.request_publications(eng.conn, h4[0].hobj)
    assert e.value.reason == C.MQRC_NO_RETAINED_MSG
    # MQSUBRQ given a handle that is not a subscription's (the managed queue's): 2019, as for any
    # handle the call cannot use.
    with pytest.raises(MQIError) as e:
        eng.qm.request_publications(eng.conn, qh3)
    assert e.value.reason == C.MQRC_HOBJ_ERROR


def test_durable_subscriptions_resume_and_remove(eng):
    h, qh, sd = sub(eng, "orders/#", name="ORDERS.AUDIT", options=C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_DURABLE)
    publish(eng, "orders/1", b"first", Persistence=C.MQPER_PERSISTENT)
    eng.qm.close(eng.conn, qh)
    eng.qm.close(eng.conn, h.hobj)                 # MQCO_NONE keeps a durable subscription
    publish(eng, "orders/2", b"while away", Persistence=C.MQPER_PERSISTENT)
    with pytest.raises(MQIError) as e:
        sub(eng, "orders/#", name="ORDERS.AUDIT", options=C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_DURABLE)
    assert e.value.reason == C.MQRC_SUB_ALREADY_EXISTS
    h, qh, sd2 = sub(eng, name="ORDERS.AUDIT", options=C.MQSO_RESUME | C.MQSO_MANAGED | C.MQSO_DURABLE)
    assert sd2.SubCorrelId == sd.SubCorrelId
    assert [b for b, _ in drain(eng, qh)] == [b"first", b"while away"]
    with pytest.raises(MQIError) as e:
        sub(eng, name="ORDERS.AUDIT", options=C.MQSO_RESUME | C.MQSO_MANAGED | C.MQSO_DURABLE)
    assert e.value.reason == C.MQRC_SUBSCRIPTION_IN_USE
    eng.qm.close(eng.conn, qh)
    eng.qm.close(eng.conn, h.hobj, C.MQCO_REMOVE_SUB)
    with pytest.raises(MQIError) as e:
        sub(eng, name="ORDERS.AUDIT", options=C.MQSO_RESUME | C.MQSO_MANAGED | C.MQSO_DURABLE)
    assert e.value.reason == C.MQRC_NO_SUBSCRIPTION
    assert not [n for n in eng.qm.objects["QUEUE"] if n.startswith("SYSTEM.MANAGED.DURABLE.")]


def test_reason_codes(eng):
    def reason(fn) -> int:
        with pytest.raises(MQIError) as e:
            fn()
        return e.value.reason
    assert reason(lambda: sub(eng, "")) == C.MQRC_TOPIC_STRING_ERROR
    assert reason(lambda: sub(eng, "x", options=C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_DURABLE)) == C.MQRC_SUB_NAME_ERROR
    assert reason(lambda: sub(eng, "x", obj="NO.SUCH.TOPIC")) == C.MQRC_UNKNOWN_OBJECT_NAME
    eng.mqsc("DEFINE TOPIC(CLOSED) TOPICSTR('closed') PUB(DISABLED) SUB(DISABLED) DURSUB(NO)")
    assert reason(lambda: publish(eng, "closed/x", b"no")) == C.MQRC_PUT_INHIBITED
    assert reason(lambda: sub(eng, "closed/y")) == C.MQRC_SUB_INHIBITED
    eng.mqsc("ALTER TOPIC(CLOSED) SUB(ENABLED)")
    assert reason(lambda: sub(eng, "closed/y", name="D", options=C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_DURABLE)) \
        == C.MQRC_DURABILITY_NOT_ALLOWED
    od = OD(ObjectType=C.MQOT_TOPIC)
    od.set_vs("ObjectString", "a/b")
    assert reason(lambda: eng.qm.open(eng.conn, od, C.MQOO_INPUT_SHARED)) == C.MQRC_OPTION_NOT_VALID_FOR_TYPE
    # The topic object's TOPICSTR and the ObjectString join with a '/'.
    _h, qh, _sd = sub(eng, "y", obj="CLOSED")
    eng.mqsc("ALTER TOPIC(CLOSED) PUB(ENABLED)")
    publish(eng, "closed/y", b"joined")
    assert [b for b, _ in drain(eng, qh)] == [b"joined"]


def test_administrative_subscriptions(eng):
    ex = eng.mqsc_exec
    assert ex.run("DEFINE QLOCAL(SUBQ)").status == "ok"
    assert ex.run("DEFINE SUB(ORANGE) TOPICSTR(ORANGE) DESTCLAS(PROVIDED) DEST(SUBQ)").lines == [
        "AMQ8094I: IBM MQ subscription created."]
    assert ex.run("DEFINE SUB(ORANGE) TOPICSTR(ORANGE) DEST(SUBQ)").status == "error"       # exists
    assert ex.run("DEFINE SUB(NOQ) TOPICSTR(ORANGE) DEST(NO.SUCH.Q)").status == "error"
    assert ex.run("DEFINE SUB(MGD) TOPICSTR('fruit/#') DESTCLAS(MANAGED) USERDATA('basket')").status == "ok"
    publish(eng, "ORANGE", b"juice")
    publish(eng, "fruit/apple", b"crisp")
    q = eng.qm.open(eng.conn, OD(ObjectName=b"SUBQ"), C.MQOO_INPUT_SHARED)
    assert [b for b, _ in drain(eng, q.hobj)] == [b"juice"]
    out = "\n".join(ex.run("DISPLAY SUB(MGD)").lines)
    assert "SUBTYPE(ADMIN)" in out and "DESTCLAS(MANAGED)" in out and "DURABLE(YES)" in out and "USERDATA(basket)" in out
    dest = out.split("DEST(")[1].split(")")[0]
    assert dest.startswith("SYSTEM.MANAGED.DURABLE.")
    status = "\n".join(ex.run("DISPLAY SBSTATUS(MGD)").lines)
    assert "NUMMSGS(1)" in status and "LMSGDATE(" in status
    # An application resumes it by name.
    h, qh, sd = sub(eng, name="MGD", options=C.MQSO_RESUME)
    ((body, props),) = drain(eng, qh)
    assert body == b"crisp" and props["mqps.Sud"] == "basket" and sd.get_vs("ObjectString") == b"fruit/#"
    assert re.search(r"ACTCONN\([0-9A-F]+\)", "\n".join(ex.run("DISPLAY SBSTATUS(MGD)").lines))
    assert ex.run("DELETE SUB(MGD)").status == "error"                 # in use
    eng.qm.close(eng.conn, qh)
    eng.qm.close(eng.conn, h.hobj)
    assert ex.run("ALTER SUB(MGD) USERDATA('crate')").status == "ok"
    assert "USERDATA(crate)" in "\n".join(ex.run("DISPLAY SUB(MGD) ").lines)
    assert ex.run("DELETE SUB(MGD)").lines == ["AMQ8093I: IBM MQ subscription deleted."]
    assert dest not in eng.qm.objects["QUEUE"]
    assert ex.run("DISPLAY SUB(MGD)").status == "error"


def test_tpstatus_counts_subscribers_publishers_and_retained(eng):
    ex = eng.mqsc_exec
    sub(eng, "scores/football")
    sub(eng, "scores/football", name="DUR", options=C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_DURABLE)
    publish(eng, "scores/football", b"1-0", C.MQPMO_RETAIN)
    od = OD(ObjectType=C.MQOT_TOPIC)
    od.set_vs("ObjectString", "scores/football")
    eng.qm.open(eng.conn, od, C.MQOO_OUTPUT)                      # a publisher with the topic open
    out = "\n".join(ex.run("DISPLAY TPSTATUS('scores/football') SUBCOUNT PUBCOUNT RETAINED").lines)
    assert "SUBCOUNT(2)" in out and "PUBCOUNT(1)" in out and "RETAINED(YES)" in out
    subs = "\n".join(ex.run("DISPLAY TPSTATUS('scores/football') TYPE(SUB)").lines)
    assert subs.count("SUBID(") == 2 and "DURABLE(YES)" in subs and "NUMMSGS(1)" in subs
    assert "ACTCONN(" in "\n".join(ex.run("DISPLAY TPSTATUS('scores/football') TYPE(PUB)").lines)
    assert "TOPICSTR(scores)" in "\n".join(ex.run("DISPLAY TPSTATUS('#') SUBCOUNT").lines)


def test_publication_descriptor_checks(eng):
    _h, qh, _sd = sub(eng, "checks/#")
    with pytest.raises(MQIError) as e:
        publish(eng, "checks/a", b"x", Persistence=7)
    assert e.value.reason == C.MQRC_PERSISTENCE_ERROR
    publish(eng, "checks/a", b"high", Priority=12)
    r = eng.qm.get(eng.conn, qh, MD(), GMO(Options=C.MQGMO_NO_WAIT), 1000)
    assert r.md.Priority == 9


def test_selection_string_pub_priority_and_sub_expiry(eng):
    sd = SD(Options=C.MQSO_CREATE | C.MQSO_MANAGED, PubPriority=7)
    sd.set_vs("ObjectString", "orders/#")
    sd.set_vs("SelectionString", "region = 'EU' AND amount > 100")
    _h, selective = eng.qm.subscribe(eng.conn, sd, 0)
    _h2, everything, _sd2 = sub(eng, "orders/#")
    from mqlite.props.values import Properties
    for region, amount in (("EU", 500), ("US", 500), ("EU", 50)):
        props = Properties()
        props.set("region", region)
        props.set("amount", amount)
        fmt, enc, ccsid, data = rfh2.join(props, C.MQFMT_STRING, C.MQENC_NATIVE, 1208, f"{region} {amount}".encode())
        publish(eng, "orders/new", data, Format=fmt, Encoding=enc, CodedCharSetId=ccsid)
    got = drain(eng, selective)
    assert [b for b, _ in got] == [b"EU 500"]
    assert len(drain(eng, everything)) == 3
    bad = SD(Options=C.MQSO_CREATE | C.MQSO_MANAGED)
    bad.set_vs("ObjectString", "orders/#")
    bad.set_vs("SelectionString", "region = ")
    with pytest.raises(MQIError) as e:
        eng.qm.subscribe(eng.conn, bad, 0)
    assert e.value.reason == C.MQRC_SELECTOR_SYNTAX_ERROR
    # PubPriority: copies carry the subscription's priority (MQPRI_PRIORITY_AS_PUBLISHED: the publisher's).
    sdp = SD(Options=C.MQSO_CREATE | C.MQSO_MANAGED, PubPriority=4)
    sdp.set_vs("ObjectString", "prio/x")
    _hp, prio_q = eng.qm.subscribe(eng.conn, sdp, 0)
    _hq, as_published, _sdq = sub(eng, "prio/x")
    publish(eng, "prio/x", b"plain", Priority=2)
    assert eng.qm.get(eng.conn, prio_q, MD(), GMO(Options=C.MQGMO_NO_WAIT), 1000).md.Priority == 4
    assert eng.qm.get(eng.conn, as_published, MD(), GMO(Options=C.MQGMO_NO_WAIT), 1000).md.Priority == 2
    # SubExpiry (tenths of a second): the subscription ends once it has passed.
    sdx = SD(Options=C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_DURABLE, SubExpiry=50)
    sdx.set_vs("ObjectString", "short/lived")
    sdx.set_vs("SubName", "SHORT")
    hx, qx = eng.qm.subscribe(eng.conn, sdx, 0)
    eng.qm.close(eng.conn, qx)
    eng.qm.close(eng.conn, hx.hobj)
    eng.clock.advance(6)
    publish(eng, "short/lived", b"too late")
    assert not [s for s in eng.qm.pubsub.subscriptions.values() if s.name == "SHORT"]


def test_copies_carry_the_subscribers_identity_and_subscriptions_belong_to_their_user(eng):
    # MQ's default publication context: UserIdentifier is the subscription's user, ApplIdentityData
    # blank; MQSO_SET_IDENTITY_CONTEXT gives the subscription's own. Origin context stays the publisher's.
    other = eng.qm.connect("publisher", C.MQAT_UNIX, "alice")
    h, qh, _ = sub(eng, "id/#", name="ID.FIXED", options=C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_DURABLE)
    sd = SD(Options=C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_SET_IDENTITY_CONTEXT, PubApplIdentityData=b"audit",
            PubAccountingToken=b"\x01" * 32)
    sd.set_vs("ObjectString", "id/#")
    _h2, qh2 = eng.qm.subscribe(eng.conn, sd, 0)
    od = OD(ObjectType=C.MQOT_TOPIC)
    od.set_vs("ObjectString", "id/1")
    ph = eng.qm.open(other, od, C.MQOO_OUTPUT)
    eng.qm.put(other, ph.hobj, MD(), PMO(), b"hello")
    gmo = GMO(Options=C.MQGMO_NO_WAIT)
    first = eng.qm.get(eng.conn, qh, MD(), gmo, 100).md
    second = eng.qm.get(eng.conn, qh2, MD(), gmo, 100).md
    assert first.UserIdentifier.rstrip() == b"tester" and first.ApplIdentityData.strip() == b""
    assert first.PutApplName.rstrip() == b"publisher"
    assert second.UserIdentifier.rstrip() == b"tester" and second.ApplIdentityData.rstrip() == b"audit"
    assert second.AccountingToken == b"\x01" * 32
    eng.qm.close(eng.conn, qh)
    eng.qm.close(eng.conn, h.hobj)
    # MQSO_FIXED_USERID (MQSUB's default): another user cannot resume or alter it.
    for opts in (C.MQSO_RESUME, C.MQSO_ALTER):
        sd = SD(Options=opts | C.MQSO_DURABLE)
        sd.set_vs("SubName", "ID.FIXED")
        with pytest.raises(MQIError) as e:
            eng.qm.subscribe(other, sd, 0)
        assert e.value.reason == C.MQRC_IDENTITY_MISMATCH
    # Its owner makes it ANY_USERID; then another user takes it over and its copies carry that user.
    h, qh, _ = sub(eng, "id/#", name="ID.FIXED", options=C.MQSO_ALTER | C.MQSO_MANAGED | C.MQSO_DURABLE | C.MQSO_ANY_USERID)
    eng.qm.close(eng.conn, qh)
    eng.qm.close(eng.conn, h.hobj)
    assert "VARUSER(ANY)" in "\n".join(eng.mqsc_exec.run("DISPLAY SUB(ID.FIXED)").lines)
    sd = SD(Options=C.MQSO_RESUME | C.MQSO_DURABLE)
    sd.set_vs("SubName", "ID.FIXED")
    _h3, qh3 = eng.qm.subscribe(other, sd, 0)
    eng.qm.put(other, ph.hobj, MD(), PMO(), b"again")
    assert eng.qm.get(other, qh3, MD(), GMO(Options=C.MQGMO_NO_WAIT), 100).md.UserIdentifier.rstrip() == b"alice"
    assert "SUBUSER(alice)" in "\n".join(eng.mqsc_exec.run("DISPLAY SUB(ID.FIXED)").lines)
    # DEFINE SUB: VARUSER(ANY) unless VARUSER(FIXED); SUBUSER names the user.
    assert eng.mqsc_exec.run("DEFINE SUB(ADM.FIXED) TOPICSTR('id/adm') DESTCLAS(MANAGED) SUBUSER('bob') "
                             "VARUSER(FIXED)").status == "ok"
    out = "\n".join(eng.mqsc_exec.run("DISPLAY SUB(ADM.FIXED)").lines)
    assert "SUBUSER(bob)" in out and "VARUSER(FIXED)" in out
    sd = SD(Options=C.MQSO_RESUME)
    sd.set_vs("SubName", "ADM.FIXED")
    with pytest.raises(MQIError) as e:
        eng.qm.subscribe(other, sd, 0)
    assert e.value.reason == C.MQRC_IDENTITY_MISMATCH
    assert eng.mqsc_exec.run("DEFINE SUB(ADM.X) TOPICSTR('id/x') DESTCLAS(MANAGED) VARUSER(SOME)").status == "syntax"


def test_psmode_disabled_and_suppress_replyto(eng):
    _h, qh, _ = sub(eng, "reply/#")
    _w, md = publish(eng, "reply/1", b"ask", pmo_options=C.MQPMO_SUPPRESS_REPLYTO, ReplyToQ=b"ANSWERS")
    assert md.ReplyToQ.rstrip() == b"ANSWERS"                    # the publisher's MQMD keeps it
    got = eng.qm.get(eng.conn, qh, MD(), GMO(Options=C.MQGMO_NO_WAIT), 100).md
    assert got.ReplyToQ.strip() == b"" and got.ReplyToQMgr.strip() == b""
    publish(eng, "reply/2", b"ask", ReplyToQ=b"ANSWERS")
    assert eng.qm.get(eng.conn, qh, MD(), GMO(Options=C.MQGMO_NO_WAIT), 100).md.ReplyToQ.rstrip() == b"ANSWERS"
    assert eng.mqsc_exec.run("ALTER QMGR PSMODE(DISABLED)").status == "ok"
    for call in (lambda: sub(eng, "reply/#"), lambda: publish(eng, "reply/3", b"no")):
        with pytest.raises(MQIError) as e:
            call()
        assert e.value.reason == C.MQRC_PUBSUB_INHIBITED
    assert eng.mqsc_exec.run("ALTER QMGR PSMODE(ENABLED)").status == "ok"
    publish(eng, "reply/4", b"again")


def test_define_sub_attributes_take_effect(eng):
    ex = eng.mqsc_exec
    assert ex.run("DEFINE QLOCAL(PRIOQ) DEFPRTY(6)").status == "ok"
    acct, correl = "0A" * 32, "0B" * 24
    assert ex.run(f"DEFINE SUB(PRICES) TOPICSTR('prices/#') DEST(PRIOQ) SELECTOR('price > 10') PUBPRTY(ASQDEF) "
                  f"PUBAPPID('ticker') PUBACCT({acct}) DESTCORL({correl}) EXPIRY(600) PSPROP(RFH2) "
                  "SUBLEVEL(1) SUBSCOPE(QMGR)").status == "ok"
    out = "\n".join(ex.run("DISPLAY SUB(PRICES) ALL").lines)
    for text in ("SELECTOR(price > 10)", "PUBPRTY(ASQDEF)", "PUBAPPID(ticker)", f"PUBACCT({acct})",
                 f"DESTCORL({correl})", "EXPIRY(600)", "PSPROP(RFH2)", "SUBSCOPE(QMGR)"):
        assert text in out, text
    q = eng.qm.open(eng.conn, OD(ObjectName=b"PRIOQ"), C.MQOO_INPUT_SHARED)

    def publish_price(value: int) -> None:
        from mqlite.props.values import Properties
        props = Properties()
        props.set("price", value)
        fmt, enc, ccsid, data = rfh2.join(props, C.MQFMT_STRING, C.MQENC_NATIVE, 1208, b"p")
        publish(eng, "prices/gold", data, Format=fmt, Encoding=enc, CodedCharSetId=ccsid, Priority=2)

    publish_price(5)                                    # not selected
    publish_price(20)
    got = eng.qm.get(eng.conn, q.hobj, MD(), GMO(Options=C.MQGMO_NO_WAIT), 1000).md
    assert got.Priority == 6 and got.ApplIdentityData.rstrip() == b"ticker"
    assert got.AccountingToken == bytes.fromhex(acct) and got.CorrelId == bytes.fromhex(correl)
    with pytest.raises(MQIError):                         # the price of 5 was not selected
        eng.qm.get(eng.conn, q.hobj, MD(), GMO(Options=C.MQGMO_NO_WAIT), 1000)
    # ALTER keeps what it does not name; bad values change nothing.
    assert ex.run("ALTER SUB(PRICES) PUBPRTY(3)").status == "ok"
    out = "\n".join(ex.run("DISPLAY SUB(PRICES)").lines)
    assert "PUBPRTY(3)" in out and "SELECTOR(price > 10)" in out and "PUBAPPID(ticker)" in out
    assert ex.run("ALTER SUB(PRICES) SELECTOR('price >')").status == "error"
    assert ex.run("ALTER SUB(PRICES) PUBPRTY(12)").status == "syntax"
    assert "SELECTOR(price > 10)" in "\n".join(ex.run("DISPLAY SUB(PRICES)").lines)
    # EXPIRY: the subscription ends once its time is up.
    eng.clock.advance(61)
    publish_price(30)
    assert ex.run("DISPLAY SUB(PRICES)").status == "error"


def test_a_copy_meets_its_queues_definitions_as_they_are_now(eng):
    """Each copy gets MQPUT's checks against the subscriber's queue as it is defined at the time of
    the publication (the destination is kept between publications): PUT(DISABLED), MAXMSGL and
    MAXDEPTH refuse that copy alone (MQ's NPMSGDLV(ALLAVAIL)), and an ALTER back lets the next in."""
    eng.mqsc("DEFINE QLOCAL(SUBQ)")
    q, _ = eng.open("SUBQ", C.MQOO_INPUT_AS_Q_DEF)
    sub(eng, "feed/x", options=C.MQSO_CREATE, hobj=q.hobj)
    _h, other, _sd = sub(eng, "feed/x")

    def depths() -> tuple[int, int]:
        return eng.qm.queues["SUBQ"].depth, eng.qm.handle(eng.conn, other).qstate.depth

    publish(eng, "feed/x", b"one")
    assert depths() == (1, 1)
    eng.mqsc("ALTER QLOCAL(SUBQ) PUT(DISABLED)")
    publish(eng, "feed/x", b"two")
    assert depths() == (1, 2)
    eng.mqsc("ALTER QLOCAL(SUBQ) PUT(ENABLED) MAXMSGL(300)")
    publish(eng, "feed/x", b"x" * 400)                   # with its MQRFH2 longer than 300 bytes
    publish(eng, "feed/x", b"three")
    assert depths() == (2, 4)
    eng.mqsc("ALTER QLOCAL(SUBQ) MAXDEPTH(2)")
    publish(eng, "feed/x", b"four")
    assert depths() == (2, 5)
    assert [b for b, _p in drain(eng, q.hobj)] == [b"one", b"three"]


def test_altering_a_subscriptions_destination_moves_its_next_copies(eng):
    """ALTER SUB DEST (and DEFINE SUB REPLACE) keeps the subscription and its identifier: the next
    publication goes to the new queue, none to the old (destinations are kept by name, not by
    subscription)."""
    eng.mqsc("DEFINE QLOCAL(FIRST.Q)\nDEFINE QLOCAL(SECOND.Q)\nDEFINE SUB(MOVING) TOPICSTR('feed/moving') DEST(FIRST.Q)")
    subid = next(s.subid for s in eng.qm.pubsub.subscriptions.values() if s.name == "MOVING")
    publish(eng, "feed/moving", b"one")
    eng.mqsc("ALTER SUB(MOVING) DEST(SECOND.Q)")
    assert next(s.subid for s in eng.qm.pubsub.subscriptions.values() if s.name == "MOVING") == subid
    publish(eng, "feed/moving", b"two")
    first, _ = eng.open("FIRST.Q", C.MQOO_INPUT_AS_Q_DEF)
    second, _ = eng.open("SECOND.Q", C.MQOO_INPUT_AS_Q_DEF)
    assert [b for b, _p in drain(eng, first.hobj)] == [b"one"]
    assert [b for b, _p in drain(eng, second.hobj)] == [b"two"]


def test_mqso_alter_changes_what_mq_lets_it_and_refuses_the_rest(eng):
    """MQSO_CREATE + MQSO_ALTER makes the subscription, then brings it to what the MQSD says: a
    provided queue's handle moves its next publications (those delivered stay), priority, user
    data and CorrelId change. The topic (2510), durability (2509), selector (2524) and a managed
    or provided queue (2533) cannot change; a refused alteration changes nothing."""
    eng.mqsc("DEFINE QLOCAL(ALT.Q1)\nDEFINE QLOCAL(ALT.Q2)")
    q1, _ = eng.open("ALT.Q1", C.MQOO_INPUT_AS_Q_DEF)
    q2, _ = eng.open("ALT.Q2", C.MQOO_INPUT_AS_Q_DEF)
    upsert = C.MQSO_CREATE | C.MQSO_ALTER | C.MQSO_DURABLE
    h, qh, _ = sub(eng, "alt/news", name="ALT.SUB", options=upsert, hobj=q1.hobj)
    assert qh == q1.hobj
    publish(eng, "alt/news", b"one")
    eng.qm.close(eng.conn, h.hobj)
    sd = SD(Options=upsert | C.MQSO_SET_CORREL_ID, PubPriority=7, SubCorrelId=b"C" * 24)
    sd.set_vs("ObjectString", "alt/news")
    sd.set_vs("SubName", "ALT.SUB")
    sd.set_vs("SubUserData", "moved")
    h, _qh = eng.qm.subscribe(eng.conn, sd, q2.hobj)
    assert [s.name for s in eng.qm.pubsub.subscriptions.values()].count("ALT.SUB") == 1
    publish(eng, "alt/news", b"two", Priority=1)
    ((body, props),) = drain(eng, q2.hobj)
    assert body == b"two" and props["CorrelId"] == b"C" * 24 and props["mqps.Sud"] == "moved"
    assert [b for b, _p in drain(eng, q1.hobj)] == [b"one"]
    publish(eng, "alt/news", b"three")
    assert eng.qm.get(eng.conn, q2.hobj, MD(), GMO(Options=C.MQGMO_NO_WAIT), 100).md.Priority == 7
    eng.qm.close(eng.conn, h.hobj)
    shown = "\n".join(eng.mqsc_exec.run("DISPLAY SUB(ALT.SUB) ALL").lines)
    assert "DEST(ALT.Q2)" in shown and "USERDATA(moved)" in shown and "PUBPRTY(7)" in shown

    def refused(topic: str, options: int, selector: str = "", **fields) -> int:
        sd = SD(Options=options, **fields)
        if topic:
            sd.set_vs("ObjectString", topic)
        sd.set_vs("SubName", "ALT.SUB")
        if selector:
            sd.set_vs("SelectionString", selector)
        with pytest.raises(MQIError) as e:
            eng.qm.subscribe(eng.conn, sd, q1.hobj)
        return e.value.reason

    alter = C.MQSO_ALTER | C.MQSO_DURABLE
    assert refused("alt/other", alter) == C.MQRC_TOPIC_NOT_ALTERABLE
    assert refused("", alter) == C.MQRC_TOPIC_NOT_ALTERABLE
    assert refused("alt/news", alter | C.MQSO_WILDCARD_CHAR) == C.MQRC_TOPIC_NOT_ALTERABLE
    assert refused("alt/news", C.MQSO_ALTER) == C.MQRC_DURABILITY_NOT_ALTERABLE
    assert refused("alt/news", alter, "Priority > 3") == C.MQRC_SELECTOR_NOT_ALTERABLE
    assert refused("alt/news", alter | C.MQSO_MANAGED) == C.MQRC_DEST_CLASS_NOT_ALTERABLE
    assert refused("alt/news", alter, PubPriority=10) == C.MQRC_PRIORITY_ERROR
    assert refused("alt/news", alter, SubExpiry=-5) == C.MQRC_EXPIRY_ERROR
    assert "\n".join(eng.mqsc_exec.run("DISPLAY SUB(ALT.SUB) ALL").lines) == shown
    publish(eng, "alt/news", b"four")
    assert [b for b, _p in drain(eng, q2.hobj)] == [b"four"]
    assert drain(eng, q1.hobj) == []
    # MQ's option rules (2046); MQSO_CREATE + MQSO_ALTER is not one of them.
    for options in (C.MQSO_RESUME | C.MQSO_NEW_PUBLICATIONS_ONLY, C.MQSO_CREATE | C.MQSO_ANY_USERID | C.MQSO_FIXED_USERID,
                    C.MQSO_CREATE | C.MQSO_NEW_PUBLICATIONS_ONLY | C.MQSO_PUBLICATIONS_ON_REQUEST,
                    C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_GROUP_SUB | C.MQSO_SET_CORREL_ID,
                    C.MQSO_CREATE | C.MQSO_GROUP_SUB, C.MQSO_DURABLE):
        assert refused("alt/news", options) == C.MQRC_OPTIONS_ERROR


def test_resuming_a_subscription_to_its_own_queue_without_a_handle_opens_that_queue(eng):
    """MQSO_RESUME with MQHO_NONE of a subscription that names its queue (DEFINE SUB DEST): the
    queue manager opens that queue for the application, as for a managed one; 2522 when it
    cannot be opened here."""
    eng.mqsc("DEFINE QLOCAL(OWN.Q)\nDEFINE SUB(OWN.SUB) TOPICSTR('own/feed') DEST(OWN.Q)\n"
             "DEFINE SUB(AWAY.SUB) TOPICSTR('own/away') DEST(THEIR.Q) DESTQMGR(ELSEWHERE)")
    h, qh, _ = sub(eng, name="OWN.SUB", options=C.MQSO_RESUME | C.MQSO_DURABLE)
    assert qh
    publish(eng, "own/feed", b"hello")
    assert [b for b, _p in drain(eng, qh)] == [b"hello"]
    eng.qm.close(eng.conn, h.hobj)
    with pytest.raises(MQIError) as e:
        sub(eng, name="AWAY.SUB", options=C.MQSO_RESUME | C.MQSO_DURABLE)
    assert e.value.reason == C.MQRC_INVALID_DESTINATION


def test_resume_returns_the_subscription_in_the_mqsd_to_alter_with(eng):
    """MQSO_RESUME fills the MQSD with the subscription (topic, user data, selector, priority, the
    SubExpiry it was given rather than what remains, CorrelId): the application changes what it
    wants in it and alters with it, as MQ documents."""
    eng.mqsc("DEFINE TOPIC(RET.T) TOPICSTR('ret')")
    sd = SD(Options=C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_DURABLE, PubPriority=3, SubExpiry=6000,
            ObjectName=b"RET.T")
    for field, value in (("ObjectString", "#"), ("SubName", "RET.SUB"), ("SubUserData", "first"),
                         ("SelectionString", "Priority > 1")):
        sd.set_vs(field, value)
    h, qh = eng.qm.subscribe(eng.conn, sd, 0)
    eng.qm.close(eng.conn, qh)
    eng.qm.close(eng.conn, h.hobj)
    eng.clock.advance(10)
    back = SD(Options=C.MQSO_RESUME | C.MQSO_MANAGED | C.MQSO_DURABLE, ObjectName=b"RET.T")
    back.set_vs("SubName", "RET.SUB")
    h, qh = eng.qm.subscribe(eng.conn, back, 0)
    assert (back.get_vs("ObjectString"), back.get_vs("SubUserData"), back.get_vs("SelectionString")) == \
        (b"ret/#", b"first", b"Priority > 1")
    assert (back.PubPriority, back.SubExpiry, back.SubCorrelId) == (3, 6000, sd.SubCorrelId)
    assert back.ObjectName.strip() == b""           # the ObjectString alone names the whole topic
    eng.qm.close(eng.conn, qh)
    eng.qm.close(eng.conn, h.hobj)
    back.Options = C.MQSO_ALTER | C.MQSO_MANAGED | C.MQSO_DURABLE
    back.set_vs("SubUserData", "second")
    eng.qm.subscribe(eng.conn, back, 0)
    shown = "\n".join(eng.mqsc_exec.run("DISPLAY SUB(RET.SUB) ALL").lines)
    assert "USERDATA(second)" in shown and "PUBPRTY(3)" in shown and "SELECTOR(Priority > 1)" in shown


def test_a_publications_copies_share_the_properties_taken_out(eng, monkeypatch):
    """More publications waiting than props.deliver's table of equal data holds (128): each
    publication's copies still find how an MQGET returns them worked out once (Message.shared), by
    plain MQGET and by read-ahead batches, in each property mode, and each copy is as MQ returns it
    (the data without the MQRFH2, the subscription's own SubUserData)."""
    from mqlite.props import deliver as delivery
    calls: list[str] = []
    real = delivery._deliver

    def counted(how, fmt, encoding, ccsid, data):
        calls.append(how)
        return real(how, fmt, encoding, ccsid, data)
    monkeypatch.setattr(delivery, "_deliver", counted)
    eng.mqsc("ALTER QMODEL(SYSTEM.NDURABLE.MODEL.QUEUE) DEFREADA(YES)")
    queues = [sub(eng, "news/all")[1], sub(eng, "news/all")[1], sub(eng, "news/all", user_data="mine")[1]]
    n = 300
    for i in range(n):
        publish(eng, "news/all", b"story %d" % i, Persistence=C.MQPER_NOT_PERSISTENT)
    # Plain MQGETs (no handle: PROPCTL(COMPAT), mqps alone: the properties dropped) on the first.
    for i in range(n):
        r = eng.qm.get(eng.conn, queues[0], MD(), GMO(Options=C.MQGMO_NO_WAIT), 1000)
        assert (r.body, r.md.Format) == (b"story %d" % i, C.MQFMT_NONE)
    assert len(calls) == n                   # one per publication
    # Read-ahead batches on the second: the copies share the answer the first queue's gets made.
    got = []
    while len(got) < n:
        got += eng.qm.get_batch(eng.conn, queues[1], 0, 64, 1 << 20, GMO(Options=C.MQGMO_NO_WAIT))
    assert [body for _md, body, _ahead in got] == [b"story %d" % i for i in range(n)]
    assert len(calls) == n
    # The third subscription's copies carry its SubUserData: data of their own, worked out once each,
    # and a get with a message handle is another mode: once more per publication.
    for i in range(n):
        r = eng.qm.get(eng.conn, queues[2], MD(), GMO(Options=C.MQGMO_NO_WAIT | C.MQGMO_PROPERTIES_IN_HANDLE,
                                                         Version=C.MQGMO_VERSION_4, MsgHandle=1), 1000)
        assert r.body == b"story %d" % i and b"mine" in r.props
    assert calls == [delivery.COMPAT] * n + [delivery.HANDLE] * n


def test_subscription_ids_are_the_queue_managers_identifiers(eng):
    """A SubId is made as MQ makes one, by the queue manager's identifier generator ('AMQ ' and
    its name, then a unique part): not random bytes. Managed queues are named by the unique part,
    so two subscriptions' queues differ (issue 64)."""
    sub(eng, "ids/one")
    sub(eng, "ids/two")
    assert eng.mqsc_exec.run("DEFINE SUB(ADM) TOPICSTR('ids/three') DESTCLAS(MANAGED)").status == "ok"
    subs = {s.name or s.topic: s for s in eng.qm.pubsub.subscriptions.values()}
    ids = [bytes.fromhex(s.subid) for s in subs.values()]
    assert len(ids) == 3 and all(i.startswith(b"AMQ QM1         ") and len(i) == 24 for i in ids)
    queues = {s.queue for s in subs.values()}
    assert len(queues) == 3 and all(q.startswith(("SYSTEM.MANAGED.DURABLE.", "SYSTEM.MANAGED.NDURABLE."))
                                    for q in queues), queues
    assert all(s.queue.endswith(s.subid[-16:].upper()) for s in subs.values())
