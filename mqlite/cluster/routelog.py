"""The routing log and what-if replay (issue 68): a queue manager records each decision of the
cluster workload algorithm (the instances it could choose, the request, the one chosen and by which
rule); :func:`replay` runs the recorded decisions through the same pure function,
:func:`mqlite.cluster.wlm.choose`, under a changed configuration, and says where each message would
have gone.

The log is JSON lines, in order:

- ``{"type": "start", "seq", "time", "qmgr", "use": {"factor", "number", "last"}}`` — recording
  began; ``use`` is rule 18's record (:class:`wlm.UseRecord`) at that moment, so that a replay
  starts where the queue manager was;
- ``{"type": "config", "seq", "id", "queue", "dests": [...], "request": {...}}`` — a set of
  instances (and the request) not seen before in this recording, written once;
- ``{"type": "choice", "seq", "time", "queue", "config", "qmgr", "channel", "left", "rule"}`` — one
  run of the algorithm (a message put with BIND_NOT_FIXED, an MQOPEN bound on open, a group's first
  message, a message rerouted): ``left`` instances after rules 1-16 and the rule that decided;
- ``{"type": "reset", "seq"}`` — rule 18's record was reset (REFRESH CLUSTER).

Changes are written as MQSC-like commands (:func:`parse_change`).
"""
from __future__ import annotations

import dataclasses
import json
import os
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import IO, Any

from mqlite.cluster import wlm
from mqlite.cmq import CMQCFC as F

LOG_NAME = "routing.jsonl"


def _plain(value: Any) -> Any:
    return sorted(value) if isinstance(value, frozenset) else value


def dest_json(d: wlm.Destination) -> dict[str, Any]:
    return {k: _plain(v) for k, v in dataclasses.asdict(d).items()}


def dest_of(j: dict[str, Any]) -> wlm.Destination:
    fields: dict[str, Any] = {k: frozenset(v) if k in ("clusters", "channel_clusters") else v for k, v in j.items()}
    return wlm.Destination(**fields)


def request_json(r: wlm.Request) -> dict[str, Any]:
    return {k: _plain(v) for k, v in dataclasses.asdict(r).items()}


def request_of(j: dict[str, Any]) -> wlm.Request:
    fields: dict[str, Any] = {k: frozenset(v) if k == "local_clusters" else v for k, v in j.items()}
    return wlm.Request(**fields)


def deciding_rule(left: int, req: wlm.Request) -> str:
    """Which rule made the choice: one instance left by rules 1-16, or the least recently used
    (rule 18), after the most recently used channels (rule 17) when there were more than CLWLMRUC."""
    if left <= 1:
        return "1-16"
    return "17-18" if left > req.mruc else "18"


class Recorder:
    """Writes one queue manager's routing log (``ClusterState.routing`` while recording is on)."""

    def __init__(self, path: str, qmgr: str, use: wlm.UseRecord, now: float) -> None:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        self.path = path
        self._f: IO[str] = open(path, "a", encoding="utf-8")   # noqa: SIM115 - kept open while recording
        self._seq = 0
        self._known: dict[int, tuple[tuple[wlm.Destination, ...], wlm.Request, int]] = {}
        self._by_value: dict[tuple[tuple[wlm.Destination, ...], wlm.Request], int] = {}
        self._write({"type": "start", "time": now, "qmgr": qmgr,
                     "use": {"factor": dict(use.factor), "number": dict(use.number), "last": use.last}})

    def _write(self, rec: dict[str, Any]) -> None:
        self._seq += 1
        self._f.write(json.dumps({"seq": self._seq, **rec}, separators=(",", ":")) + "\n")
        self._f.flush()

    def _config(self, queue: str, dests: tuple[wlm.Destination, ...], req: wlm.Request) -> int:
        known = self._known.get(id(dests))
        if known is not None and known[0] is dests and known[1] is req:
            return known[2]
        cfg = self._by_value.get((dests, req))
        if cfg is None:
            cfg = self._by_value[(dests, req)] = len(self._by_value) + 1
            self._write({"type": "config", "id": cfg, "queue": queue, "dests": [dest_json(d) for d in dests],
                         "request": request_json(req)})
        if len(self._known) >= 4096:
            self._known.clear()
        self._known[id(dests)] = (dests, req, cfg)
        return cfg

    def choice(self, queue: str, dests: tuple[wlm.Destination, ...], req: wlm.Request, chosen: wlm.Destination,
               left: int, now: float) -> None:
        cfg = self._config(queue, dests, req)
        self._write({"type": "choice", "time": now, "queue": queue, "config": cfg, "qmgr": chosen.qmgr,
                     "channel": chosen.channel, "left": left, "rule": deciding_rule(left, req)})

    def reset(self) -> None:
        self._write({"type": "reset"})

    def close(self) -> None:
        self._f.close()


