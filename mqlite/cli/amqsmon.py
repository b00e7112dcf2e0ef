"""amqsmon: MQ's sample that prints the statistics (and accounting) messages a queue manager
writes, one ``Name: value`` line per parameter as IBM's sample prints them, a group's parameters
indented under it.

    mqlite amqsmon -m QMGR [-t statistics|accounting] [-b] [-w SECONDS]

``-b`` browses (the messages stay), ``-w`` waits that many seconds for more before ending (by
default it ends when the queue is empty)."""
from __future__ import annotations

import argparse
from typing import Any

from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.cmq import pcf

QUEUES = {"statistics": "SYSTEM.ADMIN.STATISTICS.QUEUE", "accounting": "SYSTEM.ADMIN.ACCOUNTING.QUEUE"}
MONITORING_TYPE = {F.MQCMD_STATISTICS_Q: "QueueStatistics", F.MQCMD_STATISTICS_MQI: "MQIStatistics",
                   F.MQCMD_STATISTICS_CHANNEL: "ChannelStatistics", F.MQCMD_ACCOUNTING_Q: "QueueAccounting",
                   F.MQCMD_ACCOUNTING_MQI: "MQIAccounting"}
# The sample's name for each parameter it prints (the labels of IBM's amqsmon, which are not
# always the names its documentation gives the parameters).
NAMES = {
    C.MQCA_Q_MGR_NAME: "QueueManager", F.MQCAMO_START_DATE: "IntervalStartDate",
    F.MQCAMO_START_TIME: "IntervalStartTime", F.MQCAMO_END_DATE: "IntervalEndDate",
    F.MQCAMO_END_TIME: "IntervalEndTime", C.MQIA_COMMAND_LEVEL: "CommandLevel",
    F.MQIAMO_OBJECT_COUNT: "ObjectCount", F.MQGACF_Q_STATISTICS_DATA: "QueueStatistics",
    C.MQCA_Q_NAME: "QueueName", C.MQCA_CREATION_DATE: "CreateDate", C.MQCA_CREATION_TIME: "CreateTime",
    C.MQIA_Q_TYPE: "QueueType", C.MQIA_DEFINITION_TYPE: "QueueDefinitionType",
    F.MQIAMO_Q_MIN_DEPTH: "QMinDepth", F.MQIAMO_Q_MAX_DEPTH: "QMaxDepth", F.MQIAMO64_AVG_Q_TIME: "AverageQueueTime",
    F.MQIAMO_PUTS: "PutCount", F.MQIAMO_PUTS_FAILED: "PutFailCount", F.MQIAMO_PUT1S: "Put1Count",
    F.MQIAMO_PUT1S_FAILED: "Put1FailCount", F.MQIAMO64_PUT_BYTES: "PutBytes", F.MQIAMO_GETS: "GetCount",
    F.MQIAMO64_GET_BYTES: "GetBytes", F.MQIAMO_GETS_FAILED: "GetFailCount", F.MQIAMO_BROWSES: "BrowseCount",
    F.MQIAMO64_BROWSE_BYTES: "BrowseBytes", F.MQIAMO_BROWSES_FAILED: "BrowseFailCount",
    F.MQIAMO_MSGS_NOT_QUEUED: "NonQueuedMsgCount", F.MQIAMO_MSGS_EXPIRED: "ExpiredMsgCount",
    F.MQIAMO_MSGS_PURGED: "PurgeCount",
    # MQI statistics
    F.MQIAMO_CONNS: "ConnCount", F.MQIAMO_CONNS_FAILED: "ConnFailCount", F.MQIAMO_CONNS_MAX: "ConnHighwater",
    F.MQIAMO_DISCS: "DiscCount", F.MQIAMO_OPENS: "OpenCount", F.MQIAMO_OPENS_FAILED: "OpenFailCount",
    F.MQIAMO_CLOSES: "CloseCount", F.MQIAMO_CLOSES_FAILED: "CloseFailCount", F.MQIAMO_INQS: "InqCount",
    F.MQIAMO_INQS_FAILED: "InqFailCount", F.MQIAMO_SETS: "SetCount", F.MQIAMO_SETS_FAILED: "SetFailCount",
    F.MQIAMO_COMMITS: "CommitCount", F.MQIAMO_COMMITS_FAILED: "CommitFailCount", F.MQIAMO_BACKOUTS: "BackCount",
    F.MQIAMO_SUBS_DUR: "DurableSubscribeCount", F.MQIAMO_SUBS_NDUR: "NonDurableSubscribeCount", F.MQIAMO_SUBS_FAILED: "SubscribeFailCount",
    F.MQIAMO_SUBRQS: "SubRqCount", F.MQIAMO_SUBRQS_FAILED: "SubRqFailCount", F.MQIAMO_STATS: "StatCount",
    F.MQIAMO_STATS_FAILED: "StatFailCount",
    # channel statistics
    F.MQGACF_CHL_STATISTICS_DATA: "ChannelStatistics", F.MQCACH_CHANNEL_NAME: "ChannelName",
    F.MQIACH_CHANNEL_TYPE: "ChannelType", C.MQCA_REMOTE_Q_MGR_NAME: "RemoteQMgr", F.MQIAMO_MSGS: "MsgCount",
    F.MQIAMO64_BYTES: "TotalBytes", F.MQIAMO_PUT_RETRIES: "PutRetryCount", F.MQIAMO_FULL_BATCHES: "FullBatchCount",
    F.MQIAMO_INCOMPLETE_BATCHES: "IncmplBatchCount", F.MQIAMO_AVG_BATCH_SIZE: "AverageBatchSize",
    F.MQIAMO_NET_TIME_MIN: "NetMinTime", F.MQIAMO_NET_TIME_AVG: "NetMinAverage", F.MQIAMO_NET_TIME_MAX: "NetMaxTime",
    # accounting
    F.MQBACF_CONNECTION_ID: "ConnectionId", F.MQIACF_SEQUENCE_NUMBER: "SeqNumber",
    F.MQCACF_APPL_NAME: "ApplicationName", F.MQIACF_PROCESS_ID: "ApplicationPid",
    F.MQIACF_THREAD_ID: "ApplicationTid", F.MQCACF_USER_IDENTIFIER: "UserId", F.MQCAMO_CONN_DATE: "ConnDate",
    F.MQCAMO_CONN_TIME: "ConnTime", F.MQCACH_CONNECTION_NAME: "ConnName", F.MQCAMO_DISC_DATE: "DiscDate",
    F.MQCAMO_DISC_TIME: "DiscTime", F.MQIAMO_DISC_TYPE: "DiscType", F.MQIAMO_PUT_MIN_BYTES: "PutMinBytes",
    F.MQIAMO_PUT_MAX_BYTES: "PutMaxBytes", F.MQIAMO_GET_MIN_BYTES: "GetMinBytes",
    F.MQIAMO_GET_MAX_BYTES: "GetMaxBytes", F.MQIAMO_BROWSE_MIN_BYTES: "BrowseMinBytes",
    F.MQIAMO_BROWSE_MAX_BYTES: "BrowseMaxBytes", F.MQGACF_Q_ACCOUNTING_DATA: "QueueAccounting",
    F.MQCAMO_OPEN_DATE: "OpenDate", F.MQCAMO_OPEN_TIME: "OpenTime", F.MQCAMO_CLOSE_DATE: "CloseDate",
    F.MQCAMO_CLOSE_TIME: "CloseTime", F.MQIAMO64_Q_TIME_MIN: "TimeOnQMin", F.MQIAMO64_Q_TIME_AVG: "TimeOnQAvg",
    F.MQIAMO64_Q_TIME_MAX: "TimeOnQMax",
}
WORDS = {C.MQIA_Q_TYPE: {C.MQQT_LOCAL: "Local", C.MQQT_MODEL: "Model", C.MQQT_ALIAS: "Alias",
                         C.MQQT_REMOTE: "Remote", C.MQQT_CLUSTER: "Cluster"},
         C.MQIA_DEFINITION_TYPE: {C.MQQDT_PREDEFINED: "Predefined", C.MQQDT_PERMANENT_DYNAMIC: "PermanentDynamic",
                                  C.MQQDT_TEMPORARY_DYNAMIC: "TemporaryDynamic",
                                  C.MQQDT_SHARED_DYNAMIC: "SharedDynamic"},
         F.MQIAMO_DISC_TYPE: {F.MQDISCONNECT_NORMAL: "Normal", F.MQDISCONNECT_IMPLICIT: "Implicit",
                              F.MQDISCONNECT_Q_MGR: "QMgr"},
         F.MQIACH_CHANNEL_TYPE: {C.MQCHT_SENDER: "Sender", C.MQCHT_SERVER: "Server", C.MQCHT_RECEIVER: "Receiver",
                                 C.MQCHT_REQUESTER: "Requester", C.MQCHT_SVRCONN: "SvrConn", C.MQCHT_CLUSSDR: "ClusSdr",
                                 C.MQCHT_CLUSRCVR: "ClusRcvr"}}


