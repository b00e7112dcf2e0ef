"""MQSC: lexical rules, commands, MQ-shaped output, and fuzzing so that no input crashes it."""
from __future__ import annotations

import copy

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqlite.cmq import CMQC as C
from mqlite.mqsc.parser import MQSCSyntaxError, parse, split_commands
from mqlite.mqsc.result import format_fields, summary, wrapped_list
from tests.conftest import Engine


# --- lexical rules ------------------------------------------------------------------------------
def test_continuations_comments_and_terminator():
    script = "* a comment\nDEFINE QLOCAL(A) +\n     DESCR('x')\nDEF QL(B) -\n  DESCR(y)\n\nDIS Q(*);\n"
    cmds = split_commands(script)
    assert [c.text for c in cmds] == ["DEFINE QLOCAL(A) DESCR('x')", "DEF QL(B)   DESCR(y)", "DIS Q(*)"]
    assert cmds[0].lines == ["DEFINE QLOCAL(A) +", "     DESCR('x')"]


def test_blank_and_comment_lines_inside_a_continued_command_are_passed_over():
    cmds = split_commands("DEFINE QLOCAL(A) +\n\n* why the depth\n   MAXDEPTH(5) -\n\n  DESCR(x)\nDIS QL(A)\n")
    assert [c.text for c in cmds] == ["DEFINE QLOCAL(A) MAXDEPTH(5)   DESCR(x)", "DIS QL(A)"]
    assert cmds[0].lines[1:3] == ["", "* why the depth"]


def test_display_of_a_specific_name_shows_all_and_qmgr_qmname():
    e = Engine()
    e.mqsc("DEFINE QLOCAL(SPECIFIC.Q) MAXDEPTH(7)")
    one = e.mqsc("DISPLAY QLOCAL(SPECIFIC.Q)")
    assert "MAXDEPTH(7)" in "\n".join(one.lines) and "DESCR( )" in "\n".join(one.lines)
    generic = "\n".join(e.mqsc("DISPLAY QLOCAL(SPECIFIC.*)").lines)
    assert "QUEUE(SPECIFIC.Q)" in generic and "MAXDEPTH" not in generic
    assert e.mqsc("DISPLAY QMGR QMNAME").lines[1:] == [f"   QMNAME({e.qm.name})".ljust(40)]     # (a lone item keeps its width)


def test_case_folding_and_quoting():
    cmd = parse("define qlocal(low.q) descr('Keep Case') boqname(abc)")
    assert (cmd.verb, cmd.objtype, cmd.name) == ("DEFINE", "QLOCAL", "LOW.Q")
    assert cmd.param("DESCR").value == "Keep Case" and cmd.param("DESCR").quoted
    assert cmd.param("BOQNAME").value == "ABC"
    cmd = parse("DEFINE QLOCAL('lower.q') DESCR('It''s')")
    assert cmd.name == "lower.q" and cmd.param("DESCR").value == "It's"


def test_synonyms_and_lists():
    assert parse("DIS QL(X)").objtype == "QLOCAL"
    assert parse("DEF QR(X)").objtype == "QREMOTE"
    assert parse("ALT CHL(X) CHLTYPE(SVRCONN)").objtype == "CHANNEL"
    assert parse("DEF NL(N) NAMES(a, 'b', C)").param("NAMES").items == ["A", "b", "C"]
    assert parse("DEFINE QLOCAL (SPACED)").name == "SPACED"


def test_syntax_errors_carry_segment():
    for bad in ("DEFINE QLOCAL(Q", "FROB QLOCAL(X)", "DEFINE WIDGET(X)", "DEFINE QLOCAL(X) DESCR('open",
                "DEFINE QLOCAL(X) DESCR(A) DESCR(B)", "DEFINE QLOCAL(X))"):
        try:
            parse(bad)
        except MQSCSyntaxError as e:
            assert e.segment
        else:
            raise AssertionError(bad)


