"""The v1 queue resource's requests (``GET``, ``POST``, ``PATCH``, ``DELETE`` on
``/admin/qmgr/{qmgr}/queue[/{name}]``), each a few MQSC commands sent through ``run`` (the
command server, directly or through the gateway queue manager, as the caller's role allows) and
their answers turned into MQ's JSON by web/resources.py. A command MQ refuses is a ``Refused``
with its reason (404 for an unknown queue, 403 not authorized, else 400)."""
from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from mqlite.catalogue import message
from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.engine.status import QSTATUS_FIELDS
from mqlite.web import mqsc as M
from mqlite.web import pcffields as PF
from mqlite.web import resources as R

Run = Callable[[str, bool], tuple[str, bool]]       # (MQSC, read only) -> (response text, succeeded)
_MESSAGE = re.compile(r"^AMQ\d{4}[A-Z]:")
NOT_FOUND = 2085


class Refused(Exception):
    """MQ refused the command: the HTTP status, the AMQ message and its reason code."""

    def __init__(self, text: str, reason: int | None = None) -> None:
        self.line = next((ln.strip() for ln in text.splitlines() if _MESSAGE.match(ln)), text.strip())
        self.message_id = self.line[:8]
        self.reason = M.REASONS.get(self.message_id, M.COMMAND_FAILED) if reason is None else reason
        self.status = {NOT_FOUND: 404, 2035: 403}.get(self.reason, 400)
        super().__init__(self.line)

    @staticmethod
    def of(reason: int, name: str) -> Refused:
        """A PCF inquiry's refusal, with the AMQ message runmqsc would have shown for it."""
        text = {NOT_FOUND: message("AMQ8147E", name=name), 2035: message("AMQ8135E"),
                F.MQRCCF_CHL_STATUS_NOT_FOUND: message("AMQ8420I"),
                F.MQRCCF_CHANNEL_NOT_FOUND: message("AMQ8147E", name=name),
                F.MQRCCF_LSTR_STATUS_NOT_FOUND: message("AMQ8147E", name=name),       # (runmqsc's words)
                C.MQRC_NO_SUBSCRIPTION: message("AMQ8098E"),
                F.MQRCCF_SERV_STATUS_NOT_FOUND: message("MQL8010I", name=name)}.get(
            reason, message("AMQ8101S", reason=reason))
        return Refused(text, reason)


# inquire(command, parameters): the command server's PCF answer, one parameter dict each; Refused.of
# the reason when MQ refuses it.
Inquire = Callable[[int, dict[int, Any]], list[dict[int, Any]]]


def _inquired(inquire: Inquire, command: int, params: dict[int, Any], generic: bool) -> list[dict[int, Any]]:
    try:
        return inquire(command, params)
    except Refused as e:
        if generic and e.reason == NOT_FOUND:
            return []
        raise


QTYPES = {"local": C.MQQT_LOCAL, "alias": C.MQQT_ALIAS, "remote": C.MQQT_REMOTE, "model": C.MQQT_MODEL,
          "cluster": C.MQQT_CLUSTER}


def _queues(inquire: Inquire, pattern: str, qtype: int | None = None, generic: bool = False) -> list[dict[str, str]]:
    """Inquire Queue: each queue named (generic with ``*``), of ``qtype`` (all but the cluster's if
    None), as the fields DISPLAY QUEUE or QCLUSTER shows, read from PCF (web/pcffields.py), never
    from display text; ``generic``: none found is no queue rather than a refusal."""
    params: dict[int, Any] = {C.MQCA_Q_NAME: pattern.encode()}
    if qtype is not None:
        params[C.MQIA_Q_TYPE] = qtype
    answers = _inquired(inquire, F.MQCMD_INQUIRE_Q, params, generic or pattern.endswith("*"))
    return [PF.queue_fields(v) for v in answers]


def _one(inquire: Inquire, name: str) -> dict[str, str]:
    """The queue called ``name`` (any type): its fields, or Refused (404) if none."""
    found = _queues(inquire, name)
    if not found:
        raise Refused(message("AMQ8147E", name=name))
    return found[0]


def _pattern(name: str | None, query: Mapping[str, str], longest: int, what: str) -> str:
    """The object name a GET asks for: the URL's, or the ``name`` query parameter (generic with
    a trailing ``*``; all by default), not both; an MQ object name of up to ``longest`` characters."""
    if name is not None and "name" in query:
        raise M.BadRequest("MQWB0119E", f"The name query parameter cannot be given with a {what} name in the URL.")
    pattern = name if name is not None else query.get("name", "*")
    if not re.fullmatch(rf"[A-Za-z0-9._/%]{{0,{longest}}}\*?", pattern) or not pattern:
        raise M.BadRequest("MQWB0119E", f"The {what} name is missing or not a valid MQ object name.")
    return pattern


