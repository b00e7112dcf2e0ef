"""IBM's amqsevt (issue 65 item 4): event messages formatted as text, the way MQ 9's amqsevta.c
prints them, which is what people paste into support tickets. It consumes the event queues (or
the queues and topics named) with MQCB and MQCTL, as the C sample does, and prints each message:
``**** Message #n (len Bytes) on Queue Q ****``, the event type and reason with their numbers,
``Event created`` from the MQMD, then every PCF parameter with MQ's constant names made readable
(``MQCA_Q_MGR_NAME`` -> ``Queue Mgr Name``; ``-d`` keeps them as defined) and integer values
decoded where the sample decodes them. Options: -m QMgr, -q Queue and -t Topic (several), -b
browse, -c client, -d unformatted, -w seconds (the consumers' wait: when it passes with nothing,
``Ending consumer.``), -r d|r|m (reconnect), -u user (a password is prompted for)."""
from __future__ import annotations

import os
import struct
import sys
import threading
from typing import Any, Callable

from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.cmq import CMQSTRC as S
from mqlite.cli.samples import _write

DEFAULT_QUEUES = ["SYSTEM.ADMIN.PERFM.EVENT", "SYSTEM.ADMIN.CHANNEL.EVENT", "SYSTEM.ADMIN.QMGR.EVENT",
                  "SYSTEM.ADMIN.LOGGER.EVENT", "SYSTEM.ADMIN.PUBSUB.EVENT", "SYSTEM.ADMIN.CONFIG.EVENT",
                  "SYSTEM.ADMIN.COMMAND.EVENT"]
MAX_DATA = 40
_ENDING = {C.MQRC_OBJECT_CHANGED, C.MQRC_CONNECTION_BROKEN, C.MQRC_Q_MGR_STOPPING, C.MQRC_Q_MGR_QUIESCING,
           C.MQRC_CONNECTION_QUIESCING, C.MQRC_CONNECTION_STOPPING, C.MQRC_NO_MSG_AVAILABLE}
_FORCE_UPPER = ["Amqp", "Clwl", "Cpi", "Crl", "Csp", "Dns", "Dn", "Idpw", "Igq", "Ip ", "Ipv", "Ldap", "Lu62",
                "Mca ", "Mqi", "Mqsc", "Mr ", "Mru", "Pcf", "Sctq", "Ssl", "Tcp"]
_GROUPS = {"MQIA": ("MQIA", "MQIACF", "MQIACH", "MQIAMO", "MQIAMO64"), "MQCA": ("MQCA", "MQCACF", "MQCACH", "MQCAMO"),
           "MQRC": ("MQRC", "MQRCCF")}
