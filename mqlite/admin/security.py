"""PCF security commands: Set, Delete and Inquire Authority Records and
Inquire Entity Authority over the queue manager's records (mqlite.security), with MQ's MQAUTH_*
and MQOT_* values; Set and Inquire Channel Authentication Records, a Set going through MQSC's SET
CHLAUTH (one set of rules and checks) with its refusals as MQRCCF_CHLAUTH_* reasons."""
from __future__ import annotations

from typing import Any

from mqlite.admin import params as prm
from mqlite.admin.context import Admin
from mqlite.admin.params import CommandError
from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.cmq import CMQZC as Z
from mqlite.cmq import pcf
from mqlite.objects.names import generic_match
from mqlite.security.authority import APPLICABLE, AUTH_BITS, Entity, effective
from mqlite.security.chlauth import TYPES as CHLAUTH_TYPES
from mqlite.security.patterns import oam_match
from mqlite.security.pcfform import (
    CAUT,
    CHK,
    MQAUTH,
    MQOT,
    OBJTYPE_MQOT,
    USRC,
    authority_list,
    chlauth_params,
    entity_params,
)

MQAUTH_GROUPS = {F.MQAUTH_ALL: Z.MQZAO_ALL, F.MQAUTH_ALL_ADMIN: Z.MQZAO_ALL_ADMIN, F.MQAUTH_ALL_MQI: Z.MQZAO_ALL_MQI,
                 F.MQAUTH_NONE: 0}


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


ACTIONS = {F.MQACT_ADD: "ADD", F.MQACT_REPLACE: "REPLACE", F.MQACT_REMOVE: "REMOVE", F.MQACT_REMOVEALL: "REMOVEALL"}
# PCF string parameter -> SET CHLAUTH keyword.
_CHL_STR = ((F.MQCACH_CONNECTION_NAME, "ADDRESS"), (F.MQCACH_CLIENT_USER_ID, "CLNTUSER"),
            (C.MQCA_REMOTE_Q_MGR_NAME, "QMNAME"), (F.MQCACH_SSL_PEER_NAME, "SSLPEER"),
            (F.MQCACH_SSL_CERT_ISSUER_NAME, "SSLCERTI"), (F.MQCACH_MCA_USER_ID, "MCAUSER"), (F.MQCACH_DESC, "DESCR"),
            (C.MQCA_CUSTOM, "CUSTOM"))
# MQSC's refusals of SET CHLAUTH -> PCF reasons.
_CHL_REFUSALS = {"AMQ8883E": F.MQRCCF_CHLAUTH_ALREADY_EXISTS, "AMQ8884I": F.MQRCCF_CHLAUTH_NOT_FOUND,
                 "AMQ8886E": F.MQRCCF_CHLAUTH_CLNTUSER_ERROR, "AMQ8882E": F.MQRCCF_CHLAUTH_USERSRC_ERROR,
                 "AMQ8880E": F.MQRCCF_CHLAUTH_NAME_ERROR}


