"""A pymqi-compatible API: ``from mqlite import pymqi`` and application code runs unchanged.

It speaks mqlite's wire protocol instead of calling IBM's C client, so there is nothing to
install beyond this package.  Names, defaults, structures and errors follow pymqi 1.12; the
ibmmq conveniences that do not conflict (str accepted in structure fields, ``inquire`` of a
list of selectors) are accepted too.

This module is the face: errors in ``errors``, the connection in ``qmgr``, the queue handle in
``queue``, PCF in ``pcf``.
"""
from __future__ import annotations

import sys

from mqlite.cmq import CMQC, CMQCFC, CMQXC, CMQZC, headers, structs, subs
from mqlite.cmq.structs import MQStruct
from mqlite.props.structs import CMHO, DMHO, DMPO, IMPO, PD, SMPO
from mqlite.pymqi.errors import Error, MQMIError, PYIFError
from mqlite.pymqi.msghandle import MessageHandle
from mqlite.pymqi.pcf import (
    CFBF,
    CFBS,
    CFGR,
    CFH,
    CFIF,
    CFIL,
    CFIL64,
    CFIN,
    CFIN64,
    CFSF,
    CFSL,
    CFST,
    ByteString,
    Filter,
    PCFExecute,
)
from mqlite.pymqi.pubsub import Subscription, Topic
from mqlite.pymqi.qmgr import QueueManager, connect, ensure_bytes
from mqlite.pymqi.queue import MQ_MAX_MSG, Queue, StreamMark
from mqlite.pymqi.rfh2 import RFH2

# The constant modules are importable as mqlite.pymqi.CMQC etc. and are real source files.
for _m, _n in ((CMQC, "CMQC"), (CMQCFC, "CMQCFC"), (CMQXC, "CMQXC"), (CMQZC, "CMQZC")):
    sys.modules[f"{__name__}.{_n}"] = _m

__version__ = "1.12.11"
__mqlevels__ = ("5.0", "5.1", "5.2", "5.3", "6.0", "7.0", "7.1", "7.5", "8.0.0", "9.0.0", "9.1.0", "9.2.0",
                "9.3.0", "9.4.0")
__mqbuild__ = "client"

MQOpts = MQStruct
SD, SRO = subs.SD, subs.SRO
sd, sro = SD, SRO
MD, OD, PMO, GMO, CD, SCO, CNO, CSP, XQH, DLH, STS = (
    structs.MD, structs.OD, structs.PMO, structs.GMO, structs.CD, structs.SCO, structs.CNO, structs.CSP,
    headers.XQH, headers.DLH, structs.STS)
CBD, CBC, CTLO = structs.CBD, structs.CBC, structs.CTLO       # MQCB/MQCTL (ibmmq's; pymqi has none)
md, od, pmo, gmo, cd, sco, cno, csp = MD, OD, PMO, GMO, CD, SCO, CNO, CSP
cmho, dmho, smpo, impo, dmpo, pd = CMHO, DMHO, SMPO, IMPO, DMPO, PD

__all__ = ["CMQC", "CMQCFC", "CMQXC", "CMQZC", "MQMIError", "PYIFError", "Error", "QueueManager", "Queue", "connect",
           "MD", "OD", "PMO", "GMO", "CD", "SCO", "CNO", "CSP", "XQH", "DLH", "STS", "MQOpts", "ensure_bytes",
           "PCFExecute", "CFH", "Filter", "ByteString", "CFIN", "CFIN64", "CFIL", "CFIL64", "CFST", "CFSL", "CFBS", "CFGR", "CFBF",
           "CFIF", "CFSF", "StreamMark", "MQ_MAX_MSG", "MessageHandle", "RFH2", "CMHO", "DMHO", "DMPO", "IMPO",
           "PD", "SMPO", "SD", "SRO", "Topic", "Subscription", "CBD", "CBC", "CTLO"]