# --- commands -----------------------------------------------------------------------------------
def test_define_display_alter_delete_cycle():
    e = Engine()
    r = e.mqsc("DEFINE QLOCAL(ORDERS) MAXDEPTH(10) DESCR('Orders') DEFPSIST(YES)")
    assert (r.status, r.lines) == ("ok", ["AMQ8006I: IBM MQ queue created."])
    r = e.mqsc("DISPLAY QLOCAL(ORDERS) MAXDEPTH DEFPSIST DESCR")
    assert r.lines == ["AMQ8409I: Display Queue details.",
                       "   QUEUE(ORDERS)                           TYPE(QLOCAL)",
                       "   MAXDEPTH(10)                            DEFPSIST(YES)",
                       "   DESCR(Orders)".ljust(40)]
    assert e.mqsc("ALTER QLOCAL(ORDERS) MAXDEPTH(20)").lines == ["AMQ8008I: IBM MQ queue changed."]
    assert e.qm.queue("ORDERS")["MAXDEPTH"] == 20
    assert e.mqsc("DEFINE QLOCAL(ORDERS)").lines == ["AMQ8150E: IBM MQ object already exists."]
    assert e.mqsc("DEFINE QLOCAL(ORDERS) REPLACE MAXDEPTH(5)").status == "ok"
    assert e.qm.queue("ORDERS")["MAXDEPTH"] == 5
    assert e.mqsc("DELETE QLOCAL(ORDERS)").lines == ["AMQ8007I: IBM MQ queue deleted."]
    assert e.mqsc("DELETE QLOCAL(ORDERS)").lines == ["AMQ8147E: IBM MQ object ORDERS not found."]


def test_define_takes_defaults_from_system_objects_and_like():
    e = Engine()
    e.mqsc("ALTER QLOCAL(SYSTEM.DEFAULT.LOCAL.QUEUE) MAXDEPTH(777)")
    e.mqsc("DEFINE QLOCAL(A) DEFPRTY(3)")
    assert e.qm.queue("A")["MAXDEPTH"] == 777
    e.mqsc("DEFINE QLOCAL(B) LIKE(A)")
    assert e.qm.queue("B")["DEFPRTY"] == 3
    assert e.mqsc("DEFINE QLOCAL(C) LIKE(NOPE)").status == "error"
    assert e.qm.queue("C") is None


def test_bad_input_changes_nothing():
    e = Engine()
    e.mqsc("DEFINE QLOCAL(Q) MAXDEPTH(10)")
    before = copy.deepcopy(e.qm.queue("Q").attrs)
    for bad in ("ALTER QLOCAL(Q) MAXDEPTH(-1)", "ALTER QLOCAL(Q) DEFPRTY(10)", "ALTER QLOCAL(Q) FOO(1)",
                "ALTER QLOCAL(Q) TARGET(X)", "ALTER QLOCAL(Q) DESCR('" + "x" * 65 + "')",
                "ALTER QLOCAL(Q) CLUSTER(A) CLUSNL(B)", "ALTER QLOCAL(Q) MAXDEPTH(10", "ALTER QLOCAL(Q) SHARE(YES)",
                "ALTER QALIAS(Q) PUT(DISABLED)", "DEFINE QLOCAL(" + "Q" * 49 + ")"):
        r = e.mqsc(bad)
        assert r.status in ("syntax", "error"), bad
    assert e.qm.queue("Q").attrs == before
    assert e.qm.queue("Q" * 49) is None


def test_cluster_attribute_rules():
    e = Engine()
    e.mqsc("DEFINE QLOCAL(XQ) USAGE(XMITQ)")
    cases = {
        "ALTER QMGR REPOS(SALES) REPOSNL(NL1)": "REPOS and REPOSNL cannot both be set.",
        "ALTER QMGR DEFXMITQ(SYSTEM.CLUSTER.TRANSMIT.QUEUE)": "is for clustering only",
        "DEFINE QLOCAL(NOT.XMIT) CLCHNAME(SALES.*)": "CLCHNAME can be set only on a transmission queue",
        "ALTER QLOCAL(XQ) USAGE(NORMAL) CLCHNAME(SALES.*)": "CLCHNAME can be set only on a transmission queue",
        "DEFINE CHANNEL(SALES.QM1) CHLTYPE(CLUSRCVR) CONNAME('h(1)') CLUSTER(SALES) CLUSNL(NL1)":
            "CLUSTER and CLUSNL cannot both be set.",
    }
    for cmd, text in cases.items():
        r = e.mqsc(cmd)
        assert r.status == "error" and any(text in line for line in r.lines), (cmd, r.lines)
    assert e.qm.queue("NOT.XMIT") is None and e.qm.qmgr.attrs["REPOS"] == ""
    assert e.mqsc("ALTER QLOCAL(XQ) CLCHNAME(SALES.*)").status == "ok"
    assert e.mqsc("DEFINE QLOCAL(LONG.NAME) USAGE(XMITQ) CLCHNAME(" + "C" * 21 + ")").status in ("syntax", "error")
    assert e.mqsc("ALTER QMGR REPOS(SALES)").status == "ok"


