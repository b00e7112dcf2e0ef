"""What the queue manager says about itself as it runs: the log-full messages, and the statistics
interval: every STATINT seconds (checked each second, so an
ALTER QMGR STATINT takes effect at once) the MQI, queue and channel statistics are written
(engine/mqistats.py, engine/statistics.py); RESET QMGR TYPE(STATISTICS) ends the interval at once, and so does the
queue manager's end. The same tick writes the intermediate accounting records of connections
accounted for ACCTINT seconds (engine/accounting.py)."""
from __future__ import annotations

import threading
from typing import Any

from mqlite.catalogue import entry
from mqlite.channels.status import BatchFigures
from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.cmq.errors import MQIError
from mqlite.engine.statistics import (
    channel_group,
    channel_statistics_on,
    put_statistics,
    statistics_message,
    write_queue_statistics,
)
from mqlite.objects.attrs import CHLTYPE_VALUES
from mqlite.server.ports import MonitorHost

TICK = 1.0


class StatisticsInterval:
    def __init__(self, server: MonitorHost) -> None:
        self.server = server
        self.started = server.qm.clock.now()
        self.agent: Any = None
        self.channel_seen: dict[str, tuple[int, int]] = {}    # each channel's (msgs, bytes) at the last interval

    def start(self) -> None:
        self.write()                        # the agent connects now, before any quiesce refuses it
        with self.server.lock:
            self.server.qm.accounting.start()   # and so does the accounting writer's
        threading.Thread(target=self._run, name="statistics", daemon=True).start()

    def _run(self) -> None:
        srv = self.server
        while not srv.stopping.wait(TICK):
            if srv.qm.clock.now() - self.started >= srv.qm.qmgr["STATINT"]:
                self.write()
            with srv.lock:
                srv.qm.accounting.due(srv.qm.clock.now())   # intermediate accounting records (ACCTINT)

    def write(self) -> int:
        """End the interval now: the statistics of the queues used in it. The caller may hold
        the queue manager's lock (it is re-entrant) or not."""
        srv = self.server
        with srv.lock:
            qm = srv.qm
            if self.agent is None:
                try:
                    self.agent = qm.agent()
                except MQIError:
                    return 0                # quiescing before it ever wrote: nothing was counted
            now = qm.clock.now()
            n = self._mqi(now)
            n += write_queue_statistics(qm, self.agent, self.started, now)
            n += self._channels(now)
            self.started = now
            return n

    def _mqi(self, now: float) -> int:
        """MQI statistics (STATMQI ON): the interval's MQI calls, its puts and gets summed from the
        queues' figures (read here, before they start again)."""
        qm = self.server.qm
        n = 0
        if qm.qmgr["STATMQI"] == C.MQMON_ON:
            queues = [qs.stats for qs in qm.queues.values() if qs.stats is not None]
            body = qm.mqi.message(qm.name, qm.qmgr["CMDLEVEL"], self.started, now, queues)
            n = int(put_statistics(qm, self.agent, body))
        qm.mqi.reset(len(qm.conns))
        return n

    def _channels(self, now: float) -> int:
        """Channel statistics (STATCHL): a group for each message channel that moved messages in
        the interval, from its status's counts since the last interval."""
        srv, qm = self.server, self.server.qm
        qmgr_level = qm.qmgr["STATCHL"]
        groups = []
        for name, st in sorted(srv.channels.status.items()):
            seen = self.channel_seen.get(name, (0, 0))
            self.channel_seen[name] = (st.msgs, st.bytes)
            batches, st.figures = st.figures, BatchFigures()   # the batches of this interval
            if st.msgs < seen[0]:
                seen = (0, 0)                   # a new instance of the channel counts from nought
            if st.msgs == seen[0] or st.chltype not in CHLTYPE_VALUES:
                continue
            chl = qm.lookup("CHANNEL", name)
            if not channel_statistics_on(qmgr_level, chl["STATCHL"] if chl is not None else C.MQMON_Q_MGR):
                continue
            groups.append(channel_group(name, CHLTYPE_VALUES[st.chltype], st.rqmname, st.conname,
                                        st.msgs - seen[0], st.bytes - seen[1], batches))
        if not groups:
            return 0
        body = statistics_message(F.MQCMD_STATISTICS_CHANNEL, qm.name, qm.qmgr["CMDLEVEL"], self.started, now,
                                  groups)
        return len(groups) if put_statistics(qm, self.agent, body) else 0


def store_state(log: Any, name: str, state: str, why: str) -> None:
    """The store stopped or resumed accepting persistent work (a full disk): MQ's log-full
    messages in the error log."""
    if state == "ok":
        log.write(*entry("AMQ7464I", name=name),
                  "Persistent messages are accepted again.")
    elif state == "full":
        log.write(*entry("AMQ7463W", name=name),
                  f"{why}. Persistent puts are refused with MQRC_RESOURCE_PROBLEM (2102) until "
                  "space is freed on the queue manager's file system.")
    else:
        log.write(*entry("AMQ7463W", name=name),
                  f"A write to the queue manager's store failed: {why}. It is retried until it "
                  "succeeds; the applications waiting on it have not been answered, and new "
                  "persistent work is refused with MQRC_RESOURCE_PROBLEM (2102).")
