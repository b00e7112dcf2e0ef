"""Every attribute MQ 9.4 on Linux documents for each object type is accepted by DEFINE, kept and
shown by DISPLAY ... ALL (docs/mqsc.md lists those mqlite keeps without acting on). The keyword
lists are MQ's syntax diagrams for DEFINE QLOCAL/QMODEL/QALIAS/QREMOTE, ALTER QMGR, DEFINE CHANNEL
(each type), TOPIC, NAMELIST, LISTENER, PROCESS, SERVICE and AUTHINFO, z/OS-only keywords left out."""
from __future__ import annotations

import re

import pytest

from mqlite.objects.layout import DISPLAY_ORDER
from tests.conftest import Engine

QUEUE_COMMON = "CUSTOM DEFPRESP DEFPRTY DEFPSIST DESCR PUT SCOPE CAPEXPRY"
LOCAL_MODEL = ("ACCTQ BOQNAME BOTHRESH DEFREADA DEFSOPT DISTL GET NOHARDENBO IMGRCOVQ INITQ MAXDEPTH MAXFSIZE "
               "MAXMSGL MONQ MSGDLVSQ NPMCLASS PROCESS PROPCTL QDEPTHHI QDEPTHLO QDPHIEV QDPLOEV QDPMAXEV QSVCIEV "
               "QSVCINT RETINTVL SHARE STATQ STREAMQ STRMQOS TRIGDATA TRIGDPTH NOTRIGGER TRIGMPRI TRIGTYPE USAGE")
CHANNEL_COMMON = "CERTLABL COMPHDR COMPMSG DESCR HBINT KAINT MAXMSGL RCVDATA RCVEXIT SCYDATA SCYEXIT SENDDATA SENDEXIT SSLCIPH SSLPEER TRPTYPE"
DOCUMENTED = {
    "QLOCAL": (QUEUE_COMMON + " " + LOCAL_MODEL + " CLUSNL CLUSTER CLWLPRTY CLWLRANK CLWLUSEQ DEFBIND CLCHNAME", ""),
    "QMODEL": (QUEUE_COMMON + " " + LOCAL_MODEL + " DEFTYPE", ""),
    "QALIAS": (QUEUE_COMMON + " CLUSNL CLUSTER CLWLPRTY CLWLRANK DEFBIND DEFREADA GET PROPCTL TARGET TARGTYPE",
               " TARGET(SOME.Q)"),
    "QREMOTE": (QUEUE_COMMON + " CLUSNL CLUSTER CLWLPRTY CLWLRANK DEFBIND RNAME RQMNAME XMITQ", " RNAME(R) RQMNAME(Q)"),
    "SDR": (CHANNEL_COMMON + " BATCHHB BATCHINT BATCHLIM BATCHSZ CONNAME CONVERT CUSTOM DISCINT LOCLADDR LONGRTY "
            "LONGTMR MCANAME MCATYPE MCAUSER MODENAME MONCHL MSGDATA MSGEXIT NPMSPEED PASSWORD PROPCTL SEQWRAP "
            "SHORTRTY SHORTTMR SPLPROT STATCHL TPNAME USEDLQ USERID XMITQ", " CONNAME('h(1)') XMITQ(X)"),
    "RCVR": (CHANNEL_COMMON + " BATCHSZ CUSTOM MCAUSER MONCHL MRDATA MREXIT MRRTY MRTMR MSGDATA MSGEXIT NPMSPEED "
             "PUTAUT SEQWRAP SPLPROT SSLCAUTH STATCHL USEDLQ", ""),
    "SVRCONN": (CHANNEL_COMMON + " CUSTOM DISCINT MAXINST MAXINSTC MCAUSER MONCHL PUTAUT SHARECNV SSLCAUTH", ""),
    "CLNTCONN": (CHANNEL_COMMON + " AFFINITY CLNTWGHT CONNAME DEFRECON LOCLADDR MODENAME PASSWORD QMNAME SHARECNV "
                 "TPNAME USERID", " CONNAME('h(1)')"),
    "TOPIC": ("CAPEXPRY CLROUTE CLUSTER COMMINFO CUSTOM DEFPRESP DEFPRTY DEFPSIST DESCR DURSUB MCAST MDURMDL MNDURMDL "
              "NPMSGDLV PMSGDLV PROXYSUB PUB PUBSCOPE SUB SUBSCOPE TOPICSTR USEDLQ WILDCARD", " TOPICSTR('a/b')"),
    "NAMELIST": ("DESCR NAMES", ""),
    "LISTENER": ("BACKLOG CONTROL DESCR IPADDR PORT TRPTYPE", ""),
    "PROCESS": ("APPLICID APPLTYPE DESCR ENVRDATA USERDATA", ""),
    "SERVICE": ("CONTROL DESCR SERVTYPE STARTARG STARTCMD STDERR STDOUT STOPARG STOPCMD", ""),
    "AUTHINFO": ("ADOPTCTX AUTHENMD AUTHTYPE CHCKCLNT CHCKLOCL DESCR FAILDLAY", " AUTHTYPE(IDPWOS)"),
}
QMGR = ("ACCTCONO ACCTINT ACCTMQI ACCTQ ACTIVREC ACTVCONO ACTVTRC ADVCAP AMQPCAP AUTHOREV CCSID CERTLABL CERTVPOL "
        "CHAD CHADEV CHADEXIT CHLAUTH CHLEV CLWLDATA CLWLEXIT CLWLLEN CLWLMRUC CLWLUSEQ CMDEV CMDLEVEL COMMANDQ "
        "CONFIGEV CONNAUTH CRDATE CRTIME CUSTOM DEADQ DEFCLXQ DEFXMITQ DESCR DISTL IMGINTVL IMGLOGLN IMGRCOVO "
        "IMGRCOVQ IMGSCHED INHIBTEV IPADDRV LOCALEV LOGGEREV MARKINT MAXHANDS MAXMSGL MAXPROPL MAXPRTY MAXUMSGS "
        "MONACLS MONCHL MONQ PARENT PERFMEV PLATFORM PSCLUS PSMODE PSNPMSG PSNPRES PSRTYCNT PSSYNCPT QMID REMOTEEV "
        "REPOS REPOSNL REVDNS ROUTEREC SCHINIT SCMDSERV SPLCAP SSLCRLNL SSLCRYP SSLEV SSLFIPS SSLKEYR SSLRKEYC "
        "STATACLS STATCHL STATINT STATMQI STATQ STRSTPEV SUITEB SYNCPT TREELIFE TRIGINT VERSION INITKEY KEYRPWD XRCAP")
