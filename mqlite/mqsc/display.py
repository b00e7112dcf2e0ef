"""MQSC DISPLAY of objects by the attribute table: DISPLAY QUEUE (and its kinds), CHANNEL,
NAMELIST, LISTENER, AUTHINFO, TOPIC, QMGR; each with its WHERE, QSGDISP, TYPE and ALL."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mqlite.catalogue import message
from mqlite.cmq import CMQC
from mqlite.engine import admin
from mqlite.mqsc.base import Part
from mqlite.mqsc.parser import Command, condition
from mqlite.mqsc.result import ERROR, Result, SyntaxProblem, format_fields, wrapped_list
from mqlite.objects.attrs import CHANNEL_TYPES, CHLTYPE_VALUES, ENUM, FLAG, INT, LIST, QUEUE_KINDS, TABLE
from mqlite.objects.layout import display_order
from mqlite.objects.model import QMGR, MQObject
from mqlite.objects.names import MQSC_OPS, filter_match, generic_match

if TYPE_CHECKING:
    from mqlite.engine.qmgr import QueueManager
    from mqlite.mqsc.cluster import ClusterCommands
    from mqlite.mqsc.security import SecurityCommands
    from mqlite.mqsc.services import Services

DISPLAY_HEADER = {
    "QUEUE": message("AMQ8409I"),
    "QMGR": message("AMQ8408I"),
    "CHANNEL": message("AMQ8414I"),
    "NAMELIST": message("AMQ8550I"),
    "LISTENER": message("AMQ8630I"),
    "AUTHINFO": message("AMQ8566I"),
    "TOPIC": message("AMQ8633I"),
    "PROCESS": message("AMQ8407I"),
    "SERVICE": message("AMQ8629I"),
    "COMMINFO": message("MQL8007I"),
}
QUEUE_DISPLAY_TYPES = {"QLOCAL", "QALIAS", "QREMOTE", "QMODEL", "QCLUSTER", "ALL"}


@dataclass(frozen=True)
class Where:
    """A DISPLAY's WHERE clause: the attribute it filters on (always displayed), and its test."""
    attr: str
    test: Callable[[str, dict[str, Any]], bool]


QSG_ONLY = ("IGQ", "IGQAUT", "IGQUSER", "SQQMNAME")
SECRET = ("INITKEY", "KEYRPWD")             # DISPLAY QMGR shows ******** for a value that is set   # DISPLAY QMGR ALL shows them in a queue-sharing group

