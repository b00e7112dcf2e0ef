"""Channel authentication records (CHLAUTH) and the decision they make when a channel starts.

``decide`` reads like MQ's rules (docs/security.md):

1. BLOCKADDR: a connection from a listed address is refused, whatever the channel (AMQ9777E).
2. Of the mapping rules (SSLPEERMAP, USERMAP, QMGRMAP, ADDRESSMAP) whose channel profile matches
   and whose identity matches, the one with the most specific channel profile; then by kind,
   SSLPEERMAP, then USERMAP (server-connection channels only) or QMGRMAP (the others), then
   ADDRESSMAP; then the most specific identity value. Every mapping rule's ADDRESS must match too.
   USERSRC(NOACCESS) refuses (AMQ9777E); MAP runs the channel as the rule's MCAUSER; CHANNEL keeps
   the user the channel flowed.
3. The channel's own MCAUSER, if set, replaces the user; a user that CONNAUTH authenticated with
   ADOPTCTX(YES) replaces that; a rule's USERSRC(MAP) MCAUSER replaces all of them (MQ's order of
   precedence in "Determining which user is used for authorization": asserted user, channel
   MCAUSER, ADOPTCTX, CHLAUTH MCAUSER). CONNAUTH adopts early (MQ's ChlauthEarlyAdopt default), so
   the authenticated user is the CLNTUSER a USERMAP rule matches.
4. BLOCKUSER (server-connection channels): the rule of the most specific matching profile lists
   users refused; ``*MQADMIN`` stands for any administrator (AMQ9776E).

WARN(YES) rules log what they would have refused and let the channel run.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field

from mqlite.cmq import CMQCFC
from mqlite.security.patterns import address_match, address_specificity, star_match, star_specificity

TYPES = ("BLOCKUSER", "BLOCKADDR", "SSLPEERMAP", "ADDRESSMAP", "USERMAP", "QMGRMAP")
USERSRC = ("MAP", "NOACCESS", "CHANNEL")
# SET CHLAUTH: the parameters each TYPE takes besides TYPE, ACTION, DESCR, CUSTOM and WARN, in the
# order MQ writes them.
PARAMS = {"BLOCKUSER": ("USERLIST",), "BLOCKADDR": ("ADDRLIST",),
          "ADDRESSMAP": ("ADDRESS", "USERSRC", "MCAUSER", "CHCKCLNT"),
          "USERMAP": ("CLNTUSER", "ADDRESS", "USERSRC", "MCAUSER", "CHCKCLNT"),
          "QMGRMAP": ("QMNAME", "ADDRESS", "USERSRC", "MCAUSER"),
          "SSLPEERMAP": ("SSLPEER", "SSLCERTI", "ADDRESS", "USERSRC", "MCAUSER", "CHCKCLNT")}
CHCKCLNT = ("ASQMGR", "REQUIRED", "REQDADM")
_KIND_ORDER = {"SSLPEERMAP": 0, "USERMAP": 1, "QMGRMAP": 1, "ADDRESSMAP": 2}


@dataclass
class Rule:
    profile: str
    type: str
    address: str = ""
    clntuser: str = ""
    qmname: str = ""
    sslpeer: str = ""
    sslcerti: str = ""
    usersrc: str = "MAP"
    mcauser: str = ""
    userlist: list[str] = field(default_factory=list)
    addrlist: list[str] = field(default_factory=list)
    chckclnt: str = "ASQMGR"
    warn: bool = False
    descr: str = ""
    custom: str = ""
    altdate: str = ""
    alttime: str = ""

    def key(self) -> str:
        """What identifies the rule among its profile's: SET ... ACTION(REPLACE/REMOVE) names it so."""
        ident = {"SSLPEERMAP": self.sslpeer + "\x00" + self.sslcerti, "USERMAP": self.clntuser,
                 "QMGRMAP": self.qmname, "ADDRESSMAP": self.address}.get(self.type, "")
        if self.type in ("SSLPEERMAP", "USERMAP", "QMGRMAP") and self.address:
            ident += "\x00" + self.address
        return f"{self.profile}\x00{self.type}\x00{ident}"

    def to_record(self) -> dict[str, object]:
        return asdict(self)

    @classmethod
    def from_record(cls, rec: dict[str, object]) -> Rule:
        return cls(**rec)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Partner:
    """What is known about the other end when a channel starts."""
    channel: str
    svrconn: bool                 # a client (server-connection channel) rather than a queue manager
    address: str
    user: str = ""                # the user the client flowed (asserted or authenticated)
    qmgr: str = ""                # the remote queue manager's name (message channels)
    sslpeer: str = ""             # the certificate's subject DN, if TLS
    sslcerti: str = ""            # its issuer's DN


@dataclass(frozen=True)
class Decision:
    allowed: bool
    user: str                     # the user the channel runs as (MCAUSER)
    rule: Rule | None = None      # the rule that decided (None: no rule matched)
    msgid: str = ""               # AMQ9776E (user blocked) or AMQ9777E (channel blocked)
    why: str = ""
    chckclnt: str = "ASQMGR"
    warnings: tuple[str, ...] = ()


