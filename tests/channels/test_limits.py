"""qm.ini's CHANNELS stanza (issue 16): MaxChannels and MaxActiveChannels bound the channel
instances a queue manager runs, client conversations and message channels alike, with MQ's answers
(2537 to a client, AMQ9513E in the error log, a sender waiting in STARTING for an active slot)."""
from __future__ import annotations

import threading

import pytest

from mqlite import pymqi
from mqlite.channels.limits import (
    DEFAULT_MAX_CHANNELS,
    MAX_ACTIVE_CHANNELS,
    MAX_CHANNELS,
    ChannelLimits,
    channel_limits,
    instances,
    refusal,
)
from mqlite.pymqi import CMQC, CMQCFC
from mqlite.testing import Harness
from tests.channels.test_channels import depth, get_all, log_of, pair, restart_with, wait_for


def test_the_stanza_is_read_as_mq_reads_it() -> None:
    said: list[str] = []
    log = lambda msgid, text, *_: said.append(f"{msgid}: {text}")
    assert channel_limits({}, log) == ChannelLimits(DEFAULT_MAX_CHANNELS, DEFAULT_MAX_CHANNELS)
    assert channel_limits({"CHANNELS": {"MAXCHANNELS": "7"}}, log) == ChannelLimits(7, 7)
    assert channel_limits({"Channels": {"MaxChannels": "7", "MaxActiveChannels": "3"}}, log) == ChannelLimits(7, 3)
    assert said == []
    assert channel_limits({"CHANNELS": {"MaxChannels": "0", "MaxActiveChannels": "lots"}}, log) == ChannelLimits(100, 100)
    assert said == ["MQL8001W: qm.ini CHANNELS MaxChannels=0 is not valid.",
                    "MQL8001W: qm.ini CHANNELS MaxActiveChannels=lots is not valid."]


def test_current_and_active_instances() -> None:
    # Inactive channels are not current; stopped, retrying and starting ones are current, not active.
    assert instances(["INACTIVE", "RUNNING", "STOPPED", "RETRYING", "STARTING", "BINDING"], clients=2) == (7, 4)
    limits = ChannelLimits(max_channels=5, max_active=3)
    assert refusal(limits, current=4, active=2) is None
    assert refusal(limits, current=5, active=2) == MAX_CHANNELS
    assert refusal(limits, current=4, active=3) == MAX_ACTIVE_CHANNELS


@pytest.fixture
def harness(tmp_path):
    h = Harness(str(tmp_path / "data"))
    yield h
    h.close()


def test_max_channels_refuses_the_next_client_with_2537(harness: Harness) -> None:
    qm = harness.add("LIMQM", "DEFINE QLOCAL(Q1)\n")
    restart_with(qm, "CHANNELS:\n   MaxChannels=3\n")
    clients = [qm.client() for _ in range(3)]
    with pytest.raises(pymqi.MQMIError) as e:
        qm.client()
    assert (e.value.comp, e.value.reason) == (CMQC.MQCC_FAILED, CMQC.MQRC_CHANNEL_NOT_AVAILABLE)
    assert "AMQ9513E: Maximum number of channels reached." in log_of(qm)
    # Local bindings are not channels: the queue manager still serves them, and the clients it has.
    local = qm.bindings()
    pymqi.Queue(local, "Q1").put(b"still served")
    assert pymqi.Queue(clients[0], "Q1").get() == b"still served"
    local.disconnect()
    clients.pop().disconnect()
    clients.append(qm.client())                      # an instance ended: room for one more
    for c in clients:
        c.disconnect()


