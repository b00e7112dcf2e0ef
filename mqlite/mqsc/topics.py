"""MQSC for the topic tree: DEFINE/ALTER/DELETE/DISPLAY TOPIC run through the attribute table
like every object (this part adds what is particular to topics: TOPICSTR, set once at DEFINE and
unique), and DISPLAY TPSTATUS TYPE(TOPIC), a node's attributes resolved up the tree
(mqlite.pubsub.topics). Parts of the Executor."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mqlite.catalogue import message
from mqlite.cmq import CMQC as C
from mqlite.cmq.errors import MQIError
from mqlite.engine import topicstatus
from mqlite.engine.fields import mqsc_items
from mqlite.engine.subfields import SBSTATUS_FIELDS, SUB_FIELDS, owner, sbstatus_row, sub_row
from mqlite.mqsc.base import Part
from mqlite.mqsc.result import ERROR, Result, SyntaxProblem, format_fields
from mqlite.objects.names import generic_match

if TYPE_CHECKING:
    from mqlite.mqsc.parser import Command

TPSTATUS_HEADER = message("AMQ8754I")


class TopicCommands(Part):
    """DISPLAY TPSTATUS, and DEFINE TOPIC's topic string."""

    def topicstr(self, cmd: Command, name: str) -> str:
        """DEFINE TOPIC's TOPICSTR: required, and no other topic object may have it."""
        p = cmd.param("TOPICSTR")
        if p is not None and not p.value and p.quoted and cmd.param("REPLACE") is not None:
            existing = self.qm.objects["TOPIC"].get(name)
            if existing is not None and existing["TOPICSTR"] == "":
                return ""           # the root objects (SYSTEM.BASE.TOPIC) replaced as they are
        if p is None or not p.value:
            raise SyntaxProblem(cmd.text, p.text if p else cmd.text, "TOPICSTR is required.")
        value = p.value
        if len(value) > 10240:
            raise SyntaxProblem(cmd.text, p.text, "TOPICSTR is longer than 10240 characters.")
        for other in self.qm.objects["TOPIC"].values():
            if other["TOPICSTR"] == value and other.name != name:
                raise TopicStringInUse(other.name)
        return value

    def _tree(self) -> dict[str, Any]:
        return self.qm.pubsub.tree()       # clustered topics included

    def display_tpstatus(self, cmd: Command) -> Result:
        pattern = cmd.name or ""
        kind = "TOPIC"
        p = cmd.param("TYPE")
        if p is not None:
            kind = (p.value or "").upper()
            if kind not in ("TOPIC", "SUB", "PUB"):
                raise SyntaxProblem(cmd.text, p.text, "TYPE must be TOPIC, SUB or PUB.")
        fields = topicstatus.FIELDS[kind]
        known = [f.keyword for f in fields[1:]]
        requested = []
        for q in cmd.params:
            if q.keyword in ("TYPE", "ALL", "CMDSCOPE"):
                continue
            if q.keyword not in known or q.value is not None:
                raise SyntaxProblem(cmd.text, q.text, f"{q.keyword} is not valid for DISPLAY TPSTATUS.")
            requested.append(q.keyword)
        show = None if not requested or cmd.param("ALL") is not None else ["TOPICSTR", *requested]
        wanted = topicstatus.matching(self.qm, pattern)
        if not wanted:
            return Result([message("AMQ8147E", name=pattern)], ERROR)
        lines: list[str] = []
        for node in wanted:
            for row in topicstatus.rows(self.qm, node, kind):
                lines.append(TPSTATUS_HEADER)
                lines.extend(format_fields(mqsc_items(fields, row, show)))
        return Result(lines)


PUBSUB_HEADER = message("AMQ8723I")
# MQPS_STATUS_*
_PS_STATUS = {0: "INACTIVE", 1: "STARTING", 2: "STOPPING", 3: "ACTIVE", 4: "COMPAT", 5: "ERROR", 6: "REFUSED"}