def test_attribute_not_valid_for_object_type_is_syntax_error():
    e = Engine()
    r = e.mqsc("DEFINE QALIAS(A) TARGET(Q) MAXDEPTH(5)")
    assert r.status == "syntax" and r.lines[0].startswith("AMQ8405I")
    assert r.lines[1] == "DEFINE QALIAS(A) TARGET(Q) MAXDEPTH(5)"


def test_delete_not_empty_purge_and_clear():
    e = Engine()
    e.mqsc("DEFINE QLOCAL(Q)")
    h, _ = e.open("Q", C.MQOO_OUTPUT)
    e.put(h.hobj, b"x")
    assert e.mqsc("CLEAR QLOCAL(Q)").lines == ["AMQ8148E: IBM MQ object in use."]
    e.qm.close(e.conn, h.hobj)
    assert e.mqsc("DELETE QLOCAL(Q)").lines == ["AMQ8143E: IBM MQ queue Q not empty."]
    assert e.mqsc("CLEAR QLOCAL(Q)").lines == ["AMQ8022I: IBM MQ queue cleared."]
    e.put(e.open("Q", C.MQOO_OUTPUT)[0].hobj, b"y")
    e.qm.disconnect(e.conn)
    assert e.mqsc("DELETE QLOCAL(Q) PURGE").status == "ok"


def test_display_generic_where_and_type():
    e = Engine()
    e.mqsc("DEFINE QLOCAL(APP.A) MAXDEPTH(5)\nDEFINE QLOCAL(APP.B)\nDEFINE QALIAS(APP.C) TARGET(APP.A)")
    r = e.mqsc("DISPLAY QUEUE(APP.*) TYPE(QLOCAL)")
    assert [ln.strip() for ln in r.lines if ln.strip().startswith("QUEUE(")] == [
        "QUEUE(APP.A)                            TYPE(QLOCAL)", "QUEUE(APP.B)                            TYPE(QLOCAL)"]
    r = e.mqsc("DISPLAY QUEUE(APP.*) WHERE(MAXDEPTH LT 100)")
    assert any("QUEUE(APP.A)" in ln for ln in r.lines) and not any("APP.B" in ln for ln in r.lines)
    assert any("MAXDEPTH(5)" in ln for ln in r.lines)
    assert e.mqsc("DISPLAY QUEUE(NOPE.*)").lines == ["AMQ8147E: IBM MQ object NOPE.* not found."]


def test_where_with_a_quoted_value():
    """WHERE(DESCR EQ 'ab') was a syntax error: a quoted value keeps its case (and its blanks and
    doubled quotes); an unquoted one is folded to upper case, as MQSC folds every unquoted word."""
    e = Engine()
    e.mqsc("DEFINE QLOCAL(W.A) DESCR('ab')\nDEFINE QLOCAL(W.B) DESCR('AB')\n"
           "DEFINE QLOCAL(W.C) DESCR('it''s a b')")

    def shown(where: str) -> list[str]:
        r = e.mqsc(f"DISPLAY QLOCAL(W.*) WHERE({where})")
        assert r.status == "ok", r.lines
        return [ln.split("(")[1].split(")")[0] for ln in r.lines if ln.strip().startswith("QUEUE(")]
    assert shown("DESCR EQ 'ab'") == ["W.A"]
    assert shown("DESCR EQ ab") == ["W.B"]
    assert shown("descr eq 'AB'") == ["W.B"]
    assert shown("DESCR EQ 'it''s a b'") == ["W.C"]
    assert shown("DESCR LK 'a*'") == ["W.A", "W.B"]          # LK compares without case
    assert shown("DESCR NE 'ab'") == ["W.B", "W.C"]
    assert e.mqsc("DISPLAY QLOCAL(W.*) WHERE(DESCR 'ab')").status == "syntax"
    assert e.mqsc("DISPLAY CHSTATUS(*) WHERE(CONNAME EQ '127.0.0.1')").status != "syntax"