def switch(current: Recorder | None, path: str | None, qmgr: str, use: wlm.UseRecord,
           now: float) -> Recorder | None:
    """The recorder after ``mqlite whatif record``: a new one appending to ``path`` (its start
    record carrying ``use`` as it stands), or with None none; the current one is closed."""
    if current is not None:
        current.close()
    return None if path is None else Recorder(path, qmgr, use, now)


# --- changes ------------------------------------------------------------------------------------
Change = Callable[[str, tuple[wlm.Destination, ...]], tuple[wlm.Destination, ...]]   # (queue, its instances)
_CHANNEL_ATTRS = {"CLWLWGHT": "ch_weight", "CLWLPRTY": "ch_priority", "CLWLRANK": "ch_rank", "NETPRTY": "netprty"}
_QUEUE_ATTRS = {"CLWLPRTY": "q_priority", "CLWLRANK": "q_rank"}
_RANGES = {"CLWLWGHT": (1, 99), "CLWLPRTY": (0, 9), "CLWLRANK": (0, 9), "NETPRTY": (0, 9)}


class ChangeError(ValueError):
    pass


def _words(text: str) -> tuple[str, dict[str, str]]:
    """``VERB OBJECT(name) KEY(value) ...`` as (verb words, {KEY: value})."""
    t = text.strip()
    verb = " ".join(w.upper() for w in re.findall(r"^([A-Za-z]+)", t))
    pairs = {k.upper(): v.strip().strip("'") for k, v in re.findall(r"([A-Za-z]+)\(([^)]*)\)", t)}
    if not verb or re.sub(r"[A-Za-z]+\([^)]*\)", "", t[len(verb):]).strip():
        raise ChangeError(f"not a change: {text!r} (e.g. ALTER CHANNEL(TO.PR1) CLWLWGHT(80))")
    return verb, pairs


def _number(key: str, value: str) -> int:
    low, high = _RANGES[key]
    if not value.isdigit() or not low <= int(value) <= high:
        raise ChangeError(f"{key}({value}) is not in {low} to {high}")
    return int(value)