def render(data: bytes) -> list[str]:
    """One statistics or accounting message as the sample prints it."""
    msg = pcf.decode(data, any_type=True)
    lines = [f"MonitoringType: {MONITORING_TYPE.get(msg.header.command, str(msg.header.command))}"]

    def value(sel: int, v: Any) -> str:
        if sel == F.MQBACF_CONNECTION_ID:
            return f"x'{bytes(v).hex()}'"
        if isinstance(v, (bytes, bytearray)):
            return "'" + bytes(v).decode(errors="replace").strip(" \0") + "'"
        if isinstance(v, list):
            return "[" + ", ".join(str(x) for x in v) + "]"
        return WORDS.get(sel, {}).get(v, str(v))

    def params(items: list[tuple[int, int, Any]], indent: str, counters: dict[int, int]) -> None:
        for ptype, sel, v in items:
            name = NAMES.get(sel, str(sel))
            if ptype == F.MQCFT_GROUP:
                n = counters.get(sel, 0)
                counters[sel] = n + 1
                lines.append(f"{indent}{name}: {n}")
                params(v, indent + "  ", {})
            else:
                lines.append(f"{indent}{name}: {value(sel, v)}")
    params(msg.params, "", {})
    return lines


def amqsmon(args: argparse.Namespace) -> int:
    from mqlite import pymqi
    queue = QUEUES[args.t]
    qmgr = pymqi.QueueManager(None)
    qmgr.connect(args.m or "")
    q = pymqi.Queue(qmgr, queue, C.MQOO_INPUT_SHARED | C.MQOO_BROWSE | C.MQOO_FAIL_IF_QUIESCING)
    wait = int(args.w * 1000) if args.w else 0
    first = True
    try:
        while True:
            opts = C.MQGMO_NO_SYNCPOINT | C.MQGMO_FAIL_IF_QUIESCING | (C.MQGMO_WAIT if wait else 0)
            if args.b:
                opts |= C.MQGMO_BROWSE_FIRST if first else C.MQGMO_BROWSE_NEXT
            try:
                body = q.get(None, pymqi.MD(), pymqi.GMO(Options=opts, WaitInterval=wait))
            except pymqi.MQMIError as e:
                if e.reason == C.MQRC_NO_MSG_AVAILABLE:
                    return 0
                raise
            first = False
            for line in render(bytes(body)):
                print(line)
            print(flush=True)
    finally:
        q.close()
        qmgr.disconnect()