# The integer parameters whose values the sample decodes, and the constants' prefix it uses.
_VALUE_NAMES: dict[int, str] = {}
for _prefix, _params in {
        "MQMON": "ACCOUNTING_CONN_OVERRIDE ACCOUNTING_MQI ACCOUNTING_Q ACTIVITY_CONN_OVERRIDE ACTIVITY_TRACE "
                 "MONITORING_AUTO_CLUSSDR MONITORING_CHANNEL MONITORING_Q STATISTICS_AUTO_CLUSSDR STATISTICS_CHANNEL "
                 "STATISTICS_MQI STATISTICS_Q",
        "MQRECORDING": "ACTIVITY_RECORDING TRACE_ROUTE_RECORDING", "MQADPCTX": "ADOPT_CONTEXT",
        "MQADOPT_CHECK": "ADOPTNEWMCA_CHECK", "MQADOPT_TYPE": "ADOPTNEWMCA_TYPE", "MQAT": "APPL_TYPE",
        "MQAIT": "AUTH_INFO_TYPE", "MQAUTHENTICATE": "AUTHENTICATION_METHOD",
        "MQEVR": "AUTHORITY_EVENT BRIDGE_EVENT CHANNEL_AUTO_DEF_EVENT CHANNEL_EVENT COMMAND_EVENT COMM_EVENT "
                 "CONFIGURATION_EVENT INHIBIT_EVENT LOCAL_EVENT LOGGER_EVENT PERFORMANCE_EVENT Q_DEPTH_HIGH_EVENT "
                 "Q_DEPTH_LOW_EVENT Q_DEPTH_MAX_EVENT Q_SERVICE_INTERVAL_EVENT REMOTE_EVENT START_STOP_EVENT SSL_EVENT",
        "MQREORG": "AUTO_REORGANIZATION", "MQOT": "BASE_TYPE", "MQ_CERT": "CERT_VAL_POLICY",
        "MQCFCONLOS": "CF_CFCONLOS QMGR_CFCONLOS", "MQRECAUTO": "CF_RECAUTO", "MQCFR": "CF_RECOVER",
        "MQCHAD": "CHANNEL_AUTO_DEF", "MQCHK": "CHECK_CLIENT_BINDING CHECK_LOCAL_BINDING",
        "MQSVC_CONTROL": "CHINIT_CONTROL CMD_SERVER_CONTROL SERVICE_CONTROL", "MQTRAXSTR": "CHINIT_TRACE_AUTO_START",
        "MQCHLA": "CHLAUTH_RECORDS", "MQCLROUTE": "CLUSTER_PUB_ROUTE", "MQCLWL": "CLWL_USEQ", "MQCIT": "COMM_INFO_TYPE",
        "MQBND": "DEF_BIND", "MQCLXQ": "DEF_CLUSTER_XMIT_Q_TYPE", "MQOO": "DEF_INPUT_OPEN_OPTION",
        "MQPER": "DEF_PERSISTENCE TOPIC_DEF_PERSISTENCE", "MQPRT": "DEF_PUT_RESPONSE_TYPE", "MQREADA": "DEF_READ_AHEAD",
        "MQQDT": "DEFINITION_TYPE", "MQDL": "DIST_LISTS", "MQDNSWLM": "DNS_WLM", "MQSUB": "DURABLE_SUB",
        "MQMLP_ENCRYPTION": "ENCRYPTION_ALGORITHM", "MQGUR": "GROUP_UR", "MQQA_BACKOUT": "HARDEN_GET_BACKOUT",
        "MQIGQPA": "IGQ_PUT_AUTHORITY", "MQIT": "INDEX_TYPE", "MQQA_GET": "INHIBIT_GET", "MQTA_PUB": "INHIBIT_PUB",
        "MQQA_PUT": "INHIBIT_PUT", "MQTA_SUB": "INHIBIT_SUB", "MQIGQ": "INTRA_GROUP_QUEUING",
        "MQIPADDR": "IP_ADDRESS_VERSION", "MQLDAP_AUTHORMD": "LDAP_AUTHORMD", "MQLDAP_NESTGRP": "LDAP_NESTGRP",
        "MQSECCOMM": "LDAP_SECURE_COMM", "MQMCB": "MCAST_BRIDGE", "MQMDS": "MSG_DELIVERY_SEQUENCE",
        "MQMC": "MULTICAST", "MQNT": "NAMELIST_TYPE", "MQNPM": "NPM_CLASS", "MQPL": "PLATFORM",
        "MQDLV": "PM_DELIVERY NPM_DELIVERY", "MQPROP": "PROPERTY_CONTROL", "MQTA_PROXY": "PROXY_SUB",
        "MQSCOPE": "PUB_SCOPE SUB_SCOPE", "MQPSCLUS": "PUBSUB_CLUSTER", "MQPSM": "PUBSUB_MODE",
        "MQUNDELIVERED": "PUBSUB_NP_MSG PUBSUB_NP_RESP", "MQSYNCPOINT": "PUBSUB_SYNC_PT", "MQQT": "Q_TYPE",
        "MQQSGD": "QSG_DISP", "MQRCVTIME": "RECEIVE_TIMEOUT_TYPE", "MQRDNS": "REVERSE_DNS_LOOKUP", "MQSCO": "SCOPE",
        "MQSCYC": "SECURITY_CASE", "MQSVC_TYPE": "SERVICE_TYPE", "MQSQQM": "SHARED_Q_Q_MGR_NAME",
        "MQMLP_SIGN": "SIGNATURE_ALGORITHM", "MQSSL": "SSL_FIPS_REQUIRED", "MQSP": "SYNCPOINT",
        "MQTCPKEEP": "TCP_KEEP_ALIVE", "MQTCPSTACK": "TCP_STACK_TYPE", "MQMLP_TOLERATE": "TOLERATE_UNPROTECTED",
        "MQTOPT": "TOPIC_TYPE", "MQTC": "TRIGGER_CONTROL", "MQTT": "TRIGGER_TYPE", "MQUS": "USAGE",
        "MQUSEDLQ": "USE_DEAD_LETTER_Q", "MQTA": "WILDCARD_OPERATION"}.items():
    for _p in _params.split():
        _VALUE_NAMES[getattr(C, "MQIA_" + _p)] = _prefix
