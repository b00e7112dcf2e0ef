"""AUTHTYPE(IDPWLDAP): checking a user id and password against an LDAP server, as MQ does, with
``ldap3`` (pure Python; pinned in pyproject's ``ldap`` extra).

The queue manager binds as LDAPUSER/LDAPPWD (anonymously if blank) to the server CONNAME names
(SECCOMM(YES): LDAPS), finds the user's entry under BASEDNU (a user id with ``=`` is taken as the
entry's DN; otherwise it is matched against USRFIELD, or SHORTUSR when USRFIELD is blank, among
entries of class CLASSUSR), then binds as that entry with the password: success authenticates.
The connection then runs as the entry's SHORTUSR value. With AUTHORMD(SEARCHGRP) the user's groups
are the GRPFIELD values of the CLASSGRP entries under BASEDNG whose FINDGRP names the user's DN;
they count for authority as OS groups do. An empty password never authenticates (an LDAP bind
with one is anonymous)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class LdapUser:
    short: str
    groups: tuple[str, ...]


def _server(info: dict[str, Any]) -> Any:
    import ldap3
    conname = info["CONNAME"].split(",")[0].strip()
    host, _, rest = conname.partition("(")
    port = int(rest.rstrip(")")) if rest else (636 if info["SECCOMM"] == 1 else 389)
    return ldap3.Server(host, port=port, use_ssl=info["SECCOMM"] == 1, connect_timeout=5)


def authenticate(info: dict[str, Any], user: str, password: str) -> LdapUser | None:
    """The user's short name and groups if the password is right, else None."""
    import ldap3
    from ldap3.core.exceptions import LDAPException
    from ldap3.utils.conv import escape_filter_chars
    if not password:
        return None
    try:
        server = _server(info)
        admin = ldap3.Connection(server, user=info["LDAPUSER"] or None, password=info["LDAPPWD"] or None,
                                 receive_timeout=5, auto_bind=True)
        field = info["SHORTUSR"] or "uid"
        if "=" in user:
            admin.search(user, f"(objectClass={info['CLASSUSR']})", search_scope=ldap3.BASE, attributes=[field])
        else:
            match = info["USRFIELD"] or field
            admin.search(info["BASEDNU"], f"(&(objectClass={info['CLASSUSR']})({match}={escape_filter_chars(user)}))",
                         search_scope=ldap3.SUBTREE, attributes=[field])
        if len(admin.entries) != 1:
            return None
        entry = admin.entries[0]
        dn = entry.entry_dn
        check = ldap3.Connection(server, user=dn, password=password, receive_timeout=5)
        if not check.bind():
            return None
        check.unbind()
        values = entry[field].values if field in entry else []
        short = str(values[0]) if values else user
        groups: list[str] = []
        if info["AUTHORMD"] in (1, 3) and info["BASEDNG"]:
            gfield = info["GRPFIELD"] or "cn"
            find = info["FINDGRP"] or "member"
            admin.search(info["BASEDNG"], f"(&(objectClass={info['CLASSGRP']})({find}={escape_filter_chars(dn)}))",
                         search_scope=ldap3.SUBTREE, attributes=[gfield])
            groups = [str(v) for e in admin.entries for v in (e[gfield].values if gfield in e else [])]
        admin.unbind()
        return LdapUser(short[:12], tuple(groups))
    except (LDAPException, OSError, ValueError):
        return None
