"""MQSC for security: SET/DISPLAY CHLAUTH (with MATCH(RUNCHECK)), SET/DELETE/DISPLAY AUTHREC,
REFRESH SECURITY: a part of the Executor; the state is the engine's (``qm.security``), the
decisions are mqlite.security's. AUTHINFO objects go through DEFINE/ALTER/DELETE/DISPLAY like
every other object (the attribute table)."""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from mqlite.catalogue import message
from mqlite.engine.clock import mq_date_time
from mqlite.mqsc.base import Part
from mqlite.mqsc.result import ERROR, Result, SyntaxProblem, format_fields
from mqlite.objects.attrs import TABLE
from mqlite.objects.names import generic_match
from mqlite.security import chlauth
from mqlite.security.authority import OBJTYPES, AuthorityError, Entity, bits_of, names_of
from mqlite.security.chlauth import Partner, Rule
from mqlite.security.patterns import AddressPatternError, check_address_pattern, oam_match
from mqlite.security.state import UNKNOWN_ENTITY

if TYPE_CHECKING:
    from mqlite.mqsc.parser import Command

CHLAUTH_HEADER = message("AMQ8878I")
AUTHREC_HEADER = message("AMQ8864I")
_TYPE_PARAMS = {t: set(params) for t, params in chlauth.PARAMS.items()}
_COMMON = {"TYPE", "ACTION", "DESCR", "CUSTOM", "WARN"}
_SHOWN = {"BLOCKUSER": ("USERLIST",), "BLOCKADDR": ("ADDRLIST",),
          "ADDRESSMAP": ("ADDRESS", "USERSRC", "MCAUSER", "CHCKCLNT"),
          "USERMAP": ("CLNTUSER", "USERSRC", "ADDRESS", "MCAUSER", "CHCKCLNT"),
          "QMGRMAP": ("QMNAME", "USERSRC", "ADDRESS", "MCAUSER"),
          "SSLPEERMAP": ("SSLPEER", "SSLCERTI", "USERSRC", "ADDRESS", "MCAUSER", "CHCKCLNT")}


def _rule_items(rule: Rule) -> list[str]:
    items = [f"CHLAUTH({rule.profile})", f"TYPE({rule.type})", f"DESCR({rule.descr or ' '})",
             f"CUSTOM({rule.custom or ' '})"]
    for key in _SHOWN[rule.type]:
        value: Any = getattr(rule, key.lower())
        if isinstance(value, list):
            value = ",".join(value)
        items.append(f"{key}({value if value != '' else ' '})")
    items += [f"WARN({'YES' if rule.warn else 'NO'})", f"ALTDATE({rule.altdate})", f"ALTTIME({rule.alttime})"]
    return items