def test_qstatus_counts():
    e = Engine()
    e.mqsc("DEFINE QLOCAL(Q)")
    h, _ = e.open("Q", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    e.put(h.hobj, b"a")
    e.put(h.hobj, b"b", pmo_options=C.MQPMO_SYNCPOINT)
    r = e.mqsc("DISPLAY QSTATUS(Q)")
    text = "\n".join(r.lines)
    for item in ("CURDEPTH(2)", "IPPROCS(1)", "OPPROCS(1)", "UNCOM(1)"):
        assert item in text
    r = e.mqsc("DISPLAY QSTATUS(Q) TYPE(HANDLE)")
    assert any("APPLTAG(pytest)" in ln for ln in r.lines)


def test_qmgr_channel_namelist_listener():
    e = Engine()
    assert e.mqsc("ALTER QMGR DEADQ(DLQ) MAXUMSGS(50)").lines == ["AMQ8005I: IBM MQ queue manager changed."]
    r = e.mqsc("DISPLAY QMGR DEADQ MAXUMSGS")
    assert r.lines[1].split() == ["QMNAME(QM1)", "DEADQ(DLQ)"] and "MAXUMSGS(50)" in r.lines[2]
    assert e.mqsc("DEFINE CHANNEL(APP.SVRCONN) CHLTYPE(SVRCONN)").lines == ["AMQ8014I: IBM MQ channel created."]
    assert e.mqsc("DEFINE CHANNEL(TO.QM2) CHLTYPE(SDR) CONNAME('h(1)') XMITQ(QM2)").status == "ok"
    assert e.qm.lookup("CHANNEL", "TO.QM2")["BATCHSZ"] == 50
    assert e.mqsc("DEFINE CHANNEL(NOTYPE)").status == "syntax"
    assert e.mqsc("DEFINE CHANNEL(" + "C" * 21 + ") CHLTYPE(SVRCONN)").status != "ok"
    assert e.mqsc("DEFINE NAMELIST(CL) NAMES(A, B)").lines == ["AMQ8552I: IBM MQ namelist created."]
    assert e.qm.lookup("NAMELIST", "CL")["NAMCOUNT"] == 2
    assert e.mqsc("DEFINE LISTENER(L1) TRPTYPE(TCP) PORT(1414)").lines == ["AMQ8626I: IBM MQ listener created."]
    assert e.mqsc("START LISTENER(L1)").lines == ["AMQ8021I: Request to start IBM MQ listener accepted."]
    assert e.mqsc("PING QMGR").lines == ["AMQ8415I: Ping IBM MQ Queue Manager command complete."]


def test_summary_lines_and_exit_codes():
    e = Engine()
    results = e.mqsc("DEFINE QLOCAL(A)\nDEFINE QLOCAL(A)\nDEFINE QLOCAL(B\nPING QMGR")
    lines, code = summary(results)
    assert lines == ["4 MQSC commands read.", "One command has a syntax error.",
                     "One valid MQSC command could not be processed."]
    assert code == 10
    assert summary([e.mqsc("PING QMGR")]) == (["One MQSC command read.", "No commands have a syntax error.",
                                               "All valid MQSC commands were processed."], 0)


def test_two_column_layout():
    assert format_fields(["A(1)", "B(2)", "C" * 45, "D(4)"]) == [
        "   A(1)" + " " * 36 + "B(2)", "   " + "C" * 45, "   D(4)" + " " * 33]   # a lone item keeps its width
    # MQ 9's runmqsc (DISPLAY QUEUE(*) of its system queues): a 37-character attribute still has
    # one beside it, a 38-character one a line of its own.
    assert format_fields(["QUEUE(SYSTEM.ADMIN.TRACE.ROUTE.QUEUE)", "TYPE(QLOCAL)"]) == [
        "   QUEUE(SYSTEM.ADMIN.TRACE.ROUTE.QUEUE)   TYPE(QLOCAL)"]
    assert format_fields(["QUEUE(SYSTEM.DURABLE.SUBSCRIBER.QUEUE)", "TYPE(QLOCAL)"]) == [
        "   QUEUE(SYSTEM.DURABLE.SUBSCRIBER.QUEUE)", "   TYPE(QLOCAL)" + " " * 25]
    # a list MQ prints a value a line (NAMES): its own lines, each further value under the first
    assert format_fields(["NAMELIST(N)", "NAMCOUNT(2)", wrapped_list("NAMES", ["A.Q", "B.Q"]), "DESCR( )"]) == [
        "   NAMELIST(N)" + " " * 29 + "NAMCOUNT(2)", "   NAMES(A.Q", "        ,B.Q)", "   DESCR( )" + " " * 29]


# --- fuzzing -----------------------------------------------------------------------------------
WORDS = ["DEFINE", "DEF", "ALTER", "DELETE", "DISPLAY", "DIS", "CLEAR", "PING", "START", "STOP", "QLOCAL", "QL",
         "QALIAS", "QREMOTE", "QMODEL", "QUEUE", "CHANNEL", "QMGR", "NAMELIST", "LISTENER", "QSTATUS", "MAXDEPTH",
         "DESCR", "TARGET", "RNAME", "RQMNAME", "XMITQ", "CHLTYPE", "SVRCONN", "SDR", "NAMES", "LIKE", "REPLACE",
         "PURGE", "NOSHARE", "SHARE", "WHERE", "TYPE", "ALL", "DEFPSIST", "YES", "NO", "PUT", "DISABLED", "CURDEPTH",
         "GT", "LT", "EQ", "Q1", "Q2", "*", "(", ")", "'", "''", ",", "+", "-", ";", " ", "  ", "\n", "9", "-1",
         "99999999999", "USAGE", "XMITQ", "DEADQ", "CLUSTER", "CLUSNL", "SYSTEM.DEFAULT.LOCAL.QUEUE"]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(WORDS), max_size=14))
