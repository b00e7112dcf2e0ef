"""Authority records and channel authentication records as PCF parameters: what Inquire
Authority Records and Inquire Channel Authentication Records answer, and what the configuration
events about them carry (engine/events.py), encoded once here."""
from __future__ import annotations

from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.cmq import CMQZC as Z
from mqlite.cmq import pcf
from mqlite.security.authority import AUTH_BITS, Entity
from mqlite.security.chlauth import Rule

# MQAUTH_* (PCF) -> the authority's MQSC name.
MQAUTH = {F.MQAUTH_ALT_USER_AUTHORITY: "ALTUSR", F.MQAUTH_BROWSE: "BROWSE", F.MQAUTH_CHANGE: "CHG",
          F.MQAUTH_CLEAR: "CLR", F.MQAUTH_CONNECT: "CONNECT", F.MQAUTH_CREATE: "CRT", F.MQAUTH_DELETE: "DLT",
          F.MQAUTH_DISPLAY: "DSP", F.MQAUTH_INPUT: "GET", F.MQAUTH_INQUIRE: "INQ", F.MQAUTH_OUTPUT: "PUT",
          F.MQAUTH_PASS_ALL_CONTEXT: "PASSALL", F.MQAUTH_PASS_IDENTITY_CONTEXT: "PASSID", F.MQAUTH_SET: "SET",
          F.MQAUTH_SET_ALL_CONTEXT: "SETALL", F.MQAUTH_SET_IDENTITY_CONTEXT: "SETID", F.MQAUTH_CONTROL: "CTRL",
          F.MQAUTH_CONTROL_EXTENDED: "CTRLX", F.MQAUTH_PUBLISH: "PUB", F.MQAUTH_SUBSCRIBE: "SUB",
          F.MQAUTH_RESUME: "RESUME", F.MQAUTH_SYSTEM: "SYSTEM"}
MQOT = {C.MQOT_Q: "QUEUE", C.MQOT_NAMELIST: "NAMELIST", C.MQOT_PROCESS: "PROCESS", C.MQOT_Q_MGR: "QMGR",
        C.MQOT_CHANNEL: "CHANNEL", C.MQOT_AUTH_INFO: "AUTHINFO", C.MQOT_TOPIC: "TOPIC", C.MQOT_COMM_INFO: "COMMINFO",
        C.MQOT_LISTENER: "LISTENER", C.MQOT_SERVICE: "SERVICE", C.MQOT_REMOTE_Q_MGR_NAME: "RQMNAME",
        C.MQOT_CLNTCONN_CHANNEL: "CLNTCONN"}
OBJTYPE_MQOT = {v: k for k, v in MQOT.items()}
CAUT = {F.MQCAUT_BLOCKUSER: "BLOCKUSER", F.MQCAUT_BLOCKADDR: "BLOCKADDR", F.MQCAUT_SSLPEERMAP: "SSLPEERMAP",
        F.MQCAUT_ADDRESSMAP: "ADDRESSMAP", F.MQCAUT_USERMAP: "USERMAP", F.MQCAUT_QMGRMAP: "QMGRMAP"}
CAUT_VALUE = {v: k for k, v in CAUT.items()}
USRC = {C.MQUSRC_MAP: "MAP", C.MQUSRC_NOACCESS: "NOACCESS", C.MQUSRC_CHANNEL: "CHANNEL"}
CHK = {F.MQCHK_AS_Q_MGR: "ASQMGR", F.MQCHK_REQUIRED: "REQUIRED", F.MQCHK_REQUIRED_ADMIN: "REQDADM"}
_USRC_VALUE = {v: k for k, v in USRC.items()}
_CHK_VALUE = {v: k for k, v in CHK.items()}


def authority_list(bits: int) -> list[int]:
    """An authority record's bits as MQ's AuthorizationList (MQAUTH_NONE for none)."""
    return [v for v, name in MQAUTH.items() if bits & AUTH_BITS[name]] or [F.MQAUTH_NONE]


def entity_params(entity: Entity, bits: int) -> list[bytes]:
    """EntityName, EntityType, AuthorizationList of one record."""
    return [pcf.enc_str(F.MQCACF_ENTITY_NAME, entity.name),
            pcf.enc_int(F.MQIACF_ENTITY_TYPE, Z.MQZAET_GROUP if entity.group else Z.MQZAET_PRINCIPAL),
            pcf.enc_int_list(F.MQIACF_AUTHORIZATION_LIST, authority_list(bits))]


def chlauth_params(r: Rule) -> list[bytes]:
    """A channel authentication record as Inquire Channel Authentication Records answers it."""
    row = [pcf.enc_str(F.MQCACH_CHANNEL_NAME, r.profile), pcf.enc_int(F.MQIACF_CHLAUTH_TYPE, CAUT_VALUE[r.type]),
           pcf.enc_str(F.MQCACH_DESC, r.descr), pcf.enc_str(C.MQCA_CUSTOM, r.custom),
           pcf.enc_int(F.MQIACH_WARNING, C.MQWARN_YES if r.warn else C.MQWARN_NO),
           pcf.enc_str(C.MQCA_ALTERATION_DATE, r.altdate), pcf.enc_str(C.MQCA_ALTERATION_TIME, r.alttime)]
    if r.type == "BLOCKUSER":
        row.append(pcf.enc_str_list(F.MQCACH_MCA_USER_ID_LIST, r.userlist))
    elif r.type == "BLOCKADDR":
        row.append(pcf.enc_str_list(F.MQCACH_CONNECTION_NAME_LIST, r.addrlist))
    else:
        row += [pcf.enc_str(F.MQCACH_CONNECTION_NAME, r.address), pcf.enc_int(F.MQIACH_USER_SOURCE, _USRC_VALUE[r.usersrc]),
                pcf.enc_str(F.MQCACH_MCA_USER_ID, r.mcauser)]
        row += {"USERMAP": [pcf.enc_str(F.MQCACH_CLIENT_USER_ID, r.clntuser)],
                "QMGRMAP": [pcf.enc_str(C.MQCA_REMOTE_Q_MGR_NAME, r.qmname)],
                "SSLPEERMAP": [pcf.enc_str(F.MQCACH_SSL_PEER_NAME, r.sslpeer),
                               pcf.enc_str(F.MQCACH_SSL_CERT_ISSUER_NAME, r.sslcerti)]}.get(r.type, [])
        if r.type != "QMGRMAP":
            row.append(pcf.enc_int(C.MQIA_CHECK_CLIENT_BINDING, _CHK_VALUE[r.chckclnt]))
    return row
