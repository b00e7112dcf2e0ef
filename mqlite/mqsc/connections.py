"""MQSC for who is connected: DISPLAY CONN (TYPE CONN, HANDLE or ALL), STOP CONN and DISPLAY
APSTATUS (TYPE APPL, QMGR or LOCAL), a part of the Executor. The fields are the engine's (``engine.connections``), which PCF Inquire Connection
reads too; stopping a connection is the server's (it holds the sockets)."""
from __future__ import annotations

from typing import Any

from mqlite.catalogue import message
from mqlite.engine import applstatus
from mqlite.engine.connections import CONN_FIELDS, HANDLE_FIELDS, conn_name, conn_row, handle_rows
from mqlite.engine.core import Conn
from mqlite.engine.fields import Field
from mqlite.mqsc.base import Part
from mqlite.mqsc.parser import Command, condition
from mqlite.mqsc.result import ERROR, Result, SyntaxProblem, format_fields
from mqlite.objects.names import MQSC_OPS, filter_match, generic_match

CONN_HEADER = message("AMQ8276I")
APSTATUS_HEADER = message("MQL8015I")
_BY_KEYWORD = {f.keyword: f for f in CONN_FIELDS + HANDLE_FIELDS}


def _item(f: Field, value: Any) -> str:
    text = f.mqsc(value)
    return f"{f.keyword}({text})" if text != "" else f"{f.keyword}( )"


class ConnectionCommands(Part):
    """DISPLAY CONN and STOP CONN."""

    def connections(self, pattern: str) -> list[Conn]:
        """The connections whose CONN (16 hex digits) the name matches, in connection order."""
        return [c for _h, c in sorted(self.qm.conns.items()) if generic_match(pattern.upper(), conn_name(c.conn_id))]

    def display_conn(self, cmd: Command) -> Result:
        pattern = self.need_name(cmd)
        kind = self.word(cmd, "TYPE", ("CONN", "HANDLE", "ALL", "*"), "CONN")
        all_, wanted, where = False, [], None
        for p in cmd.params:
            if p.keyword == "ALL":
                all_ = True
            elif p.keyword in _BY_KEYWORD and p.value is None:
                wanted.append(p.keyword)
            elif p.keyword == "WHERE":
                where = self._where(cmd, p.value or "", p.text)
            elif p.keyword not in ("TYPE", "CMDSCOPE", "EXTCONN"):
                raise SyntaxProblem(cmd.text, p.text, f"{p.keyword} is not valid for DISPLAY CONN.")
        if where is not None and where[0] not in wanted:
            wanted.append(where[0])
        conn_fields = [f for f in CONN_FIELDS if all_ or f.keyword in wanted]
        handle_fields = [f for f in HANDLE_FIELDS if all_ or f.keyword in wanted]
        lines: list[str] = []
        for c in self.connections(pattern):
            row = conn_row(c)
            handles = handle_rows(c)
            if where is not None:
                key = where[0]
                if key in row and not where[1](row[key]):
                    continue
                if key not in row:
                    handles = [h for h in handles if where[1](h[key])]
                    if not handles:
                        continue
            head = [f"CONN({conn_name(c.conn_id)})", f"EXTCONN({c.conn_id[:16].hex().upper()})"]
            if kind in ("CONN", "ALL", "*"):
                lines.append(CONN_HEADER)
                lines.extend(format_fields(head + ["TYPE(CONN)"] + [_item(f, row[f.keyword]) for f in conn_fields]))
            if kind in ("HANDLE", "ALL", "*") and handles:
                lines.append(CONN_HEADER)
                lines.extend(format_fields(head + ["TYPE(HANDLE)"]))
                for h in handles:
                    lines.append("")
                    lines.extend(format_fields([_item(f, h[f.keyword]) for f in handle_fields]))
        if not lines:
            return Result([message("AMQ8461E")], ERROR)
        return Result(lines)

    def display_apstatus(self, cmd: Command) -> Result:
        """DISPLAY APSTATUS(name) TYPE(APPL|QMGR|LOCAL): each application (APPL), its status at
        this queue manager (QMGR), or each of its instances here (LOCAL); engine.applstatus says
        what an instance is and when it is movable."""
        pattern = self.need_name(cmd)
        kind = self.word(cmd, "TYPE", tuple(applstatus.TYPES), "APPL")
        fields = applstatus.TYPES[kind]
        by_kw = {f.keyword: f for f in fields}
        all_, wanted = False, []
        for p in cmd.params:
            if p.keyword == "ALL":
                all_ = True
            elif p.keyword in by_kw and p.value is None:
                wanted.append(p.keyword)
            elif p.keyword not in ("TYPE", "CMDSCOPE"):
                raise SyntaxProblem(cmd.text, p.text, f"{p.keyword} is not valid for DISPLAY APSTATUS TYPE({kind}).")
        shown = [f for f in fields if all_ or not wanted or f.keyword in wanted]
        lines: list[str] = []
        for row in applstatus.rows(self.qm.conns.values(), pattern, kind, self.qm.name,
                                   self.qm.qmgr.attrs.get("QMID", ""), self.qm.clock.now()):
            lines.append(APSTATUS_HEADER)
            lines.extend(format_fields([f"APPLNAME({row['APPLNAME']})", f"TYPE({kind})"]
                                       + [_item(f, row[f.keyword]) for f in shown]))
        if not lines:
            return Result([message("MQL8014I", pattern=pattern)], ERROR)
        return Result(lines)

    def _where(self, cmd: Command, clause: str, text: str) -> tuple[str, Any]:
        """WHERE(keyword op value) over a connection's or a handle's fields, MQSC words compared."""
        parts = condition(clause)
        if parts is None or parts[0] not in _BY_KEYWORD or parts[1] not in MQSC_OPS:
            raise SyntaxProblem(cmd.text, text, "WHERE needs: attribute operator value.")
        f, op, want = _BY_KEYWORD[parts[0]], MQSC_OPS[parts[1]], parts[2].upper()

        def test(value: Any) -> bool:
            if isinstance(value, int) and f.word is None and want.lstrip("-").isdigit():
                return filter_match(op, value, int(want))
            return filter_match(op, f.mqsc(value).upper(), want)
        return f.keyword, test

    def stop_conn(self, cmd: Command) -> Result:
        """STOP CONN(id): the application's next call fails with MQRC_CONNECTION_BROKEN and its unit
        of work is backed out."""
        name = self.need_name(cmd).upper()
        for p in cmd.params:
            if p.keyword not in ("CMDSCOPE", "EXTCONN"):
                raise SyntaxProblem(cmd.text, p.text, f"{p.keyword} is not valid for STOP CONN.")
        found = [c for c in self.qm.conns.values() if conn_name(c.conn_id) == name]
        if not found:
            return Result([message("AMQ8461E")], ERROR)
        err = self.services.stop_connection(found[0].hconn)
        if err:
            return Result([err], ERROR)
        return Result([message("AMQ8457I")])