for _p, _prefix in (("MQIACF_EVENT_APPL_TYPE", "MQAT"), ("MQIACF_REFRESH_TYPE", "MQRT"), ("MQIACF_AUTH_REC_TYPE", "MQOT"),
                    ("MQIACH_CHANNEL_INSTANCE_TYPE", "MQOT"), ("MQIACF_OBJECT_TYPE", "MQOT"),
                    ("MQIACF_CF_SMDS_BLOCK_SIZE", "MQDSB"), ("MQIACF_CF_SMDS_EXPAND", "MQUSAGE_EXPAND"),
                    ("MQIACF_CHLAUTH_TYPE", "MQCAUT"), ("MQIACF_COMMAND", "MQCMD"), ("MQIACF_ENTITY_TYPE", "MQZAET"),
                    ("MQIACF_EVENT_ORIGIN", "MQEVO"), ("MQIACF_OPERATION_ID", "MQXF"), ("MQIACF_Q_STATUS_TYPE", "MQIA"),
                    ("MQIACF_REASON_QUALIFIER", "MQRQ"), ("MQIACF_SECURITY_TYPE", "MQSECTYPE"),
                    ("MQIACF_SECURITY_ITEM", "MQSECITEM"), ("MQIACH_LISTENER_CONTROL", "MQSVC_CONTROL"),
                    ("MQIACH_CHANNEL_DISP", "MQCHLD"), ("MQIACH_DEF_CHANNEL_DISP", "MQCHLD"),
                    ("MQIACH_CHANNEL_TABLE", "MQCHTAB"), ("MQIACH_CHANNEL_TYPE", "MQCHT"),
                    ("MQIACH_CONNECTION_AFFINITY", "MQCAFTY"), ("MQIACH_DATA_CONVERSION", "MQCDC"),
                    ("MQIACH_DEF_RECONNECT", "MQRCN"), ("MQIACH_MCA_TYPE", "MQMCAT"),
                    ("MQIACH_MULTICAST_PROPERTIES", "MQMCP"), ("MQIACH_NEW_SUBSCRIBER_HISTORY", "MQNSH"),
                    ("MQIACH_NPM_SPEED", "MQNPMS"), ("MQIACH_PUT_AUTHORITY", "MQPA"), ("MQIACH_SSL_CLIENT_AUTH", "MQSCA"),
                    ("MQIACH_USE_CLIENT_ID", "MQUCI"), ("MQIACH_USER_SOURCE", "MQUSRC"), ("MQIACH_WARNING", "MQWARN"),
                    ("MQIACH_XMIT_PROTOCOL_TYPE", "MQXPT")):
    _value = getattr(F, _p, None)
    if _value is None:
        _value = getattr(C, _p, None)
    if _value is not None:
        _VALUE_NAMES[_value] = _prefix
_HEX = {getattr(F, n) for n in ("MQIACF_CONNECT_OPTIONS", "MQIACF_GET_OPTIONS", "MQIACF_MQCB_OPTIONS",
                                "MQIACF_PUT_OPTIONS", "MQIACF_SUBRQ_OPTIONS", "MQIACF_ENCODING", "MQIACF_ERROR_ID")}
_OPEN = [(C.MQOO_ALTERNATE_USER_AUTHORITY, "altusr"), (C.MQOO_BIND_ON_OPEN, "bind_open"),
         (C.MQOO_BIND_NOT_FIXED, "bind_not_fix"), (C.MQOO_BIND_AS_Q_DEF, "bind_as_q"), (C.MQOO_BROWSE, "brw"),
         (C.MQOO_CO_OP, "coop"), (C.MQOO_FAIL_IF_QUIESCING, "fiq"), (C.MQOO_INPUT_AS_Q_DEF, "in_as_q"),
         (C.MQOO_INPUT_SHARED, "in_shared"), (C.MQOO_INPUT_EXCLUSIVE, "in_excl"), (C.MQOO_INQUIRE, "inq"),
         (C.MQOO_NO_READ_AHEAD, "nora"), (C.MQOO_OUTPUT, "out"), (C.MQOO_PASS_ALL_CONTEXT, "passall"),
         (C.MQOO_PASS_IDENTITY_CONTEXT, "passid"), (C.MQOO_READ_AHEAD, "ra"), (C.MQOO_READ_AHEAD_AS_Q_DEF, "ra_as_q"),
         (C.MQOO_RESOLVE_LOCAL_Q, "rslv_q"), (C.MQOO_RESOLVE_NAMES, "rslv_names"),
         (C.MQOO_SAVE_ALL_CONTEXT, "save_ctx"), (C.MQOO_SET, "set"), (C.MQOO_SET_ALL_CONTEXT, "setall"),
         (C.MQOO_SET_IDENTITY_CONTEXT, "setid")]
_CLOSE = [(C.MQCO_DELETE, "del"), (C.MQCO_DELETE_PURGE, "del_purge"), (C.MQCO_KEEP_SUB, "keep_sub"),
          (C.MQCO_REMOVE_SUB, "remove_sub"), (C.MQCO_QUIESCE, "quiesce")]
