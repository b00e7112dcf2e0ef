"""The current table at the top of docs/performance.md: every benchmark, mqlite beside its peer or
ceiling in the same run, the ratio, the target, the command. ``make bench`` runs this.

Each benchmark script runs with ``--json`` into a scratch directory and its figures become rows.
The table is rewritten between its two markers, headed with the date and the commit. Rows of a
script that did not run (``--only``) are kept from the table as it was. With ``--from DIR`` the
JSON files already in DIR (named ``<name>.json``, the table's name for a run: ``putget``,
``putget-contended``, ...) are read instead of running anything.

    python bench/table.py [--only putget,pubsub,...] [--from DIR] [--doc docs/performance.md]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any, NamedTuple

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BEGIN, END = "<!-- current table: begin (bench/table.py writes it) -->", "<!-- current table: end -->"


class Row(NamedTuple):
    script: str
    case: str
    mqlite: float
    unit: str
    peer: str
    peer_figure: float | None
    target: str               # "≥ 2×", "≤ 500 ms", ... ("" when none is set)


def _pair(out: list[Row], script: str, case: str, m: dict[str, Any] | None, r: dict[str, Any] | None,
          key: str, peer: str, target: str = "") -> None:
    if m is not None:
        out.append(Row(script, case, float(m[key]), "msgs/s", peer, float(r[key]) if r else None, target))


PUTGET_CASES = (("a_nonpersistent", "nonpersistent (async put, read-ahead get)"),
                ("b_persistent", "persistent, each durable"),
                ("c_persistent_uow50", "persistent, units of 50"),
                ("d_persistent_8_producers", "persistent, 8 producers (8 consumers get)"),
                ("d_persistent_32_producers", "persistent, 32 producers (8 consumers get)"))
PUTGET_TARGETS = {"a_nonpersistent": ("≥ 2×", "≥ 2×"), "c_persistent_uow50": ("≥ 2×", "≥ 1.6×"),
                  "d_persistent_8_producers": ("≥ 2×", "≥ 1.2×")}


def _putget_rows(j: dict[str, Any], script: str, targets: dict[str, tuple[str, str]]) -> list[Row]:
    out: list[Row] = []
    for name, case in PUTGET_CASES:
        m, r = j.get(f"mqlite_{name}"), j.get(f"rabbitmq_{name}")
        for key, target in zip(("put", "get"), targets.get(name, ("", ""))):
            _pair(out, script, f"{case}: {key}", m, r, key, "RabbitMQ", target)
    return out


def _cpu_rows(j: dict[str, Any], script: str) -> list[Row]:
    """CPU µs per message, the clients' and the broker's together (RabbitMQ: its Erlang VM and the
    pika clients), beside RabbitMQ's in the same run; on the persistent rows mqlite's total is to be
    no more than RabbitMQ's."""
    out: list[Row] = []
    for name, case in PUTGET_CASES:
        m, r = j.get(f"mqlite_{name}"), j.get(f"rabbitmq_{name}")
        if m is None or "put_client_us" not in m:
            continue
        for key in ("put", "get"):
            total = m[f"{key}_client_us"] + m[f"{key}_server_us"]
            peer = r[f"{key}_client_us"] + r[f"{key}_server_us"] if r and f"{key}_client_us" in r else None
            out.append(Row(script, f"{case}: {key}, CPU per message (client + broker; "
                                   f"mqlite's {m[f'{key}_client_us']:.0f} + {m[f'{key}_server_us']:.0f})",
                           total, "µs", "RabbitMQ", peer, "" if name == "a_nonpersistent" else "≤ 1×"))
    return out


def putget(j: dict[str, Any]) -> list[Row]:
    out = _putget_rows(j, "putget", PUTGET_TARGETS)
    m, b = j.get("mqlite_a_nonpersistent"), j.get("mqlite_a_nonpersistent_100MiB")
    if m and b:
        for key in ("put", "get"):
            out.append(Row("putget", f"nonpersistent past the 8 MiB queue buffer (spill): {key}", m[key], "msgs/s",
                           "the same with a 100 MiB buffer", b[key], "≥ 0.85×"))
    return out + _cpu_rows(j, "putget")


