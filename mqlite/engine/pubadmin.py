"""Administering publish/subscribe, the engine's part: administrative subscriptions (DEFINE/ALTER/
DELETE SUB, PCF Create/Change/Delete Subscription), CLEAR TOPICSTR and DISPLAY PUBSUB's figures.
``PubAdmin`` is the queue manager's ``qm.pubadmin``, over ``PubSub``'s state."""
from __future__ import annotations

import json
import os
from typing import Any

from mqlite.cmq import CMQCFC as F
from mqlite.cmq.errors import MQIError
from mqlite.cmq.structs import OD, pad
from mqlite.engine.core import C
from mqlite.engine.ports import DropObject, SaveObject
from mqlite.engine.pubhier import Hierarchy
from mqlite.engine.pubsub import RETAINED_NS, SUB_NS, PubSub, PubSubHost
from mqlite.engine.subscribe import pub_priority_ok
from mqlite.props.selector import SelectorError
from mqlite.pubsub import topics
from mqlite.pubsub.matching import char_pattern_valid, topic_match
from mqlite.pubsub.subscription import Subscription, compiled
from mqlite.security.users import os_user_of_uid


class PubAdmin:
    def __init__(self, qm: PubSubHost, ps: PubSub, hier: Hierarchy) -> None:
        self.qm = qm
        self.ps = ps
        self.hier = hier

    # --- administrative subscriptions (DEFINE SUB, PCF Create Subscription) ------------------------
    def define_subscription(self, name: str, topicstr: str, topicobj: str, dest: str, destqmgr: str, managed: bool,
                            user_data: str, char_wildcards: bool, replace: bool = False, user: str = "",
                            any_user: bool | None = None, given: dict[str, Any] | None = None) -> Subscription:
        """An administrative subscription: always durable, named, with a provided queue (DEST,
        which must exist here when DESTQMGR is this queue manager) or a managed one. SUBUSER
        (``user``) defaults to the queue manager's own user, VARUSER (``any_user``) to ANY.
        ``given``: the other attributes a DEFINE or ALTER names (SELECTOR, PUBPRTY, REQONLY,
        EXPIRY in tenths, PUBACCT as hex, PUBAPPID, PSPROP, SUBLEVEL, SUBSCOPE, DESTCORL as hex);
        an ALTER keeps the rest."""
        given = given or {}
        selector = given.get("SELECTOR")
        if selector:
            try:
                compiled(selector)
            except SelectorError as e:
                raise MQIError(e.reason, detail=str(e)) from None
        if not pub_priority_ok(given.get("PUBPRTY", C.MQPRI_PRIORITY_AS_PUBLISHED)):
            raise MQIError(C.MQRC_PRIORITY_ERROR)
        if "EXPIRY" in given and given["EXPIRY"] <= 0 and given["EXPIRY"] != C.MQEI_UNLIMITED:
            raise MQIError(C.MQRC_EXPIRY_ERROR)
        existing = next((s for s in self.ps.subscriptions.values() if s.name == name), None)
        if existing is not None and not replace:
            raise MQIError(C.MQRC_SUB_ALREADY_EXISTS)
        topic = self.ps.topic_string(topicobj, topicstr)
        if char_wildcards and not char_pattern_valid(topic):
            raise MQIError(C.MQRC_TOPIC_STRING_ERROR)
        tree = self.ps.tree()
        if topics.resolved(tree, topic, "SUB") == C.MQTA_SUB_INHIBITED:
            raise MQIError(C.MQRC_SUB_INHIBITED)
        if topics.resolved(tree, topic, "DURSUB") == C.MQSUB_DURABLE_INHIBITED:
            raise MQIError(C.MQRC_DURABILITY_NOT_ALLOWED)
        qmgr = destqmgr or self.qm.name
        subid = existing.subid if existing is not None else self.qm.ids.next().hex()
        if managed:
            if existing is not None and existing.managed:
                dest = existing.queue
            else:
                dest = "SYSTEM.MANAGED.DURABLE." + subid[-16:].upper()      # the id's unique part
                model = self.qm.queue(topics.resolved(tree, topic, "MDURMDL"))
                if model is None or model.kind != "QMODEL":
                    raise MQIError(C.MQRC_UNKNOWN_OBJECT_NAME)
                self.qm.instantiate_model(None, OD(DynamicQName=pad(dest, 48)), model)
        elif not dest:
            raise MQIError(C.MQRC_INVALID_DESTINATION)
        elif qmgr == self.qm.name and self.qm.queue(dest) is None:
            raise MQIError(C.MQRC_UNKNOWN_OBJECT_NAME)
        correl = given.get("DESTCORL") or (existing.correl_id if existing is not None else subid)
        if any_user is None:
            any_user = existing is None or bool(existing.options & C.MQSO_ANY_USERID)
        user = user or (existing.user if existing is not None else "") or os_user_of_uid(os.getuid())
        sub = Subscription(subid, name, topic, char_wildcards, dest, qmgr, managed, True, correl, user_data,
                           C.MQSO_DURABLE | (C.MQSO_MANAGED if managed else 0)
                           | (C.MQSO_ANY_USERID if any_user else C.MQSO_FIXED_USERID), user[:12], 0,
                           existing.created if existing is not None else self.qm.clock.now(), subtype="ADMIN",
                           topicobj=topicobj)
        self._admin_settings(sub, existing, given)
        self.ps.subscriptions[subid] = sub
        self.ps.subscriptions_changed()
        self.ps.journal(None, SaveObject(SUB_NS, subid, json.dumps(sub.record())))
        return sub

    def _admin_settings(self, sub: Subscription, existing: Subscription | None, given: dict[str, Any]) -> None:
        """DEFINE/ALTER SUB's other attributes onto a new administrative subscription: those
        given, else the existing subscription's (ALTER, REPLACE), else MQ's defaults."""
        kept = C.MQSO_PUBLICATIONS_ON_REQUEST | C.MQSO_SCOPE_QMGR | C.MQSO_SET_CORREL_ID
        if existing is not None:
            sub.options |= existing.options & kept
            for f in ("selector", "priority", "pub_acct", "pub_appl", "expires_at", "expiry", "psprop", "sublevel"):
                setattr(sub, f, getattr(existing, f))
        bit = {"REQONLY": C.MQSO_PUBLICATIONS_ON_REQUEST, "SUBSCOPE": C.MQSO_SCOPE_QMGR}
        for key, flag in bit.items():
            if key in given:
                on = given[key] if key == "REQONLY" else given[key] == C.MQSCOPE_QMGR
                sub.options = sub.options | flag if on else sub.options & ~flag
        if given.get("DESTCORL"):
            sub.options |= C.MQSO_SET_CORREL_ID
        fields = {"SELECTOR": "selector", "PUBPRTY": "priority", "PUBACCT": "pub_acct", "PUBAPPID": "pub_appl",
                  "PSPROP": "psprop", "SUBLEVEL": "sublevel"}
        for key, f in fields.items():
            if key in given:
                setattr(sub, f, given[key])
        if "EXPIRY" in given:
            sub.set_expiry(given["EXPIRY"], self.qm.clock.now())

    def delete_subscription(self, name: str, subid: str = "") -> None:
        """DELETE SUB by name, or by its identifier (hex) when one is given, as MQ allows both."""
        sub = next((s for s in self.ps.subscriptions.values() if (s.subid == subid if subid else s.name == name)), None)
        if sub is None:
            raise MQIError(C.MQRC_NO_SUBSCRIPTION)
        if self.ps.in_use(sub):
            raise MQIError(C.MQRC_SUBSCRIPTION_IN_USE)
        self.ps.end_subscription(None, sub)

    def clear_retained(self, pattern: str) -> int:
        """CLEAR TOPICSTR CLRTYPE(RETAINED): the retained publications of the topic strings
        ``pattern`` matches (topic-based wildcards), here only (SCOPE(LOCAL)). None is no error."""
        gone = [t for t in self.ps.retained if topic_match(pattern, t)]
        for topic in gone:
            del self.ps.retained[topic]
            self.ps.retained_origin.pop(topic, None)
            self.ps.journal(None, DropObject(RETAINED_NS, topic))
        return len(gone)

    def pubsub_status(self) -> tuple[int, int, int]:
        """DISPLAY PUBSUB's TYPE(LOCAL) figures: (MQPS_STATUS_* from PSMODE, subscriptions here with
        the proxy subscriptions held for other members and relatives, topic nodes in use:
        administrative, subscribed to, retained, and the levels above them)."""
        ps = self.ps
        mode = self.qm.qmgr["PSMODE"]
        status = {C.MQPSM_DISABLED: F.MQPS_STATUS_INACTIVE, C.MQPSM_COMPAT: F.MQPS_STATUS_COMPAT}.get(
            mode, F.MQPS_STATUS_ACTIVE)
        proxies = sum(len(v) for v in self.qm.cluster.proxies.held.values())
        proxies += sum(len(v) for v in self.hier.relations.held.values())
        used = {s.topic for s in ps.subscriptions.values()} | set(ps.retained) | set(ps.tree())
        nodes = {n for t in used for n in topics.ancestors(t)}
        return status, len(ps.subscriptions) + proxies, len(nodes)