_SUB = [(C.MQSO_ALTERNATE_USER_AUTHORITY, "altusr"), (C.MQSO_ALTER, "alter"), (C.MQSO_CREATE, "create"),
        (C.MQSO_RESUME, "resume"), (C.MQSO_DURABLE, "dur"), (C.MQSO_GROUP_SUB, "group_sub"),
        (C.MQSO_MANAGED, "managed"), (C.MQSO_SET_IDENTITY_CONTEXT, "setid"), (C.MQSO_NO_MULTICAST, "mcast"),
        (C.MQSO_FIXED_USERID, "fixed_id"), (C.MQSO_ANY_USERID, "any_id"), (C.MQSO_PUBLICATIONS_ON_REQUEST, "on_req"),
        (C.MQSO_NEW_PUBLICATIONS_ONLY, "new_only"), (C.MQSO_FAIL_IF_QUIESCING, "fiq"), (C.MQSO_WILDCARD_CHAR, "wc_char"),
        (C.MQSO_WILDCARD_TOPIC, "wc_topic"), (C.MQSO_SET_CORREL_ID, "set_cid"), (C.MQSO_SCOPE_QMGR, "sc_qmgr"),
        (C.MQSO_NO_READ_AHEAD, "nora"), (C.MQSO_READ_AHEAD, "ra")]


