"""Resource-usage publications through a real queue manager: the retained metadata under
$SYS/MQ/INFO/QMGR/<qm>/Monitor/METADATA read by hand as IBM's amqsrua reads it (classes, their
types, each type's elements and data topic), a data publication each MonitorPublishHeartBeat to a
subscriber with its interval and one value per element, and `mqlite amqsrua` printing them."""
from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from mqlite import pymqi
from mqlite.pymqi import CMQC as C
from mqlite.pymqi import CMQCFC as F
from mqlite.testing import Harness, run_mqlite
from tests.helpers import parse_pcf


@pytest.fixture(scope="module")
def qm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    h = Harness(str(tmp_path_factory.mktemp("resources")), channel="APP.SVRCONN")
    try:
        q = h.add("RUAQM")
        with open(os.path.join(h.data_dir, "qmgrs", q.name, "qm.ini"), "a", encoding="utf-8") as f:
            f.write("TuningParameters:\n   MonitorPublishHeartBeat=0.5\n")
        q.stop()
        q.start()
        yield q
    finally:
        h.close()


def subscribe(conn: Any, topic: str) -> Any:
    sd = pymqi.SD(Options=C.MQSO_CREATE | C.MQSO_NON_DURABLE | C.MQSO_MANAGED)
    sd.set_vs("ObjectString", topic)
    return pymqi.Subscription(conn, sd)


def publication(sub: Any) -> tuple[tuple[int, ...], list[tuple[int, int, Any]]]:
    return parse_pcf(sub.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_WAIT, WaitInterval=10000)))


def group_dicts(params: list[tuple[int, int, Any]], selector: int) -> list[dict[int, Any]]:
    return [{p: v for _t, p, v in value} for t, sel, value in params if t == F.MQCFT_GROUP and sel == selector]


def test_metadata_describes_classes_types_and_elements(qm: Any) -> None:
    c = qm.client()
    try:
        meta = "$SYS/MQ/INFO/QMGR/RUAQM/Monitor/METADATA/"
        sub = subscribe(c, meta + "CLASSES")
        _cfh, params = publication(sub)                       # retained: there at once
        sub.close()
        classes = group_dicts(params, F.MQGACF_MONITOR_CLASS)
        assert [(g[F.MQIAMO_MONITOR_CLASS], g[F.MQCAMO_MONITOR_CLASS]) for g in classes] == [
            (0, "CPU"), (1, "DISK"), (2, "STATMQI"), (3, "STATQ"), (4, "STATAPP")]
        assert [g[F.MQIAMO_MONITOR_FLAGS] for g in classes] == [0, 0, 0] + [F.MQIAMO_MONITOR_FLAGS_OBJNAME] * 2
        assert classes[0][F.MQCAMO_MONITOR_DESC] == "Platform central processing units"
        assert classes[0][C.MQCA_TOPIC_STRING] == meta + "CPU/TYPES"
        sub = subscribe(c, meta + "CPU/TYPES")
        _cfh, params = publication(sub)
        sub.close()
        types = group_dicts(params, F.MQGACF_MONITOR_TYPE)
        assert [(g[F.MQIAMO_MONITOR_TYPE], g[F.MQCAMO_MONITOR_TYPE]) for g in types] == [(0, "SystemSummary"),
                                                                                      (1, "QMgrSummary")]
        sub = subscribe(c, types[1][C.MQCA_TOPIC_STRING])
        _cfh, params = publication(sub)
        sub.close()
        top = {p: v for t, p, v in params if t != F.MQCFT_GROUP}
        assert top[F.MQIAMO_MONITOR_CLASS] == 0 and top[F.MQIAMO_MONITOR_TYPE] == 1
        assert top[C.MQCA_TOPIC_STRING] == "$SYS/MQ/INFO/QMGR/RUAQM/Monitor/CPU/QMgrSummary"
        elements = group_dicts(params, F.MQGACF_MONITOR_ELEMENT)
        assert [(g[F.MQIAMO_MONITOR_ELEMENT], g[F.MQIAMO_MONITOR_DATATYPE], g[F.MQCAMO_MONITOR_DESC]) for g in elements] \
            == [(0, F.MQIAMO_MONITOR_PERCENT, "User CPU time - percentage estimate for queue manager"),
                (1, F.MQIAMO_MONITOR_PERCENT, "System CPU time - percentage estimate for queue manager"),
                (2, F.MQIAMO_MONITOR_MB, "RAM total bytes - estimate for queue manager")]
    finally:
        c.disconnect()