def putget_contended(j: dict[str, Any]) -> list[Row]:
    """The putget rows with a process spinning on one of the two cores beside both brokers."""
    rates = {name: ("≥ 1.5×", "≥ 1.5×") for name, _ in PUTGET_CASES}
    return _putget_rows(j, "putget-contended", rates) + _cpu_rows(j, "putget-contended")


def pubsub(j: dict[str, Any]) -> list[Row]:
    out = []
    summary = j.get("summary", {})
    for pers in ("nonpersistent", "persistent"):
        for k in (10, 100):
            m = summary.get(f"mqlite {pers} k={k} exact")
            if m is None:
                continue
            r = summary.get(f"rabbitmq {pers} k={k} exact")
            target = ("≥ 2×" if pers == "nonpersistent" else "≥ 1.5×") if k == 100 else ""
            out.append(Row("pubsub", f"fan-out {pers}, {k} subscribers (copies/s)", m, "copies/s", "RabbitMQ", r,
                           target))
    return out


def protocols(j: dict[str, Any]) -> list[Row]:
    out = []
    for key, case, peer, target in (("amqp", "AMQP 1.0 durable, 1 KiB", "RabbitMQ", "≥ 1.5×"),
                                    ("mqtt", "MQTT QoS 1, 1 KiB", "Mosquitto", "≥ 1×")):
        v = j.get(key)
        if v and v.get("mqlite") is not None:
            out.append(Row("protocols", case, float(v["mqlite"]), "msgs/s", peer, v.get(peer), target))
    return out


def connections(j: dict[str, Any]) -> list[Row]:
    if not j:
        return []
    return [Row("connections", "p99 put+get with 1,000 idle connections", j["p99_ms_with_idle"], "ms",
                "alone (no idle connections)", j["p99_ms_alone"], "≤ 1.5× alone"),
            Row("connections", "server RSS per idle connection", j["server_kib_per_idle_connection"], "KiB",
                "", None, "≤ 64 KiB")]


def aio(j: dict[str, Any]) -> list[Row]:
    out = []
    for phase in ("live", "drain"):
        m, t = j.get(f"{phase}: asyncio face, one loop"), j.get(f"{phase}: pymqi face, threads")
        if m:
            out.append(Row("aio", f"100 consumers, {phase}: one event loop", m["msgs_per_s"], "msgs/s",
                           "100 pymqi threads", t["msgs_per_s"] if t else None, ""))
    return out


def _rest(j: dict[str, Any], script: str, kind: str, targets: tuple[str, str]) -> list[Row]:
    m, r = j.get("mqweb"), j.get("rabbitmq")
    out: list[Row] = []
    for key, what, target in (("put", "POST", targets[0]), ("get", "get (DELETE / ack)", targets[1])):
        if m is not None:
            out.append(Row(script, f"mqweb messaging REST, {kind}: {what}", m[key], "msgs/s",
                           "RabbitMQ HTTP API", r[key] if r else None, target))
    return out


def rest(j: dict[str, Any]) -> list[Row]:
    return _rest(j, "rest", "nonpersistent", ("≥ 2×", ""))


def rest_persistent(j: dict[str, Any]) -> list[Row]:
    return _rest(j, "rest-persistent", "persistent", ("≥ 1×", ""))