class Formatter:
    """The sample's lookup, formatConstant and formatEvent (``unformatted``: its -d)."""

    def __init__(self, unformatted: bool = False) -> None:
        self.unformatted = unformatted
        self.lines: list[str] = []

    def lookup(self, value: int, prefix: str) -> str | None:
        """The constant's name (``MQRC_NOT_AUTHORIZED``; a lone Q made QUEUE), or None (the text
        is then ``Unknown [n]``, as ``self.unknown``)."""
        for p in _GROUPS.get(prefix, (prefix,)):
            name = getattr(S, f"{p}_DICT", {}).get(value)
            if name:
                break
        else:
            self.unknown = f"Unknown [{value}]"
            return None
        if not self.unformatted:
            if "_Q_" in name:
                head, _, tail = name.partition("_Q_")
                return f"{head}_QUEUE_{tail}"
            if name.endswith("_Q"):
                return name[:-2] + "_QUEUE"
        return str(name)

    def name(self, value: int, prefix: str) -> str:
        found = self.lookup(value, prefix)
        return found if found is not None else self.unknown

    def constant(self, s: str, mixed: bool = True) -> str:
        if self.unformatted or "_" not in s:
            return s
        if s == "MQOT_Q":
            return "Queue"
        out, swap, first = [], False, True
        for ch in s:
            if ch.isspace():
                out.append(ch)
                continue
            if ch.isupper() and swap and mixed:
                ch = ch.lower()
            if ch == "_":
                swap = False
                if first:
                    first = False
                else:
                    ch = " "
            else:
                swap = True
            out.append(ch)
        t = "".join(out)
        for m in _FORCE_UPPER:
            t = t.replace(m, m.upper())
        t = t.replace("Zos", "zOS", 1).replace(" Os", " OS", 1).replace("_Os", "_OS", 1)
        at = t.find("_")
        return t if at < 0 or at == len(t) - 1 else t[at + 1:]

    def line(self, offset: int, attr: str, val: str | None) -> None:
        col1 = 32 + (6 if self.unformatted else 0)
        if val is None:
            self.lines.append(" " * offset + attr)
            return
        pad = max(0, col1 - offset - len(attr))
        self.lines.append(" " * offset + attr + " " * pad + " : " + val.rstrip(" "))

    def integer(self, param: int, value: int) -> str:
        prefix = _VALUE_NAMES.get(param)
        if prefix is not None:
            if prefix == "MQMON" and value == 253:
                value = -3
            return self.constant(self.name(value, prefix))
        if param == C.MQIA_CODED_CHAR_SET_ID and value <= 0:
            return self.constant(self.name(value, "MQCCSI"))
        if param == C.MQIA_MAX_PROPERTIES_LENGTH and value < 0:
            return self.constant(self.name(value, "MQPROP"))
        if param == C.MQIA_DEF_PRIORITY and value < 0:
            return self.constant(self.name(value, "MQPRI"))
        if param == C.MQIA_SHAREABILITY:
            return self.constant("MQQA_SHAREABLE" if value else "MQQA_NOT_SHAREABLE")
        if param == F.MQIACF_COMP_CODE:
            return f"{self.constant(self.name(value, 'MQCC'))} [{value}]"
        if param == F.MQIACF_REASON_CODE:
            return f"{self.constant(self.name(value, 'MQRC'))} [{value}]"
        if param in _HEX:
            return f"0x{value & 0xFFFFFFFF:08X} "
        for which, table, none in ((F.MQIACF_OPEN_OPTIONS, _OPEN, "[ None ]"), (F.MQIACF_CLOSE_OPTIONS, _CLOSE, "[ None ] "),
                                   (F.MQIACF_SUB_OPTIONS, _SUB, "[ None ] ")):
            if param == which:
                flags = "[ " + "".join(f"{w} " for bit, w in table if value & bit) + "]" if value else none
                return f"0x{value & 0xFFFFFFFF:08X} {flags}"
        if param in (F.MQIACH_KEEP_ALIVE_INTERVAL, getattr(F, "MQIACH_AMQP_KEEP_ALIVE", -1)) and value < 0:
            return self.constant("MQKAI_AUTO")
        return str(value)

    def event(self, md: Any, data: bytes) -> bool:
        """formatEvent: the lines for one message; True when it is not an event to format."""
        fmt = md.Format
        if fmt not in (C.MQFMT_EVENT, C.MQFMT_ADMIN):
            self.lines.append("Message is not a recognised event format.")
            return True
        if len(data) < 36:
            self.lines.append("Header is the wrong length, 0")
            return True
        ctype, struc_len, version, command, _seq, control, _cc, reason, count = struct.unpack_from("<9i", data)
        if ctype > F.MQCFT_APP_ACTIVITY:
            self.lines.append(f"Message is not in event message range. It is of type {ctype}")
            return True
        if struc_len != F.MQCFH_STRUC_LENGTH:
            self.lines.append(f"Header is the wrong length, {struc_len}")
            return True
        if not 1 <= version <= F.MQCFH_CURRENT_VERSION:
            self.lines.append(f"Header is the wrong version, {version}")
            return True
        self.line(0, "Event Type", f"{self.constant(self.name(command, 'MQCMD'))} [{command}]")
        self.line(0, "Reason", f"{self.constant(self.name(reason, 'MQRC'))} [{reason}]")
        if reason == C.MQRC_CONFIG_CHANGE_OBJECT:
            self.line(0, "Object state", "After Change" if control == F.MQCFC_LAST else "Before Change")
        d, t = md.PutDate.decode(errors="replace"), md.PutTime.decode(errors="replace")
        self.line(0, "Event created", f"{d[0:4]}/{d[4:6]}/{d[6:8]} {t[0:2]}:{t[2:4]}:{t[4:6]}.{t[6:8]} GMT")
        if command in (F.MQCMD_CONFIG_EVENT, F.MQCMD_COMMAND_EVENT):
            self.line(0, "Correlation ID", md.CorrelId.hex().upper())
        self._parameters(data, 36, count)
        return False

    def _parameters(self, data: bytes, off: int, total: int) -> None:
        offset, in_group, group_left, counter = 2, False, 0, 1
        while counter <= total and off + 12 <= len(data):
            if group_left == 0 and in_group:
                offset = max(0, offset - 2)
                in_group = False
            if in_group:
                group_left -= 1
            ptype, length, param = struct.unpack_from("<3i", data, off)
            if ptype == F.MQCFT_GROUP:
                group_left = struct.unpack_from("<i", data, off + 12)[0]
                total += group_left
                in_group = True
                self.line(offset, self.constant(self.name(param, "MQGACF"), False), None)
                offset += 2
            elif ptype in (F.MQCFT_INTEGER, F.MQCFT_INTEGER64):
                value = struct.unpack_from("<q" if ptype == F.MQCFT_INTEGER64 else "<i", data,
                                           off + (16 if ptype == F.MQCFT_INTEGER64 else 12))[0]
                text = str(value) if ptype == F.MQCFT_INTEGER64 else self.integer(param, value)
                self.line(offset, self.constant(self.name(param, "MQIA")), text)
            elif ptype in (F.MQCFT_INTEGER_LIST, F.MQCFT_INTEGER64_LIST):
                n = struct.unpack_from("<i", data, off + 12)[0]
                wide = ptype == F.MQCFT_INTEGER64_LIST
                values = struct.unpack_from(f"<{n}{'q' if wide else 'i'}", data, off + 16)
                attr = self.name(param, "MQIA")
                for i, v in enumerate(values):
                    text = str(v) if wide else self._list_value(param, v)
                    if not wide and in_group and "_ATTRS" in attr and n == 1 and values[0] == F.MQIACF_ALL:
                        text = "All attributes"
                    self.line(offset, self.constant(attr) if i == 0 else "", text)
            elif ptype == F.MQCFT_STRING:
                n = struct.unpack_from("<i", data, off + 16)[0]
                self.line(offset, self.constant(self.name(param, "MQCA")), _text(data[off + 20:off + 20 + n]))
            elif ptype == F.MQCFT_STRING_LIST:
                _ccsid, n, size = struct.unpack_from("<3i", data, off + 12)
                for i in range(n):
                    start = off + 24 + i * size
                    self.line(offset, self.constant(self.name(param, "MQCA")) if i == 0 else "",
                              _text(data[start:start + size]))
            elif ptype == F.MQCFT_BYTE_STRING:
                n = struct.unpack_from("<i", data, off + 12)[0]
                if param == F.MQBACF_MESSAGE_DATA:
                    n = min(n, MAX_DATA)
                self.line(offset, self.constant(self.name(param, "MQBACF")), data[off + 16:off + 16 + n].hex().upper())
            elif ptype in (F.MQCFT_INTEGER_FILTER, F.MQCFT_STRING_FILTER, F.MQCFT_BYTE_STRING_FILTER):
                self.line(offset, "Filter", self._filter(ptype, param, data, off))
            else:
                self.lines.append(f"  Unexpected parameter type, {ptype}")
                break
            off += length
            counter += 1

    def _list_value(self, param: int, v: int) -> str:
        if param in (F.MQIACH_HDR_COMPRESSION, F.MQIACH_MSG_COMPRESSION):
            return self.constant(self.name(v, "MQCOMPRESS"))
        if param in (F.MQIACF_AUTH_ADD_AUTHS, F.MQIACF_AUTH_REMOVE_AUTHS, F.MQIACF_AUTHORIZATION_LIST):
            return self.constant(self.name(v, "MQAUTH"))
        if param in _ATTR_LISTS:
            found = self.lookup(v, "MQIA") or self.lookup(v, "MQCA") or self.lookup(v, "MQBACF")
            return self.constant(found if found is not None else self.unknown)
        return str(v)

    def _filter(self, ptype: int, param: int, data: bytes, off: int) -> str:
        if ptype == F.MQCFT_INTEGER_FILTER:
            op, value = struct.unpack_from("<2i", data, off + 12)
            return f"WHERE '{self.constant(self.name(param, 'MQIA'))}' {self.constant(self.name(op, 'MQCFOP'))} '{value}'"
        if ptype == F.MQCFT_STRING_FILTER:
            op, _ccsid, n = struct.unpack_from("<3i", data, off + 12)
            value = data[off + 24:off + 24 + n].decode(errors="replace")
            return f"WHERE '{self.constant(self.name(param, 'MQCA'))}' {self.constant(self.name(op, 'MQCFOP'))} '{value}'"
        op, n = struct.unpack_from("<2i", data, off + 12)
        return (f"WHERE '{self.constant(self.name(param, 'MQBACF'))}' {self.constant(self.name(op, 'MQCFOP'))} "
                f"'{data[off + 20:off + 20 + n].hex().upper()}'")