class PubSubStatus(Part):
    """CLEAR TOPICSTR and DISPLAY PUBSUB."""

    def clear_topicstr(self, cmd: Command) -> Result:
        """CLEAR TOPICSTR('string') CLRTYPE(RETAINED) [SCOPE(LOCAL)]: the retained publications of
        the topic strings it matches (`#` and `+` as whole levels) are removed here."""
        if not cmd.name:
            raise SyntaxProblem(cmd.text, cmd.text, "A topic string is required.")
        for p in cmd.params:
            ok = {"CLRTYPE": ("RETAINED",), "SCOPE": ("LOCAL",), "CMDSCOPE": None}.get(p.keyword, ())
            if ok == () or (ok is not None and (p.value or "").upper() not in ok):
                raise SyntaxProblem(cmd.text, p.text, f"{p.text} is not valid for CLEAR TOPICSTR.")
        if cmd.param("CLRTYPE") is None:
            raise SyntaxProblem(cmd.text, cmd.text, "CLRTYPE(RETAINED) is required.")
        cleared = self.qm.pubadmin.clear_retained(cmd.name)
        return Result([message("MQL8024I", name=cmd.name, cleared=cleared)])

    def display_pubsub(self, cmd: Command) -> Result:
        """DISPLAY PUBSUB: this queue manager's publish/subscribe engine (TYPE(LOCAL)), its
        hierarchy connections (TYPE(PARENT), TYPE(CHILD)), or all of them (TYPE(ALL)). LOCAL's
        SUBCOUNT counts the subscriptions here, proxy subscriptions held for other queue managers
        included, TPCOUNT the topic nodes in use (administrative, subscribed to, retained); a
        relative's SUBCOUNT counts the proxy subscriptions it holds here."""
        kind = "LOCAL"
        for p in cmd.params:
            if p.keyword == "TYPE" and (p.value or "").upper() in ("LOCAL", "ALL", "CHILD", "PARENT"):
                kind = (p.value or "").upper()
            elif p.keyword not in ("ALL", "QMNAME", "STATUS", "SUBCOUNT", "TPCOUNT", "CMDSCOPE"):
                raise SyntaxProblem(cmd.text, p.text, f"{p.keyword} is not valid for DISPLAY PUBSUB.")
        lines = []
        if kind in ("LOCAL", "ALL"):
            status, subcount, tpcount = self.qm.pubadmin.pubsub_status()
            lines += [PUBSUB_HEADER, *format_fields([
                f"QMNAME({self.qm.name})", "TYPE(LOCAL)", f"STATUS({_PS_STATUS[status]})",
                f"SUBCOUNT({subcount})", f"TPCOUNT({tpcount})"])]
        for rtype, qmname, status, subcount in self.qm.pubhier.status():
            if kind in (rtype, "ALL"):
                lines += [PUBSUB_HEADER, *format_fields([
                    f"QMNAME({qmname})", f"TYPE({rtype})", f"STATUS({_PS_STATUS[status]})",
                    f"SUBCOUNT({subcount})", "TPCOUNT( )"])]
        return Result(lines)




class TopicStringInUse(Exception):
    def __init__(self, other: str) -> None:
        super().__init__(other)
        self.other = other


SUB_KEYWORDS = {"TOPICSTR", "TOPICOBJ", "DEST", "DESTQMGR", "DESTCLAS", "USERDATA", "WSCHEMA", "REPLACE", "NOREPLACE",
                "EXPIRY", "PSPROP", "PUBACCT", "PUBAPPID", "PUBPRTY", "REQONLY", "SELECTOR", "SUBLEVEL", "SUBSCOPE",
                "SUBUSER", "VARUSER", "DESTCORL", "CMDSCOPE"}
_SUB_REASONS = {2432: "AMQ8097E", 2428: "AMQ8098E", 2429: "AMQ8148E", 2425: "AMQ8400E", 2503: "AMQ8402E",
                2436: "AMQ8403E", 2522: "AMQ8404E"}


def _sub_error(reason: int, topic: str = "") -> Result:
    """A subscription command's failure as runmqsc says it."""
    if reason == 2085:
        return Result([message("AMQ8147E", name=topic)], ERROR)
    mid = _SUB_REASONS.get(reason)
    return Result([message(mid) if mid else message("AMQ8101S", reason=reason)], ERROR)


