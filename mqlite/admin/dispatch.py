"""One PCF request, from its bytes to the response records: the format and header checked, the
command found in the table (``admin.commands``), the request's user checked for the authority the
command needs (here, once, for every command), the handler run, and every refusal turned into the
reason MQ gives. The caller (the command server) holds the engine's lock around ``dispatch`` and
puts the replies."""
from __future__ import annotations

import traceback
from collections.abc import Callable

from mqlite.admin.commands import COMMANDS, needs
from mqlite.admin.context import Admin
from mqlite.admin.params import CommandError, EscapeFailed
from mqlite.catalogue import entry, message
from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.cmq import pcf
from mqlite.cmq.structs import MD, text
from mqlite.engine.events import Issuer
from mqlite.security.authority import names_of

Reply = tuple[int, int, list[bytes]]        # CompCode, Reason, the response's parameters
# The commands that only display (CMDEV(NODISPLAY) leaves them out).
INQUIRIES = frozenset(v for k, v in vars(F).items() if k.startswith("MQCMD_INQUIRE_"))


def dispatch(a: Admin, md: MD, body: bytes, log: Callable[[str, str, str], None]) -> tuple[int, list[Reply]]:
    """The command a request carries and its replies (one per object found, at least one).
    ``log(msgid, text, detail)``: the error log, for a malformed request or a defect."""
    command = 0
    try:
        if md.Format not in (C.MQFMT_ADMIN, C.MQFMT_PCF):
            raise CommandError(F.MQRCCF_MD_FORMAT_ERROR, detail=f"Format {md.Format!r}")
        msg = pcf.decode(body)
        command = msg.header.command
        if msg.header.type not in (F.MQCFT_COMMAND, F.MQCFT_COMMAND_XR):
            raise CommandError(F.MQRCCF_CFH_TYPE_ERROR)
        cmd = COMMANDS.get(command)
        if cmd is None:
            raise CommandError(F.MQRCCF_CFH_COMMAND_ERROR, detail=f"command {command}")
        authorize(a, text(md.UserIdentifier), command, msg)
        events = a.qm.events
        with events.issued(Issuer.of_message(md, a.qm.name)):
            objects = cmd.handler(a, msg)
            # CMDEV: the command succeeded; its data as it was sent.
            events.commanded(C.MQRC_COMMAND_PCF, command, pcf.raw_params(body), command in INQUIRIES)
        return command, [(C.MQCC_OK, 0, params) for params in objects] or [(C.MQCC_OK, 0, [])]
    except pcf.PCFError as e:
        log(*entry("MQL0012E", reason=e.reason), e.detail)
        return command, [(C.MQCC_FAILED, e.reason, [pcf.enc_int(F.MQIACF_PARAMETER_ID, e.parameter)]
                          if e.parameter else [])]
    except EscapeFailed as e:
        return command, [(C.MQCC_FAILED, e.reason, e.params)]
    except CommandError as e:
        return command, [(C.MQCC_FAILED, e.reason, [pcf.enc_int(F.MQIACF_PARAMETER_ID, e.parameter)]
                          if e.parameter else [])]
    except Exception as e:  # noqa: BLE001 - a defect: answer, log, keep serving
        log(*entry("AMQ6184W", qmgr=a.qm.name), f"The command server failed on a command.\n{traceback.format_exc()}")
        return command, [(C.MQCC_FAILED, F.MQRCCF_COMMAND_FAILED, [pcf.enc_str(F.MQCACF_ESCAPE_TEXT, str(e)[:200])])]


def authorize(a: Admin, user: str, command: int, msg: pcf.Message) -> None:
    """The command's user (the request's UserIdentifier) must hold what the command needs; else
    MQRC_NOT_AUTHORIZED, with AMQ8077W, and nothing runs."""
    qm = a.qm
    sec = qm.security
    principal = sec.principal(user)
    if principal.admin or not sec.oam:
        return
    for objtype, name, auth in needs(command, msg, qm.name):
        missing = auth & ~sec.authority(principal, objtype, name)
        if missing:
            words = ", ".join(names_of(missing)).lower()
            qm.log(message("AMQ8077W", entity=user, name=name),
                   f"Object type {objtype.lower()}. The following requested permissions are unauthorized: {words}.")
            qm.events.not_authorized(F.MQRQ_CMD_NOT_AUTHORIZED, command=command, user=user)
            raise CommandError(C.MQRC_NOT_AUTHORIZED, detail=f"{user} lacks {words} on {name}")