_ATTR_LISTS = {getattr(F, n, None) or getattr(C, n, None) for n in (
    "MQIACF_AMQP_ATTRS", "MQIACF_AUTH_INFO_ATTRS", "MQIACF_AUTH_PROFILE_ATTRS", "MQIACF_AUTH_SERVICE_ATTRS",
    "MQIACF_CF_STRUC_ATTRS", "MQIACF_CHANNEL_ATTRS", "MQIACF_CHLAUTH_ATTRS", "MQIACF_CLUSTER_Q_MGR_ATTRS",
    "MQIACF_COMM_INFO_ATTRS", "MQIACF_CONNECTION_ATTRS", "MQIACF_INT_ATTRS", "MQIACF_LISTENER_ATTRS",
    "MQIACF_LISTENER_STATUS_ATTRS", "MQIACF_NAMELIST_ATTRS", "MQIACF_PROCESS_ATTRS", "MQIACF_PUBSUB_STATUS_ATTRS",
    "MQIACF_Q_ATTRS", "MQIACF_Q_MGR_ATTRS", "MQIACF_Q_MGR_STATUS_ATTRS", "MQIACF_Q_STATUS_ATTRS",
    "MQIACF_SECURITY_ATTRS", "MQIACF_SERVICE_ATTRS", "MQIACF_SERVICE_STATUS_ATTRS", "MQIACF_SMDS_ATTRS",
    "MQIACF_STORAGE_CLASS_ATTRS", "MQIACF_SUB_ATTRS", "MQIACF_SUB_STATUS_ATTRS", "MQIACF_TOPIC_ATTRS",
    "MQIACF_TOPIC_STATUS_ATTRS", "MQIACF_XR_ATTRS", "MQIACH_CHANNEL_INSTANCE_ATTRS", "MQIACH_CHANNEL_SUMMARY_ATTRS")} - {None}


def _text(raw: bytes) -> str:
    return raw.decode(errors="replace").split("\0", 1)[0]