def get(inquire: Inquire, name: str | None, query: Mapping[str, str]) -> dict[str, Any]:
    """GET: the queues named (``name`` in the path, or the ``name`` query parameter, generic with
    ``*``) of the ``type`` asked for (every type by default, as IBM documents ``type=all``), with
    the ``attributes`` and ``status`` asked for and those the ``filter`` keeps."""
    pattern = _pattern(name, query, 48, "queue")
    qtype = query.get("type", "all")
    if qtype not in ("all", *R.QUALIFIER):
        raise M.BadRequest("MQWB0115E", f"The type '{qtype}' is not valid: all, local, alias, remote, cluster or model.")
    leaves = R.all_paths()
    keep = R.wanted(query.get("attributes"), R.GROUPS, leaves, "attributes")
    status_keep = R.wanted(query.get("status"), ["status"], {p for p in leaves if p.startswith("status.")}, "status")
    flt = R.Filter.parse(query["filter"], leaves) if "filter" in query else None
    objects = [R.queue_json(f) for f in _queues(inquire, pattern, None if qtype == "all" else QTYPES[qtype])]
    if qtype == "all":                 # (and the cluster's queues: PCF Inquire Queue's QType MQQT_CLUSTER)
        objects += [R.queue_json(f) for f in _queues(inquire, pattern, C.MQQT_CLUSTER, generic=True)]
    wants_status = "status" in query or (flt is not None and flt.path.startswith("status."))
    if wants_status and any(o["type"] == "local" for o in objects):
        answers = _inquired(inquire, F.MQCMD_INQUIRE_Q_STATUS, {C.MQCA_Q_NAME: pattern.encode()}, True)
        status = {f.get("QUEUE"): R.status_json(f) for f in (
            PF.status_fields(QSTATUS_FIELDS, v, C.MQCA_Q_NAME, "QUEUE") for v in answers)}
        for o in objects:
            if o["type"] == "local" and o["name"] in status:
                o["status"] = status[o["name"]]
    if flt is not None:
        objects = [o for o in objects if flt.keeps(o)]
    base = {"name", "type"} | (set() if keep is None else keep)
    out = []
    for o in objects:
        shown = R.project({k: v for k, v in o.items() if k != "status"}, None if keep is None else base)
        if "status" in query and "status" in o:
            shown["status"] = o["status"] if status_keep is None else \
                R.project({"status": o["status"]}, status_keep).get("status", {})
        out.append(shown)
    return {"queue": out}


def channels(inquire: Inquire, name: str | None, query: Mapping[str, str]) -> dict[str, Any]:
    """GET on the channel resource: the TCP message channels named (generic with ``*``) of the
    ``type`` asked for (all by default); each with its name, type and its type's connection and
    transmission queue, and ``clusterRouting`` when ``attributes`` asks for it; ``filter`` as
    the queue resource's."""
    pattern = _pattern(name, query, 20, "channel")
    kind = query.get("type", "all")
    if kind not in ("all", *R.CHANNEL_TYPES.values()):
        raise M.BadRequest("MQWB0115E", f"The type '{kind}' is not valid: all, {', '.join(R.CHANNEL_TYPES.values())}.")
    leaves = {"name", "type", *(f"clusterRouting.{k}" for k in R.CLUSTER_ROUTING)}
    keep = R.wanted(query.get("attributes"), ["clusterRouting"], leaves, "attributes")
    flt = R.Filter.parse(query["filter"], leaves) if "filter" in query else None
    out = []
    answers = _inquired(inquire, F.MQCMD_INQUIRE_CHANNEL, {F.MQCACH_CHANNEL_NAME: pattern.encode()},
                        pattern.endswith("*"))
    for f in (PF.channel_fields(v) for v in answers):
        obj = R.channel_json(f)
        if obj is None or kind not in ("all", obj["type"]) or (flt is not None and not flt.keeps(obj)):
            continue
        if keep is not None:
            obj = {k: v for k, v in obj.items() if k != "clusterRouting"} | R.project(
                {"clusterRouting": obj.get("clusterRouting", {})}, keep)
        out.append(obj)
    if name is not None and not pattern.endswith("*") and not out:
        raise Refused(message("AMQ8147E", name=name))
    return {"channel": out}


def create(run: Run, body: dict[str, Any], query: Mapping[str, str]) -> None:
    _changed(run, R.define_command(body, query.get("like")))


def change(run: Run, inquire: Inquire, name: str, body: dict[str, Any]) -> None:
    fields = _one(inquire, name)
    qtype = R.TYPES.get(fields.get("TYPE", ""), "local")
    if qtype == "cluster":
        raise Refused(message("AMQ8147E", name=name))
    _changed(run, R.alter_command(name, qtype, body, fields.get("QSVCIEV", "")))


def delete(run: Run, inquire: Inquire, name: str, query: Mapping[str, str]) -> None:
    """DELETE, with the ``purge`` and ``keepAuthorityRecords`` query parameters as MQ has them."""
    fields = _one(inquire, name)
    qualifier = fields.get("TYPE", "QLOCAL")
    if qualifier == "QCLUSTER":
        raise Refused(message("AMQ8147E", name=name))
    command = f"DELETE {qualifier}({M.quoted(name)})"
    if qualifier == "QLOCAL" and "purge" in query:
        command += " PURGE"
    if "keepAuthorityRecords" in query:
        command += " AUTHREC(NO)"
    _changed(run, command)


def _changed(run: Run, command: str) -> None:
    text, ok = run(command, False)
    if not ok:
        raise Refused(text)
