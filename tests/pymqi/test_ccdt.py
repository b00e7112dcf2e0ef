"""Issue 33 item 4: connecting by queue-manager name through a JSON CCDT, as MQ's clients do —
MQCCDTURL (a path or file:// URL), MQCHLLIB/MQCHLTAB, the MQCNO's CCDTUrl (before MQSERVER),
queue-manager groups (``*NAME``), CONNAME lists, CLNTWGHT and AFFINITY — against two real queue
managers, and ``mqlite ccdt`` writing a queue manager's CLNTCONN channels as a table that works."""
from __future__ import annotations

import json
import os
import random
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqlite import ibmmq, pymqi
from mqlite.cmq import CMQC
from mqlite.net import ccdt
from mqlite.pymqi import qmgr as face
from mqlite.testing import Harness, free_port, run_mqlite

CHANNEL = "APP.SVRCONN"


@pytest.fixture(scope="module")
def two(tmp_path_factory):
    with Harness(str(tmp_path_factory.mktemp("data")), channel=CHANNEL) as h:
        mqsc = "DEFINE QLOCAL(CC.Q)\nDEFINE CHANNEL(ALPHA) CHLTYPE(SVRCONN)\nDEFINE CHANNEL(BETA) CHLTYPE(SVRCONN)\n"
        yield h.add("QMA", mqsc), h.add("QMB", mqsc)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for v in ("MQSERVER", "MQCCDTURL", "MQCHLLIB", "MQCHLTAB"):
        monkeypatch.delenv(v, raising=False)
    monkeypatch.setattr(face, "CHOOSER", ccdt.Chooser(seed="test-host"))


def entry(name: str, qmgr: str, *ports: int, **cm) -> dict:
    e = {"name": name, "type": "clientConnection",
         "clientConnection": {"connection": [{"host": "127.0.0.1", "port": p} for p in ports]}}
    if qmgr:
        e["clientConnection"]["queueManager"] = qmgr
    if cm:
        e["connectionManagement"] = cm
    return e