def test_data_is_published_each_interval_to_subscribers(qm: Any) -> None:
    c = qm.client()
    try:
        sub = subscribe(c, "$SYS/MQ/INFO/QMGR/RUAQM/Monitor/DISK/QMgrSummary")
        for _ in range(2):
            cfh, params = publication(sub)
            assert cfh[0] == F.MQCFT_STATISTICS
            values = {p: v for _t, p, v in params}
            assert values[F.MQIAMO_MONITOR_CLASS] == 1 and values[F.MQIAMO_MONITOR_TYPE] == 1
            assert 0 < values[F.MQIAMO64_MONITOR_INTERVAL] < 5_000_000          # microseconds: about 0.5 s
            assert values[0] > 0 and 0 <= values[1] <= 10000                 # MB in use; free, hundredths of %
        sub.close()
        sub = subscribe(c, "$SYS/MQ/INFO/QMGR/RUAQM/Monitor/CPU/QMgrSummary")
        _cfh, params = publication(sub)
        values = {p: v for _t, p, v in params}
        assert values[2] > 0 and values[0] >= 0                               # resident MB; user CPU
        sub.close()
    finally:
        c.disconnect()


def test_amqsrua_lists_and_prints_as_ibms_sample(qm: Any) -> None:
    env = {"MQSERVER": f"APP.SVRCONN/TCP/{qm.conname}"}
    r = run_mqlite("amqsrua", "-m", "RUAQM", env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.splitlines() == ["CPU : Platform central processing units", "DISK : Platform persistent data stores",
                                     "STATMQI : API usage statistics", "STATQ : API per-queue usage statistics",
                                     "STATAPP : Per-application statistics"]
    r = run_mqlite("amqsrua", "-m", "RUAQM", "-c", "CPU", env=env)
    assert "QMgrSummary : CPU performance - running queue manager" in r.stdout
    r = run_mqlite("amqsrua", "-m", "RUAQM", "-c", "CPU", "-t", "SystemSummary", "-n", "2", env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert sum(1 for line in lines if line.startswith("Publication received Interval:")) == 2
    assert any(line.startswith("User CPU time percentage ") and line.endswith("%") for line in lines)
    assert any(line.startswith("RAM total bytes ") and line.endswith("MB") for line in lines)


def test_the_admin_branch_is_the_queue_managers_own(qm: Any) -> None:
    """$SYS/MQ is isolated as MQ isolates it: a wildcard above it matches nothing inside it, and
    an application may not publish there (MQRC_ADMIN_TOPIC_STRING_ERROR)."""
    c = qm.client()
    try:
        everything = subscribe(c, "#")
        with pytest.raises(pymqi.MQMIError) as e:
            everything.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_WAIT, WaitInterval=1500))
        assert e.value.reason == C.MQRC_NO_MSG_AVAILABLE          # no retained metadata, no data
        everything.close()
        inside = subscribe(c, "$SYS/MQ/INFO/QMGR/RUAQM/Monitor/METADATA/#")
        publication(inside)                                        # a wildcard within the branch matches
        inside.close()
        topic = pymqi.Topic(c, topic_string="$SYS/MQ/INFO/QMGR/RUAQM/Monitor/CPU/QMgrSummary")
        with pytest.raises(pymqi.MQMIError) as e:
            topic.open(open_opts=C.MQOO_OUTPUT)
        assert e.value.reason == C.MQRC_ADMIN_TOPIC_STRING_ERROR
    finally:
        c.disconnect()


