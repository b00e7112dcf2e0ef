"""A subscription as the queue manager keeps it (mqlite.engine.pubsub makes, resumes and ends
them): what it matches, what its selector selects, and the identity context its copies carry."""
from __future__ import annotations

import functools
from dataclasses import asdict, dataclass, field
from typing import Any

from mqlite.cmq import CMQC as C
from mqlite.cmq.packedmd import identity_block
from mqlite.cmq.structs import MD, pad, text
from mqlite.props.selector import compile_selector, md_lookup
from mqlite.pubsub.matching import admin_blocked, char_match, topic_match


@functools.lru_cache(maxsize=1024)
def compiled(selector: str) -> Any:
    return compile_selector(selector)


def sub_options_valid(opts: int) -> bool:
    """MQ's rules for MQSUB's options (a call that breaks one fails with 2046, MQRC_OPTIONS_ERROR):
    at least one of MQSO_CREATE, MQSO_RESUME and MQSO_ALTER (any of them together is allowed:
    CREATE + ALTER makes the subscription or brings an existing one to what the MQSD says); one
    wildcard scheme; one of ANY_USERID and FIXED_USERID; NEW_PUBLICATIONS_ONLY neither with
    PUBLICATIONS_ON_REQUEST nor without CREATE; GROUP_SUB neither managed nor without
    SET_CORREL_ID."""
    if not opts & (C.MQSO_CREATE | C.MQSO_RESUME | C.MQSO_ALTER):
        return False
    for a, b in ((C.MQSO_WILDCARD_CHAR, C.MQSO_WILDCARD_TOPIC), (C.MQSO_ANY_USERID, C.MQSO_FIXED_USERID),
                 (C.MQSO_NEW_PUBLICATIONS_ONLY, C.MQSO_PUBLICATIONS_ON_REQUEST), (C.MQSO_GROUP_SUB, C.MQSO_MANAGED)):
        if opts & a and opts & b:
            return False
    if opts & C.MQSO_NEW_PUBLICATIONS_ONLY and not opts & C.MQSO_CREATE:
        return False
    return not (opts & C.MQSO_GROUP_SUB and not opts & C.MQSO_SET_CORREL_ID)


