"""dmpmqcfg: a queue manager's configuration dumped as MQSC recreates it on a fresh queue manager
exactly (DISPLAY ... ALL of everything compared, times aside), in both of MQ's layouts; the
filters (-x, -n, -t), setmqaut output, and no secret in the dump."""
from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from mqlite.testing import Harness, run_mqlite

CONFIG = """DEFINE QLOCAL(APP.Q) MAXDEPTH(1234) DESCR('It''s a queue') DEFPSIST(YES) MONQ(HIGH) TRIGGER
DEFINE QALIAS(APP.ALIAS) TARGET(APP.Q) DEFPRTY(7)
DEFINE QREMOTE(APP.REMOTE) RNAME(X) RQMNAME(QM9) XMITQ(APP.Q)
DEFINE QMODEL(APP.MODEL) DEFTYPE(PERMDYN) MAXDEPTH(10)
DEFINE NAMELIST(APP.NL) NAMES(A,'b',C) DESCR('names')
DEFINE PROCESS(APP.PROC) APPLICID('/bin/true') USERDATA('x y') APPLTYPE(WINDOWS)
DEFINE SERVICE(APP.SVC) STARTCMD('/bin/sleep') STARTARG('1') SERVTYPE(SERVER)
DEFINE COMMINFO(APP.CI) GRPADDR('239.1.2.3') PORT(2000)
DEFINE CHANNEL(APP.SDR) CHLTYPE(SDR) CONNAME('127.0.0.1(1414)') XMITQ(APP.Q) BATCHSZ(10) KAINT(30)
DEFINE CHANNEL(APP.CONN) CHLTYPE(SVRCONN) MAXINST(5) SHARECNV(1) MCAUSER('nobody')
DEFINE LISTENER(APP.LSTR) TRPTYPE(TCP) PORT(0) BACKLOG(50)
DEFINE TOPIC(APP.TOPIC) TOPICSTR('app/news') DEFPRTY(3)
DEFINE AUTHINFO(APP.AUTH) AUTHTYPE(IDPWLDAP) CONNAME('ldap(389)') LDAPPWD('secret') SHORTUSR('cn')
DEFINE SUB(APP.SUB) TOPICSTR('app/news') DEST(APP.Q) USERDATA('ud') PUBPRTY(4)
SET AUTHREC PROFILE('APP.**') GROUP('mqm') OBJTYPE(QUEUE) AUTHADD(GET,PUT,INQ)
SET AUTHREC GROUP('mqm') OBJTYPE(QMGR) AUTHADD(CONNECT,INQ)
SET CHLAUTH('APP.CONN') TYPE(ADDRESSMAP) ADDRESS('10.*') USERSRC(CHANNEL) DESCR('from the 10 net')
SET CHLAUTH('APP.*') TYPE(BLOCKUSER) USERLIST('baduser','worse') WARN(YES)
ALTER QMGR DESCR('dump me') MAXMSGL(2000000) MONQ(LOW)
"""
DISPLAYS = ("DISPLAY QMGR ALL", "DISPLAY QUEUE(*) ALL", "DISPLAY CHANNEL(*) ALL", "DISPLAY NAMELIST(*) ALL",
            "DISPLAY PROCESS(*) ALL", "DISPLAY SERVICE(*) ALL", "DISPLAY COMMINFO(*) ALL",
            "DISPLAY LISTENER(*) ALL", "DISPLAY TOPIC(*) ALL", "DISPLAY AUTHINFO(*) ALL",
            "DISPLAY SUB(APP.*) ALL", "DISPLAY AUTHREC", "DISPLAY CHLAUTH(*) ALL")
# What differs between two queue managers whatever their configuration: names, identities, times,
# the port crtmqm -p gave each, the subscription's generated identifier and CorrelId.
VOLATILE = re.compile(r"^(QMNAME|QMID|ALTDATE|ALTTIME|CRDATE|CRTIME|SUBID|DESTCORL|DESTQMGR)$")


@pytest.fixture(scope="module")
def harness(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Harness]:
    h = Harness(str(tmp_path_factory.mktemp("dump")))
    try:
        yield h
    finally:
        h.close()


def _items(qm: Any) -> list[tuple[str, ...]]:
    """Every object each DISPLAY shows, as its sorted attribute items, volatile ones left out."""
    blocks: list[tuple[str, ...]] = []
    for command in DISPLAYS:
        out = qm.mqsc(command + "\n").stdout.replace(qm.name, "<QMGR>")
        for block in re.split(r"\n(?=AMQ\d{4}I: Display)", out):
            items = re.findall(r"([A-Z][A-Z0-9]*)(?:\(((?:[^()']|'[^']*')*)\))?", " ".join(
                line.strip() for line in block.splitlines()[1:] if line.startswith("   ")))
            kept = tuple(sorted(f"{k}({v})" for k, v in items if not VOLATILE.match(k)))
            if kept and "LISTENER(SYSTEM.LISTENER.TCP.1)" not in kept:
                blocks.append((command,) + kept)
    return sorted(blocks)