def table(tmp_path, *entries, name="ccdt.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps({"channel": list(entries)}))
    return str(path)


def reason(fn) -> int:
    with pytest.raises(pymqi.MQMIError) as e:
        fn()
    return e.value.reason


def connected_to(q) -> str:
    try:
        return q.inquire(CMQC.MQCA_Q_MGR_NAME).decode().strip()
    finally:
        q.disconnect()


def test_a_group_name_takes_the_first_connection_that_answers(two, tmp_path, monkeypatch):
    qma, qmb = two
    down = free_port()
    monkeypatch.setenv("MQCCDTURL", "file://" + table(
        tmp_path, entry(CHANNEL, "QMGroupA", down, qma.port), entry(CHANNEL, "QMGroupB", qmb.port, qma.port)))
    assert connected_to(pymqi.connect("*QMGroupA")) == "QMA"        # the first CONNAME is down
    assert connected_to(pymqi.connect("*QMGroupB")) == "QMB"
    # Without the asterisk the queue manager reached must have the name asked for.
    assert reason(lambda: pymqi.connect("QMGroupA")) == CMQC.MQRC_Q_MGR_NOT_AVAILABLE
    assert reason(lambda: pymqi.connect("*NoSuchGroup")) == CMQC.MQRC_Q_MGR_NAME_ERROR


def test_a_named_queue_manager_skips_definitions_that_reach_another(two, tmp_path, monkeypatch):
    qma, qmb = two
    # Two definitions for QMB: ALPHA (first by name) reaches QMA, so BETA is used, as in MQ's example.
    monkeypatch.setenv("MQCCDTURL", table(tmp_path, entry("BETA", "QMB", qmb.port), entry("ALPHA", "QMB", qma.port)))
    assert connected_to(pymqi.connect("QMB")) == "QMB"
    plan = face.CHOOSER.plan(str(tmp_path / "ccdt.json"), "QMB", ccdt.applicable(ccdt.read(str(tmp_path / "ccdt.json")),
                                                                                  "QMB")[0])
    assert [d.name for d in plan] == ["ALPHA", "BETA"]                 # ALPHA was tried first


def test_mqchllib_and_mqchltab_and_a_blank_name(two, tmp_path, monkeypatch):
    qma, _ = two
    table(tmp_path, entry(CHANNEL, "", qma.port), name="AMQCLCHL.TAB")
    monkeypatch.setenv("MQCHLLIB", str(tmp_path))
    assert connected_to(pymqi.connect("")) == "QMA"                  # blank: the definitions with no QMNAME
    assert connected_to(pymqi.connect("*")) == "QMA"
    assert reason(lambda: pymqi.connect("QMA")) == CMQC.MQRC_Q_MGR_NAME_ERROR   # none for QMA by name


def test_the_mqcno_url_comes_before_mqserver_and_ibmmq_connects_as_the_samples_do(two, tmp_path, monkeypatch):
    qma, qmb = two
    monkeypatch.setenv("MQSERVER", f"{CHANNEL}/TCP/{qmb.conname}")
    url = "file://" + table(tmp_path, entry(CHANNEL, "QMA", qma.port))
    cno = pymqi.CNO(Version=6)
    cno.set_vs("CCDTUrl", url)
    q = pymqi.QueueManager(None)
    q.connect_with_options("QMA", cno=cno)
    assert connected_to(q) == "QMA"
    assert connected_to(pymqi.connect("QMB")) == "QMB"              # MQSERVER, without the MQCNO URL
    monkeypatch.delenv("MQSERVER")
    monkeypatch.setenv("MQCCDTURL", url)
    # mq-dev-patterns' CCDT mode: connect_with_options(name, csp=..., cd=None, sco=SCO())
    q = ibmmq.QueueManager(None)
    q.connect_with_options("QMA", csp=None, cd=None, sco=ibmmq.SCO())
    put = ibmmq.Queue(q, "CC.Q")
    put.put(b"through the CCDT")
    assert ibmmq.Queue(q, "CC.Q").get() == b"through the CCDT"
    q.disconnect()


def test_tables_that_cannot_be_used_answer_2600_and_nothing_connects(tmp_path, monkeypatch):
    cases = {"missing.json": None, "binary.tab": b"\x00\x01AMQR binary table",
             "broken.json": b'{"channel": [', "noconn.json": json.dumps({"channel": [
                 {"name": "X", "type": "clientConnection", "clientConnection": {"queueManager": "Q"}}]}).encode(),
             "badweight.json": json.dumps({"channel": [entry("X", "Q", 1, clientWeight=100)]}).encode()}
    for name, content in cases.items():
        if content is not None:
            (tmp_path / name).write_bytes(content)
        monkeypatch.setenv("MQCCDTURL", str(tmp_path / name))
        assert reason(lambda: pymqi.connect("Q")) == CMQC.MQRC_CCDT_URL_ERROR, name
    monkeypatch.setenv("MQCCDTURL", "http://127.0.0.1:1/ccdt.json")
    assert reason(lambda: pymqi.connect("Q")) == CMQC.MQRC_CCDT_URL_ERROR


def test_preferred_affinity_keeps_one_list_and_moves_a_failed_weighted_definition_last(two, tmp_path, monkeypatch):
    qma, qmb = two
    down = free_port()
    path = table(tmp_path, entry("W.DOWN", "G", down, clientWeight=90), entry("ALPHA", "G", qma.port, clientWeight=5),
                 entry("BETA", "G", qmb.port, clientWeight=5))
    monkeypatch.setenv("MQCCDTURL", path)
    first = connected_to(pymqi.connect("*G"))
    # Same list for every connection of the process; W.DOWN failed once and is now last.
    plan = face.CHOOSER.plan(path, "*G", ccdt.applicable(ccdt.read(path), "*G")[0])
    assert plan[-1].name == "W.DOWN" and [connected_to(pymqi.connect("*G")) for _ in range(4)] == [first] * 4
    # AFFINITY(NONE): each connection draws again (both queue managers are reached).
    monkeypatch.setenv("MQCCDTURL", table(tmp_path, entry("ALPHA", "G", qma.port, clientWeight=50, affinity="none"),
                                          entry("BETA", "G", qmb.port, clientWeight=50, affinity="none"),
                                          name="none.json"))
    assert {connected_to(pymqi.connect("*G")) for _ in range(24)} == {"QMA", "QMB"}


def test_mqlite_ccdt_writes_the_clntconn_channels_as_a_table_clients_use(two, tmp_path, monkeypatch):
    qma, qmb = two
    qma.mqsc("DEFINE CHANNEL(GAMMA) CHLTYPE(SVRCONN) REPLACE\n", check=True)
    down = free_port()
    qmb.mqsc(f"DEFINE CHANNEL(TO.GROUP) CHLTYPE(CLNTCONN) CONNAME('127.0.0.1({down}),{qmb.conname}') "
             "QMNAME(G2) CLNTWGHT(7) AFFINITY(NONE) DESCR('group (two)') REPLACE\n"
             f"DEFINE CHANNEL(GAMMA) CHLTYPE(CLNTCONN) CONNAME('{qma.conname}') QMNAME(QMA) REPLACE\n", check=True)
    out = tmp_path / "written.json"
    r = run_mqlite("ccdt", "QMB", "-o", str(out))
    assert r.returncode == 0, r.stdout + r.stderr
    defs = {d.name: d for d in ccdt.read(str(out))}
    assert set(defs) == {"TO.GROUP", "GAMMA"}
    assert "MQL0040I: 2 client-connection channel(s) of QMB written" in r.stdout    # (it counted SYSTEM.DEF.CLNTCONN)
    g = defs["TO.GROUP"]
    assert (g.conname, g.qmgr, g.weight, g.affinity) == (f"127.0.0.1({down}),{qmb.conname}", "G2", 7, 0)
    (written,) = [c for c in json.loads(out.read_text())["channel"] if c["name"] == "TO.GROUP"]
    assert written["general"]["description"] == "group (two)"
    monkeypatch.setenv("MQCCDTURL", str(out))
    assert connected_to(pymqi.connect("QMA")) == "QMA"
    # TO.GROUP is a CLNTCONN of QMB, no SVRCONN: the first CONNAME is down, the second refuses it.
    assert reason(lambda: pymqi.connect("*G2")) == CMQC.MQRC_CHANNEL_CONFIG_ERROR
    assert run_mqlite("ccdt", "NO.SUCH.QM").returncode != 0


# --- the order rules, against a simple model ---------------------------------------------------
defs_strategy = st.lists(st.tuples(st.sampled_from(["A", "B", "C", "D"]), st.integers(0, 99)), max_size=8)


@given(defs_strategy, st.integers(0, 2 ** 32))
def test_ordered_is_weight_zero_by_name_then_every_weighted_one_once(specs, seed):
    defs = [ccdt.Definition(n, "G", "h(1)", w, order=i) for i, (n, w) in enumerate(specs)]
    got = ccdt.ordered(defs, random.Random(seed))
    assert sorted(got, key=lambda d: d.order) == defs                       # a permutation
    zero = [d for d in got if d.weight == 0]
    assert got[:len(zero)] == sorted(zero, key=lambda d: (d.name, d.order))


def test_weighted_choice_follows_the_weights():
    defs = [ccdt.Definition("LIGHT", "G", "h(1)", 1), ccdt.Definition("HEAVY", "G", "h(2)", 3, order=1)]
    firsts = Counter(ccdt.ordered(defs, random.Random(i))[0].name for i in range(4000))
    assert 0.70 < firsts["HEAVY"] / 4000 < 0.80


@pytest.mark.parametrize("asked, want", [("QM1", ("QM1", "QM1")), ("*QM1", ("QM1", "")), ("", ("", "")),
                                         ("*", ("", "")), (" *G ", ("G", ""))])
def test_which_definitions_apply(asked, want):
    defs = [ccdt.Definition("A", "QM1", "h(1)"), ccdt.Definition("B", "", "h(1)"), ccdt.Definition("C", "G", "h(1)")]
    got, wanted = ccdt.applicable(defs, asked)
    assert ([d.qmgr for d in got][0], wanted) == want and len(got) == 1


def test_location_follows_mqs_precedence():
    env = {"MQCCDTURL": "/a.json", "MQCHLLIB": "/lib", "MQCHLTAB": "t.json"}
    assert ccdt.location("file:///cno.json", env) == "file:///cno.json"
    assert ccdt.location("", env) == "/a.json"
    assert ccdt.location("", {"MQCHLLIB": "/lib"}) == "/lib/AMQCLCHL.TAB"
    assert ccdt.location("", {"MQCHLTAB": "/abs/t.json"}) == "/abs/t.json"
    assert ccdt.location("", {}) == ""


def test_runmqsc_n_keeps_a_local_table_that_clients_use(two, tmp_path, monkeypatch):
    """Issue 65 item 3: ``runmqsc -n`` needs no queue manager. It runs DEFINE/ALTER/DELETE/DISPLAY
    of CLNTCONN channels and AUTHINFO objects against the table MQCHLLIB/MQCHLTAB name (checked,
    defaulted and displayed by the queue manager's own MQSC), writes it as a JSON CCDT, and a
    client given the same two variables connects through it; other commands are syntax errors."""
    qma, qmb = two
    monkeypatch.setenv("MQCHLLIB", str(tmp_path / "lib"))
    monkeypatch.setenv("MQCHLTAB", "CLIENT.TAB")

    def runmqsc_n(text: str):
        return run_mqlite("runmqsc", "-n", stdin=text)
    down = free_port()
    r = runmqsc_n(f"DEFINE CHANNEL(ALPHA) CHLTYPE(CLNTCONN) CONNAME('127.0.0.1({down}),{qma.conname}') QMNAME(QMA) "
                  "DESCR('first (A)') REPLACE\n"
                  f"DEFINE CHANNEL(BETA) CHLTYPE(CLNTCONN) CONNAME('{qmb.conname}') QMNAME(QMB) DEFRECON(YES)\n"
                  "DEFINE AUTHINFO(MY.OCSP) AUTHTYPE(OCSP) OCSPURL('http://ocsp.example')\n"
                  "DEFINE QLOCAL(NOT.HERE)\nDEFINE CHANNEL(SDR) CHLTYPE(SDR) CONNAME('h(1)') XMITQ(X)\n")
    assert r.returncode == 10 and "Starting local MQSC for 'CLIENT.TAB'." in r.stdout, r.stdout
    assert r.stdout.count("AMQ8014I: IBM MQ channel created.") == 2
    assert "AMQ8563I: IBM MQ authentication information object created." in r.stdout
    assert r.stdout.count("AMQ8405I: Syntax error detected") == 2
    assert "2 commands have a syntax error." in r.stdout
    defs = {d.name: d for d in ccdt.read(str(tmp_path / "lib" / "CLIENT.TAB"))}
    assert set(defs) == {"ALPHA", "BETA"} and defs["BETA"].reconnect == 1
    # A client with the same MQCHLLIB/MQCHLTAB: ALPHA's first address is down, its second is QMA.
    assert connected_to(pymqi.connect("QMA")) == "QMA" and connected_to(pymqi.connect("QMB")) == "QMB"
    # A second run reads the table back: ALTER, DELETE and DISPLAY see what the first wrote.
    r = runmqsc_n("ALTER CHANNEL(ALPHA) CHLTYPE(CLNTCONN) HBINT(7)\nDELETE CHANNEL(BETA)\nDELETE CHANNEL(NOPE)\n"
                  "DISPLAY CHANNEL(*) HBINT DESCR\nDISPLAY AUTHINFO(*)\n")
    assert r.returncode == 10, r.stdout
    assert "AMQ8147E: IBM MQ object NOPE not found." in r.stdout
    shown = r.stdout.split("DISPLAY CHANNEL(*) HBINT DESCR", 1)[1]
    assert "CHANNEL(ALPHA)" in shown and "HBINT(7)" in shown and "DESCR(first (A))" in shown
    assert "CHANNEL(BETA)" not in shown and "SYSTEM.DEF" not in shown and "AUTHINFO(MY.OCSP)" in shown
    assert [d.name for d in ccdt.read(str(tmp_path / "lib" / "CLIENT.TAB"))] == ["ALPHA"]
    assert reason(lambda: pymqi.connect("QMB")) == CMQC.MQRC_Q_MGR_NAME_ERROR
    # A table that is not one is refused as MQ refuses it, and left as it is.
    for content in (b"\x00\x01AMQR binary table", b'["a list"]', b'{"channel": [{"name": "X"}]}'):
        broken = tmp_path / "lib" / "BROKEN.TAB"
        broken.write_bytes(content)
        r = run_mqlite("runmqsc", "-n", stdin="DISPLAY CHANNEL(*)\n",
                       env=dict(os.environ, MQCHLLIB=str(tmp_path / "lib"), MQCHLTAB="BROKEN.TAB"))
        assert r.returncode == 20 and "AMQ9555E: File format error." in r.stdout, r.stdout + r.stderr
        assert broken.read_bytes() == content
    # A client table's names are its own: a CLNTCONN may be called SYSTEM.DEF.SVRCONN (IBM's
    # performance harness defines one so), which a queue manager's SVRCONN has.
    r = runmqsc_n(f"DEFINE CHANNEL('SYSTEM.DEF.SVRCONN') CHLTYPE(CLNTCONN) CONNAME('{qma.conname}') "
                  "QMNAME(QMA) REPLACE\n")
    assert r.returncode == 0 and "AMQ8014I: IBM MQ channel created." in r.stdout, r.stdout
