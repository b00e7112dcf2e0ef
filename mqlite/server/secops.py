"""The security control commands' side in the server (CONTROL frames from an administrator over
local bindings): mqlite's user registry (setmqusr, dspmqusr) and the OAM's (setmqaut, dspmqaut,
dmpmqaut). Each runs under the server's lock; changes are journalled and synced before the
answer."""
from __future__ import annotations

from typing import Any

from mqlite.catalogue import message
from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQZC as Z
from mqlite.security.authority import OBJTYPES, AuthorityError, Entity, bits_of, effective, names_of
from mqlite.security.state import UNKNOWN_ENTITY
from mqlite.security.users import verify_password
from mqlite.server import ldapauth
from mqlite.server.ports import ServerPort


def authenticate(srv: ServerPort, user: str, password: str) -> dict[str, Any]:
    """mqweb's question (the ``authenticate`` op): does this queue manager know the user, is the
    password right, and what are the user's groups. The password is checked as CONNAUTH checks a
    connection's (the registry's hash, or the LDAP server of an IDPWLDAP CONNAUTH), outside the
    server's lock, since a check costs tens of milliseconds."""
    sec = srv.qm.security
    with srv.lock:
        info = sec.connauth or {}
        ldap = info.get("AUTHTYPE") == C.MQAIT_IDPW_LDAP
        stored = None if ldap else sec.password_hash(user)
        known = ldap or user in sec.users
    if ldap:
        who = ldapauth.authenticate(info, user, password)
        valid, name, extra = who is not None, (who.short if who else user), (who.groups if who else ())
    else:
        valid, name, extra = verify_password(stored, password), user, ()
    with srv.lock:
        groups = sorted(set(sec.principal(name).groups) | set(extra)) if valid else []
    return {"ok": True, "known": known, "valid": valid, "user": name, "groups": groups}


def secop(srv: ServerPort, req: dict[str, Any]) -> dict[str, Any]:
    op = req["op"]
    sec = srv.qm.security
    if op == "authenticate":
        return authenticate(srv, str(req.get("user") or ""), str(req.get("password") or ""))
    with srv.lock:
        if op == "setusr":
            name = str(req["user"])
            entry = sec.users.get(name, {"hash": None, "groups": []})
            if req.get("delete"):
                if not sec.delete_user(name):
                    return {"ok": False, "msg": message("AMQ8757E", name=name)}
            else:
                groups = set(entry["groups"]) | set(req.get("add", [])) - set(req.get("remove", []))
                sec.set_user(name, req["hash"] if "hash" in req else entry["hash"], sorted(groups))
            ticket = srv.store.last_ticket
        elif op == "dspusr":
            return {"ok": True, "users": {n: {"groups": u["groups"], "password": u["hash"] is not None}
                                          for n, u in sorted(sec.users.items())}}
        elif op == "setaut":
            objtype = req["objtype"]
            if objtype not in OBJTYPES:
                return {"ok": False, "msg": message("AMQ7095E")}
            try:
                add = bits_of(req.get("add", []), objtype)
                remove = -1 if req.get("remove_all") else bits_of(req.get("remove", []), objtype)
            except AuthorityError as e:
                return {"ok": False, "msg": f"{message('AMQ7096E')} {e}."}
            profile = req["profile"] or srv.qm.name
            unknown = sec.first_unknown([Entity(name, group) for name, group in req["entities"]])
            if unknown is not None:
                return {"ok": False, "msg": f"{UNKNOWN_ENTITY} ({unknown.name})", "rc": 36}
            for name, group in req["entities"]:
                sec.set_authrec(objtype, profile, Entity(name, group), add, remove)
            ticket = srv.store.last_ticket
        elif op == "dspaut":
            objtype = req["objtype"]
            name, group = req["entity"]
            if group:
                bits = effective(sec.records, objtype, req["name"] or srv.qm.name, [Entity(name, True)])
            else:
                bits = sec.authority(sec.principal(name), objtype, req["name"] or srv.qm.name)
            return {"ok": True, "auth": [n.lower() for n in names_of(bits & Z.MQZAO_ALL)]}
        elif op == "dmpaut":
            rows = [{"profile": p, "objtype": t, "entity": e.name, "group": e.group,
                     "auth": [n.lower() for n in names_of(b)]}
                    for t, p, e, b in sec.records.matching(req.get("objtype"))
                    if (not req.get("profile") or p == req["profile"])
                    and (not req.get("entity") or e.name == req["entity"])]
            return {"ok": True, "rows": rows}
        else:
            return {"ok": False, "msg": f"unknown security operation {op}"}
    srv.store.sync(ticket)
    return {"ok": True}