def test_a_receiver_over_max_channels_is_refused_and_the_sender_retries(harness: Harness) -> None:
    qm1, qm2 = pair(harness)
    restart_with(qm2, "CHANNELS:\n   MaxChannels=1\n")
    held = qm2.client()                              # QM2's one channel instance
    c = qm1.client()
    pymqi.Queue(c, "REMOTE.Q").put(b"waits for a slot")
    assert wait_for(lambda: "AMQ9513E: Maximum number of channels reached." in log_of(qm2))
    assert wait_for(lambda: "RETRYING" in qm1.mqsc("DISPLAY CHSTATUS(QM1.TO.QM2)").stdout)
    assert depth(qm1, "QM2") == 1                    # nothing lost while refused
    held.disconnect()
    assert wait_for(lambda: depth(qm2, "TARGET.Q") == 1)      # (a client would be over the limit now)
    assert depth(qm1, "QM2") == 0
    c.disconnect()


def test_a_sender_waits_in_starting_for_an_active_slot(harness: Harness) -> None:
    """Over MaxActiveChannels a sender waits in STARTING: Channel Not Activated, then Channel
    Activated when it takes the slot (CHLEV(EXCEPTION) reports both), each with the channel, its
    transmission queue and its CONNAME."""
    from tests.helpers import admin_messages
    qm1, qm2 = pair(harness)
    restart_with(qm1, "CHANNELS:\n   MaxChannels=3\n   MaxActiveChannels=1\n")
    qm1.mqsc("ALTER QMGR CHLEV(EXCEPTION)\n", check=True)
    c = qm1.client()                                 # QM1's one active slot
    pymqi.Queue(c, "REMOTE.Q").put(b"after the client")
    assert wait_for(lambda: "STATUS(STARTING)" in qm1.mqsc("DISPLAY CHSTATUS(QM1.TO.QM2) STATUS").stdout)
    assert depth(qm1, "QM2") == 1
    c.disconnect()                                   # the slot frees: the sender takes it
    assert get_all(qm2, "TARGET.Q", 1) == [b"after the client"]
    events = admin_messages(qm1, "SYSTEM.ADMIN.CHANNEL.EVENT")
    assert [(cfh[3], cfh[7]) for cfh, _p in events] == [
        (CMQCFC.MQCMD_CHANNEL_EVENT, CMQC.MQRC_CHANNEL_NOT_ACTIVATED), (CMQCFC.MQCMD_CHANNEL_EVENT,
                                                                        CMQC.MQRC_CHANNEL_ACTIVATED)]
    conname = qm1.mqsc("DISPLAY CHANNEL(QM1.TO.QM2) CONNAME").stdout.split("CONNAME(")[1].split(")")[0] + ")"
    for _cfh, params in events:
        assert [(p, v) for _t, p, v in params] == [
            (CMQC.MQCA_Q_MGR_NAME, "QM1"), (CMQCFC.MQCACH_CHANNEL_NAME, "QM1.TO.QM2"),
            (CMQCFC.MQCACH_XMIT_Q_NAME, "QM2"), (CMQCFC.MQCACH_CONNECTION_NAME, conname)]


def test_start_channel_over_max_channels_says_amq9513e(harness: Harness) -> None:
    qm1, _qm2 = pair(harness)
    restart_with(qm1, "CHANNELS:\n   MaxChannels=1\n")
    c = qm1.client()
    out = qm1.mqsc("START CHANNEL(QM1.TO.QM2)").stdout
    assert "AMQ9513E: Maximum number of channels reached." in out
    assert "QM1.TO.QM2" not in qm1.mqsc("DISPLAY CHSTATUS(*)").stdout
    c.disconnect()
    assert "AMQ9513E" not in qm1.mqsc("START CHANNEL(QM1.TO.QM2)").stdout


def test_clients_arriving_together_never_take_more_than_max_channels(harness: Harness) -> None:
    qm = harness.add("RACEQM")
    restart_with(qm, "CHANNELS:\n   MaxChannels=3\n")
    got, refused, start = [], [], threading.Barrier(12)

    def connect() -> None:
        start.wait()
        try:
            got.append(qm.client())
        except pymqi.MQMIError as e:
            refused.append(e.reason)

    threads = [threading.Thread(target=connect) for _ in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert len(got) == 3 and refused == [CMQC.MQRC_CHANNEL_NOT_AVAILABLE] * 9
    for c in got:
        c.disconnect()
