"""CHLAUTH, CONNAUTH and OAM decisions, a rule each, as MQ documents them."""
from __future__ import annotations

import pytest

from mqlite.cmq import CMQZC as Z
from mqlite.security.authority import AuthorityError, Entity, Records, bits_of, effective, names_of
from mqlite.security.chlauth import Partner, Rule, decide, dn_match
from mqlite.security.connauth import check, level_for
from mqlite.security.state import DEFAULT_RULES
from mqlite.security.users import hash_password, verify_password

ADMINS = {"mqm", "root"}


def is_admin(u: str) -> bool:
    return u in ADMINS


def client(channel: str, user: str = "app", address: str = "10.1.2.3") -> Partner:
    return Partner(channel, True, address, user)


def test_default_rules_block_system_channels_and_admins_but_allow_the_admin_channel():
    rules = list(DEFAULT_RULES)
    d = decide(rules, client("SYSTEM.DEF.SVRCONN"), "", is_admin)
    assert not d.allowed and d.msgid == "AMQ9777E" and d.rule.profile == "SYSTEM.*"
    d = decide(rules, client("APP.SVRCONN", "mqm"), "", is_admin)
    assert not d.allowed and d.msgid == "AMQ9776E"
    assert decide(rules, client("APP.SVRCONN", "app"), "", is_admin).allowed
    # SYSTEM.ADMIN.SVRCONN is more specific than SYSTEM.*: allowed for non-administrators.
    d = decide(rules, client("SYSTEM.ADMIN.SVRCONN", "app"), "", is_admin)
    assert d.allowed and d.user == "app"
    # BLOCKUSER applies to client channels only; a receiver runs as MCAUSER (blank: the queue manager).
    assert decide(rules, Partner("TO.QM2", False, "10.1.2.3", qmgr="QM1"), "", is_admin).allowed


def test_a_more_specific_blockuser_overrides_mqadmin():
    rules = list(DEFAULT_RULES) + [Rule("DEV.ADMIN.SVRCONN", "BLOCKUSER", userlist=["nobody"])]
    assert decide(rules, client("DEV.ADMIN.SVRCONN", "mqm"), "", is_admin).allowed
    assert not decide(rules, client("DEV.ADMIN.SVRCONN", "nobody"), "", is_admin).allowed
    assert not decide(rules, client("DEV.APP.SVRCONN", "mqm"), "", is_admin).allowed


def test_mapping_precedence_profile_then_kind_then_value():
    rules = [Rule("APP.*", "ADDRESSMAP", address="*", usersrc="MAP", mcauser="wide"),
             Rule("APP.CHL", "ADDRESSMAP", address="*", usersrc="MAP", mcauser="narrow"),
             Rule("APP.CHL", "USERMAP", clntuser="fred", usersrc="MAP", mcauser="fredmap"),
             Rule("APP.CHL", "ADDRESSMAP", address="10.1.2.3", usersrc="MAP", mcauser="exact"),
             Rule("APP.CHL", "ADDRESSMAP", address="10.1.*", usersrc="NOACCESS")]
    assert decide(rules, client("APP.OTHER"), "", is_admin).user == "wide"
    assert decide(rules, client("APP.CHL", "fred"), "", is_admin).user == "fredmap"   # USERMAP before ADDRESSMAP
    assert decide(rules, client("APP.CHL", "bob"), "", is_admin).user == "exact"      # exact address first
    assert not decide(rules, client("APP.CHL", "bob", "10.1.9.9"), "", is_admin).allowed
    assert decide(rules, client("APP.CHL", "bob", "192.168.0.1"), "", is_admin).user == "narrow"


def test_usersrc_channel_keeps_the_user_and_the_channel_mcauser_applies_unless_mapped():
    rules = [Rule("A", "ADDRESSMAP", address="*", usersrc="CHANNEL")]
    assert decide(rules, client("A", "app"), "", is_admin).user == "app"
    assert decide(rules, client("A", "app"), "chluser", is_admin).user == "chluser"
    rules = [Rule("A", "ADDRESSMAP", address="*", usersrc="MAP", mcauser="mapped")]
    assert decide(rules, client("A", "app"), "chluser", is_admin).user == "mapped"
    # Authenticated and adopted (ADOPTCTX(YES)): the adopted user replaces the channel's MCAUSER,
    # and a mapping rule's MCAUSER replaces the adopted user (MQ's order of precedence).
    assert decide(rules, client("A", "adopted"), "chluser", is_admin, run_as="adopted", adopted=True).user == "mapped"
    rules = [Rule("A", "ADDRESSMAP", address="*", usersrc="CHANNEL")]
    assert decide(rules, client("A", "adopted"), "chluser", is_admin, run_as="adopted", adopted=True).user == "adopted"
    assert decide([], client("A", "adopted"), "chluser", is_admin, run_as="adopted", adopted=True).user == "adopted"


