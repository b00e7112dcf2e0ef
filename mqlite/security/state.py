"""A queue manager's security state: CHLAUTH rules, authority records, its user registry, and
the identities worked out from them. Changes are journalled as object records (namespaces
CHLAUTH, AUTHREC and USER, through the ``Saver`` the engine gives it), so they survive restarts
with the rest of the definitions; :meth:`load` takes them back at recovery."""
from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Protocol

from mqlite.catalogue import message
from mqlite.cmq import CMQC
from mqlite.security.authority import Entity, Records, effective
from mqlite.security.chlauth import Rule
from mqlite.security.users import ADMIN_GROUP, Principal, os_groups, os_knows

NAMESPACES = ("CHLAUTH", "AUTHREC", "USER")
UNKNOWN_ENTITY = message("AMQ7026E")

# MQ's default rules on a new queue manager (crtmqm).
DEFAULT_RULES = [
    Rule("SYSTEM.ADMIN.SVRCONN", "ADDRESSMAP", address="*", usersrc="CHANNEL",
         descr="Default rule to allow MQ Explorer access"),
    Rule("SYSTEM.*", "ADDRESSMAP", address="*", usersrc="NOACCESS",
         descr="Default rule to disable all SYSTEM channels"),
    Rule("*", "BLOCKUSER", userlist=["*MQADMIN"], descr="Default rule to disallow privileged users"),
]


def _authrec_key(objtype: str, profile: str, entity: Entity) -> str:
    return f"{objtype}\x00{profile}\x00{'G' if entity.group else 'P'}\x00{entity.name}"


class Saver(Protocol):
    """Where the security state's records go: the engine's journal (``engine.ports.ObjectSaver``)."""

    def save(self, ns: str, name: str, record: str) -> None: ...

    def drop(self, ns: str, name: str) -> None: ...