class SecurityCommands(Part):
    """The security commands of the MQSC executor."""

    def authtype(self, cmd: Command) -> int:
        """AUTHINFO's AUTHTYPE, required on DEFINE and ALTER."""
        p = cmd.param("AUTHTYPE")
        attr = TABLE.lookup("AUTHINFO", "AUTHTYPE")
        if p is None or p.value is None or attr is None or p.value.upper() not in attr.values:
            raise SyntaxProblem(cmd.text, p.text if p else cmd.text, "AUTHTYPE(CRLLDAP|OCSP|IDPWOS|IDPWLDAP) is required.")
        return attr.values[p.value.upper()]

    def run_set(self, cmd: Command) -> Result:
        if cmd.objtype == "CHLAUTH":
            return self._set_chlauth(cmd)
        if cmd.objtype == "AUTHREC":
            return self.set_authrec(cmd, delete=False)
        raise SyntaxProblem(cmd.text, cmd.text, f"SET {cmd.objtype} is not valid.")

    # --- SET CHLAUTH ------------------------------------------------------------------------------
    def _set_chlauth(self, cmd: Command) -> Result:
        profile = self.need_name(cmd)
        rtype = self.word(cmd, "TYPE", chlauth.TYPES, "")
        if not rtype:
            raise SyntaxProblem(cmd.text, cmd.text, "TYPE is required.")
        action = self.word(cmd, "ACTION", ("ADD", "REPLACE", "REMOVE", "REMOVEALL"), "ADD")
        allowed = _COMMON | _TYPE_PARAMS[rtype]
        for p in cmd.params:
            if p.keyword not in allowed:
                raise SyntaxProblem(cmd.text, p.text, f"{p.keyword} is not valid with TYPE({rtype}).")
            if p.value is None:
                raise SyntaxProblem(cmd.text, p.text, f"{p.keyword} needs a value.")
        if rtype == "BLOCKADDR" and profile != "*":
            return Result([message("AMQ8880E")],
                          ERROR)
        sec = self.qm.security
        if action == "REMOVEALL":
            gone = [r for r in sec.rules if r.profile == profile and r.type == rtype]
            for r in gone:
                sec.remove_rule(r)
            return Result([message("AMQ8877I")])
        rule = Rule(profile, rtype)
        for key in ("ADDRESS", "CLNTUSER", "QMNAME", "SSLPEER", "SSLCERTI", "MCAUSER", "DESCR", "CUSTOM"):
            given = cmd.param(key)
            if given is not None:
                setattr(rule, key.lower(), given.value)
        if rule.address:
            try:
                check_address_pattern(rule.address)
            except AddressPatternError:
                return Result([message("AMQ8885E", address=rule.address)], ERROR)
        if "*" in rule.clntuser:
            return Result([message("AMQ8886E", why="CLNTUSER cannot be generic")], ERROR)
        for key, attr in (("USERLIST", "userlist"), ("ADDRLIST", "addrlist")):
            given = cmd.param(key)
            if given is not None:
                setattr(rule, attr, [v for v in (given.items or []) if v])
        for a in rule.addrlist:
            try:
                check_address_pattern(a)
            except AddressPatternError:
                return Result([message("AMQ8885E", address=a)], ERROR)
        if rtype in ("ADDRESSMAP", "USERMAP", "QMGRMAP", "SSLPEERMAP"):
            rule.usersrc = self.word(cmd, "USERSRC", chlauth.USERSRC, "MAP")
            rule.chckclnt = self.word(cmd, "CHCKCLNT", chlauth.CHCKCLNT, "ASQMGR")
        rule.warn = self.word(cmd, "WARN", ("YES", "NO"), "NO") == "YES"
        need = {"ADDRESSMAP": "ADDRESS", "USERMAP": "CLNTUSER", "QMGRMAP": "QMNAME", "SSLPEERMAP": "SSLPEER",
                "BLOCKUSER": "USERLIST", "BLOCKADDR": "ADDRLIST"}[rtype]
        existing = sec.find_rule(rule.key())
        if action == "REMOVE":
            if existing is None:
                return Result([message("AMQ8884I")], ERROR)
            sec.remove_rule(existing)
            return Result([message("AMQ8877I")])
        if cmd.param(need) is None and rtype not in ("BLOCKUSER", "BLOCKADDR"):
            raise SyntaxProblem(cmd.text, cmd.text, f"{need} is required with TYPE({rtype}).")
        if rtype in ("BLOCKUSER", "BLOCKADDR"):
            if existing is not None and action == "ADD":
                # ADD to a list-type record extends its list, as MQ's does.
                if rtype == "BLOCKUSER":
                    rule.userlist = list(dict.fromkeys(existing.userlist + rule.userlist))
                else:
                    rule.addrlist = list(dict.fromkeys(existing.addrlist + rule.addrlist))
            if not (rule.userlist or rule.addrlist):
                raise SyntaxProblem(cmd.text, cmd.text, f"{need} is required with TYPE({rtype}).")
        elif existing is not None and action == "ADD":
            return Result([message("AMQ8883E")], ERROR)
        if rule.usersrc == "MAP" and rtype not in ("BLOCKUSER", "BLOCKADDR") and not rule.mcauser:
            return Result([message("AMQ8882E")], ERROR)
        d, t = mq_date_time(self.qm.clock.now())
        sec.put_rule(replace(rule, altdate=d, alttime=t))
        return Result([message("AMQ8877I")])

    # --- DISPLAY CHLAUTH --------------------------------------------------------------------------
    def display_chlauth(self, cmd: Command) -> Result:
        pattern = self.need_name(cmd)
        match = self.word(cmd, "MATCH", ("GENERIC", "ALL", "EXACT", "RUNCHECK"), "GENERIC")
        rtype = self.word(cmd, "TYPE", ("ALL",) + chlauth.TYPES, "ALL")
        allowed = {"MATCH", "TYPE", "ALL", "ADDRESS", "CLNTUSER", "QMNAME", "SSLPEER", "SSLCERTI", "WHERE",
                   "CHLTYPE"}
        for p in cmd.params:
            if p.keyword not in allowed:
                raise SyntaxProblem(cmd.text, p.text, f"{p.keyword} is not valid for DISPLAY CHLAUTH.")
        rules = self.qm.security.rules
        if match == "RUNCHECK":
            return self._runcheck(cmd, pattern)
        if match == "EXACT":
            shown = [r for r in rules if r.profile == pattern]
        elif match == "ALL":
            shown = [r for r in rules if generic_match(pattern, r.profile) or chlauth.star_match(r.profile, pattern)]
        else:
            shown = [r for r in rules if generic_match(pattern, r.profile)]
        shown = [r for r in shown if rtype == "ALL" or r.type == rtype]
        if not shown:
            return Result([message("AMQ8884I")], ERROR)
        lines: list[str] = []
        for r in sorted(shown, key=lambda r: (r.profile, chlauth.TYPES.index(r.type), r.key())):
            lines.append(CHLAUTH_HEADER)
            lines.extend(format_fields(_rule_items(r)))
        return Result(lines)

    def _runcheck(self, cmd: Command, channel: str) -> Result:
        """MATCH(RUNCHECK): the rule a channel starting with these details would meet."""
        if "*" in channel:
            raise SyntaxProblem(cmd.text, cmd.text, "The channel name cannot be generic with MATCH(RUNCHECK).")
        addr = cmd.param("ADDRESS")
        if addr is None or not addr.value:
            raise SyntaxProblem(cmd.text, cmd.text, "ADDRESS is required with MATCH(RUNCHECK).")
        user = cmd.param("CLNTUSER")
        qmname = cmd.param("QMNAME")
        peer = cmd.param("SSLPEER")
        certi = cmd.param("SSLCERTI")
        chl = self.qm.lookup("CHANNEL", channel)
        svrconn = user is not None or (chl is not None and chl.kind == "SVRCONN")
        partner = Partner(channel, svrconn, addr.value, user.value or "" if user else "",
                          qmname.value or "" if qmname else "", peer.value or "" if peer else "",
                          certi.value or "" if certi else "")
        sec = self.qm.security
        decision = chlauth.decide(sec.rules, partner, chl.get("MCAUSER", "") if chl is not None else "",
                                  sec.is_admin)
        if decision.rule is not None:
            lines = [CHLAUTH_HEADER, *format_fields(_rule_items(decision.rule))]
            return Result(lines)
        return Result([message("AMQ9783I", user=decision.user)])

    # --- SET / DELETE / DISPLAY AUTHREC -----------------------------------------------------------
    def _authrec_target(self, cmd: Command, need_profile: bool) -> tuple[str, str]:
        p = cmd.param("OBJTYPE")
        if p is None or p.value is None:
            raise SyntaxProblem(cmd.text, cmd.text, "OBJTYPE is required.")
        objtype = p.value.upper()
        if objtype not in OBJTYPES:
            raise SyntaxProblem(cmd.text, p.text, f"OBJTYPE({p.value}) is not valid.")
        prof = cmd.param("PROFILE")
        if objtype == "QMGR":
            profile = self.qm.name if prof is None or not prof.value else prof.value
        elif prof is None or not prof.value:
            if need_profile:
                raise SyntaxProblem(cmd.text, cmd.text, "PROFILE is required.")
            profile = ""
        else:
            profile = prof.value
        return objtype, profile

    def _entities(self, cmd: Command, required: bool) -> list[Entity]:
        out: list[Entity] = []
        for key, group in (("PRINCIPAL", False), ("GROUP", True)):
            p = cmd.param(key)
            if p is not None:
                out += [Entity(v, group) for v in (p.items or []) if v]
        if required and not out:
            raise SyntaxProblem(cmd.text, cmd.text, "PRINCIPAL or GROUP is required.")
        return out

    def set_authrec(self, cmd: Command, delete: bool) -> Result:
        allowed = {"PROFILE", "OBJTYPE", "PRINCIPAL", "GROUP"} | (set() if delete else {"AUTHADD", "AUTHRMV"})
        for p in cmd.params:
            if p.keyword not in allowed:
                raise SyntaxProblem(cmd.text, p.text, f"{p.keyword} is not valid here.")
        objtype, profile = self._authrec_target(cmd, need_profile=True)
        entities = self._entities(cmd, required=True)
        sec = self.qm.security
        if delete:
            deleted = [sec.delete_authrec(objtype, profile, e) for e in entities]   # every one, not the first
            if not any(deleted):
                return Result([message("AMQ8459I")], ERROR)
            return Result([message("AMQ8863I")])
        lists = {}
        for key in ("AUTHADD", "AUTHRMV"):
            given = cmd.param(key)
            try:
                lists[key] = bits_of(given.items or [], objtype) if given is not None else 0
            except AuthorityError as why:
                return Result([message("AMQ8886E", why=why)], ERROR)
        if cmd.param("AUTHADD") is None and cmd.param("AUTHRMV") is None:
            raise SyntaxProblem(cmd.text, cmd.text, "AUTHADD or AUTHRMV is required.")
        unknown = sec.first_unknown(entities)
        if unknown is not None:
            return Result([UNKNOWN_ENTITY, f"The entity {unknown.name} is not known to the system."], ERROR)
        for e in entities:
            sec.set_authrec(objtype, profile, e, lists["AUTHADD"], lists["AUTHRMV"])
        return Result([message("AMQ8862I")])

    def display_authrec(self, cmd: Command) -> Result:
        allowed = {"PROFILE", "OBJTYPE", "PRINCIPAL", "GROUP", "MATCH", "ALL", "AUTHLIST", "ENTITY", "ENTTYPE",
                   "SERVCOMP"}
        for p in cmd.params:
            if p.keyword not in allowed:
                raise SyntaxProblem(cmd.text, p.text, f"{p.keyword} is not valid for DISPLAY AUTHREC.")
        otp = cmd.param("OBJTYPE")
        objtype = otp.value.upper() if otp is not None and otp.value else None
        if objtype is not None and objtype not in OBJTYPES:
            raise SyntaxProblem(cmd.text, otp.text if otp else cmd.text, f"OBJTYPE({objtype}) is not valid.")
        prof = cmd.param("PROFILE")
        profile = prof.value if prof is not None and prof.value else None
        match = self.word(cmd, "MATCH", ("PROFILE", "MEMBERSHIP", "EXACT"), "PROFILE")
        entities = self._entities(cmd, required=False)
        sec = self.qm.security
        if match == "MEMBERSHIP" and entities:
            entities = entities + [Entity(g, True) for e in entities if not e.group
                                   for g in sec.principal(e.name).groups]
        rows = []
        for t, found, ent, bits in sec.records.matching(objtype):
            if profile is not None:
                if match == "EXACT" and found != profile:
                    continue
                if match != "EXACT" and not (found == profile or oam_match(found, profile)
                                             or generic_match(profile, found)):
                    continue
            if entities and ent not in entities:
                continue
            rows.append((t, found, ent, bits))
        if not rows:
            return Result([message("AMQ8459I")], ERROR)
        lines: list[str] = []
        for t, found, ent, bits in rows:
            lines.append(AUTHREC_HEADER)
            lines.extend(format_fields([f"PROFILE({found})", f"ENTITY({ent.name})",
                                        f"ENTTYPE({'GROUP' if ent.group else 'PRINCIPAL'})", f"OBJTYPE({t})",
                                        f"AUTHLIST({','.join(names_of(bits))})"]))
        return Result(lines)

    # --- REFRESH SECURITY -------------------------------------------------------------------------
    def refresh_security(self, cmd: Command) -> Result:
        kind = self.word(cmd, "TYPE", ("AUTHSERV", "CONNAUTH", "SSL", "ALL"), "AUTHSERV")
        for p in cmd.params:
            if p.keyword != "TYPE":
                raise SyntaxProblem(cmd.text, p.text, f"{p.keyword} is not valid for REFRESH SECURITY.")
        sec = self.qm.security
        sec.changed()
        if kind in ("CONNAUTH", "ALL"):
            problem = self.qm.authority.refresh_connauth()
            if problem:
                return Result([problem], ERROR)
        if kind in ("SSL", "ALL"):
            self.services.refresh_ssl()
        return Result([message("AMQ8560I")])