@pytest.mark.parametrize("layout", [[], ["-a"], ["-o", "1line"]], ids=["mqsc", "all-attributes", "1line"])
def test_a_dump_recreates_the_configuration_exactly(harness: Harness, layout: list[str]) -> None:
    suffix = str(len(harness.qms))
    source = harness.add("DUMPSRC" + suffix, CONFIG)
    dump = run_mqlite("dmpmqcfg", "-m", source.name, *layout)
    assert dump.returncode == 0, dump.stderr
    assert "secret" not in dump.stdout                      # never a password
    assert dump.stdout.startswith("*" * 79) and f"* Queue manager name: {source.name}" in dump.stdout
    target = harness.add("DUMPDST" + suffix, "")
    applied = target.mqsc("DEFINE QLOCAL(TARGET.NOT.IN.SOURCE)\n" + dump.stdout)
    assert applied.returncode == 0, applied.stdout[-3000:]
    target.mqsc("DELETE QLOCAL(TARGET.NOT.IN.SOURCE)\n", check=True)
    # The password is the one thing set again by hand.
    target.mqsc("ALTER AUTHINFO(APP.AUTH) AUTHTYPE(IDPWLDAP) LDAPPWD('secret')\n", check=True)
    assert _items(target) == _items(source)
    if layout == ["-o", "1line"]:
        assert any(line.startswith("DEFINE QLOCAL('APP.Q') ") and line.endswith(" REPLACE")
                   for line in dump.stdout.splitlines())


def test_filters_and_setmqaut_output(harness: Harness) -> None:
    qm = harness.add("DUMPFILT", CONFIG)

    def dump(*flags: str) -> list[str]:
        r = run_mqlite("dmpmqcfg", "-m", qm.name, *flags)
        assert r.returncode == 0, r.stderr
        return [line for line in r.stdout.splitlines() if not line.startswith("*")]

    queues = dump("-t", "queue", "-n", "APP.*")
    assert [line for line in queues if line.startswith("DEFINE")] == [
        "DEFINE QALIAS('APP.ALIAS') +", "DEFINE QMODEL('APP.MODEL') +", "DEFINE QLOCAL('APP.Q') +",
        "DEFINE QREMOTE('APP.REMOTE') +"]
    assert all(not line.startswith(("SET ", "ALTER QMGR")) for line in queues)
    authrecs = dump("-x", "authrec")
    assert "SET AUTHREC PROFILE('APP.**') GROUP('mqm') OBJTYPE(QUEUE) AUTHADD(GET,INQ,PUT)" in authrecs
    assert "SET AUTHREC GROUP('mqm') OBJTYPE(QMGR) AUTHADD(CONNECT,INQ)" in authrecs
    assert not any(line.startswith("DEFINE") for line in authrecs)
    setmqaut = dump("-o", "setmqaut", "-n", "APP.**")
    assert f"setmqaut -m '{qm.name}' -n 'APP.**' -t queue -g 'mqm' +get +inq +put" in setmqaut
    chlauth = dump("-x", "chlauth", "-o", "1line", "-n", "APP.*")
    assert chlauth == ["SET CHLAUTH('APP.CONN') TYPE(ADDRESSMAP) ADDRESS('10.*') USERSRC(CHANNEL) CHCKCLNT(ASQMGR) "
                       "DESCR('from the 10 net') WARN(NO) ACTION(REPLACE)",
                       "SET CHLAUTH('APP.*') TYPE(BLOCKUSER) USERLIST('baduser','worse') WARN(YES) ACTION(REPLACE)"]
    subs = dump("-x", "sub", "-o", "1line")
    assert len(subs) == 1 and subs[0].startswith("DEFINE SUB('APP.SUB') TOPICSTR('app/news') DEST('APP.Q')")
    assert "PUBPRTY(4)" in subs[0]
    bad = run_mqlite("dmpmqcfg", "-m", "NO.SUCH.QMGR")
    assert bad.returncode != 0