class SubscriptionCommands(Part):
    """DEFINE/ALTER/DELETE/DISPLAY SUB and DISPLAY SBSTATUS (administrative subscriptions are
    durable; API ones show as SUBTYPE(API))."""

    def _sub_value(self, cmd: Command, key: str, default: str = "") -> str:
        p = cmd.param(key)
        return (p.value or "") if p is not None else default

    def define_sub(self, cmd: Command, alter: bool = False) -> Result:
        name = cmd.name or ""
        if not name:
            raise SyntaxProblem(cmd.text, cmd.text, "A subscription name is required.")
        for p in cmd.params:
            if p.keyword not in SUB_KEYWORDS:
                raise SyntaxProblem(cmd.text, p.text, f"{p.keyword} is not valid for {cmd.verb} SUB.")
        existing = next((s for s in self.qm.pubsub.subscriptions.values() if s.name == name), None)
        if alter and existing is None:
            return _sub_error(2428)
        destclas = self._sub_value(cmd, "DESTCLAS", "MANAGED" if existing is not None and existing.managed
                                   else "PROVIDED").upper()
        wschema = self._sub_value(cmd, "WSCHEMA", "CHAR" if existing is not None and existing.char_wildcards
                                  else "TOPIC").upper()
        varuser = self._sub_value(cmd, "VARUSER").upper()
        if destclas not in ("PROVIDED", "MANAGED") or wschema not in ("TOPIC", "CHAR") or varuser not in ("", "ANY", "FIXED"):
            raise SyntaxProblem(cmd.text, cmd.text, "DESTCLAS(PROVIDED|MANAGED), WSCHEMA(TOPIC|CHAR), VARUSER(ANY|FIXED).")
        if alter:
            assert existing is not None
            for key in ("TOPICSTR", "TOPICOBJ"):
                if cmd.param(key) is not None:
                    raise SyntaxProblem(cmd.text, cmd.param(key).text, f"{key} cannot be altered.")  # type: ignore[union-attr]
            topicstr, topicobj = existing.topic, ""
        else:
            topicstr, topicobj = self._sub_value(cmd, "TOPICSTR"), self._sub_value(cmd, "TOPICOBJ")
        default_dest = existing.queue if existing is not None and not existing.managed else ""
        given = self._sub_settings(cmd)
        try:
            self.qm.pubadmin.define_subscription(
                name, topicstr, topicobj, self._sub_value(cmd, "DEST", default_dest),
                self._sub_value(cmd, "DESTQMGR", existing.qmgr if existing is not None else ""), destclas == "MANAGED",
                self._sub_value(cmd, "USERDATA", existing.user_data if existing is not None else ""),
                wschema == "CHAR", replace=alter or cmd.param("REPLACE") is not None,
                user=self._sub_value(cmd, "SUBUSER"), any_user=None if not varuser else varuser == "ANY", given=given)
        except MQIError as e:
            return _sub_error(e.reason, topicobj or topicstr)
        return Result([message("AMQ8095I") if alter else message("AMQ8094I")])

    def _sub_settings(self, cmd: Command) -> dict[str, Any]:
        """SELECTOR, PUBPRTY, REQONLY, EXPIRY, PUBACCT, PUBAPPID, PSPROP, SUBLEVEL, SUBSCOPE and
        DESTCORL as the engine takes them (only those the command names)."""
        words: dict[str, dict[str, Any]] = {"PUBPRTY": {"ASPUB": C.MQPRI_PRIORITY_AS_PUBLISHED, "ASQDEF": C.MQPRI_PRIORITY_AS_Q_DEF},
                 "REQONLY": {"YES": True, "NO": False},
                 "EXPIRY": {"UNLIMITED": C.MQEI_UNLIMITED},
                 "PSPROP": {"NONE": C.MQPSPROP_NONE, "COMPAT": C.MQPSPROP_COMPAT, "RFH2": C.MQPSPROP_RFH2,
                            "MSGPROP": C.MQPSPROP_MSGPROP},
                 "SUBSCOPE": {"ALL": C.MQSCOPE_ALL, "QMGR": C.MQSCOPE_QMGR}}
        numbers = {"PUBPRTY": (0, 9), "EXPIRY": (1, 999999999), "SUBLEVEL": (1, 9)}
        given: dict[str, Any] = {}
        for p in cmd.params:
            key, value = p.keyword, p.value or ""
            if key in words or key in numbers:
                if value.upper() in words.get(key, {}):
                    given[key] = words[key][value.upper()]
                elif key in numbers and value.isdigit() and numbers[key][0] <= int(value) <= numbers[key][1]:
                    given[key] = int(value)
                else:
                    raise SyntaxProblem(cmd.text, p.text, f"Value {value} is not valid for {key}.")
            elif key in ("PUBACCT", "DESTCORL"):
                size = 32 if key == "PUBACCT" else 24
                try:
                    raw = bytes.fromhex(value)
                except ValueError:
                    raw = b"?" * (size + 1)
                if len(raw) > size:
                    raise SyntaxProblem(cmd.text, p.text, f"{key} takes up to {size * 2} hexadecimal digits.")
                given[key] = raw.ljust(size, b"\0").hex()
            elif key in ("SELECTOR", "PUBAPPID"):
                given[key] = value
        return given

    def delete_sub(self, cmd: Command) -> Result:
        try:
            self.qm.pubadmin.delete_subscription(cmd.name or "")
        except MQIError as e:
            return _sub_error(e.reason)
        return Result([message("AMQ8093I")])

    def _subs_named(self, cmd: Command) -> list[Any]:
        pattern = cmd.name or "*"
        p = cmd.param("SUBID")
        if p is not None and p.value:
            return [s for s in self.qm.pubsub.subscriptions.values() if s.subid.upper() == p.value.upper()]
        return sorted((s for s in self.qm.pubsub.subscriptions.values() if generic_match(pattern, s.name or s.subid.upper())),
                      key=lambda s: s.name or s.subid)

    def _proxy_lines(self, cmd: Command) -> list[str]:
        """The proxy subscriptions other queue managers placed here (SUBTYPE(PROXY)): one per
        cluster member, cluster and topic string, and one per hierarchy relative and topic string
        (shown with HIERARCHY for the cluster); publications that match go to that queue manager."""
        lines: list[str] = []
        held = [*sorted(self.qm.cluster.proxies.held.items()),
                *(((r, "HIERARCHY"), subs) for r, subs in sorted(self.qm.pubhier.relations.held.items()))]
        for (origin, cluster), subs in held:
            for topic, char in sorted(subs):
                name = f"SYSTEM.PROXY.{origin} {cluster} {topic}"
                if not generic_match(cmd.name or "*", name):
                    continue
                lines.append(message("AMQ8096I"))
                lines.extend(format_fields([
                    f"SUB({name})", f"TOPICSTR({topic})", "DEST(SYSTEM.INTER.QMGR.PUBS)", f"DESTQMGR({origin})",
                    "DESTCLAS(PROVIDED)", "DURABLE(NO)", "SUBTYPE(PROXY)", f"WSCHEMA({'CHAR' if char else 'TOPIC'})",
                    "SUBSCOPE(ALL)"]))
        return lines

    def display_sub(self, cmd: Command) -> Result:
        subtype = (p.value or "USER").upper() if (p := cmd.param("SUBTYPE")) is not None else "USER"
        if subtype not in ("USER", "PROXY", "ADMIN", "API", "ALL"):
            raise SyntaxProblem(cmd.text, cmd.param("SUBTYPE").text, "SUBTYPE must be USER, PROXY, ADMIN, API or ALL.")  # type: ignore[union-attr]
        subs = [s for s in self._subs_named(cmd) if subtype in ("USER", "ALL", s.subtype)]
        proxies = self._proxy_lines(cmd) if subtype in ("PROXY", "ALL") else []
        if not subs and not proxies:
            return _sub_error(2428)
        lines: list[str] = []
        now = self.qm.clock.now()
        for s in subs:
            lines.append(message("AMQ8096I"))
            lines.extend(format_fields(mqsc_items(SUB_FIELDS, sub_row(s, now))))
        return Result(lines + proxies)

    def display_sbstatus(self, cmd: Command) -> Result:
        subs = self._subs_named(cmd)
        if not subs:
            return _sub_error(2428)
        lines: list[str] = []
        for s in subs:
            lines.append(message("AMQ8099I"))
            lines.extend(format_fields(mqsc_items(SBSTATUS_FIELDS, sbstatus_row(s, owner(self.qm.conns, s)))))
        return Result(lines)
