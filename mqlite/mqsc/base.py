"""What every part of the MQSC executor shares: the queue manager, its services and the reading of
a command's parameters."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mqlite.catalogue import message
from mqlite.engine import admin
from mqlite.mqsc.parser import Command, Param
from mqlite.mqsc.result import ERROR, Result, SyntaxProblem
from mqlite.mqsc.services import Services
from mqlite.objects.attrs import FLAG, LIST, TABLE, Attr, AttrError, convert

if TYPE_CHECKING:
    from mqlite.engine.qmgr import QueueManager


class Part:
    """One group of MQSC commands (security, cluster, topics, subscriptions, status, DISPLAY of
    objects); ``mqsc.commands.Executor`` holds one of each and sends each command to its group."""

    def __init__(self, qm: QueueManager, services: Services) -> None:
        self.qm = qm
        self.services = services

    def need_name(self, cmd: Command) -> str:
        if cmd.name is None or cmd.name == "":
            raise SyntaxProblem(cmd.text, cmd.text, "An object name is required.")
        return cmd.name

    def unsupported(self, cmd: Command) -> Result:
        return Result([message("MQL0001E", verb=cmd.verb, objtype=cmd.objtype)],
                      ERROR)

    def word(self, cmd: Command, key: str, choices: tuple[str, ...], default: str) -> str:
        """A parameter whose value is one of ``choices`` (upper-cased), or ``default`` if absent."""
        p = cmd.param(key)
        if p is None:
            return default
        if p.value is None or p.value.upper() not in choices:
            raise SyntaxProblem(cmd.text, p.text, f"{key} must be one of {', '.join(choices)}.")
        return p.value.upper()

    def values(self, cmd: Command, kind: str, allowed_extra: set[str]) -> dict[str, Any]:
        """The attributes a DEFINE or ALTER sets, converted by the attribute table."""
        values: dict[str, Any] = {}
        for p in cmd.params:
            if p.keyword in allowed_extra:
                continue
            attr = TABLE.lookup(kind, p.keyword)
            if attr is None or not attr.alterable:
                raise SyntaxProblem(cmd.text, p.text, f"{p.keyword} is not valid for {kind}.")
            values[attr.name] = self.convert(cmd, attr, p)
        return values

    def convert(self, cmd: Command, attr: Attr, p: Param) -> Any:
        if attr.kind == FLAG:
            if p.value is not None:
                raise SyntaxProblem(cmd.text, p.text, f"{p.keyword} takes no value.")
            return 1 if p.keyword == attr.name else 0
        if p.value is None:
            raise SyntaxProblem(cmd.text, p.text, f"{p.keyword} needs a value.")
        try:
            if attr.kind == LIST:
                return convert(attr, p.items or [])
            return convert(attr, p.value)
        except AttrError as e:
            raise SyntaxProblem(cmd.text, p.text, str(e)) from None

    def disp(self, cmd: Command, allowed: tuple[str, ...], default: str = "QMGR") -> Any:
        """The QSGDISP a command names (its MQQSGD value); for DISPLAY also LIVE and ALL (as words)."""
        p = cmd.param("QSGDISP")
        if p is None or (p.value is None and default == "LIVE"):   # DISPLAY ... QSGDISP: the attribute
            word = default
        elif p.value is None or p.value.upper() not in allowed:
            raise SyntaxProblem(cmd.text, p.text, f"QSGDISP must be one of {', '.join(allowed)}.")
        else:
            word = p.value.upper()
        return admin.DISPS.get(word, word)
