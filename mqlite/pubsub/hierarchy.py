"""Publish/subscribe hierarchies, without I/O (docs/pubsub.md, "Hierarchies").

A child names its parent with ALTER QMGR PARENT; the two are joined over ordinary channels (a
transmission queue or queue-manager alias named after each other). They talk through control
messages on each other's SYSTEM.INTER.QMGR.CONTROL:

- ``join`` (child to parent, when PARENT is set and at every start, with the child's proxy
  subscriptions): the parent records the child and answers ``welcome`` (with its ancestors) or
  ``refuse`` (the child is the parent's own parent, or an ancestor of it: a loop). The relation
  is STARTING until the answer comes, then ACTIVE or REFUSED (ERROR: the parent cannot be reached
  from here: no transmission queue or alias leads to it);
- ``proxies``: a queue manager's whole set of proxy subscriptions for the relative it is sent to;
- ``hello`` (parent to each child at start): the child sends its set again (proxies held from
  others are not kept across a restart);
- ``leave`` (child to parent, when PARENT changes): the parent forgets the child.

The proxy subscriptions a queue manager sends a relative are the topic strings of its own
subscriptions (those not kept local by SUBSCOPE(QMGR) or MQSO_SCOPE_QMGR) and those every *other*
relative sent it: a tree has no loops, so a publication follows the proxies toward its subscribers
and is never sent back to the relative it came from. A publication (not kept local by
PUBSCOPE(QMGR) or MQPMO_SCOPE_QMGR) goes to each relative, other than the one it came from, that
holds a matching proxy (:func:`forward_targets`).
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mqlite.pubsub.matching import char_match, topic_match

CONTROLQ = "SYSTEM.INTER.QMGR.CONTROL"
STARTING, ACTIVE, ERROR, REFUSED = "STARTING", "ACTIVE", "ERROR", "REFUSED"
_DOWN = (ERROR, REFUSED)
JOIN, WELCOME, REFUSE, PROXIES, HELLO, LEAVE = "join", "welcome", "refuse", "proxies", "hello", "leave"
_RESEND = frozenset({("", True)})     # "sent, but what is not known": differs from any set wanted

Proxy = tuple[str, bool]              # (topic string, character-based wildcards)


def matches(proxy: Proxy, topic: str) -> bool:
    pattern, char = proxy
    return char_match(pattern, topic) if char else topic_match(pattern, topic)


@dataclass
class Relations:
    """This queue manager's place in a hierarchy: its parent and children, the proxies each holds
    here and those sent to each."""
    parent: str = ""
    parent_status: str = STARTING                                 # STARTING, ACTIVE, ERROR, REFUSED
    children: set[str] = field(default_factory=set)               # (a child is ACTIVE once it joined)
    held: dict[str, frozenset[Proxy]] = field(default_factory=dict)   # proxies from each relative
    sent: dict[str, frozenset[Proxy]] = field(default_factory=dict)   # proxies sent to each relative
    ancestors: tuple[str, ...] = ()                                   # the parent's chain, nearest first

    def relatives(self) -> list[str]:
        """The parent (unless the relation is down) and the children."""
        up = [self.parent] if self.parent and self.parent not in self.children and self.parent_status not in _DOWN else []
        return up + sorted(self.children)

    def wanted(self, own: Iterable[Proxy]) -> dict[str, frozenset[Proxy]]:
        """The set each relative should hold from here: this queue manager's own, and what every
        other relative holds here."""
        mine = frozenset(own)
        return {r: mine.union(*(s for o, s in self.held.items() if o != r)) for r in self.relatives()}

    def outgoing(self, own: Iterable[Proxy], me: str) -> list[tuple[str, dict[str, Any]]]:
        """``proxies`` messages for each relative whose set differs from what was sent it (to a
        child with this queue manager's ancestors, so that every queue manager knows its own)."""
        out = []
        for r, now in self.wanted(own).items():
            if self.sent.get(r) != now:
                self.sent[r] = now
                above = (me, *self.ancestors) if r != self.parent else ()
                out.append((r, message(PROXIES, me, proxies=now, ancestors=above)))
        return out

    def set_ancestors(self, ancestors: tuple[str, ...]) -> None:
        if ancestors != self.ancestors:
            self.ancestors = ancestors
            for child in self.children:
                self.sent.pop(child, None)     # they learn the new chain with their next set

    def forget(self, relative: str) -> None:
        self.held.pop(relative, None)
        self.sent.pop(relative, None)
        self.children.discard(relative)

    def resend(self) -> None:
        self.sent = {r: _RESEND for r in self.relatives()}


def forward_targets(rel: Relations, topic: str, came_from: str) -> list[str]:
    """The relatives a publication on ``topic`` goes to from here (``came_from``: the relative it
    arrived from, '' when published here)."""
    return [r for r in rel.relatives() if r != came_from and any(matches(p, topic) for p in rel.held.get(r, ()))]


def message(kind: str, sender: str, proxies: Iterable[Proxy] = (), ancestors: Iterable[str] = ()) -> dict[str, Any]:
    return {"type": kind, "from": sender, "proxies": sorted([t, c] for t, c in proxies),
            "ancestors": list(ancestors)}


def encode(msg: Mapping[str, Any]) -> bytes:
    return json.dumps(msg, sort_keys=True).encode("utf-8")


def decode(data: bytes) -> dict[str, Any]:
    """A control message; ValueError if it is not one."""
    try:
        msg = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"not a hierarchy control message: {e}") from None
    if not isinstance(msg, dict) or msg.get("type") not in (JOIN, WELCOME, REFUSE, PROXIES, HELLO, LEAVE) \
            or not isinstance(msg.get("from"), str) or not msg["from"]:
        raise ValueError("not a hierarchy control message")
    msg["proxies"] = frozenset((str(t), bool(c)) for t, c in msg.get("proxies", []))
    msg["ancestors"] = tuple(str(a) for a in msg.get("ancestors", []))
    return msg


