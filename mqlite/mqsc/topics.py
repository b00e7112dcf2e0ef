"""MQSC for the topic tree: DEFINE/ALTER/DELETE/DISPLAY TOPIC run through the attribute table
like every object (this mixin adds what is particular to topics: TOPICSTR, set once at DEFINE and
unique), and DISPLAY TPSTATUS TYPE(TOPIC), a node's attributes resolved up the tree
(mqlite.pubsub.topics). Mixed into the Executor."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mqlite.mqsc.result import ERROR, Result, SyntaxProblem, format_fields
from mqlite.objects.attrs import TABLE
from mqlite.pubsub import topics
from mqlite.pubsub.matching import topic_match

if TYPE_CHECKING:
    from mqlite.mqsc.parser import Command

TPSTATUS_HEADER = "AMQ8754I: Display topic status details."
_TPSTATUS_ATTRS = ("CLUSTER", "COMMINFO", "DEFPRESP", "DEFPRTY", "DEFPSIST", "DURSUB", "MCAST", "MDURMDL",
                   "MNDURMDL", "NPMSGDLV", "PMSGDLV", "PUB", "PUBSCOPE", "SUB", "SUBSCOPE", "USEDLQ")
_TPSTATUS_ALL = ("ADMIN", *_TPSTATUS_ATTRS, "CLROUTE", "PUBCOUNT", "SUBCOUNT", "RETAINED")


class TopicCommands:
    qm: Any

    def _topicstr(self, cmd: Command, name: str) -> str:
        """DEFINE TOPIC's TOPICSTR: required, and no other topic object may have it."""
        p = cmd.param("TOPICSTR")
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
        return topics.by_string(self.qm.objects["TOPIC"].values())

    def _display_tpstatus(self, cmd: Command) -> Result:
        pattern = cmd.name or ""
        kind = "TOPIC"
        p = cmd.param("TYPE")
        if p is not None:
            kind = (p.value or "").upper()
            if kind not in ("TOPIC", "SUB", "PUB"):
                raise SyntaxProblem(cmd.text, p.text, "TYPE must be TOPIC, SUB or PUB.")
        requested = []
        for q in cmd.params:
            if q.keyword in ("TYPE", "ALL", "CMDSCOPE"):
                continue
            if q.keyword not in _TPSTATUS_ALL or q.value is not None:
                raise SyntaxProblem(cmd.text, q.text, f"{q.keyword} is not valid for DISPLAY TPSTATUS.")
            requested.append(q.keyword)
        show = _TPSTATUS_ALL if not requested or cmd.param("ALL") is not None else tuple(requested)
        tree = self._tree()
        nodes = sorted({n for s in tree for n in topics.ancestors(s) if n})
        if "#" in pattern or "+" in pattern:
            wanted = [n for n in nodes if topic_match(pattern, n)]
        else:
            wanted = [pattern] if pattern in nodes or pattern in tree else []
        if not wanted:
            return Result([f"AMQ8147E: IBM MQ object {pattern} not found."], ERROR)
        lines: list[str] = []
        for node in wanted:
            lines.append(TPSTATUS_HEADER)
            if kind != "TOPIC":
                # Publishers and subscribers of the node: none until publish/subscribe runs here.
                lines.extend(format_fields([f"TOPICSTR({node})"]))
                continue
            values = topics.resolved_all(tree, node)
            admin = tree.get(node)
            table = TABLE.attrs("TOPIC")
            shown = {attr: table[attr].render(values[attr]) for attr in _TPSTATUS_ATTRS}
            shown.update(ADMIN=f"ADMIN({admin.name if admin is not None else ' '})",
                         CLROUTE=table["CLROUTE"].render(topics.admin_node(tree, node)["CLROUTE"]),
                         PUBCOUNT="PUBCOUNT(0)", SUBCOUNT="SUBCOUNT(0)", RETAINED="RETAINED(NO)")
            lines.extend(format_fields([f"TOPICSTR({node})"] + [shown[k] for k in show]))
        return Result(lines)


class TopicStringInUse(Exception):
    def __init__(self, other: str) -> None:
        super().__init__(other)
        self.other = other