class SecurityState:
    def __init__(self, saver: Saver) -> None:
        self.saver = saver
        self.rules: list[Rule] = []
        self.records = Records()
        self.users: dict[str, dict[str, Any]] = {}     # name -> {"hash": str | None, "groups": [...]}
        self.oam = True              # False: created with MQSNOAUT, every authority check passes
        self.version = 0             # moves on every change: cached authorities are stale
        self.connauth: dict[str, Any] | None = None    # the AUTHINFO in force (REFRESH SECURITY)
        self._principals: dict[str, Principal] = {}
        self.external_groups: dict[str, tuple[str, ...]] = {}   # groups an LDAP server gave a user
        # Told of each record created, changed or deleted: (kind "AUTHREC" or "CHLAUTH", the
        # record before or None, the record after or None); the queue manager's configuration
        # events (engine/events.py). An authority record is (objtype, profile, entity, bits).
        self.observer: Callable[[str, Any, Any], None] | None = None

    # --- recovery -------------------------------------------------------------------------------
    def load(self, ns: str, rec: dict[str, Any]) -> None:
        if ns == "CHLAUTH":
            self.rules.append(Rule.from_record(rec))
        elif ns == "AUTHREC":
            entity = Entity(rec["entity"], rec["group"])
            self.records.table[(rec["objtype"], rec["profile"], entity)] = rec["bits"]
        elif ns == "USER":
            self.users[rec["name"]] = {"hash": rec.get("hash"), "groups": list(rec.get("groups", []))}

    def changed(self) -> None:
        self.version += 1
        self._principals.clear()

    # --- CHLAUTH --------------------------------------------------------------------------------
    def find_rule(self, key: str) -> Rule | None:
        return next((r for r in self.rules if r.key() == key), None)

    def put_rule(self, rule: Rule) -> None:
        old = self.find_rule(rule.key())
        if old is not None:
            self.rules[self.rules.index(old)] = rule
        else:
            self.rules.append(rule)
        self.saver.save("CHLAUTH", rule.key(), json.dumps(rule.to_record()))
        self.changed()
        if self.observer is not None:
            self.observer("CHLAUTH", old, rule)

    def remove_rule(self, rule: Rule) -> None:
        self.rules.remove(rule)
        self.saver.drop("CHLAUTH", rule.key())
        self.changed()
        if self.observer is not None:
            self.observer("CHLAUTH", rule, None)

    # --- authority records ----------------------------------------------------------------------
    def set_authrec(self, objtype: str, profile: str, entity: Entity, add: int, remove: int) -> int:
        before = self.records.table.get((objtype, profile, entity))
        bits = self.records.set(objtype, profile, entity, add, remove)
        rec = {"objtype": objtype, "profile": profile, "entity": entity.name, "group": entity.group, "bits": bits}
        self.saver.save("AUTHREC", _authrec_key(objtype, profile, entity), json.dumps(rec))
        self.changed()
        if self.observer is not None:
            self.observer("AUTHREC", None if before is None else (objtype, profile, entity, before),
                          (objtype, profile, entity, bits))
        return bits

    def delete_authrec(self, objtype: str, profile: str, entity: Entity) -> bool:
        before = self.records.table.get((objtype, profile, entity))
        if not self.records.delete(objtype, profile, entity):
            return False
        self.saver.drop("AUTHREC", _authrec_key(objtype, profile, entity))
        self.changed()
        if self.observer is not None:
            self.observer("AUTHREC", (objtype, profile, entity, before), None)
        return True

    def delete_object_records(self, objtype: str, name: str) -> None:
        """An object was deleted: its own (non-generic) records go with it, as MQ's do."""
        for t, p, e, _b in self.records.matching(objtype, name):
            self.delete_authrec(t, p, e)

    # --- users ----------------------------------------------------------------------------------
    def set_user(self, name: str, password_hash: str | None, groups: list[str]) -> None:
        self.users[name] = {"hash": password_hash, "groups": sorted(set(groups))}
        self.saver.save("USER", name, json.dumps({"name": name, **self.users[name]}))
        self.changed()

    def delete_user(self, name: str) -> bool:
        if self.users.pop(name, None) is None:
            return False
        self.saver.drop("USER", name)
        self.changed()
        return True

    def password_hash(self, name: str) -> str | None:
        entry = self.users.get(name)
        return entry["hash"] if entry else None

    # --- identities and authority ---------------------------------------------------------------
    def principal(self, user: str) -> Principal:
        """The user's groups (registry and OS) and whether it is an administrator (group mqm)."""
        p = self._principals.get(user)
        if p is None:
            groups = set(self.users.get(user, {}).get("groups", ())) | set(os_groups(user)) \
                | set(self.external_groups.get(user, ()))
            # The user mqm is IBM MQ's own (its primary group is mqm) whether or not the OS has it.
            p = Principal(user, tuple(sorted(groups)), ADMIN_GROUP in groups or user == ADMIN_GROUP)
            self._principals[user] = p
        return p

    def entity_known(self, e: Entity) -> bool:
        """Whether an authority record may name ``e``: MQ's OAM refuses a principal or group the
        system does not know (AMQ7026E, MQRC_UNKNOWN_ENTITY). Known here: the operating system's
        users and groups, mqlite's registry (its users and their groups), mqm, and users and groups
        an LDAP server has given. With LDAP authorization (CONNAUTH an IDPWLDAP AUTHINFO whose
        AUTHORMD is not OS) the directory is the judge, and it is asked only at connection time, so
        every name is accepted then."""
        info = self.connauth or {}
        if info.get("AUTHTYPE") == CMQC.MQAIT_IDPW_LDAP and info.get("AUTHORMD", 0):
            return True
        if e.name == ADMIN_GROUP:
            return True
        if e.group:
            return (any(e.name in u.get("groups", ()) for u in self.users.values())
                    or any(e.name in gs for gs in self.external_groups.values()) or os_knows(e.name, True))
        return e.name in self.users or e.name in self.external_groups or os_knows(e.name, False)

    def first_unknown(self, entities: list[Entity]) -> Entity | None:
        """The first of ``entities`` an authority record may not name (SET AUTHREC, setmqaut and
        PCF Set Authority Record refuse the command for it, changing nothing)."""
        return next((e for e in entities if not self.entity_known(e)), None)

    def is_admin(self, user: str) -> bool:
        return bool(user) and self.principal(user).admin

    def authority(self, p: Principal, objtype: str, name: str) -> int:
        """Every authority bit the principal has on the object (all of them for administrators, or
        when the queue manager runs without the OAM)."""
        if p.admin or not self.oam:
            return -1
        entities = [Entity(p.user, False)] + [Entity(g, True) for g in p.groups]
        return effective(self.records, objtype, name, entities)