def cluster_scale(j: dict[str, Any]) -> list[Row]:
    """The 50-queue-manager cluster on this host (bench/cluster.py part e)."""
    if "e_size" not in j:
        return []
    n = j["e_size"]
    return [Row("cluster-scale", f"{n} queue managers: converged after the last start", j["e_converge_after_last_start_s"]
                * 1000, "ms", "", None, ""),
            Row("cluster-scale", f"{n} queue managers: PSS per partial repository", j["e_pss_mib_partial_median"] * 1024,
                "KiB", "", None, ""),
            Row("cluster-scale", f"{n} queue managers: PSS of a full repository", j["e_pss_mib_full_repository"] * 1024,
                "KiB", "", None, ""),
            Row("cluster-scale", f"{n} queue managers: NOT_FIXED puts over 10 instances, worst off even (%)",
                j["e_spread_worst_off_even_percent"], "%", "", None, "≤ 5%")]


def testkit(j: dict[str, Any]) -> list[Row]:
    if not j:
        return []
    return [Row("testkit", "fresh queue manager ready for clients", j["fresh_ms"], "ms", "", None, "≤ 300 ms"),
            Row("testkit", "session queue manager cleaned after a test", j["clean_ms"], "ms", "", None, "≤ 20 ms")]


def ceiling(j: dict[str, Any]) -> list[Row]:
    """The model doing mqlite's own work per put, measured in the same run (bench/ceiling.py)."""
    m, c, w = j.get("mqlite", {}), j.get("work mqlite's threads", {}), j.get("mqlite work µs", {})
    model = (f"ceiling: mqlite's measured work ({w.get('arrive', 0):.0f} µs where a put arrives, "
             f"{w.get('writer', 0):.0f} µs in the writer), thread per connection")
    raw = j.get("mqlite, raw producers", {})
    return [Row("ceiling", f"{k} persistent producers (group commit)", m[k], "puts/s", model, c.get(k),
                "≥ 0.8×" if k == "8" else "")
            for k in sorted(m, key=int)] + \
        [Row("ceiling", f"{k} persistent producers as cheap as the model's (the server alone)", raw[k], "puts/s",
             model, c.get(k), "") for k in sorted(raw, key=int)]


def consume(j: dict[str, Any]) -> list[Row]:
    """One asynchronous consumer (MQCB/MQCTL) beside read-ahead MQGET and pika's consumer."""
    out = []
    for pers in ("nonpersistent", "persistent"):
        v = j.get(pers, {})
        if "async" in v:
            peer = v.get("rabbitmq")
            out.append(Row("consume", f"one async consumer (MQCB), {pers}", v["async"]["msgs_per_s"], "msgs/s",
                           "RabbitMQ pika consumer, prefetch 200", peer["msgs_per_s"] if peer else None,
                           "≥ 2×" if pers == "nonpersistent" else ""))
            if "get" in v:
                out.append(Row("consume", f"read-ahead MQGET loop, {pers}", v["get"]["msgs_per_s"], "msgs/s",
                               "RabbitMQ pika consumer, prefetch 200", peer["msgs_per_s"] if peer else None, ""))
    r = j.get("reconnect")
    if r:
        for p in ("50", "99"):
            out.append(Row("consume", f"reconnect after kill -9: restart ready to MQRC_RECONNECTED, p{p}",
                           r[f"reconnected_ms_p{p}"], "ms", "", None, ""))
    return out


# a table's name for the script: the script's file, its arguments, what its JSON becomes
SCRIPTS: dict[str, tuple[str, list[str], Callable[[dict[str, Any]], list[Row]]]] = {
    "putget": ("putget", ["--runs", "3"], putget),
    "putget-contended": ("putget", ["--runs", "3", "--producers", "8", "--hog", "1"], putget_contended),
    "pubsub": ("pubsub", ["--runs", "3"], pubsub),
    "protocols": ("protocols", ["--runs", "3", "--n", "20000"], protocols),   # (runs of seconds: the applier inside)
    "connections": ("connections", ["--runs", "3"], connections),
    "ceiling": ("ceiling", ["--producers", "8,32", "--work-us", "mqlite", "--runs", "3", "--mqlite"], ceiling),
    "aio": ("aio", ["--runs", "3"], aio),
    "consume": ("consume", ["--runs", "3"], consume),
    "rest": ("rest", ["--runs", "3"], rest),
    "rest-persistent": ("rest", ["--runs", "3", "--n", "1000", "--persistent"], rest_persistent),
    "cluster-scale": ("cluster", ["--parts", "e", "--size", "50", "--instances", "10", "--spread", "10000"],
                      cluster_scale),
    "testkit": ("testkit", [], testkit),
}