class ObjectDisplay(Part):
    """DISPLAY of the objects the attribute table describes."""

    def __init__(self, qm: QueueManager, services: Services, cluster: ClusterCommands,
                 security: SecurityCommands) -> None:
        super().__init__(qm, services)
        self.cluster = cluster
        self.security = security

    def requested(self, cmd: Command, kinds: list[str], extra: set[str]) -> tuple[bool, list[str]]:
        """(ALL given, explicitly requested attribute names) for a DISPLAY."""
        all_ = False
        wanted: list[str] = []
        for p in cmd.params:
            if p.keyword in extra:
                continue
            if p.keyword == "ALL":
                all_ = True
                continue
            attr = next((TABLE.lookup(k, p.keyword) for k in kinds if TABLE.lookup(k, p.keyword)), None)
            if attr is None or p.value is not None:
                raise SyntaxProblem(cmd.text, p.text, f"{p.keyword} is not a displayable attribute.")
            wanted.append(attr.name)
        return all_, wanted

    def where(self, cmd: Command, kinds: list[str]) -> Where | None:
        p = cmd.param("WHERE")
        if p is None:
            return None
        if p.value is None:
            raise SyntaxProblem(cmd.text, p.text, "WHERE needs a condition.")
        parts = condition(p.value)
        if parts is None:
            raise SyntaxProblem(cmd.text, p.text, "WHERE needs: attribute operator value.")
        key, op, raw = parts
        attr = next((TABLE.lookup(k, key) for k in kinds if TABLE.lookup(k, key)), None)
        if attr is None:
            raise SyntaxProblem(cmd.text, p.text, f"{key} cannot be used in WHERE.")
        if op not in MQSC_OPS:
            raise SyntaxProblem(cmd.text, p.text, f"{op} is not a WHERE operator.")
        if attr.kind == INT:
            try:
                want: Any = int(raw)
            except ValueError:
                raise SyntaxProblem(cmd.text, p.text, f"{raw} is not a number.") from None
        elif attr.kind == ENUM:
            want = attr.values.get(raw.upper())
            if want is None:
                raise SyntaxProblem(cmd.text, p.text, f"{raw} is not a value of {key}.")
        elif attr.kind == FLAG:
            want = 1 if raw.upper() == attr.name else 0
        else:
            want = raw

        def test(kind: str, values: dict[str, Any]) -> bool:
            if attr.name not in values or TABLE.lookup(kind, attr.name) is None:
                return False
            v = values[attr.name]
            if op in ("LK", "NL"):
                return filter_match(MQSC_OPS[op], str(v).upper(), str(want).upper())
            return filter_match(MQSC_OPS[op], v, want)
        return Where(attr.name, test)

    def objects(self, cmd: Command, ns: str) -> Result:
        """DISPLAY of a kind of object (``ns``, its namespace): QUEUE, CHANNEL, NAMELIST, ..."""
        pattern = self.need_name(cmd)
        want_type = None
        if ns == "QUEUE":
            kinds = list(QUEUE_KINDS)
            tp = cmd.param("TYPE")
            want_kind = cmd.objtype if cmd.objtype != "QUEUE" else None
            if tp is not None:
                if tp.value is None or tp.value.upper() not in QUEUE_DISPLAY_TYPES:
                    raise SyntaxProblem(cmd.text, tp.text, "TYPE must be QLOCAL, QALIAS, QREMOTE, QMODEL, QCLUSTER or ALL.")
                if tp.value.upper() == "QCLUSTER":
                    return self.cluster.display_qcluster(cmd)
                if tp.value.upper() != "ALL":
                    want_kind = tp.value.upper()
            extra = {"TYPE", "WHERE", "QSGDISP", "CMDSCOPE", "CLUSINFO"}
        elif ns == "CHANNEL":
            kinds = list(CHANNEL_TYPES)
            tp = cmd.param("CHLTYPE")
            want_kind = tp.value.upper() if tp is not None and tp.value else None
            if want_kind is not None and want_kind not in CHLTYPE_VALUES and want_kind != "ALL":
                raise SyntaxProblem(cmd.text, tp.text if tp else cmd.text, "CHLTYPE is not a channel type.")
            if want_kind == "ALL":
                want_kind = None
            extra = {"CHLTYPE", "WHERE", "QSGDISP", "CMDSCOPE"}
        else:
            kinds = [ns]
            want_kind = None
            extra = {"WHERE", "CMDSCOPE"} | ({"AUTHTYPE"} if ns == "AUTHINFO" else {"TYPE", "CLUSINFO"} if ns == "TOPIC"
                                             else set())
            tp = cmd.param("AUTHTYPE")
            if ns == "AUTHINFO" and tp is not None and (tp.value or "").upper() != "ALL":
                want_type = self.security.authtype(cmd)
        all_, wanted = self.requested(cmd, kinds, extra)
        if not wanted and "*" not in pattern and cmd.param("WHERE") is None:
            all_ = True             # a specific name with no attributes asked for shows them all, as MQ does
        where = self.where(cmd, kinds)
        if where is not None:
            wanted.append(where.attr)
        disp = self.disp(cmd, ("LIVE", "ALL", "QMGR", "COPY", "SHARED", "GROUP"), "LIVE") \
            if ns == "QUEUE" else "LIVE"
        pool = [o for _n, o in sorted(self.qm.objects[ns].items())]
        if disp in ("ALL", CMQC.MQQSGD_GROUP):
            pool += [o for (gns, _n), o in sorted(self.qm.group_objects.items()) if gns == ns]
        if want_type is not None:
            pool = [o for o in pool if o["AUTHTYPE"] == want_type]
        objs = [o for o in pool
                if generic_match(pattern, o.name) and (want_kind is None or o.kind == want_kind)
                and (disp in ("LIVE", "ALL") or o.attrs.get("QSGDISP", CMQC.MQQSGD_Q_MGR) == disp)]
        if ns == "QUEUE" and disp in ("ALL", CMQC.MQQSGD_GROUP):
            objs.sort(key=lambda o: o.name)
        lines: list[str] = []
        for obj in objs:
            values = admin.display_values(self.qm, obj)
            if where is not None and not where.test(obj.kind, values):
                continue
            lines.append(DISPLAY_HEADER[ns])
            lines.extend(format_fields(self._render(ns, obj, values, all_, wanted)))
        if ns == "QUEUE" and cmd.param("CLUSINFO") is not None and where is None:
            # CLUSINFO: the cluster queues this queue manager knows, each instance as TYPE(QCLUSTER).
            lines.extend(self.cluster.qcluster_lines(cmd, strict=False))
        if not lines:
            if where is not None and objs:
                return Result([])
            return Result([message("AMQ8147E", name=pattern)], ERROR)
        return Result(lines)

    def _render(self, ns: str, obj: MQObject, values: dict[str, Any], all_: bool, wanted: list[str]) -> list[str]:
        table = TABLE.attrs(obj.kind)
        if ns == "QUEUE":
            items = [f"QUEUE({obj.name})", f"TYPE({obj.kind})"]
        elif ns == "CHANNEL":
            items = [f"CHANNEL({obj.name})", f"CHLTYPE({obj.kind})"]
        elif ns == "TOPIC":
            items = [f"TOPIC({obj.name})", "TYPE(LOCAL)"]
        elif ns == "AUTHINFO":
            items = [f"AUTHINFO({obj.name})", table["AUTHTYPE"].render(values["AUTHTYPE"])]
            values = {k: v for k, v in values.items() if k != "LDAPPWD" or not v} | \
                ({"LDAPPWD": "********"} if values.get("LDAPPWD") else {})
        else:
            items = [f"{ns}({obj.name})"]
        names = display_order(obj.kind, list(table)) if all_ else [w for w in dict.fromkeys(wanted) if w in table]
        if ns == "AUTHINFO":
            names = [n for n in names if n != "AUTHTYPE"]
        if ns == "QUEUE" and self.qm.shared is not None and "QSGDISP" not in names:
            names.insert(0, "QSGDISP")   # a group member shows every queue's disposition, as z/OS does
        for n in names:
            value = values.get(n, table[n].default_for(obj.kind))
            items.append(wrapped_list(n, value) if table[n].kind == LIST else table[n].render(value))
        return items

    def qmgr(self, cmd: Command) -> Result:
        """DISPLAY QMGR."""
        all_, wanted = self.requested(cmd, [QMGR], {"CMDSCOPE", "QMNAME"})
        values = self.qm.qmgr.attrs
        table = TABLE.attrs(QMGR)
        if cmd.param("QMNAME") is not None and not wanted and not all_:
            return Result([DISPLAY_HEADER["QMGR"]] + format_fields([f"QMNAME({self.qm.name})"]))
        names = display_order(QMGR, list(table)) if all_ or not wanted else [w for w in dict.fromkeys(wanted)]
        if (all_ or not wanted) and values.get("QSGNAME"):
            # Intra-group queuing is z/OS's, for a queue-sharing group: shown for a member only.
            names += [n for n in sorted(QSG_ONLY + ("QSGNAME",)) if n in table]
        shown = {n: "********" if n in SECRET and values.get(n) else values.get(n, table[n].default) for n in names}
        items = [f"QMNAME({self.qm.name})"] + [table[n].render(shown[n]) for n in names]
        return Result([DISPLAY_HEADER["QMGR"]] + format_fields(items))