def _usage() -> None:
    for text in ("Usage: amqsevt [-m Qmgr] [-r d|r|m] [-b] [-c] [-d] ", "         [-u User ID] [-w wait] {-t Topic} {-q Queue}",
                 "  -m <Queue Manager Name>", "  -t <Topic> Can have multiple entries",
                 "  -q <Queue> Can have multiple entries", "  -b Browse messages", "  -c Connect as client",
                 "  -d Print definitions without formatting", "  -r <Reconnect Type>", "     d Reconnect Disabled",
                 "     r Reconnect", "     m Reconnect Queue Manager", "  -u User ID", "  -w <Wait time in seconds>", "",
                 "Example:", "  amqsevt -m QM1 -q SYSTEM.ADMIN.QMGR.EVENT -q SYSTEM.ADMIN.PERM.EVENT -w 1"):
        _write(text)


def _options(argv: list[str]) -> dict[str, Any] | None:
    """The sample's getopt("bcdm:q:r:t:u:w:"); None for a usage error."""
    opts: dict[str, Any] = {"objects": [], "browse": False, "client": False, "unformatted": False, "qmgr": "",
                            "wait": C.MQWI_UNLIMITED, "reconnect": 0, "user": None}
    i = 0
    while i < len(argv):
        arg = argv[i]
        if len(arg) < 2 or arg[0] not in "-/" or arg == "--":
            return opts if arg == "--" and i == len(argv) - 1 else None
        flag = arg[1]
        if flag in "bcd" and len(arg) == 2:
            opts[{"b": "browse", "c": "client", "d": "unformatted"}[flag]] = True
            i += 1
            continue
        if flag not in "mqrtuw":
            return None
        value = arg[2:] or (argv[i + 1] if i + 1 < len(argv) else None)
        if value is None:
            return None
        i += 1 if arg[2:] else 2
        if flag in "qt":
            opts["objects"].append((value, C.MQOT_TOPIC if flag == "t" else C.MQOT_Q))
            if len(opts["objects"]) == 10:
                _write("Maximum of 10 objects is supported")
                return None
        elif flag == "m":
            opts["qmgr"] = value[:48]
        elif flag == "r":
            if value not in ("d", "r", "m"):
                return None
            opts["reconnect"] = {"d": C.MQCNO_RECONNECT_DISABLED, "r": C.MQCNO_RECONNECT,
                                 "m": C.MQCNO_RECONNECT_Q_MGR}[value]
        elif flag == "u":
            opts["user"] = value
        else:
            try:
                opts["wait"] = int(value) * 1000
            except ValueError:
                opts["wait"] = 0
    return opts


def amqsevt(argv: list[str], client: bool = False) -> int:
    from mqlite import pymqi
    _write("Sample AMQSEVT start\n")
    opts = _options(argv)
    if opts is None:
        _usage()
        _write("\nSample AMQSEVT end")
        return 999 % 256
    fmt = Formatter(opts["unformatted"])
    lock = threading.Lock()
    ending = threading.Event()
    number = [1]
    names: dict[int, tuple[str, str]] = {}

    def consumer(**kw: Any) -> None:
        cbc = kw["cbc"]
        with lock:
            if cbc.CallType in (C.MQCBCT_MSG_REMOVED, C.MQCBCT_MSG_NOT_REMOVED):
                data = kw["msg"] or b""
                kind, name = names.get(cbc.Hobj, ("Queue", "Unknown"))
                suffix = f" Reason = {cbc.Reason}" if cbc.Reason else ""
                _write(f"\n**** Message #{number[0]} ({len(data)} Bytes) on {kind} {name}{suffix} ****")
                number[0] += 1
                fmt.lines = []
                bad = fmt.event(kw["md"], data)
                for ln in fmt.lines:
                    _write(ln)
                if bad:
                    _write(f"  Message format {kw['md'].Format.decode(errors='replace')}:")
                    _write("".join(chr(b) if 32 <= b < 127 else "." for b in data[:MAX_DATA]))
                    if len(data) > MAX_DATA:
                        _write(f"......plus {len(data) - MAX_DATA} bytes.")
            elif cbc.CallType == C.MQCBCT_EVENT_CALL:
                _write(f"\n**** Event Call Reason = {fmt.name(cbc.Reason, 'MQRC')} [{cbc.Reason}] ****")
                if cbc.Reason in _ENDING:
                    _write("Ending consumer.")
                    ending.set()
            else:
                _write(f"\n**** Unexpected CallType = {cbc.CallType}\n ****")

    cno = pymqi.CNO(Options=opts["reconnect"])
    user = opts["user"]
    password = None
    if user:
        sys.stdout.write(f"Enter password for {user}: ")
        sys.stdout.flush()
        password = sys.stdin.readline().rstrip("\n")
    qm = pymqi.QueueManager(None)
    if not (client or opts["client"]):
        for v in ("MQSERVER", "MQCCDTURL", "MQCHLLIB", "MQCHLTAB"):
            os.environ.pop(v, None)
    try:
        qm.connect_with_options(opts["qmgr"], cno=cno, user=user, password=password)
    except pymqi.MQMIError as e:
        _write(f"MQCONNX ended with reason code {fmt.name(e.reason, 'MQRC')} [{e.reason}]")
        return int(e.reason) % 256
    reason = 0
    objects = opts["objects"] or [(q, C.MQOT_Q) for q in DEFAULT_QUEUES]
    if not opts["objects"]:
        _write("Using default set of event queues.")
    opened: list[Any] = []
    try:
        for name, kind in reversed(objects):
            reason = _register(pymqi, qm, name, kind, opts, not opts["objects"], consumer, names, opened, fmt)
            if reason < 0:
                break
        else:
            _write("\nPress ENTER to end")
            qm.ctl(C.MQOP_START, pymqi.CTLO())
            _wait(ending)
            qm.ctl(C.MQOP_STOP, pymqi.CTLO())
            reason = 0
    except pymqi.MQMIError as e:
        _write(f"MQCTL ended with reason code {fmt.name(e.reason, 'MQRC')} [{e.reason}]")
        _write("Exiting ...")
        reason = e.reason
    finally:
        for obj in reversed(opened):
            try:
                obj.close()
            except pymqi.MQMIError as e:
                _write(f"MQCLOSE (object handle) ended with reason code {fmt.name(e.reason, 'MQRC')} [{e.reason}]")
        try:
            qm.disconnect()
        except pymqi.MQMIError as e:
            _write(f"MQDISC ended with reason code {fmt.name(e.reason, 'MQRC')} [{e.reason}]")
    _write("\nSample AMQSEVT end")
    return max(reason, 0) % 256