def parse_change(text: str) -> Change:
    """One configuration change, as MQSC names it:

    - ``ALTER CHANNEL(ch) [CHLTYPE(CLUSRCVR)] CLWLWGHT(n) CLWLPRTY(n) CLWLRANK(n) NETPRTY(n)`` — a
      CLUSRCVR's workload attributes, as the instances reached over it see them (the command that
      makes the change live, run on the channel's queue manager, is the same text);
    - ``ALTER QUEUE(q) QMGR(qm) CLWLPRTY(n) CLWLRANK(n) PUT(ENABLED|DISABLED)`` — one instance
      (``QMGR`` omitted: every instance of the queue);
    - ``STOP QMGR(qm)`` — the queue manager down: the channels to it retrying (rules 9-12);
    - ``SUSPEND QMGR(qm)`` / ``RESUME QMGR(qm)`` — rule 8;
    - ``ADD QMGR(new) LIKE(qm) [CHANNEL(ch)]`` — a new queue manager hosting every queue ``qm``
      hosts, reached like it (over ``ch``, default the channel name with ``qm`` replaced by ``new``).
    """
    verb, kv = _words(text)
    if verb == "ALTER" and "CHANNEL" in kv:
        channel = kv.pop("CHANNEL")
        if kv.pop("CHLTYPE", "CLUSRCVR").upper() not in ("CLUSRCVR", "CLUSSDR"):
            raise ChangeError(f"a cluster channel's workload attributes: CHLTYPE(CLUSRCVR) in {text!r}")
        attrs: dict[str, Any] = {_CHANNEL_ATTRS[k]: _number(k, v) for k, v in kv.items() if k in _CHANNEL_ATTRS}
        if len(attrs) != len(kv) or not attrs:
            raise ChangeError(f"ALTER CHANNEL takes {', '.join(_CHANNEL_ATTRS)}: {text!r}")
        return lambda _q, dests: tuple(replace(d, **attrs) if d.channel == channel else d for d in dests)
    if verb == "ALTER" and "QUEUE" in kv:
        queue = kv.pop("QUEUE")
        qmgr = kv.pop("QMGR", "")
        sets: dict[str, Any] = {_QUEUE_ATTRS[k]: _number(k, v) for k, v in kv.items() if k in _QUEUE_ATTRS}
        if "PUT" in kv:
            if kv["PUT"].upper() not in ("ENABLED", "DISABLED"):
                raise ChangeError(f"PUT({kv['PUT']}) is not ENABLED or DISABLED")
            sets["put_enabled"] = kv["PUT"].upper() == "ENABLED"
        if len(sets) != len(kv) or not sets:
            raise ChangeError(f"ALTER QUEUE takes QMGR, {', '.join(_QUEUE_ATTRS)}, PUT: {text!r}")
        return lambda q, dests: dests if q != queue else tuple(
            replace(d, **sets) if not qmgr or d.qmgr == qmgr else d for d in dests)
    if verb in ("STOP", "SUSPEND", "RESUME") and set(kv) == {"QMGR"}:
        target = kv["QMGR"]
        state: dict[str, Any] = ({"status": F.MQCHS_RETRYING} if verb == "STOP" else {"suspended": verb == "SUSPEND"})
        return lambda _q, dests: tuple(replace(d, **state) if d.qmgr == target and not d.local else d for d in dests)
    if verb == "ADD" and {"QMGR", "LIKE"} <= set(kv) <= {"QMGR", "LIKE", "CHANNEL"}:
        new, like = kv["QMGR"], kv["LIKE"]
        channel = kv.get("CHANNEL", "")

        def add(_queue: str, dests: tuple[wlm.Destination, ...]) -> tuple[wlm.Destination, ...]:
            copies = [replace(d, qmgr=new, local=False, channel=channel or d.channel.replace(like, new),
                              status=F.MQCHS_INACTIVE) for d in dests if d.qmgr == like]
            return dests + tuple(copies)
        return add
    raise ChangeError(f"not a change the replay knows: {text!r} (ALTER CHANNEL, ALTER QUEUE, STOP, SUSPEND, "
                      "RESUME or ADD QMGR)")


# --- replay --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Outcome:
    """One recorded decision and the replay's: the instance and the channel each chose (``source``:
    the queue manager that chose)."""
    source: str
    seq: int
    queue: str
    qmgr: str
    channel: str
    predicted_qmgr: str
    predicted_channel: str
    rule: str
    predicted_rule: str

    @property
    def moved(self) -> bool:
        return (self.qmgr, self.channel) != (self.predicted_qmgr, self.predicted_channel)


def read_log(lines: Iterable[str]) -> list[dict[str, Any]]:
    """The records of a routing log, in order (blank lines skipped)."""
    return sorted((json.loads(line) for line in lines if line.strip()), key=lambda r: int(r["seq"]))


