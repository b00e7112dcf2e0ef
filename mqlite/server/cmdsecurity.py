"""The command server's authority-record commands (PCF): Set, Delete and Inquire Authority
Records, and Inquire Entity Authority, over the queue manager's records (mqlite.security), with
MQ's MQAUTH_* and MQOT_* values. Mixed into the CommandServer."""
from __future__ import annotations

from typing import Any

from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.cmq import CMQZC as Z
from mqlite.cmq import pcf
from mqlite.cmq.structs import text
from mqlite.security.authority import APPLICABLE, AUTH_BITS, Entity, effective
from mqlite.security.patterns import oam_match

# MQAUTH_* (PCF) -> the authority's MQSC name.
MQAUTH = {F.MQAUTH_ALT_USER_AUTHORITY: "ALTUSR", F.MQAUTH_BROWSE: "BROWSE", F.MQAUTH_CHANGE: "CHG",
          F.MQAUTH_CLEAR: "CLR", F.MQAUTH_CONNECT: "CONNECT", F.MQAUTH_CREATE: "CRT", F.MQAUTH_DELETE: "DLT",
          F.MQAUTH_DISPLAY: "DSP", F.MQAUTH_INPUT: "GET", F.MQAUTH_INQUIRE: "INQ", F.MQAUTH_OUTPUT: "PUT",
          F.MQAUTH_PASS_ALL_CONTEXT: "PASSALL", F.MQAUTH_PASS_IDENTITY_CONTEXT: "PASSID", F.MQAUTH_SET: "SET",
          F.MQAUTH_SET_ALL_CONTEXT: "SETALL", F.MQAUTH_SET_IDENTITY_CONTEXT: "SETID", F.MQAUTH_CONTROL: "CTRL",
          F.MQAUTH_CONTROL_EXTENDED: "CTRLX", F.MQAUTH_PUBLISH: "PUB", F.MQAUTH_SUBSCRIBE: "SUB",
          F.MQAUTH_RESUME: "RESUME", F.MQAUTH_SYSTEM: "SYSTEM"}
MQAUTH_GROUPS = {F.MQAUTH_ALL: Z.MQZAO_ALL, F.MQAUTH_ALL_ADMIN: Z.MQZAO_ALL_ADMIN, F.MQAUTH_ALL_MQI: Z.MQZAO_ALL_MQI,
                 F.MQAUTH_NONE: 0}
MQOT = {C.MQOT_Q: "QUEUE", C.MQOT_NAMELIST: "NAMELIST", C.MQOT_PROCESS: "PROCESS", C.MQOT_Q_MGR: "QMGR",
        C.MQOT_CHANNEL: "CHANNEL", C.MQOT_AUTH_INFO: "AUTHINFO", C.MQOT_TOPIC: "TOPIC", C.MQOT_COMM_INFO: "COMMINFO",
        C.MQOT_LISTENER: "LISTENER", C.MQOT_SERVICE: "SERVICE", C.MQOT_REMOTE_Q_MGR_NAME: "RQMNAME",
        C.MQOT_CLNTCONN_CHANNEL: "CLNTCONN"}
OBJTYPE_MQOT = {v: k for k, v in MQOT.items()}


def _bits(values: list[int], objtype: str, fail: Any) -> int:
    out = 0
    for v in values:
        if v in MQAUTH_GROUPS:
            out |= MQAUTH_GROUPS[v] & APPLICABLE[objtype]
        elif v in MQAUTH and AUTH_BITS[MQAUTH[v]] & APPLICABLE[objtype]:
            out |= AUTH_BITS[MQAUTH[v]]
        else:
            raise fail(F.MQRCCF_AUTH_VALUE_ERROR, F.MQIACF_AUTH_ADD_AUTHS, f"authority {v}")
    return out


def _str(value: Any) -> str:
    """A PCF string parameter, blanks and nulls trimmed ("" when absent)."""
    if isinstance(value, (bytes, bytearray)):
        return text(value)
    return str(value or "").strip()


def _mqauth(bits: int) -> list[int]:
    return [v for v, name in MQAUTH.items() if bits & AUTH_BITS[name]] or [F.MQAUTH_NONE]