def _register(pymqi: Any, qm: Any, name: str, kind: int, opts: dict[str, Any], defaults: bool,
              consumer: Callable[..., None], names: dict[int, tuple[str, str]], opened: list[Any], fmt: Formatter) -> int:
    """Open (or subscribe to) one object and register the consumer: 0, or -1 to exit (said)."""
    try:
        if kind == C.MQOT_TOPIC:
            sub = pymqi.Subscription(qm)
            sd = pymqi.SD(Options=C.MQSO_CREATE | C.MQSO_NON_DURABLE | C.MQSO_FAIL_IF_QUIESCING | C.MQSO_MANAGED)
            sd.set_vs("ObjectString", name.encode())
            sub.sub(sd)
            opened.append(sub)
            q = sub.get_sub_queue()
        else:
            q = pymqi.Queue(qm, name, C.MQOO_INPUT_AS_Q_DEF | C.MQOO_FAIL_IF_QUIESCING
                            | (C.MQOO_BROWSE if opts["browse"] else 0))
            opened.append(q)
    except pymqi.MQMIError as e:
        what = "MQSUB of" if kind == C.MQOT_TOPIC else "MQOPEN of"
        if defaults and e.reason == C.MQRC_UNKNOWN_OBJECT_NAME:
            _write(f"MQOPEN of '{name[:48]}' failure ignored.")
            return 0
        _write(f"{what} '{name[:48]}' ended with reason code {fmt.name(e.reason, 'MQRC')} [{e.reason}]")
        _write("Exiting ...")
        return -1
    gmo = pymqi.GMO(Options=C.MQGMO_NO_SYNCPOINT | C.MQGMO_CONVERT | (C.MQGMO_BROWSE_NEXT if opts["browse"] else 0),
                    WaitInterval=opts["wait"])
    if opts["wait"] != C.MQWI_UNLIMITED:
        gmo.Options |= C.MQGMO_WAIT
    q.cb(operation=C.MQOP_REGISTER, cbd=pymqi.CBD(CallbackFunction=consumer), md=pymqi.MD(), gmo=gmo)
    names[q.get_handle()] = ("Topic" if kind == C.MQOT_TOPIC else "Queue", name)
    return 0


def _wait(ending: threading.Event) -> None:
    """WaitForEnd: ENTER on a terminal, or the consumer saying the program ends (looked at
    every tenth of a second; the C sample, its input not a terminal, every five)."""
    if sys.stdin.isatty():
        import select
        while not ending.is_set():
            ready, _, _ = select.select([sys.stdin], [], [], 0.1)
            if ready and sys.stdin.readline() is not None:
                return
        return
    while not ending.wait(0.1):
        pass


def amqsevt_main() -> None:
    sys.exit(amqsevt(sys.argv[1:]))
