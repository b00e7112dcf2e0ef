"""Client channel definition tables (CCDT): MQ's JSON form, where a client finds one, and the
order in which an MQCONN tries the definitions that apply to the queue-manager name it asks for.

**Where** (MQ's precedence, after an MQCD given on MQCONNX): the MQCNO's CCDTUrl, then MQSERVER
(the caller's), then ``MQCCDTURL``, then ``MQCHLLIB``/``MQCHLTAB`` (file ``AMQCLCHL.TAB`` when
MQCHLTAB is not set). A location is a path or a ``file://`` URL. Only the JSON form is read: a
binary AMQCLCHL.TAB is refused with MQRC_CCDT_URL_ERROR (2600) naming ``mqlite ccdt``, which
writes a queue manager's CLNTCONN definitions as JSON.

**Which definitions apply** (MQ's rules): ``QM`` asks for the definitions whose queueManager is
QM and the queue manager reached must be QM; ``*QM`` asks for the same definitions (a queue-manager
group) and takes whichever queue manager answers; a blank name or ``*`` asks for the definitions
with no queueManager. None applies: MQRC_Q_MGR_NAME_ERROR (2058).

**Order**: definitions with CLNTWGHT 0 first, by channel name (a JSON CCDT may repeat a name: then
in file order); then those with a weight, drawn at random in proportion to their weights. With
AFFINITY(PREFERRED) (the default) the list is made once per process and table, from a generator
seeded with the host name (every process on a host makes the same list), and a definition that
failed to connect moves to the end (CLNTWGHT 0 ones stay first); with AFFINITY(NONE) every
connection draws again. Each definition's connections (its CONNAME list) are tried in turn.
"""
from __future__ import annotations

import json
import os
import random
import socket
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQXC as X

DEFAULT_TABLE = "AMQCLCHL.TAB"
_AFFINITY = {"preferred": X.MQCAFTY_PREFERRED, "none": X.MQCAFTY_NONE}
_RECONNECT = {"no": X.MQRCN_NO, "yes": X.MQRCN_YES, "queuemanager": X.MQRCN_Q_MGR, "qmgr": X.MQRCN_Q_MGR,
              "disabled": X.MQRCN_DISABLED}


