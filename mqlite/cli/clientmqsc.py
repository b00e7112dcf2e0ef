"""``runmqsc -n``: MQSC for a local client channel definition table, with no queue manager.

The table is the file MQCHLLIB/MQCHLTAB name (``AMQCLCHL.TAB`` in mqlite's data directory when
they are not set), the one a client finds through the same variables. Its definitions are loaded
into a scratch queue manager in memory, each command is run there by the queue manager's own MQSC
(so a definition is checked, defaulted from SYSTEM.DEF.CLNTCONN and displayed exactly as on a queue
manager), and after each change the table is written again. Only what runmqsc -n takes is taken:
DEFINE, ALTER, DELETE and DISPLAY of CLNTCONN channels and of CRLLDAP/OCSP authentication
information objects; anything else is a syntax error, as in MQ's client-mode grammar.

The file is MQ's JSON CCDT (MQ 9.1.2 and later read it; mqlite's clients read only it), not the
binary AMQCLCHL.TAB IBM's runmqsc -n writes: its layout is IBM's, unpublished, while the JSON form
is documented and what ``mqlite ccdt`` writes too. Authentication information objects, which the
JSON schema has no place for, are kept under a top-level ``authinfo`` key that clients ignore.
"""
from __future__ import annotations

import json
import os
import re
from typing import Any

from mqlite.admin.dump import quoted
from mqlite.catalogue import message
from mqlite.mqsc.parser import MQSCSyntaxError, parse
from mqlite.mqsc.result import Result
from mqlite.net import ccdt
from mqlite.paths import data_root

_VERBS = ("DEFINE", "ALTER", "DELETE", "DISPLAY")
_KINDS = {"CHANNEL": ("CHLTYPE", ("CLNTCONN",)), "AUTHINFO": ("AUTHTYPE", ("CRLLDAP", "OCSP"))}
_TEMPLATES = {"CHANNEL": "SYSTEM.DEF.CLNTCONN", "AUTHINFO": "SYSTEM.DEFAULT.AUTHINFO."}
# The CLNTCONN attributes the JSON CCDT carries (ccdt.write), and those of an AUTHINFO object.
_CHANNEL_KEEP = ("CONNAME", "QMNAME", "CLNTWGHT", "AFFINITY", "DEFRECON", "HBINT", "MAXMSGL", "DESCR", "SSLCIPH",
                 "CERTLABL", "SSLPEER")
_AUTHINFO_KEEP = ("AUTHTYPE", "CONNAME", "OCSPURL", "LDAPUSER", "DESCR")
_RECONNECT_WORDS = {ccdt.X.MQRCN_NO: "NO", ccdt.X.MQRCN_YES: "YES", ccdt.X.MQRCN_Q_MGR: "QMGR",
                    ccdt.X.MQRCN_DISABLED: "DISABLED"}
_ATTR = re.compile(r"([A-Z]+)\(((?:[^()]|\([^()]*\))*)\)")


def table_path(env: dict[str, str]) -> str:
    """The table runmqsc -n works on: MQCHLLIB/MQCHLTAB, as a client looks for it."""
    lib, tab = env.get("MQCHLLIB", "").strip(), env.get("MQCHLTAB", "").strip() or ccdt.DEFAULT_TABLE
    return tab if os.path.isabs(tab) else os.path.join(lib or data_root(), tab)


def display_blocks(lines: list[str], first: str) -> list[dict[str, str]]:
    """The objects of DISPLAY output as attribute dicts: each block begins with message ``first``
    (AMQ8414I for channels); a value may hold one level of parentheses (a CONNAME list)."""
    out: list[dict[str, str]] = []
    for line in lines:
        if line.startswith(first):
            out.append({})
        elif out:
            out[-1].update((k, v.strip()) for k, v in _ATTR.findall(line))
    return out