class AuthRecCommands:
    qm: Any
    need: Any
    fail: Any           # the CommandServer's CommandError: (reason, parameter, detail)

    def _auth_target(self, msg: pcf.Message) -> tuple[str, str]:
        ot = self.need(msg, F.MQIACF_OBJECT_TYPE)
        objtype = MQOT.get(ot)
        if objtype is None:
            raise self.fail(F.MQRCCF_OBJECT_TYPE_MISSING, F.MQIACF_OBJECT_TYPE, f"object type {ot}")
        profile = _str(msg.first(F.MQCACF_AUTH_PROFILE_NAME)) or (self.qm.name if objtype == "QMGR" else "")
        if not profile:
            raise self.fail(F.MQRCCF_PROFILE_NAME_ERROR, F.MQCACF_AUTH_PROFILE_NAME, "ProfileName is required")
        return objtype, profile

    def _entities(self, msg: pcf.Message) -> list[Entity]:
        out = []
        for sel, group in ((F.MQCACF_PRINCIPAL_ENTITY_NAMES, False), (F.MQCACF_GROUP_ENTITY_NAMES, True)):
            for v in msg.first(sel, []) or []:
                name = _str(v)
                if name:
                    out.append(Entity(name, group))
        return out

    def set_auth_rec(self, msg: pcf.Message) -> list[list[bytes]]:
        objtype, profile = self._auth_target(msg)
        entities = self._entities(msg)
        if not entities:
            raise self.fail(F.MQRCCF_ENTITY_NAME_MISSING, F.MQCACF_PRINCIPAL_ENTITY_NAMES, "no principal or group")
        add = _bits(list(msg.first(F.MQIACF_AUTH_ADD_AUTHS, []) or []), objtype, self.fail)
        remove = _bits(list(msg.first(F.MQIACF_AUTH_REMOVE_AUTHS, []) or []), objtype, self.fail)
        for e in entities:
            self.qm.security.set_authrec(objtype, profile, e, add, remove)
        return [[]]

    def delete_auth_rec(self, msg: pcf.Message) -> list[list[bytes]]:
        objtype, profile = self._auth_target(msg)
        entities = self._entities(msg)
        if not [e for e in entities if self.qm.security.delete_authrec(objtype, profile, e)]:
            raise self.fail(F.MQRCCF_ENTITY_NAME_MISSING, F.MQCACF_AUTH_PROFILE_NAME, "no such record")
        return [[]]

    def _entity(self, msg: pcf.Message) -> Entity | None:
        name = _str(msg.first(F.MQCACF_ENTITY_NAME))
        return Entity(name, msg.first(F.MQIACF_ENTITY_TYPE, Z.MQZAET_PRINCIPAL) == Z.MQZAET_GROUP) if name else None

    def inquire_auth_recs(self, msg: pcf.Message) -> list[list[bytes]]:
        options = msg.first(F.MQIACF_AUTH_OPTIONS, F.MQAUTHOPT_NAME_ALL_MATCHING | F.MQAUTHOPT_ENTITY_SET)
        ot = msg.first(F.MQIACF_OBJECT_TYPE)
        objtype = MQOT.get(ot) if ot not in (None, C.MQOT_ALL) else None
        profile = _str(msg.first(F.MQCACF_AUTH_PROFILE_NAME))
        entity = self._entity(msg)
        rows = []
        for t, p, e, bits in self.qm.security.records.matching(objtype):
            if profile:
                if options & F.MQAUTHOPT_NAME_EXPLICIT and p != profile:
                    continue
                if not options & F.MQAUTHOPT_NAME_EXPLICIT and not (p == profile or oam_match(p, profile)):
                    continue
            if entity is not None and e != entity:
                continue
            rows.append([pcf.enc_str(F.MQCACF_AUTH_PROFILE_NAME, p), pcf.enc_int(F.MQIACF_OBJECT_TYPE, OBJTYPE_MQOT[t]),
                         pcf.enc_str(F.MQCACF_ENTITY_NAME, e.name),
                         pcf.enc_int(F.MQIACF_ENTITY_TYPE, Z.MQZAET_GROUP if e.group else Z.MQZAET_PRINCIPAL),
                         pcf.enc_int_list(F.MQIACF_AUTHORIZATION_LIST, _mqauth(bits))])
        if not rows:
            raise self.fail(C.MQRC_UNKNOWN_OBJECT_NAME, F.MQCACF_AUTH_PROFILE_NAME, "no matching records")
        return rows

    def inquire_entity_auth(self, msg: pcf.Message) -> list[list[bytes]]:
        ot = self.need(msg, F.MQIACF_OBJECT_TYPE)
        objtype = MQOT.get(ot)
        entity = self._entity(msg)
        if objtype is None or entity is None:
            raise self.fail(F.MQRCCF_ENTITY_NAME_MISSING, F.MQCACF_ENTITY_NAME, "EntityName and ObjectType are required")
        name = _str(msg.first(F.MQCACF_OBJECT_NAME)) or self.qm.name
        sec = self.qm.security
        if entity.group:
            bits = effective(sec.records, objtype, name, [entity])
        else:
            bits = sec.authority(sec.principal(entity.name), objtype, name) & Z.MQZAO_ALL
        return [[pcf.enc_str(F.MQCACF_ENTITY_NAME, entity.name), pcf.enc_int(F.MQIACF_OBJECT_TYPE, ot),
                 pcf.enc_int_list(F.MQIACF_AUTHORIZATION_LIST, _mqauth(bits))]]
