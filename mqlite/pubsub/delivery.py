"""What happens to a publication when one of its copies cannot be put to a subscriber's queue (the
queue is full, put-inhibited, gone, or the copy longer than its MAXMSGL): MQ's topic attributes
PMSGDLV (persistent publications) and NPMSGDLV (nonpersistent ones), resolved up the topic tree,
and USEDLQ. Pure rules; the engine (mqlite.engine.pubsub) applies them.

1. With USEDLQ(YES) and a DEADQ, the copy goes to the dead-letter queue behind an MQDLH whose
   Reason is why its own queue refused it; a copy on the dead-letter queue counts as delivered.
2. Otherwise the copy is undeliverable, and the delivery rule decides:
   - ALL: the publication must reach every subscriber: it fails as a whole;
   - ALLDUR: it must reach every durable subscriber: it fails as a whole when the copy was a
     durable subscription's, and a non-durable subscriber simply misses it;
   - ALLAVAIL: every subscriber that can take it gets it; the others miss it.
3. A publication that fails as a whole reaches no subscriber (its copies go in one unit of work,
   inside the publisher's own under syncpoint, and are backed out) and the MQPUT or MQPUT1 fails
   with MQRC_PUBLICATION_FAILURE (2502).
"""
from __future__ import annotations

from mqlite.cmq import CMQC


def rule_attr(persistent: bool) -> str:
    """The topic attribute that holds a publication's delivery rule."""
    return "PMSGDLV" if persistent else "NPMSGDLV"


def dead_letter_first(usedlq: int, deadq: str) -> bool:
    """Rule 1: an undeliverable copy is offered to the dead-letter queue (USEDLQ(YES) and a DEADQ;
    USEDLQ(YES) with no DEADQ is as NO)."""
    return usedlq == CMQC.MQUSEDLQ_YES and bool(deadq)


def fails_publication(rule: int, durable: bool) -> bool:
    """Rule 2: whether a copy that could not be delivered (nor dead-lettered) fails the whole
    publication."""
    if rule == CMQC.MQDLV_ALL:
        return True
    if rule == CMQC.MQDLV_ALL_DUR:
        return durable
    return False


def all_or_none(rule: int) -> bool:
    """Whether the copies of a publication must go in one unit of work (rule 3): any rule under
    which one copy's failure can fail the others."""
    return rule in (CMQC.MQDLV_ALL, CMQC.MQDLV_ALL_DUR)