class ClientTable:
    """The table, held in a scratch queue manager while runmqsc -n runs."""

    def __init__(self, path: str) -> None:
        from mqlite.engine.clock import Clock
        from mqlite.engine.qmgr import QueueManager
        from mqlite.engine.queue import DEFAULT_BUFFERS
        from mqlite.mqsc.commands import Executor
        from mqlite.store.sqlite import MemoryStore
        self.path = path
        store: Any = MemoryStore()
        scratch = QueueManager("CLIENT", store, Clock(), None, DEFAULT_BUFFERS)
        scratch.create()
        self.executor = Executor(scratch)
        # A client table's channel names are its own: the scratch queue manager's other channels
        # (SYSTEM.DEF.SVRCONN, ...) go, so that a CLNTCONN may take any of their names.
        shown = self.executor.run("DISPLAY CHANNEL(*) CHLTYPE")
        for o in display_blocks(shown.lines, "AMQ8414I"):
            if o.get("CHLTYPE") != "CLNTCONN":
                self.executor.run(f"DELETE CHANNEL({quoted(o['CHANNEL'])})")
        self._load()

    def _load(self) -> None:
        """The table's definitions defined in the scratch queue manager; ValueError (OSError) when
        the file is not a JSON CCDT (cannot be read)."""
        if not os.path.exists(self.path):
            return
        with open(self.path, "rb") as f:
            doc = json.loads(f.read() or b"{}")
        if not isinstance(doc, dict) or not all(isinstance(a, dict) and "name" in a and "AUTHTYPE" in a
                                                for a in doc.get("authinfo", [])):
            raise ValueError("not a JSON CCDT (an object with a channel array)")
        try:
            defs = ccdt.parse(doc, self.path) if doc else []
        except ccdt.CCDTError as e:
            raise ValueError(str(e)) from None
        for d in defs:
            described = next((c.get("general", {}).get("description", "") for c in doc.get("channel", [])
                              if c.get("name") == d.name), "")
            attrs = {"CONNAME": d.conname, "QMNAME": d.qmgr, "CLNTWGHT": str(d.weight),
                     "AFFINITY": "NONE" if d.affinity == ccdt.X.MQCAFTY_NONE else "PREFERRED",
                     "DEFRECON": _RECONNECT_WORDS.get(d.reconnect, "NO"),
                     "HBINT": str(d.hbint), "MAXMSGL": str(d.maxmsgl), "DESCR": described, "SSLCIPH": d.cipher,
                     "CERTLABL": d.cert_label, "SSLPEER": d.peer_name}
            self._define("CHANNEL", d.name, "CHLTYPE(CLNTCONN)", attrs)
        for a in doc.get("authinfo", []):
            attrs = {k: str(v) for k, v in a.items() if k in _AUTHINFO_KEEP and k != "AUTHTYPE"}
            self._define("AUTHINFO", str(a["name"]), f"AUTHTYPE({a['AUTHTYPE']})", attrs)

    def _define(self, kind: str, name: str, typed: str, attrs: dict[str, str]) -> None:
        given = " ".join(f"{k}({quoted(v)})" for k, v in attrs.items() if v)
        result = self.executor.run(f"DEFINE {kind}({quoted(name)}) {typed} {given} REPLACE")
        if result.status != "ok":
            raise ValueError(f"{self.path}: {kind} {name} could not be loaded: {' '.join(result.lines)}")

    def objects(self, kind: str) -> list[dict[str, str]]:
        """The table's objects of a kind (the scratch queue manager's own defaults left out)."""
        typ, allowed = _KINDS[kind]
        shown = self.executor.run(f"DISPLAY {kind}(*) ALL")
        first = "AMQ8414I" if kind == "CHANNEL" else "AMQ8566I"
        return [o for o in display_blocks(shown.lines, first)
                if o.get(typ) in allowed and not o.get(kind, "").startswith(_TEMPLATES[kind])]

    def save(self) -> None:
        channels = [{k: v for k, v in o.items() if k == "CHANNEL" or k in _CHANNEL_KEEP}
                    for o in self.objects("CHANNEL")]
        doc = ccdt.write(channels)
        authinfo = [{"name": o["AUTHINFO"], **{k: o[k] for k in _AUTHINFO_KEEP if o.get(k)}}
                    for o in self.objects("AUTHINFO")]
        if authinfo:
            doc["authinfo"] = authinfo
        os.makedirs(os.path.dirname(self.path) or ".", exist_ok=True)
        tmp = self.path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(json.dumps(doc, indent=2) + "\n")
        os.replace(tmp, self.path)

    def run(self, text: str) -> Result:
        """One command, if runmqsc -n takes it."""
        try:
            cmd = parse(text)
        except MQSCSyntaxError as e:
            return Result([message("AMQ8405I"), e.segment],
                          "syntax")
        kind = cmd.objtype
        if cmd.verb not in _VERBS or kind not in _KINDS:
            return Result([message("AMQ8405I"),
                           " ".join(text.split()[:2])], "syntax")
        typ, allowed = _KINDS[kind]
        given = {p.keyword: p.value for p in cmd.params}
        if cmd.verb == "DEFINE" and str(given.get(typ, "")).upper() not in allowed:
            return Result([message("AMQ8405I"),
                           f"{cmd.verb} {kind}({cmd.name}) {typ}({given.get(typ, '')})"], "syntax")
        name = cmd.name or ""
        if cmd.verb in ("ALTER", "DELETE"):
            if not any(o.get(kind) == name for o in self.objects(kind)):
                return Result([message("AMQ8147E", name=name)], "error")
        if cmd.verb == "DISPLAY":
            result = self.executor.run(text)
            return self._shown(kind, name, result)
        result = self.executor.run(text)
        if result.status == "ok":
            self.save()
        return result

    def _shown(self, kind: str, name: str, result: Result) -> Result:
        """DISPLAY's blocks for the table's objects only."""
        if result.status != "ok":
            return result
        keep = {o[kind] for o in self.objects(kind)}
        first = "AMQ8414I" if kind == "CHANNEL" else "AMQ8566I"
        blocks: list[list[str]] = []
        for line in result.lines:
            if line.startswith(first) or not blocks:
                blocks.append([line])
            else:
                blocks[-1].append(line)
        lines = [line for b in blocks if not b[0].startswith(first)
                 or {v.strip() for k, v in _ATTR.findall(" ".join(b)) if k == kind} & keep for line in b]
        if not lines:
            return Result([message("AMQ8147E", name=name)], "error")
        return Result(lines, result.status)
