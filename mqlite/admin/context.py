"""What a command's handler works with: ``Admin``, over the queue manager (whose lock the
dispatcher holds while a handler runs) and the MQSC executor with its services (channel
operations, DISPLAY rows)."""
from __future__ import annotations

from typing import Any, Callable

from mqlite.admin.params import CommandError
from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.engine import admin
from mqlite.engine.admin import AdminError
from mqlite.engine.qmgr import QueueManager
from mqlite.mqsc.commands import Executor

ADMIN_REASON = {admin.NOT_FOUND: C.MQRC_UNKNOWN_OBJECT_NAME, admin.EXISTS: F.MQRCCF_OBJECT_ALREADY_EXISTS,
                admin.IN_USE: F.MQRCCF_OBJECT_OPEN, admin.NOT_EMPTY: C.MQRC_Q_NOT_EMPTY,
                admin.WRONG_TYPE: F.MQRCCF_OBJECT_WRONG_TYPE, admin.BAD_NAME: F.MQRCCF_OBJECT_NAME_ERROR,
                admin.CONFLICT: F.MQRCCF_PARM_CONFLICT}


class Admin:
    def __init__(self, qm: QueueManager, executor: Executor) -> None:
        self.qm = qm
        self.executor = executor
        self.services = executor.services

    def run(self, fn: Callable[..., Any], *args: Any) -> Any:
        """One of the administration functions MQSC uses too (``engine.admin``), its refusal as the
        PCF reason MQ gives."""
        try:
            return fn(self.qm, *args)
        except AdminError as e:
            raise CommandError(e.reason or ADMIN_REASON.get(e.code, F.MQRCCF_COMMAND_FAILED), detail=e.detail) from None

    def mqsc(self, text_: str) -> list[list[bytes]]:
        """Run the MQSC equivalent of a command; its message text goes back on failure."""
        result = self.executor.run(text_)
        if result.status != "ok":
            raise CommandError(F.MQRCCF_COMMAND_FAILED, detail=" ".join(result.lines))
        return [[]]