@dataclass
class Subscription:
    subid: str                      # hex of the 24-byte subscription identifier
    name: str                       # SubName ('' for an unnamed non-durable subscription)
    topic: str                      # the full topic string subscribed to (wildcards allowed)
    char_wildcards: bool            # MQSO_WILDCARD_CHAR: '*' and '?' rather than '#' and '+'
    queue: str                      # the destination queue and its queue manager
    qmgr: str
    managed: bool
    durable: bool
    correl_id: str                  # hex of the CorrelId every publication carries
    user_data: str
    options: int
    user: str                       # the subscriber's user id (SUBUSER): the copies' UserIdentifier
    owner: int = 0                  # the connection of a non-durable subscription
    created: float = 0.0
    publications: int = 0
    subtype: str = "API"            # API (MQSUB) or ADMIN (DEFINE SUB)
    topicobj: str = ""              # the topic object named when it was made
    last_msg: float = 0.0           # when the last publication was delivered
    resumed: float = 0.0            # when MQSUB last resumed it
    selector: str = ""              # SelectionString: only publications it selects are delivered
    expires_at: float | None = None   # SubExpiry: the subscription ends then
    expiry: int = C.MQEI_UNLIMITED  # the SubExpiry (tenths of a second) it was given, as MQSO_RESUME returns it
    priority: int = C.MQPRI_PRIORITY_AS_PUBLISHED   # PubPriority of the copies
    pub_acct: str = ""              # hex PubAccountingToken and PubApplIdentityData, when the
    pub_appl: str = ""              # subscription was made with MQSO_SET_IDENTITY_CONTEXT
    psprop: int = C.MQPSPROP_MSGPROP    # DEFINE SUB's PSPROP and SUBLEVEL (kept and shown)
    sublevel: int = 1
    # What every copy takes from it, worked out once (``copy_fields``, ``copy_block``) and dropped
    # when the owner, identity or CorrelId changes.
    _fields: dict[str, bytes] | None = field(default=None, init=False, repr=False, compare=False)
    _block: tuple[bytes, bytes] | None = field(default=None, init=False, repr=False, compare=False)

    def copy_fields(self) -> dict[str, bytes]:
        """What every copy's MQMD takes from the subscription: its SubCorrelId as CorrelId and its
        identity context (kept until ``set_owner`` or ``set_identity`` changes them)."""
        if self._fields is None:
            self._fields = {
                "CorrelId": bytes.fromhex(self.correl_id), "UserIdentifier": pad(self.user, 12),
                "AccountingToken": bytes.fromhex(self.pub_acct), "ApplIdentityData": pad(self.pub_appl, 32)}
        return self._fields

    def copy_block(self) -> tuple[bytes, bytes]:
        """``copy_fields`` as a copy's packed MQMD holds them: the CorrelId (24 bytes) and the
        identity context (``packedmd.identity_block``)."""
        if self._block is None:
            f = self.copy_fields()
            self._block = (f["CorrelId"][:24].ljust(24, b"\0"), identity_block(
                f["UserIdentifier"], f["AccountingToken"], f["ApplIdentityData"]))
        return self._block

    def set_owner(self, user: str) -> None:
        self.user = user
        self._fields = self._block = None

    def set_identity(self, sd: Any) -> None:
        """MQSD's PubAccountingToken/PubApplIdentityData with MQSO_SET_IDENTITY_CONTEXT, else the
        default context (MQ's rule on MQSO_CREATE and MQSO_ALTER)."""
        if sd.Options & C.MQSO_SET_IDENTITY_CONTEXT:
            self.pub_acct = bytes(sd.PubAccountingToken).ljust(32, b"\0")[:32].hex()
            self.pub_appl = text(sd.PubApplIdentityData)
        else:
            self.pub_acct = self.pub_appl = ""
        self._fields = self._block = None

    def alter_refusal(self, topic: str, opts: int, selector: str) -> int:
        """Why MQSO_ALTER cannot bring this subscription to what an MQSD asks (0 when it can):
        the topic and its wildcard scheme (2510), the durability (2509), the selector (2524) and
        whether its queue is managed (2533) stay as the subscription was made. ``topic`` is the
        one the MQSD names ('' when it names none)."""
        if topic != self.topic or bool(opts & C.MQSO_WILDCARD_CHAR) != self.char_wildcards:
            return C.MQRC_TOPIC_NOT_ALTERABLE
        if bool(opts & C.MQSO_DURABLE) != self.durable:
            return C.MQRC_DURABILITY_NOT_ALTERABLE
        if selector != self.selector:
            return C.MQRC_SELECTOR_NOT_ALTERABLE
        if bool(opts & C.MQSO_MANAGED) != self.managed:
            return C.MQRC_DEST_CLASS_NOT_ALTERABLE
        return 0

    def set_expiry(self, tenths: int, now: float) -> None:
        """SubExpiry (MQSUB) or EXPIRY (DEFINE SUB), in tenths of a second from ``now``."""
        self.expiry = tenths
        self.expires_at = None if tenths == C.MQEI_UNLIMITED else now + tenths / 10

    def set_correl_id(self, correl: bytes) -> None:
        self.correl_id = bytes(correl).ljust(24, b"\0")[:24].hex()
        self._fields = self._block = None

    def matches(self, topic: str) -> bool:
        if topic[:1] == "$" and admin_blocked(self.topic, topic):
            return False
        return char_match(self.topic, topic) if self.char_wildcards else topic_match(self.topic, topic)

    def selects(self, md: MD, props: dict[str, tuple[int, Any]]) -> bool:
        if not self.selector:
            return True
        return bool(compiled(self.selector)(md_lookup(md, props)) is True)

    def record(self) -> dict[str, Any]:
        rec = asdict(self)
        for transient in ("owner", "_fields", "_block"):
            rec.pop(transient)
        return rec