OBJECT = {"SDR": "CHANNEL", "RCVR": "CHANNEL", "SVRCONN": "CHANNEL", "CLNTCONN": "CHANNEL"}


def shown(text: str) -> set[str]:
    return {m.group(1) for m in re.finditer(r"\b([A-Z0-9]+)(?:\(|\s|$)", text)}


@pytest.mark.parametrize("kind", sorted(DOCUMENTED))
def test_every_documented_attribute_is_accepted_and_shown(kind: str) -> None:
    e = Engine()
    keywords, needs = DOCUMENTED[kind]
    obj = OBJECT.get(kind, kind)
    chltype = f" CHLTYPE({kind})" if obj == "CHANNEL" else ""
    # Each keyword on its own (with its default value, as DISPLAY shows it) is accepted.
    r = e.mqsc(f"DEFINE {obj}(ATTR.T){chltype}{needs}")
    assert r.status == "ok", r.lines
    out = "\n".join(e.mqsc(f"DISPLAY {obj}(ATTR.T) ALL").lines)
    items = dict(re.findall(r"\b([A-Z0-9]+)\(((?:'[^']*'|[^()]|\([^()]*\))*)\)", out))
    missing = [k for k in keywords.split() if k not in items and k not in shown(out)]
    # MQ 9.4's DISPLAY ALL leaves out some it accepts (a channel's CUSTOM and SPLPROT: objects/layout.py);
    # asked for by name, they are shown.
    unshown = [k for k in missing if k.removeprefix("NO") not in DISPLAY_ORDER.get(kind, ())]
    assert unshown == [k for k in missing if kind in DISPLAY_ORDER]
    for k in unshown:
        asked = "\n".join(e.mqsc(f"DISPLAY {obj}(ATTR.T) {k}").lines)
        assert k in shown(asked), asked
        items.update(re.findall(r"\b([A-Z0-9]+)\(((?:'[^']*'|[^()]|\([^()]*\))*)\)", asked))
    for k in keywords.split():
        if k in items and k not in ("TOPICSTR", "AUTHTYPE", "TARGET", "RNAME", "RQMNAME", "CONNAME", "XMITQ"):
            value = items[k].strip() or "' '"
            if value.startswith(("/", ".")) or " " in value.strip("'"):
                value = f"'{value}'"
            again = " AUTHTYPE(IDPWOS)" if kind == "AUTHINFO" else ""       # ALTER AUTHINFO names it, as in MQ
            r = e.mqsc(f"ALTER {obj}(ATTR.T){chltype}{again} {k}({value})")
            assert r.status == "ok", (k, r.lines)


def test_every_documented_queue_manager_attribute_is_shown() -> None:
    e = Engine()
    out = "\n".join(e.mqsc("DISPLAY QMGR ALL").lines)
    assert [k for k in QMGR.split() if k not in shown(out)] == []
    # Display-only ones refuse ALTER, as MQ's runmqsc does (AMQ8405I).
    for k in ("ADVCAP", "SPLCAP", "CMDLEVEL", "PLATFORM"):
        assert e.mqsc(f"ALTER QMGR {k}(ENABLED)").status == "syntax", k