def _number(x: float, unit: str) -> str:
    if unit in ("ms", "KiB", "%"):
        return f"{x:,.1f} {unit}"
    return f"{x:,.0f}"


def render(row: Row, when: str) -> str:
    ratio = f"{row.mqlite / row.peer_figure:.2f}×" if row.peer_figure else ""
    peer = f"{row.peer}: {_number(row.peer_figure, row.unit)}" if row.peer_figure is not None else row.peer
    unit = "" if row.unit in ("ms", "KiB", "%") else f" {row.unit}"
    file, args, _ = SCRIPTS[row.script]
    command = " ".join(["python", f"bench/{file}.py", *args])
    return f"| {row.script} | {row.case} | {_number(row.mqlite, row.unit)}{unit} | {peer} | {ratio} | {row.target} " \
           f"| `{command}` | {when} |"


def rewrite(doc: str, lines_by_script: dict[str, list[str]], header: str) -> None:
    text = open(doc, encoding="utf-8").read()
    kept: dict[str, list[str]] = {}
    if BEGIN in text and END in text:
        old = text[text.index(BEGIN):text.index(END)]
        for line in old.splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if line.startswith("| ") and cells[0] in SCRIPTS:
                kept.setdefault(cells[0], []).append(line)
    kept.update(lines_by_script)
    body = [BEGIN, "", header, "",
            "| bench | case | mqlite | peer or ceiling, same run | ratio | target | command | run |",
            "|---|---|---:|---|---:|---|---|---|"]
    for script in SCRIPTS:
        body += kept.get(script, [])
    body += ["", END]
    block = "\n".join(body)
    if BEGIN in text and END in text:
        text = text[:text.index(BEGIN)] + block + text[text.index(END) + len(END):]
    else:
        first = text.index("\n## ")
        text = text[:first] + "\n" + block + "\n" + text[first:]
    with open(doc, "w", encoding="utf-8") as f:
        f.write(text)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default=",".join(SCRIPTS))
    ap.add_argument("--from", dest="source")
    ap.add_argument("--doc", default=os.path.join(ROOT, "docs", "performance.md"))
    args = ap.parse_args()
    chosen = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = [s for s in chosen if s not in SCRIPTS]
    if unknown:
        raise SystemExit(f"unknown benchmarks: {unknown}; known: {list(SCRIPTS)}")
    scratch = args.source or tempfile.mkdtemp(prefix="mqlite-bench-table-")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=ROOT).stdout.strip() or "?"
    when = f"{time.strftime('%Y-%m-%d')} {commit}"
    lines: dict[str, list[str]] = {}
    for script in chosen:
        path = os.path.join(scratch, f"{script}.json")
        if not args.source:
            file, extra, _ = SCRIPTS[script]
            print(f"== bench/{file}.py {' '.join(extra)}", flush=True)
            subprocess.run([sys.executable, os.path.join(HERE, f"{file}.py"), *extra, "--json", path],
                           check=True, cwd=ROOT)
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as f:
            rows = SCRIPTS[script][2](json.load(f))
        lines[script] = [render(r, when) for r in rows]
    header = ("**Current figures.** Each row says the run (date and commit) it comes from; a benchmark not run "
              "this time keeps its earlier rows. Medians of 3 runs unless the command says otherwise. The ratio "
              "is mqlite's figure over the peer's or the ceiling's (for times and CPU per message, lower is better). The sections "
              "below are the history: what changed each figure, and why.")
    rewrite(args.doc, lines, header)
    for script in chosen:
        for line in lines.get(script, []):
            print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