def replay(records: Iterable[dict[str, Any]], changes: Iterable[Change] = ()) -> Iterable[Outcome]:
    """Each recorded choice made again by :func:`wlm.choose` over its recorded instances with the
    ``changes`` applied, the use record carried from choice to choice as the queue manager carries
    it (charged with each choice, set at each start, cleared at each reset)."""
    changes = list(changes)
    use = wlm.UseRecord()
    configs: dict[int, tuple[tuple[wlm.Destination, ...], wlm.Request]] = {}
    source = ""
    for rec in records:
        kind = rec["type"]
        if kind == "start":
            source = str(rec.get("qmgr", ""))
            u = rec["use"]
            use = wlm.UseRecord(factor=dict(u["factor"]), number=dict(u["number"]), last=int(u["last"]))
            configs = {}
        elif kind == "config":
            dests = tuple(dest_of(d) for d in rec["dests"])
            for change in changes:
                dests = change(rec["queue"], dests)
            configs[int(rec["id"])] = (dests, request_of(rec["request"]))
        elif kind == "reset":
            use.reset()
        elif kind == "choice":
            dests, req = configs[int(rec["config"])]
            try:
                d = wlm.choose(dests, req, use)
            except wlm.WorkloadError as e:
                yield Outcome(source, int(rec["seq"]), rec["queue"], rec["qmgr"], rec["channel"], "", f"MQRC {e.reason}",
                              rec.get("rule", ""), "none")
                continue
            use.charge(d)
            left = len(use.shortlists[id(dests)][2])
            yield Outcome(source, int(rec["seq"]), rec["queue"], rec["qmgr"], rec["channel"], d.qmgr, d.channel,
                          rec.get("rule", ""), deciding_rule(left, req))


@dataclass
class Summary:
    """What a replay says: per queue and instance, how many messages went there and would go there;
    the messages that would move (from, to), and the channels that would carry them."""
    choices: int = 0
    recorded: Counter[tuple[str, str]] = field(default_factory=Counter)
    predicted: Counter[tuple[str, str]] = field(default_factory=Counter)
    moves: Counter[tuple[str, str, str]] = field(default_factory=Counter)     # (queue, from, to)
    channels: Counter[str] = field(default_factory=Counter)                    # channels of the moved messages

    @property
    def moved(self) -> int:
        return sum(self.moves.values())

    @property
    def reproduced(self) -> float:
        return 1.0 - self.moved / self.choices if self.choices else 1.0


def summarise(outcomes: Iterable[Outcome]) -> Summary:
    s = Summary()
    for o in outcomes:
        s.choices += 1
        s.recorded[(o.queue, o.qmgr)] += 1
        s.predicted[(o.queue, o.predicted_qmgr)] += 1
        if o.moved:
            s.moves[(o.queue, o.qmgr, o.predicted_qmgr)] += 1
            s.channels[o.predicted_channel] += 1
    return s


def report(s: Summary) -> list[str]:
    """The summary as the ``mqlite whatif`` command prints it."""
    lines = [f"{s.choices} recorded choices; {s.moved} would move ({100 * s.moved / max(1, s.choices):.1f}%)", "",
             f"{'QUEUE':<24} {'QMGR':<16} {'RECORDED':>9} {'SHARE':>7} {'PREDICTED':>10} {'SHARE':>7}"]
    per_queue = Counter[str]()
    for (queue, _qmgr), n in s.recorded.items():
        per_queue[queue] += n
    for queue, qmgr in sorted(set(s.recorded) | set(s.predicted)):
        total = max(1, per_queue[queue])
        rec, pred = s.recorded[(queue, qmgr)], s.predicted[(queue, qmgr)]
        lines.append(f"{queue:<24} {qmgr or '(none)':<16} {rec:>9} {100 * rec / total:>6.1f}% {pred:>10} "
                     f"{100 * pred / total:>6.1f}%")
    if s.moves:
        lines += ["", "Messages that would move:"]
        lines += [f"  {n:>7}  {queue}: {a} -> {b or '(none)'}" for (queue, a, b), n in sorted(s.moves.items())]
        lines += ["", "Channels that would carry them:"]
        lines += [f"  {n:>7}  {ch}" for ch, n in sorted(s.channels.items())]
    return lines