def test_fuzz_command_words_never_crash(words):
    e = _fuzz_engine()
    text = "".join(w if w in "()',;+-\n" else " " + w for w in words)
    for cmd in split_commands(text):
        r = e.mqsc_exec.run(cmd.text)
        assert r.status in ("ok", "error", "syntax")
        assert all(isinstance(line, str) for line in r.lines)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=120))
def test_fuzz_arbitrary_text_never_crashes(text):
    e = _fuzz_engine()
    for cmd in split_commands(text):
        r = e.mqsc_exec.run(cmd.text)
        assert r.status in ("ok", "error", "syntax")


_ENGINE: list[Engine] = []


def _fuzz_engine() -> Engine:
    if not _ENGINE:
        _ENGINE.append(Engine())
    return _ENGINE[0]


def test_mq_file_transfer_coordination_script_runs_on_a_new_queue_manager():
    """MQ File Transfer's setup of a coordination queue manager (fteSetupCoordination's MQSC, as a
    real MQ 9.1 transcript runs it): the default stream queue to copy with LIKE and the queued
    pub/sub namelist to extend are there; and MQ's crtmqm makes no SYSTEM.ADMIN.SVRCONN, which
    such scripts DEFINE without REPLACE."""
    e = Engine("MFTQM")
    script = ["DEFINE TOPIC('SYSTEM.FTE') TOPICSTR('SYSTEM.FTE') REPLACE",
              "ALTER TOPIC('SYSTEM.FTE') NPMSGDLV(ALLAVAIL) PMSGDLV(ALLAVAIL)",
              "DEFINE QLOCAL(SYSTEM.FTE) LIKE(SYSTEM.BROKER.DEFAULT.STREAM) REPLACE",
              "ALTER QLOCAL(SYSTEM.FTE) DESCR('Stream for MQMFT Pub/Sub interface')",
              "ALTER NAMELIST(SYSTEM.QPUBSUB.QUEUE.NAMELIST) NAMES(SYSTEM.BROKER.DEFAULT.STREAM,"
              "SYSTEM.BROKER.ADMIN.STREAM,SYSTEM.FTE)",
              "DEFINE CHANNEL (SYSTEM.ADMIN.SVRCONN) CHLTYPE (SVRCONN)"]
    assert [e.mqsc(cmd).lines[0] for cmd in script] == [
        "AMQ8690I: IBM MQ topic created.", "AMQ8691I: IBM MQ topic changed.", "AMQ8006I: IBM MQ queue created.",
        "AMQ8008I: IBM MQ queue changed.", "AMQ8551I: IBM MQ namelist changed.", "AMQ8014I: IBM MQ channel created."]
    shown = e.mqsc("DISPLAY NAMELIST(SYSTEM.QPUBSUB.QUEUE.NAMELIST) ALL").lines
    assert "   DESCR(A list of queues for the queued Pub/Sub interface to monitor)" in shown
    assert any(line.strip().startswith("NAMCOUNT(3)") for line in shown), shown