def blocked_qualifier(d: Decision) -> int:
    """The ReasonQualifier of the Channel Blocked event a refusal raises: the address listed by
    BLOCKADDR, a user listed by BLOCKUSER, or a mapping to no access (USERSRC(NOACCESS))."""
    if d.rule is not None and d.rule.type == "BLOCKADDR":
        return CMQCFC.MQRQ_CHANNEL_BLOCKED_ADDRESS
    if d.msgid == "AMQ9776E":
        return CMQCFC.MQRQ_CHANNEL_BLOCKED_USERID
    return CMQCFC.MQRQ_CHANNEL_BLOCKED_NOACCESS


def _identity_matches(rule: Rule, p: Partner) -> bool:
    if rule.address and not address_match(rule.address, p.address):
        return False
    if rule.type == "ADDRESSMAP":
        return True
    if rule.type == "USERMAP":
        return p.svrconn and rule.clntuser == p.user
    if rule.type == "QMGRMAP":
        return not p.svrconn and star_match(rule.qmname, p.qmgr)
    if rule.type == "SSLPEERMAP":
        return bool(p.sslpeer) and dn_match(rule.sslpeer, p.sslpeer) and \
            (not rule.sslcerti or dn_match(rule.sslcerti, p.sslcerti))
    return False


def _identity_specificity(rule: Rule) -> tuple[object, ...]:
    value = {"QMGRMAP": rule.qmname, "SSLPEERMAP": rule.sslpeer}.get(rule.type, "")
    return star_specificity(value) if value else (), address_specificity(rule.address or "*")


def mapping_rule(rules: list[Rule], p: Partner) -> Rule | None:
    """The mapping rule that applies to the partner (step 2), or None."""
    candidates = [r for r in rules if r.type in _KIND_ORDER and star_match(r.profile, p.channel)
                  and _identity_matches(r, p)]
    if not candidates:
        return None
    return min(candidates, key=lambda r: (star_specificity(r.profile), _KIND_ORDER[r.type],
                                          _identity_specificity(r)))


def block_rule(rules: list[Rule], channel: str) -> Rule | None:
    """The BLOCKUSER rule of the most specific profile matching the channel (step 4)."""
    candidates = [r for r in rules if r.type == "BLOCKUSER" and star_match(r.profile, channel)]
    return min(candidates, key=lambda r: star_specificity(r.profile)) if candidates else None


def decide(rules: list[Rule], p: Partner, chl_mcauser: str, is_admin: Callable[[str], bool],
           run_as: str = "", adopted: bool = False) -> Decision:
    """Whether the channel may start and as which user (see the module's docstring). ``run_as``:
    the user a client connection runs as without an MCAUSER (by default the user it flowed);
    ``adopted``: that user was authenticated with ADOPTCTX(YES), and replaces the channel's MCAUSER
    (a mapping rule's MCAUSER still replaces it)."""
    warnings: list[str] = []
    # Rule 1: BLOCKADDR.
    for r in rules:
        if r.type == "BLOCKADDR" and any(address_match(a, p.address) for a in r.addrlist):
            why = f"the address {p.address} is blocked"
            if not r.warn:
                return Decision(False, "", r, "AMQ9777E", why)
            warnings.append(why)
    # Rule 2: the mapping rule.
    user = (run_as or p.user) if p.svrconn else ""
    chckclnt = "ASQMGR"
    rule = mapping_rule(rules, p)
    mapped = False
    if rule is not None:
        chckclnt = rule.chckclnt if rule.type in ("ADDRESSMAP", "USERMAP", "SSLPEERMAP") else "ASQMGR"
        if rule.usersrc == "NOACCESS":
            why = f"channel {p.channel} from {p.address} matched a NOACCESS rule ({rule.type})"
            if not rule.warn:
                return Decision(False, "", rule, "AMQ9777E", why, chckclnt, tuple(warnings))
            warnings.append(why)
        elif rule.usersrc == "MAP":
            user, mapped = rule.mcauser, True
    # Rule 3: the channel's MCAUSER, then an adopted (authenticated) user, unless a rule mapped it.
    if not mapped:
        user = run_as if adopted else (chl_mcauser or user)
    # Rule 4: BLOCKUSER (server-connection channels).
    if p.svrconn:
        block = block_rule(rules, p.channel)
        if block is not None:
            listed = {u.lower() for u in block.userlist}
            hit = user.lower() in listed or ("*mqadmin" in listed and is_admin(user))
            if hit:
                why = f"user '{user}' is blocked on channel {p.channel}"
                if not block.warn:
                    return Decision(False, user, block, "AMQ9776E", why, chckclnt, tuple(warnings))
                warnings.append(why)
    return Decision(True, user, rule, chckclnt=chckclnt, warnings=tuple(warnings))


def _dn_parts(dn: str) -> list[tuple[str, str]]:
    out = []
    for part in dn.replace(";", ",").split(","):
        k, _, v = part.strip().partition("=")
        if k:
            out.append((k.strip().upper(), v.strip()))
    return out


def dn_match(pattern: str, dn: str) -> bool:
    """MQ's SSLPEER rule: each attribute the pattern names must be in the DN with a matching value
    (``*`` generic at either end, case-insensitive); attributes the pattern does not name are not
    checked. Repeated attributes (OU) must appear in the same order."""
    have = _dn_parts(dn)
    pos: dict[str, int] = {}
    for key, want in _dn_parts(pattern):
        values = [v for k, v in have if k == key]
        i = pos.get(key, 0)
        if i >= len(values) or not star_match(want.upper(), values[i].upper()):
            return False
        pos[key] = i + 1
    return True
