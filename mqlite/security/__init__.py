"""Security: identities, connection authentication (CONNAUTH), channel authentication (CHLAUTH),
object authority (the OAM). Decisions are pure functions over plain data; the queue manager's
state is :class:`~mqlite.security.state.SecurityState`. See docs/security.md."""
from mqlite.security.authority import Entity, Records, bits_of, effective, names_of
from mqlite.security.chlauth import Decision, Partner, Rule, decide
from mqlite.security.connauth import Outcome, check, level_for
from mqlite.security.state import SecurityState
from mqlite.security.users import Principal, hash_password, verify_password

__all__ = [
           "Decision",
           "Entity",
           "Outcome",
           "Partner",
           "Principal",
           "Records",
           "Rule",
           "SecurityState",
           "bits_of",
           "check",
           "decide",
           "effective",
           "hash_password",
           "level_for",
           "names_of",
           "verify_password",
]