# The queues IBM's crtmqm makes on Linux (a published DISPLAY QUEUE(*) of an MQ 9 queue manager),
# the listener, namelists, channels and authentication information objects of MQ 9.4's.
MQ_DEFAULT_QUEUES = """SYSTEM.ADMIN.ACCOUNTING.QUEUE SYSTEM.ADMIN.ACTIVITY.QUEUE SYSTEM.ADMIN.CHANNEL.EVENT
SYSTEM.ADMIN.COMMAND.EVENT SYSTEM.ADMIN.COMMAND.QUEUE SYSTEM.ADMIN.CONFIG.EVENT SYSTEM.ADMIN.LOGGER.EVENT
SYSTEM.ADMIN.PERFM.EVENT SYSTEM.ADMIN.PUBSUB.EVENT SYSTEM.ADMIN.QMGR.EVENT SYSTEM.ADMIN.STATISTICS.QUEUE
SYSTEM.ADMIN.TRACE.ACTIVITY.QUEUE SYSTEM.ADMIN.TRACE.ROUTE.QUEUE SYSTEM.AUTH.DATA.QUEUE SYSTEM.BROKER.ADMIN.STREAM
SYSTEM.BROKER.CONTROL.QUEUE SYSTEM.BROKER.DEFAULT.STREAM SYSTEM.BROKER.INTER.BROKER.COMMUNICATIONS
SYSTEM.CHANNEL.INITQ SYSTEM.CHANNEL.SYNCQ SYSTEM.CHLAUTH.DATA.QUEUE SYSTEM.CICS.INITIATION.QUEUE
SYSTEM.CLUSTER.COMMAND.QUEUE SYSTEM.CLUSTER.HISTORY.QUEUE SYSTEM.CLUSTER.REPOSITORY.QUEUE
SYSTEM.CLUSTER.TRANSMIT.QUEUE SYSTEM.DEAD.LETTER.QUEUE SYSTEM.DEFAULT.INITIATION.QUEUE SYSTEM.DEFAULT.LOCAL.QUEUE
SYSTEM.DOTNET.XARECOVERY.QUEUE SYSTEM.DURABLE.SUBSCRIBER.QUEUE SYSTEM.HIERARCHY.STATE SYSTEM.INTER.QMGR.CONTROL
SYSTEM.INTER.QMGR.FANREQ SYSTEM.INTER.QMGR.PUBS SYSTEM.INTERNAL.REPLY.QUEUE SYSTEM.PENDING.DATA.QUEUE
SYSTEM.PROTECTION.ERROR.QUEUE SYSTEM.PROTECTION.POLICY.QUEUE SYSTEM.RETAINED.PUB.QUEUE
SYSTEM.SELECTION.EVALUATION.QUEUE SYSTEM.SELECTION.VALIDATION.QUEUE SYSTEM.DEFAULT.ALIAS.QUEUE
SYSTEM.DEFAULT.MODEL.QUEUE SYSTEM.DEFAULT.REMOTE.QUEUE SYSTEM.DURABLE.MODEL.QUEUE SYSTEM.NDURABLE.MODEL.QUEUE
SYSTEM.MQSC.REPLY.QUEUE SYSTEM.CLUSTER.TRANSMIT.MODEL.QUEUE""".split()
MQ_DEFAULT_OTHERS = """CHANNEL('SYSTEM.AUTO.RECEIVER') CHANNEL('SYSTEM.AUTO.SVRCONN') CHANNEL('SYSTEM.DEF.AMQP')
CHANNEL('SYSTEM.DEF.CLNTCONN') CHANNEL('SYSTEM.DEF.CLUSRCVR') CHANNEL('SYSTEM.DEF.CLUSSDR')
CHANNEL('SYSTEM.DEF.RECEIVER') CHANNEL('SYSTEM.DEF.REQUESTER') CHANNEL('SYSTEM.DEF.SENDER') CHANNEL('SYSTEM.DEF.SERVER')
CHANNEL('SYSTEM.DEF.SVRCONN') LISTENER('SYSTEM.DEFAULT.LISTENER.TCP') NAMELIST('SYSTEM.DEFAULT.NAMELIST')
NAMELIST('SYSTEM.QPUBSUB.QUEUE.NAMELIST') AUTHINFO('SYSTEM.DEFAULT.AUTHINFO.CRLLDAP')
AUTHINFO('SYSTEM.DEFAULT.AUTHINFO.IDPWLDAP') AUTHINFO('SYSTEM.DEFAULT.AUTHINFO.IDPWOS')
AUTHINFO('SYSTEM.DEFAULT.AUTHINFO.OCSP') TOPIC('SYSTEM.BASE.TOPIC') PROCESS('SYSTEM.DEFAULT.PROCESS')""".split()


def test_a_new_queue_managers_dump_has_mqs_default_objects_and_loads_cleanly(harness: Harness) -> None:
    """dmpmqcfg of a new queue manager names every default object IBM's crtmqm makes (docs/mqsc.md
    lists the deliberate differences) and loads into runmqsc on another new one with no error, in
    MQ's shape."""
    from mqlite.mqsc.shape import problems
    new = harness.add("DUMPNEW")
    other = harness.add("DUMPLOAD")
    dump = run_mqlite("dmpmqcfg", "-m", "DUMPNEW", "-a")
    assert dump.returncode == 0
    defined = set(re.findall(r"^DEFINE (?:QLOCAL|QMODEL|QALIAS|QREMOTE)\('([^']+)'\)", dump.stdout, re.M))
    assert sorted(set(MQ_DEFAULT_QUEUES) - defined) == []
    assert [o for o in MQ_DEFAULT_OTHERS if f"DEFINE {o}" not in dump.stdout] == []
    assert "DEFINE CHANNEL('SYSTEM.ADMIN.SVRCONN')" not in dump.stdout   # IBM's crtmqm makes its CHLAUTH rule only
    loaded = other.mqsc(dump.stdout)
    assert loaded.returncode == 0, loaded.stdout[-2000:]
    assert loaded.stdout.rstrip().endswith("All valid MQSC commands were processed.")
    assert problems(loaded.stdout) == []
    new.stop()
    other.stop()