def receive(rel: Relations, me: str, msg: Mapping[str, Any]) -> tuple[list[tuple[str, dict[str, Any]]], str]:
    """Apply a control message from a relative: (the answers to send, a line for the error log or
    ''). Proxies a relative sends are taken only from a parent or a child."""
    sender, kind = msg["from"], msg["type"]
    out: list[tuple[str, dict[str, Any]]] = []
    if kind == JOIN:
        if sender == rel.parent or sender in rel.ancestors or sender == me:
            return [(sender, message(REFUSE, me))], (
                f"{sender} asked to join as a child of {me}, which would make a loop in the hierarchy.")
        rel.children.add(sender)
        rel.held[sender] = msg["proxies"]
        rel.sent.pop(sender, None)            # it gets our set after the welcome
        return [(sender, message(WELCOME, me, ancestors=(me, *rel.ancestors)))], ""
    if kind == LEAVE:
        if sender in rel.children:
            rel.forget(sender)
        return out, ""
    if sender not in rel.relatives():
        return out, f"A {kind} control message came from {sender}, which is not a parent or child of {me}."
    if kind == WELCOME and sender == rel.parent:
        if me in msg["ancestors"]:
            rel.parent_status = REFUSED
            return out, f"{me} cannot join {sender}: {me} is already above it in the hierarchy."
        rel.parent_status = ACTIVE
        rel.set_ancestors(msg["ancestors"])
    elif kind == REFUSE and sender == rel.parent:
        rel.parent_status = REFUSED
        rel.held.pop(sender, None)
        return out, f"{sender} refused {me} as a child: it would make a loop in the hierarchy."
    elif kind == PROXIES:
        rel.held[sender] = msg["proxies"]
        if sender == rel.parent and msg["ancestors"]:
            rel.set_ancestors(msg["ancestors"])
    elif kind == HELLO:
        rel.sent.pop(sender, None)            # it restarted: it gets our set again
    return out, ""