def _quote(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def set_chlauth_rec(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    profile = prm.trimmed(prm.need(msg, F.MQCACH_CHANNEL_NAME))
    rtype = CAUT.get(prm.need(msg, F.MQIACF_CHLAUTH_TYPE))
    if rtype is None:
        raise CommandError(F.MQRCCF_CHLAUTH_TYPE_ERROR, F.MQIACF_CHLAUTH_TYPE)
    action = ACTIONS.get(msg.first(F.MQIACF_ACTION, F.MQACT_ADD))
    if action is None:
        raise CommandError(F.MQRCCF_CHLAUTH_ACTION_ERROR, F.MQIACF_ACTION)
    words = [f"SET CHLAUTH({_quote(profile)}) TYPE({rtype}) ACTION({action})"]
    for sel, key in _CHL_STR:
        value = msg.first(sel)
        if value is not None:
            words.append(f"{key}({_quote(prm.trimmed(value))})")
    for sel, key in ((F.MQCACH_MCA_USER_ID_LIST, "USERLIST"), (F.MQCACH_CONNECTION_NAME_LIST, "ADDRLIST")):
        values = msg.first(sel)
        if values:
            words.append(f"{key}({','.join(_quote(prm.trimmed(v)) for v in values)})")
    for sel, key, table in ((F.MQIACH_USER_SOURCE, "USERSRC", USRC), (C.MQIA_CHECK_CLIENT_BINDING, "CHCKCLNT", CHK),
                            (F.MQIACH_WARNING, "WARN", {C.MQWARN_NO: "NO", C.MQWARN_YES: "YES"})):
        value = msg.first(sel)
        if value is not None:
            if value not in table:
                raise CommandError(F.MQRCCF_CHLAUTH_USERSRC_ERROR if key == "USERSRC" else
                                F.MQRCCF_CHLAUTH_CHKCLI_ERROR if key == "CHCKCLNT" else F.MQRCCF_CHLAUTH_WARN_ERROR, sel)
            words.append(f"{key}({table[value]})")
    result = a.executor.run(" ".join(words))
    if result.status != "ok":
        msgid = result.lines[0][:8] if result.lines else ""
        raise CommandError(_CHL_REFUSALS.get(msgid, F.MQRCCF_PARM_SYNTAX_ERROR if result.status == "syntax"
                                          else F.MQRCCF_COMMAND_FAILED), 0, " ".join(result.lines))
    return [[]]


def inquire_chlauth_recs(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    pattern = prm.trimmed(msg.first(F.MQCACH_CHANNEL_NAME)) or "*"
    want = CAUT.get(msg.first(F.MQIACF_CHLAUTH_TYPE, F.MQCAUT_ALL))
    rows = []
    for r in sorted(a.qm.security.rules, key=lambda r: (r.profile, CHLAUTH_TYPES.index(r.type))):
        if not generic_match(pattern, r.profile) or (want is not None and r.type != want):
            continue
        rows.append(chlauth_params(r))
    if not rows:
        raise CommandError(F.MQRCCF_CHLAUTH_NOT_FOUND, F.MQCACH_CHANNEL_NAME)
    return rows


def _auth_target(a: Admin, msg: pcf.Message) -> tuple[str, str]:
    ot = prm.need(msg, F.MQIACF_OBJECT_TYPE)
    objtype = MQOT.get(ot)
    if objtype is None:
        raise CommandError(F.MQRCCF_OBJECT_TYPE_MISSING, F.MQIACF_OBJECT_TYPE, f"object type {ot}")
    profile = prm.trimmed(msg.first(F.MQCACF_AUTH_PROFILE_NAME)) or (a.qm.name if objtype == "QMGR" else "")
    if not profile:
        raise CommandError(F.MQRCCF_PROFILE_NAME_ERROR, F.MQCACF_AUTH_PROFILE_NAME, "ProfileName is required")
    return objtype, profile


def _entities(msg: pcf.Message) -> list[Entity]:
    out = []
    for sel, group in ((F.MQCACF_PRINCIPAL_ENTITY_NAMES, False), (F.MQCACF_GROUP_ENTITY_NAMES, True)):
        for v in msg.first(sel, []) or []:
            name = prm.trimmed(v)
            if name:
                out.append(Entity(name, group))
    return out


def set_auth_rec(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    objtype, profile = _auth_target(a, msg)
    entities = _entities(msg)
    if not entities:
        raise CommandError(F.MQRCCF_ENTITY_NAME_MISSING, F.MQCACF_PRINCIPAL_ENTITY_NAMES, "no principal or group")
    add = _bits(list(msg.first(F.MQIACF_AUTH_ADD_AUTHS, []) or []), objtype, CommandError)
    remove = _bits(list(msg.first(F.MQIACF_AUTH_REMOVE_AUTHS, []) or []), objtype, CommandError)
    unknown = a.qm.security.first_unknown(entities)
    if unknown is not None:
        which = F.MQCACF_GROUP_ENTITY_NAMES if unknown.group else F.MQCACF_PRINCIPAL_ENTITY_NAMES
        raise CommandError(C.MQRC_UNKNOWN_ENTITY, which, f"{unknown.name} is not known to the system")
    for e in entities:
        a.qm.security.set_authrec(objtype, profile, e, add, remove)
    return [[]]


def delete_auth_rec(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    objtype, profile = _auth_target(a, msg)
    entities = _entities(msg)
    if not [e for e in entities if a.qm.security.delete_authrec(objtype, profile, e)]:
        raise CommandError(F.MQRCCF_ENTITY_NAME_MISSING, F.MQCACF_AUTH_PROFILE_NAME, "no such record")
    return [[]]


def _entity(msg: pcf.Message) -> Entity | None:
    name = prm.trimmed(msg.first(F.MQCACF_ENTITY_NAME))
    return Entity(name, msg.first(F.MQIACF_ENTITY_TYPE, Z.MQZAET_PRINCIPAL) == Z.MQZAET_GROUP) if name else None


def inquire_auth_recs(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    options = msg.first(F.MQIACF_AUTH_OPTIONS, F.MQAUTHOPT_NAME_ALL_MATCHING | F.MQAUTHOPT_ENTITY_SET)
    ot = msg.first(F.MQIACF_OBJECT_TYPE)
    objtype = MQOT.get(ot) if ot not in (None, C.MQOT_ALL) else None
    profile = prm.trimmed(msg.first(F.MQCACF_AUTH_PROFILE_NAME))
    entity = _entity(msg)
    rows = []
    for t, p, e, bits in a.qm.security.records.matching(objtype):
        if profile:
            if options & F.MQAUTHOPT_NAME_EXPLICIT and p != profile:
                continue
            if not options & F.MQAUTHOPT_NAME_EXPLICIT and not (p == profile or oam_match(p, profile)):
                continue
        if entity is not None and e != entity:
            continue
        rows.append([pcf.enc_str(F.MQCACF_AUTH_PROFILE_NAME, p), pcf.enc_int(F.MQIACF_OBJECT_TYPE, OBJTYPE_MQOT[t]),
                     *entity_params(e, bits)])
    if not rows:
        raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME, F.MQCACF_AUTH_PROFILE_NAME, "no matching records")
    return rows


def inquire_entity_auth(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    ot = prm.need(msg, F.MQIACF_OBJECT_TYPE)
    objtype = MQOT.get(ot)
    entity = _entity(msg)
    if objtype is None or entity is None:
        raise CommandError(F.MQRCCF_ENTITY_NAME_MISSING, F.MQCACF_ENTITY_NAME, "EntityName and ObjectType are required")
    name = prm.trimmed(msg.first(F.MQCACF_OBJECT_NAME)) or a.qm.name
    sec = a.qm.security
    if entity.group:
        bits = effective(sec.records, objtype, name, [entity])
    else:
        bits = sec.authority(sec.principal(entity.name), objtype, name) & Z.MQZAO_ALL
    return [[pcf.enc_str(F.MQCACF_ENTITY_NAME, entity.name), pcf.enc_int(F.MQIACF_OBJECT_TYPE, ot),
             pcf.enc_int_list(F.MQIACF_AUTHORIZATION_LIST, authority_list(bits))]]


