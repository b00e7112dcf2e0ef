"""The PCF command table: every command the command server answers, declared once — its handler
(a function over the ``Admin`` context and the decoded request) and the authority it needs on what
(MQ's tables on distributed platforms). ``needs`` reads the table for the dispatcher, which checks
authority in one place before any handler runs; a command not in the table is
MQRCCF_CFH_COMMAND_ERROR, and one the table gives no authority for needs an administrator.

Inquiries need ``dsp`` on the object named (on the queue manager for a generic name, since each
object found would need it); CREATE and COPY ``crt`` on the queue manager (MQ keeps it on the
object type's @class profile); CHANGE ``chg``; DELETE ``dlt``; CLEAR ``clr``; START/STOP/PING
CHANNEL ``ctrl`` on the channel; queue-manager-wide commands (CHANGE QMGR, security, cluster
commands) ``chg`` or ``ctrl`` on the queue manager. Members of mqm need nothing."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mqlite.admin import channels, cluster, connections, control, escape, objects, pubsub, qmgr, queues, security
from mqlite.admin.authority import QMGR, Need, mqsc_needs, object_need
from mqlite.admin.context import Admin
from mqlite.admin.params import s
from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.cmq import CMQZC as Z
from mqlite.cmq import pcf

Handler = Callable[[Admin, pcf.Message], list[list[bytes]]]
DSP, CRT, CHG, DLT, CLR, CTRL = (Z.MQZAO_DISPLAY, Z.MQZAO_CREATE, Z.MQZAO_CHANGE, Z.MQZAO_DELETE, Z.MQZAO_CLEAR,
                                 Z.MQZAO_CONTROL)


@dataclass(frozen=True)
class Command:
    """One PCF command: its handler, and the authority ``auth`` it needs on the queue manager, or
    (``on`` an object type) on the object its parameter ``name`` names."""
    handler: Handler
    auth: int
    on: str = QMGR
    name: int = 0


def _definitions(k: objects.Kind, **commands: int) -> dict[int, Command]:
    """A kind of object's Create, Copy, Change, Delete, Inquire and Inquire Names, with the
    authority each needs: crt on the queue manager to create or copy, chg/dlt/dsp on the object."""
    auth = {"CREATE": CRT, "COPY": CRT, "CHANGE": CHG, "DELETE": DLT, "INQUIRE": DSP, "INQUIRE_NAMES": DSP}
    return {command: Command(handler, auth[verb]) if verb in ("CREATE", "COPY")
            else Command(handler, auth[verb], k.ns, k.name)
            for verb, command in commands.items()
            for handler in [objects.family(k, {verb: command})[command]]}


def _with_cluster_queues(command: Command) -> Command:
    """Inquire Queue, whose QType MQQT_CLUSTER asks for the cluster's queues instead."""
    def handler(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
        if msg.first(C.MQIA_Q_TYPE) == C.MQQT_CLUSTER:
            return cluster.inquire_cluster_queues(a, msg)
        return command.handler(a, msg)
    return Command(handler, command.auth, command.on, command.name)


def _queue(handler: Handler, auth: int) -> Command:
    return Command(handler, auth, "QUEUE", C.MQCA_Q_NAME)


def _channel(handler: Handler, auth: int) -> Command:
    return Command(handler, auth, "CHANNEL", F.MQCACH_CHANNEL_NAME)


def _topic(handler: Handler, auth: int) -> Command:
    return Command(handler, auth, "TOPIC", C.MQCA_TOPIC_NAME)


COMMANDS: dict[int, Command] = {
    # definitions, every kind of object alike (admin/objects.py)
    **_definitions(objects.QUEUE, CREATE=F.MQCMD_CREATE_Q, COPY=F.MQCMD_COPY_Q, CHANGE=F.MQCMD_CHANGE_Q,
                   DELETE=F.MQCMD_DELETE_Q, INQUIRE_NAMES=F.MQCMD_INQUIRE_Q_NAMES),
    F.MQCMD_INQUIRE_Q: _with_cluster_queues(_definitions(objects.QUEUE, INQUIRE=F.MQCMD_INQUIRE_Q)[F.MQCMD_INQUIRE_Q]),
    **_definitions(objects.CHANNEL, CREATE=F.MQCMD_CREATE_CHANNEL, COPY=F.MQCMD_COPY_CHANNEL,
                   CHANGE=F.MQCMD_CHANGE_CHANNEL, DELETE=F.MQCMD_DELETE_CHANNEL, INQUIRE=F.MQCMD_INQUIRE_CHANNEL,
                   INQUIRE_NAMES=F.MQCMD_INQUIRE_CHANNEL_NAMES),
    **_definitions(objects.NAMELIST, CREATE=F.MQCMD_CREATE_NAMELIST, COPY=F.MQCMD_COPY_NAMELIST,
                   CHANGE=F.MQCMD_CHANGE_NAMELIST, DELETE=F.MQCMD_DELETE_NAMELIST,
                   INQUIRE=F.MQCMD_INQUIRE_NAMELIST, INQUIRE_NAMES=F.MQCMD_INQUIRE_NAMELIST_NAMES),
    **_definitions(objects.LISTENER, CREATE=F.MQCMD_CREATE_LISTENER, COPY=F.MQCMD_COPY_LISTENER,
                   CHANGE=F.MQCMD_CHANGE_LISTENER, DELETE=F.MQCMD_DELETE_LISTENER,
                   INQUIRE=F.MQCMD_INQUIRE_LISTENER),
    **_definitions(objects.AUTHINFO, CREATE=F.MQCMD_CREATE_AUTH_INFO, COPY=F.MQCMD_COPY_AUTH_INFO,
                   CHANGE=F.MQCMD_CHANGE_AUTH_INFO, DELETE=F.MQCMD_DELETE_AUTH_INFO,
                   INQUIRE=F.MQCMD_INQUIRE_AUTH_INFO, INQUIRE_NAMES=F.MQCMD_INQUIRE_AUTH_INFO_NAMES),
    **_definitions(objects.PROCESS, CREATE=F.MQCMD_CREATE_PROCESS, COPY=F.MQCMD_COPY_PROCESS,
                   CHANGE=F.MQCMD_CHANGE_PROCESS, DELETE=F.MQCMD_DELETE_PROCESS, INQUIRE=F.MQCMD_INQUIRE_PROCESS,
                   INQUIRE_NAMES=F.MQCMD_INQUIRE_PROCESS_NAMES),
    **_definitions(objects.SERVICE, CREATE=F.MQCMD_CREATE_SERVICE, COPY=F.MQCMD_COPY_SERVICE,
                   CHANGE=F.MQCMD_CHANGE_SERVICE, DELETE=F.MQCMD_DELETE_SERVICE, INQUIRE=F.MQCMD_INQUIRE_SERVICE),
    **_definitions(objects.COMMINFO, CREATE=F.MQCMD_CREATE_COMM_INFO, COPY=F.MQCMD_COPY_COMM_INFO,
                   CHANGE=F.MQCMD_CHANGE_COMM_INFO, DELETE=F.MQCMD_DELETE_COMM_INFO,
                   INQUIRE=F.MQCMD_INQUIRE_COMM_INFO),
    **_definitions(objects.TOPIC, DELETE=F.MQCMD_DELETE_TOPIC, INQUIRE=F.MQCMD_INQUIRE_TOPIC,
                   INQUIRE_NAMES=F.MQCMD_INQUIRE_TOPIC_NAMES),
    # queues
    F.MQCMD_INQUIRE_Q_STATUS: _queue(queues.inquire_q_status, DSP),
    F.MQCMD_CLEAR_Q: _queue(queues.clear_q, CLR),
    F.MQCMD_RESET_Q_STATS: _queue(queues.reset_q_stats, DSP | CHG),
    # the queue manager
    F.MQCMD_INQUIRE_Q_MGR: Command(qmgr.inquire_q_mgr, DSP),
    F.MQCMD_CHANGE_Q_MGR: Command(qmgr.change_q_mgr, CHG),
    F.MQCMD_PING_Q_MGR: Command(qmgr.ping_q_mgr, DSP),
    # status and operator commands (admin/control.py)
    F.MQCMD_INQUIRE_Q_MGR_STATUS: Command(control.inquire_q_mgr_status, DSP),
    F.MQCMD_INQUIRE_LISTENER_STATUS: Command(control.inquire_listener_status, DSP, "LISTENER",
                                             F.MQCACH_LISTENER_NAME),
    F.MQCMD_START_CHANNEL_LISTENER: Command(control.start_channel_listener, CTRL, "LISTENER", F.MQCACH_LISTENER_NAME),
    F.MQCMD_STOP_CHANNEL_LISTENER: Command(control.stop_channel_listener, CTRL, "LISTENER", F.MQCACH_LISTENER_NAME),
    F.MQCMD_START_SERVICE: Command(control.start_service, CTRL, "SERVICE", C.MQCA_SERVICE_NAME),
    F.MQCMD_STOP_SERVICE: Command(control.stop_service, CTRL, "SERVICE", C.MQCA_SERVICE_NAME),
    F.MQCMD_INQUIRE_SERVICE_STATUS: Command(control.inquire_service_status, DSP, "SERVICE", C.MQCA_SERVICE_NAME),
    F.MQCMD_RESET_CHANNEL: _channel(control.reset_channel, CTRL),
    F.MQCMD_RESOLVE_CHANNEL: _channel(control.resolve_channel, CTRL),
    F.MQCMD_REFRESH_SECURITY: Command(control.refresh_security, CHG),
    F.MQCMD_REFRESH_Q_MGR: Command(control.refresh_q_mgr, CHG),
    F.MQCMD_RESET_Q_MGR: Command(control.reset_q_mgr, CHG),
    F.MQCMD_INQUIRE_SUB_STATUS: Command(control.inquire_sub_status, DSP),
    F.MQCMD_INQUIRE_TOPIC_STATUS: Command(control.inquire_topic_status, DSP),
    # who is connected
    F.MQCMD_INQUIRE_CONNECTION: Command(connections.inquire_connection, DSP),
    F.MQCMD_INQUIRE_APPL_STATUS: Command(connections.inquire_appl_status, DSP),
    F.MQCMD_STOP_CONNECTION: Command(connections.stop_connection, CTRL),
    # channels
    F.MQCMD_INQUIRE_CHANNEL_STATUS: _channel(channels.inquire_chstatus, DSP),
    F.MQCMD_START_CHANNEL: _channel(channels.start_channel, CTRL),
    F.MQCMD_STOP_CHANNEL: _channel(channels.stop_channel, CTRL),
    F.MQCMD_PING_CHANNEL: _channel(channels.ping_channel, CTRL),
    # clusters
    F.MQCMD_INQUIRE_CLUSTER_Q_MGR: Command(cluster.inquire_cluster_q_mgr, DSP),
    F.MQCMD_REFRESH_CLUSTER: Command(cluster.refresh_cluster, CTRL),
    F.MQCMD_RESET_CLUSTER: Command(cluster.reset_cluster, CTRL),
    F.MQCMD_SUSPEND_Q_MGR_CLUSTER: Command(cluster.suspend_q_mgr_cluster, CTRL),
    F.MQCMD_RESUME_Q_MGR_CLUSTER: Command(cluster.resume_q_mgr_cluster, CTRL),
    # security
    F.MQCMD_SET_AUTH_REC: Command(security.set_auth_rec, CHG),
    F.MQCMD_DELETE_AUTH_REC: Command(security.delete_auth_rec, CHG),
    F.MQCMD_INQUIRE_AUTH_RECS: Command(security.inquire_auth_recs, DSP),
    F.MQCMD_INQUIRE_ENTITY_AUTH: Command(security.inquire_entity_auth, DSP),
    F.MQCMD_SET_CHLAUTH_REC: Command(security.set_chlauth_rec, CHG),
    F.MQCMD_INQUIRE_CHLAUTH_RECS: Command(security.inquire_chlauth_recs, DSP),
    # publish/subscribe
    F.MQCMD_CREATE_TOPIC: Command(pubsub.create_topic, CRT),
    F.MQCMD_COPY_TOPIC: Command(pubsub.copy_topic, CRT),
    F.MQCMD_CHANGE_TOPIC: _topic(pubsub.change_topic, CHG),
    F.MQCMD_CREATE_SUBSCRIPTION: Command(pubsub.create_subscription, CHG),
    F.MQCMD_CHANGE_SUBSCRIPTION: Command(pubsub.change_subscription, CHG),
    F.MQCMD_DELETE_SUBSCRIPTION: Command(pubsub.delete_subscription, CHG),
    F.MQCMD_INQUIRE_SUBSCRIPTION: Command(pubsub.inquire_subscription, DSP),
    F.MQCMD_INQUIRE_PUBSUB_STATUS: Command(pubsub.inquire_pubsub_status, DSP),
    F.MQCMD_CLEAR_TOPIC_STRING: Command(pubsub.clear_topic_string, Z.MQZAO_ALL_ADMIN),  # as CLEAR TOPICSTR in Escape
    # MQSC in Escape PCF: what the MQSC command needs (mqsc_needs)
    F.MQCMD_ESCAPE: Command(escape.escape, 0),
}


def needs(command: int, msg: pcf.Message, qmgr: str) -> list[Need]:
    """What ``command`` (``msg``) needs, by its declaration."""
    if command == F.MQCMD_ESCAPE:
        return mqsc_needs(s(msg.first(F.MQCACF_ESCAPE_TEXT, "")), qmgr)
    cmd = COMMANDS.get(command)
    if cmd is None:
        return [(QMGR, qmgr, Z.MQZAO_ALL_ADMIN)]
    if cmd.on == QMGR:
        return [(QMGR, qmgr, cmd.auth)]
    return [object_need(cmd.on, s(msg.first(cmd.name, "")).strip(), cmd.auth, qmgr)]