class CCDTError(Exception):
    def __init__(self, reason: int, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason


@dataclass(frozen=True)
class Definition:
    """One client-connection channel of a CCDT."""
    name: str
    qmgr: str                      # QMNAME ("" when none)
    conname: str                   # "host(port),host(port)"
    weight: int = 0                # CLNTWGHT 0-99
    affinity: int = X.MQCAFTY_PREFERRED
    reconnect: int = X.MQRCN_NO    # DEFRECON
    cipher: str = ""               # SSLCIPH
    cert_label: str = ""           # CERTLABL
    peer_name: str = ""            # SSLPEER
    maxmsgl: int = 4194304
    hbint: int = 300
    order: int = 0                 # position in the table


def location(cno_url: str, env: Mapping[str, str]) -> str:
    """Where the CCDT is, by MQ's precedence (the MQCNO's URL first); "" when nowhere."""
    if cno_url.strip():
        return cno_url.strip()
    if env.get("MQCCDTURL", "").strip():
        return env["MQCCDTURL"].strip()
    lib, tab = env.get("MQCHLLIB", "").strip(), env.get("MQCHLTAB", "").strip()
    if not (lib or tab):
        return ""
    tab = tab or DEFAULT_TABLE
    if os.path.isabs(tab) or tab.startswith("file:"):
        return tab
    return (lib or ".").rstrip("/") + "/" + tab


def _path(url: str) -> str:
    if url.startswith("file://"):
        return url[len("file://"):] or "/"
    if "://" in url:
        raise CCDTError(C.MQRC_CCDT_URL_ERROR, f"CCDT {url}: only a path or a file:// URL is read")
    return url


def read(url: str) -> list[Definition]:
    """The client-connection definitions of the JSON CCDT at ``url`` (MQRC_CCDT_URL_ERROR when it
    cannot be read or is not a JSON CCDT)."""
    path = _path(url)
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise CCDTError(C.MQRC_CCDT_URL_ERROR, f"CCDT {url} cannot be read: {e.strerror}") from None
    if not raw.lstrip().startswith(b"{"):
        raise CCDTError(C.MQRC_CCDT_URL_ERROR, f"CCDT {url} is not a JSON CCDT (a binary AMQCLCHL.TAB is not read; "
                                               "`mqlite ccdt QMGR` writes a queue manager's CLNTCONN channels as JSON)")
    try:
        doc = json.loads(raw)
    except ValueError as e:
        raise CCDTError(C.MQRC_CCDT_URL_ERROR, f"CCDT {url} is not valid JSON: {e}") from None
    return parse(doc, url)


def parse(doc: Any, url: str = "CCDT") -> list[Definition]:
    """The definitions of a JSON CCDT document; an entry that breaks the schema is named."""
    channels = doc.get("channel") if isinstance(doc, dict) else None
    if not isinstance(channels, list):
        raise CCDTError(C.MQRC_CCDT_URL_ERROR, f"{url}: no \"channel\" array")
    out = []
    for i, ch in enumerate(channels):
        where = f"{url}: channel[{i}]"
        if not isinstance(ch, dict) or not isinstance(ch.get("name"), str) or not ch["name"].strip():
            raise CCDTError(C.MQRC_CCDT_URL_ERROR, f"{where} has no name")
        if ch.get("type") != "clientConnection":
            if isinstance(ch.get("type"), str):
                continue                              # other channel types: not for a client
            raise CCDTError(C.MQRC_CCDT_URL_ERROR, f"{where} has no type")
        name = ch["name"].strip()
        if len(name) > 20:
            raise CCDTError(C.MQRC_CCDT_URL_ERROR, f"{where}: channel name {name!r} is longer than 20")
        cc, cm = _obj(ch, "clientConnection", where), _obj(ch, "connectionManagement", where)
        ts, gen = _obj(ch, "transmissionSecurity", where), _obj(ch, "general", where)
        conns = cc.get("connection")
        if not isinstance(conns, list):
            raise CCDTError(C.MQRC_CCDT_URL_ERROR, f"{where} ({name}) has no connection")
        if not conns:
            continue            # a definition with no CONNAME (runmqsc -n keeps it): nothing to connect to
        addrs = []
        for c in conns:
            host, port = (c.get("host"), c.get("port", 1414)) if isinstance(c, dict) else (None, None)
            if not isinstance(host, str) or not host.strip() or not isinstance(port, int) or not 0 < port < 65536:
                raise CCDTError(C.MQRC_CCDT_URL_ERROR, f"{where} ({name}): connection {c!r} needs a host and a port")
            addrs.append(f"{host.strip()}({port})")
        weight = cm.get("clientWeight", 0)
        if not isinstance(weight, int) or not 0 <= weight <= 99:
            raise CCDTError(C.MQRC_CCDT_URL_ERROR, f"{where} ({name}): clientWeight {weight!r} is not 0-99")
        affinity = _AFFINITY.get(str(cm.get("affinity", "preferred")).lower())
        reconnect = _RECONNECT.get(str(cm.get("defaultReconnect", "no")).lower())
        if affinity is None or reconnect is None:
            raise CCDTError(C.MQRC_CCDT_URL_ERROR, f"{where} ({name}): affinity or defaultReconnect not valid")
        out.append(Definition(name, str(cc.get("queueManager", "")).strip(), ",".join(addrs), weight, affinity,
                              reconnect, str(ts.get("cipherSpecification", "")), str(ts.get("certificateLabel", "")),
                              str(ts.get("certificatePeerName", "")), int(gen.get("maximumMessageLength", 4194304)),
                              int(cm.get("heartbeatInterval", 300)), i))
    return out


def _obj(ch: dict[str, Any], key: str, where: str) -> dict[str, Any]:
    v = ch.get(key, {})
    if not isinstance(v, dict):
        raise CCDTError(C.MQRC_CCDT_URL_ERROR, f"{where}: {key} is not an object")
    return v


def applicable(defs: list[Definition], qmgr: str) -> tuple[list[Definition], str]:
    """The definitions an MQCONN for ``qmgr`` may use, and the name the queue manager reached must
    have ("" when any will do: a group name or a blank one)."""
    name = qmgr.strip()
    wanted = name
    if name.startswith("*"):
        name, wanted = name[1:].strip(), ""
    return [d for d in defs if d.qmgr == name], wanted


def ordered(defs: list[Definition], rng: random.Random) -> list[Definition]:
    """CLNTWGHT 0 first by name (then table order), then the weighted ones drawn in proportion
    to their weights."""
    out = sorted((d for d in defs if d.weight == 0), key=lambda d: (d.name, d.order))
    pool = sorted((d for d in defs if d.weight), key=lambda d: (d.name, d.order))
    while pool:
        at = rng.random() * sum(d.weight for d in pool)
        for i, d in enumerate(pool):
            at -= d.weight
            if at < 0 or i == len(pool) - 1:
                out.append(pool.pop(i))
                break
    return out


class Chooser:
    """The process's lists for AFFINITY(PREFERRED): one per (table, queue-manager name, the table's
    modification time), so a changed table makes a new one."""

    def __init__(self, seed: str | None = None) -> None:
        self._lists: dict[tuple[str, str, float], list[Definition]] = {}
        self._lock = threading.Lock()
        self._seed = socket.gethostname() if seed is None else seed

    def plan(self, url: str, qmgr: str, defs: list[Definition]) -> list[Definition]:
        if not defs:
            return []
        if all(d.affinity == X.MQCAFTY_NONE for d in defs):
            return ordered(defs, random.Random())
        key = (url, qmgr, _mtime(url))
        with self._lock:
            got = self._lists.get(key)
            if got is None:
                got = self._lists[key] = ordered(defs, random.Random(self._seed))
            return list(got)

    def failed(self, url: str, qmgr: str, d: Definition) -> None:
        """``d`` could not be connected: a weighted definition moves to the end of the list."""
        if not d.weight:
            return
        with self._lock:
            got = self._lists.get((url, qmgr, _mtime(url)))
            if got is not None and d in got:
                got.remove(d)
                got.append(d)


def _mtime(url: str) -> float:
    try:
        return os.stat(_path(url)).st_mtime
    except (OSError, CCDTError):
        return 0.0


def write(channels: list[dict[str, Any]]) -> dict[str, Any]:
    """A JSON CCDT document for CLNTCONN channel definitions given as attribute dicts (MQSC names:
    CHANNEL, CONNAME, QMNAME, CLNTWGHT, AFFINITY, DEFRECON, SSLCIPH, CERTLABL, SSLPEER, MAXMSGL,
    HBINT, DESCR), as MQ's binary table would carry them."""
    from mqlite.net.client import parse_conname
    out = []
    for ch in channels:
        entry: dict[str, Any] = {
            "name": ch["CHANNEL"], "type": "clientConnection",
            "clientConnection": {"connection": [{"host": h, "port": p} for h, p in parse_conname(ch["CONNAME"])]},
            "connectionManagement": {"clientWeight": int(ch.get("CLNTWGHT", 0)),
                                     "affinity": str(ch.get("AFFINITY", "PREFERRED")).lower(),
                                     "defaultReconnect": {"QMGR": "queueManager"}.get(
                                         str(ch.get("DEFRECON", "NO")), str(ch.get("DEFRECON", "NO")).lower()),
                                     "heartbeatInterval": int(ch.get("HBINT", 300))},
            "general": {"maximumMessageLength": int(ch.get("MAXMSGL", 4194304))},
        }
        if ch.get("QMNAME"):
            entry["clientConnection"]["queueManager"] = ch["QMNAME"]
        if ch.get("DESCR"):
            entry["general"]["description"] = ch["DESCR"]
        tls = {k: ch[m] for k, m in (("cipherSpecification", "SSLCIPH"), ("certificateLabel", "CERTLABL"),
                                     ("certificatePeerName", "SSLPEER")) if ch.get(m)}
        if tls:
            entry["transmissionSecurity"] = tls
        out.append(entry)
    return {"channel": out}