def test_blockaddr_and_warn():
    rules = [Rule("*", "BLOCKADDR", addrlist=["10.9.*"])]
    d = decide(rules, client("ANY", address="10.9.1.1"), "", is_admin)
    assert not d.allowed and d.msgid == "AMQ9777E"
    rules = [Rule("*", "BLOCKADDR", addrlist=["10.9.*"], warn=True)]
    d = decide(rules, client("ANY", address="10.9.1.1"), "", is_admin)
    assert d.allowed and d.warnings


def test_qmgrmap_and_sslpeermap():
    rules = [Rule("TO.*", "QMGRMAP", qmname="PARTNER*", usersrc="MAP", mcauser="partner"),
             Rule("TO.*", "QMGRMAP", qmname="EVIL", usersrc="NOACCESS")]
    assert decide(rules, Partner("TO.ME", False, "1.2.3.4", qmgr="PARTNER1"), "", is_admin).user == "partner"
    assert not decide(rules, Partner("TO.ME", False, "1.2.3.4", qmgr="EVIL"), "", is_admin).allowed
    rules = [Rule("TLS.*", "SSLPEERMAP", sslpeer="CN=alice,O=Acme", usersrc="MAP", mcauser="alice")]
    p = Partner("TLS.CHL", True, "1.2.3.4", "x", sslpeer="CN=Alice, OU=Dev, O=ACME, C=GB")
    assert decide(rules, p, "", is_admin).user == "alice"
    assert dn_match("CN=*,OU=Dev", "CN=bob,OU=Dev,O=x") and not dn_match("CN=bob", "CN=bobby")


def test_connauth_levels():
    ok = lambda u, p: (u, p) == ("app", "pw")
    adm = lambda u: u == "root"
    assert check("OPTIONAL", False, "app", None, None, "x", adm, ok).ok
    assert not check("REQUIRED", False, "app", None, None, "x", adm, ok).ok
    assert check("REQDADM", False, "app", None, None, "x", adm, ok).ok
    out = check("REQDADM", False, "root", None, None, "x", adm, ok)
    assert not out.ok and [m for m, _t in out.log] == ["AMQ5540E", "AMQ5541E"]
    out = check("OPTIONAL", False, "app", "app", "bad", "x", adm, ok)
    assert not out.ok and out.log[0][0] == "AMQ5534E"
    assert check("NONE", False, "app", "app", "bad", "x", adm, ok).ok
    assert check("REQUIRED", True, "who", "app", "pw", "x", adm, ok).user == "app"
    assert check("REQUIRED", False, "who", "app", "pw", "x", adm, ok).user == "who"
    assert level_for("OPTIONAL", "REQUIRED") == "REQUIRED" and level_for("NONE", "REQUIRED") == "NONE"
    assert level_for("REQUIRED", "REQDADM") == "REQUIRED" and level_for("OPTIONAL", "ASQMGR") == "OPTIONAL"


def test_passwords_are_salted_slow_hashes():
    h1, h2 = hash_password("passw0rd"), hash_password("passw0rd")
    assert h1 != h2 and "passw0rd" not in h1 and h1.startswith("scrypt$")
    assert verify_password(h1, "passw0rd") and not verify_password(h1, "password")
    assert not verify_password(None, "passw0rd")           # unknown user: the same answer


def test_effective_authority_most_specific_profile_per_entity_united_over_entities():
    r = Records()
    r.set("QUEUE", "AB.*", Entity("fred", False), Z.MQZAO_OUTPUT, 0)
    r.set("QUEUE", "AB.C*", Entity("fred", False), Z.MQZAO_INPUT, 0)
    assert effective(r, "QUEUE", "AB.CD", [Entity("fred", False)]) == Z.MQZAO_INPUT   # MQ's example
    r.set("QUEUE", "AB.**", Entity("grp", True), Z.MQZAO_BROWSE, 0)
    got = effective(r, "QUEUE", "AB.CD", [Entity("fred", False), Entity("grp", True)])
    assert got == Z.MQZAO_INPUT | Z.MQZAO_BROWSE
    assert effective(r, "QMGR", "AB.CD", [Entity("fred", False)]) == 0


def test_authority_names():
    assert bits_of(["put", "GET", "browse", "inq"], "QUEUE") == (Z.MQZAO_OUTPUT | Z.MQZAO_INPUT | Z.MQZAO_BROWSE
                                                                 | Z.MQZAO_INQUIRE)
    assert names_of(bits_of(["ALLMQI"], "QUEUE")) == ["BROWSE", "GET", "INQ", "PASSALL", "PASSID", "PUT", "SET",
                                                       "SETALL", "SETID"]
    assert "CONNECT" in names_of(bits_of(["ALL"], "QMGR")) and names_of(0) == ["NONE"]
    with pytest.raises(AuthorityError):
        bits_of(["connect"], "QUEUE")
    with pytest.raises(AuthorityError):
        bits_of(["fly"], "QUEUE")