def test_statq_and_statmqi_count_what_the_application_did(qm: Any) -> None:
    """STATQ (per queue: %s in the metadata's topic, the queue's name in each publication) and
    STATMQI publish the interval's counts of what applications did, the queue's depth with them."""
    qm.mqsc("DEFINE QLOCAL(RUA.Q)\n", check=True)
    c = qm.client()
    try:
        sub = subscribe(c, "$SYS/MQ/INFO/QMGR/RUAQM/Monitor/METADATA/STATQ/PUT")
        _cfh, params = publication(sub)
        sub.close()
        assert {p: v for t, p, v in params if t != F.MQCFT_GROUP}[C.MQCA_TOPIC_STRING] \
            == "$SYS/MQ/INFO/QMGR/RUAQM/Monitor/STATQ/%s/PUT"
        puts = subscribe(c, "$SYS/MQ/INFO/QMGR/RUAQM/Monitor/STATQ/RUA.Q/PUT")
        gets = subscribe(c, "$SYS/MQ/INFO/QMGR/RUAQM/Monitor/STATQ/RUA.Q/GET")
        general = subscribe(c, "$SYS/MQ/INFO/QMGR/RUAQM/Monitor/STATQ/RUA.Q/GENERAL")
        mqi = subscribe(c, "$SYS/MQ/INFO/QMGR/RUAQM/Monitor/STATMQI/PUT")
        publication(puts)                                   # the queue is watched from here on
        publication(mqi)
        q = pymqi.Queue(c, "RUA.Q", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
        q.put(b"a" * 10, pymqi.MD(Persistence=C.MQPER_NOT_PERSISTENT))
        q.put(b"b" * 20, pymqi.MD(Persistence=C.MQPER_NOT_PERSISTENT))
        q.put(b"c" * 30, pymqi.MD(Persistence=C.MQPER_PERSISTENT))
        q.get()
        q.close()

        def summed(s: Any, until: int, key: int) -> dict[int, int]:
            total: dict[int, int] = {}
            for _ in range(20):
                _cfh, params = publication(s)
                for _t, p, v in params:
                    if isinstance(v, int) and p < 100:
                        total[p] = total.get(p, 0) + v
                    elif p == C.MQCA_Q_NAME:
                        assert v == "RUA.Q"
                if total.get(key, 0) >= until:
                    return total
            raise AssertionError(total)
        q_puts = summed(puts, 3, 0)
        assert q_puts[0] == 3 and q_puts[2] == 2 and q_puts[3] == 1 and q_puts[6] == 30 and q_puts[7] == 30
        last = summed(gets, 1, 0)
        assert last[0] == 1 and last[2] == 1 and last[4] == 10
        mqi_puts = summed(mqi, 3, 0)
        assert mqi_puts[0] >= 3 and mqi_puts[2] >= 2 and mqi_puts[3] >= 1
        depths = []
        while 2 not in depths and len(depths) < 20:     # (published before the puts: 0; then 3, then 2)
            depths.append({p: v for _t, p, v in publication(general)[1]}[3])
        assert depths[-1] == 2                          # Queue depth (STATQ GENERAL, as MQ 9.4 has it)
    finally:
        c.disconnect()


def test_statapp_counts_an_applications_instances(qm: Any) -> None:
    """STATAPP INSTANCE, per application name (MQCACF_APPL_NAME in each publication, a '/' in
    the name written '&' in the topic): the instances connected now, the movable ones (clients
    that asked for reconnection), and those started and ended in the interval; amqsrua -o prints
    them."""
    name = "rua/app"
    topic = "$SYS/MQ/INFO/QMGR/RUAQM/Monitor/STATAPP/rua&app/INSTANCE"

    def connect(appl: str, reconnect: bool = False) -> Any:
        cd = pymqi.CD(ChannelName=b"APP.SVRCONN", ConnectionName=qm.conname.encode())
        cno = pymqi.CNO(Version=C.MQCNO_VERSION_7, ApplName=appl.encode(),      # the name MQ takes first
                        Options=C.MQCNO_RECONNECT if reconnect else C.MQCNO_NONE)
        return pymqi.QueueManager(None).connect_with_options(qm.name, cd=cd, cno=cno)
    watcher = connect("rua.watcher")
    try:
        # The watcher's own publication: STATAPP has read the applications (a new one counts from nought).
        own = subscribe(watcher, "$SYS/MQ/INFO/QMGR/RUAQM/Monitor/STATAPP/rua.watcher/INSTANCE")
        assert {p: v for _t, p, v in publication(own)[1]}[0] == 1
        own.close()
        sub = subscribe(watcher, "$SYS/MQ/INFO/QMGR/RUAQM/Monitor/METADATA/STATAPP/INSTANCE")
        _cfh, params = publication(sub)
        sub.close()
        assert {p: v for t, p, v in params if t != F.MQCFT_GROUP}[C.MQCA_TOPIC_STRING] \
            == "$SYS/MQ/INFO/QMGR/RUAQM/Monitor/STATAPP/%s/INSTANCE"
        assert [(g[F.MQIAMO_MONITOR_ELEMENT], g[F.MQCAMO_MONITOR_DESC]) for g in
                group_dicts(params, F.MQGACF_MONITOR_ELEMENT)][:4] == [
            (0, "Instance count"), (1, "Movable instance count"), (2, "Instance shortfall count"),
            (3, "Instances started")]
        apps = subscribe(watcher, topic)

        held = [connect(name, True), connect(name), connect(name)]
        held.pop().disconnect()
        totals = {3: 0, 7: 0}
        for _ in range(20):
            _cfh, params = publication(apps)
            values = {p: v for _t, p, v in params}
            assert values[F.MQCACF_APPL_NAME] == name
            totals[3] += values[3]
            totals[7] += values[7]
            if totals[3] >= 3 and totals[7] >= 1:
                break
        assert totals == {3: 3, 7: 1}
        assert (values[0], values[1], values[2]) == (2, 1, 0)         # instances, movable, shortfall
        env = {"MQSERVER": f"APP.SVRCONN/TCP/{qm.conname}"}
        r = run_mqlite("amqsrua", "-m", "RUAQM", "-c", "STATAPP", "-t", "INSTANCE", "-o", name, env=env)
        assert r.returncode == 0, r.stdout + r.stderr
        assert any(line.startswith(f"{name:<48}Instance count 2") for line in r.stdout.splitlines()), r.stdout
        r = run_mqlite("amqsrua", "-m", "RUAQM", "-c", "STATAPP", "-t", "INSTANCE", env=env)
        assert r.returncode == 1 and "-o" in r.stdout
        for q in held:
            q.disconnect()
        apps.close()
    finally:
        watcher.disconnect()
