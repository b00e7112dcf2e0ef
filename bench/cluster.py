"""Cluster benchmarks (issue 4): (a) workload decisions per second, (b) end-to-end NOT_FIXED
persistent puts spread over three instances, (c) DEFINE of a new cluster queue to the first put
on a partial, (d) convergence of a 20-queue-manager cluster.

(a) The workload algorithm over 8 instances of a queue, as the cluster cache uses it: the same
    destinations tuple handed over call after call (so rules 1-16 are worked out once and kept)
    and every decision charged to the use record, as an MQPUT does. Reported too: the rate when
    every call brings a new tuple (rules 1-16 run each time), and with varied attributes (ranks,
    priorities, states, weights) so that more rules have work to do.

(b) FR1 (a full repository with no instance) puts --msgs persistent messages with
    MQOO_BIND_NOT_FIXED in units of work of 100 to Q1, hosted on PR1, PR2 and PR3 with
    DEFPRESP(ASYNC) (so the puts inside a unit of work get no individual answer, as MQ's
    asynchronous put; MQCMIT is synchronous); the clock runs from the first put until every message
    is on an instance. --producers splits the work over that many applications on FR1.
    (c) PR1 defines a new cluster queue; PR2 opens and puts until it succeeds (its first MQOPEN
    subscribes and waits for the answer).
    (d) 2 full and 18 partial repositories created and started one after another; reported: the
    time from the last start until every member knows both full repositories and both full
    repositories know all 20.
(e) The scale run (issue 69): --size queue managers (2 full repositories, the rest partials) on
    this host, a cluster queue on --instances of them; reported: the time to converge, each server
    process's RSS and PSS once converged (partials, full repositories), the CPU all of them use idle, the
    repository messages each took (MSGSIN of SYSTEM.CLUSTER.COMMAND.QUEUE, Reset Queue Statistics),
    the channels running, and --spread nonpersistent messages put with MQOO_BIND_NOT_FIXED on a
    partial without an instance: how evenly they land (the workload algorithm's round robin).
    Every queue manager is started through the harness (the warm starter's fork).

    python bench/cluster.py [--n 200000] [--runs 5] [--msgs 20000] [--producers 1] [--parts abcd]
                            [--size 50] [--instances 10] [--spread 10000] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from _common import cpu_seconds  # noqa: E402

from mqlite.cluster.wlm import Destination, Request, UseRecord, choose
from mqlite.cmq import CMQCFC

SALES = frozenset({"SALES"})


def uniform() -> tuple[Destination, ...]:
    return tuple(Destination(f"QM{i}", f"SALES.QM{i}", SALES, SALES) for i in range(8))


def varied() -> tuple[Destination, ...]:
    states = [CMQCFC.MQCHS_RUNNING, CMQCFC.MQCHS_INACTIVE, CMQCFC.MQCHS_RETRYING, CMQCFC.MQCHS_RUNNING]
    # two RETRYING channels and one suspended queue manager drop out; five weighted ones remain
    return tuple(Destination(f"QM{i}", f"SALES.QM{i}", SALES, SALES, netprty=i % 2, ch_weight=10 + 10 * i,
                             status=states[i % 4], suspended=i == 7)
                 for i in range(8))


def decisions(dests: tuple[Destination, ...], n: int, fresh: bool) -> float:
    req, used = Request(SALES), UseRecord()
    if fresh:   # distinct tuple objects of the same destinations: the shortlist memo never hits
        copies = [tuple(d for d in dests) for _ in range(n)]
        t0 = time.perf_counter()
        for d in copies:
            used.charge(choose(d, req, used))
    else:
        t0 = time.perf_counter()
        for _ in range(n):
            used.charge(choose(dests, req, used))
    return n / (time.perf_counter() - t0)


def _cluster(h, names, fulls, qdefs):
    from mqlite.testing import free_port
    ports = {n: free_port() for n in names}
    for i, n in enumerate(names):
        # each full repository points at the other; partials alternate between them
        target = fulls[0] if n == fulls[1] else fulls[1] if n == fulls[0] else fulls[i % 2]
        mqsc = ("ALTER QMGR REPOS(SALES)\n" if n in fulls else "")
        mqsc += (f"DEFINE CHANNEL(TO.{n}) CHLTYPE(CLUSRCVR) CONNAME('127.0.0.1({ports[n]})') CLUSTER(SALES) "
                 f"SHORTTMR(1)\nDEFINE CHANNEL(TO.{target}) CHLTYPE(CLUSSDR) CONNAME('127.0.0.1({ports[target]})') "
                 f"CLUSTER(SALES) SHORTTMR(1)\n" + qdefs.get(n, ""))
        h.add(n, mqsc, port=ports[n])
    return ports


def _converged(names, fulls) -> bool:
    from mqlite.cli.topology import cluster_view
    for n in names:
        known = cluster_view(n)
        if not set(fulls) <= set(known) or (n in fulls and len(known) < len(names)):
            return False
    return True


def _depth(h, qm, q) -> int:
    import re
    found = re.findall(r"CURDEPTH\((\d+)\)", h.qm(qm).mqsc(f"DISPLAY QLOCAL({q}) CURDEPTH").stdout)
    return int(found[0]) if found else 0


def end_to_end(msgs: int, runs: int, producers: int) -> dict:
    from mqlite import pymqi
    from mqlite.cmq import CMQC as C
    from mqlite.testing import Harness
    names = ["FR1", "FR2", "PR1", "PR2", "PR3"]
    out: dict = {}
    with Harness() as h:
        _cluster(h, names, ("FR1", "FR2"), {p: "DEFINE QLOCAL(Q1) CLUSTER(SALES) DEFPRESP(ASYNC) MAXDEPTH(999999999)\n"
                                            for p in ("PR1", "PR2", "PR3")})
        while not _converged(names, ("FR1", "FR2")):
            time.sleep(0.2)
        # (b)
        conns = [h.qm("FR1").client() for _ in range(producers)]
        queues = [pymqi.Queue(c, "Q1", C.MQOO_OUTPUT | C.MQOO_BIND_NOT_FIXED) for c in conns]
        pmo = pymqi.PMO(Options=C.MQPMO_SYNCPOINT)
        body = b"x" * 256
        queues[0].put(body, pymqi.MD(Persistence=C.MQPER_PERSISTENT), pmo)
        conns[0].commit()
        time.sleep(1)                          # the three cluster-sender channels are running now

        def produce(k: int, n: int) -> None:
            q, c, p = queues[k], conns[k], pymqi.PMO(Options=C.MQPMO_SYNCPOINT)
            for i in range(n):
                q.put(body, pymqi.MD(Persistence=C.MQPER_PERSISTENT), p)
                if i % 100 == 99:
                    c.commit()
            c.commit()
        # Depths are watched with MQINQ over client connections: polling with runmqsc would start
        # a Python process per look and take a core away from the queue managers being measured.
        watch = []
        for p in ("PR1", "PR2", "PR3"):
            c = h.qm(p).client()
            watch.append((c, pymqi.Queue(c, "Q1", C.MQOO_INQUIRE)))
        rates, put_rates = [], []
        total = 1
        for _ in range(runs):
            t0 = time.perf_counter()
            threads = [threading.Thread(target=produce, args=(k, msgs // producers)) for k in range(producers)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            put_rates.append(msgs / (time.perf_counter() - t0))
            total += msgs
            while sum(wq.inquire(C.MQIA_CURRENT_Q_DEPTH) for _c, wq in watch) < total:
                time.sleep(0.02)
            rates.append(msgs / (time.perf_counter() - t0))
        spread = [wq.inquire(C.MQIA_CURRENT_Q_DEPTH) for _c, wq in watch]
        for c, wq in watch:
            wq.close()
            c.disconnect()
        for c in conns:
            c.disconnect()
        out["b_not_fixed_persistent_msgs_per_s"] = round(statistics.median(rates))
        print(f"{'b_not_fixed_persistent_msgs_per_s':32} median {out['b_not_fixed_persistent_msgs_per_s']:>10,} /s  "
              f"runs: {', '.join(f'{r:,.0f}' for r in rates)}  spread {spread}  "
              f"(puts alone: {statistics.median(put_rates):,.0f} /s)")
        # (c)
        times = []
        conn = h.qm("PR2").client()
        for i in range(runs):
            name = f"NEW.Q{i}"
            h.qm("PR1").mqsc(f"DEFINE QLOCAL({name}) CLUSTER(SALES)", check=True)
            t0 = time.perf_counter()
            while True:
                try:
                    pymqi.Queue(conn, name, C.MQOO_OUTPUT).put(b"first")
                    break
                except pymqi.MQMIError:
                    time.sleep(0.01)
            times.append(time.perf_counter() - t0)
        conn.disconnect()
        out["c_define_to_first_put_s"] = round(statistics.median(times), 3)
        print(f"{'c_define_to_first_put_s':32} median {out['c_define_to_first_put_s']:>10} s   "
              f"runs: {', '.join(f'{t:.3f}' for t in times)}")
    return out


def convergence(size: int) -> dict:
    from mqlite.testing import Harness
    names = ["FR1", "FR2"] + [f"PR{i}" for i in range(1, size - 1)]
    with Harness() as h:
        t0 = time.perf_counter()
        _cluster(h, names, ("FR1", "FR2"), {})
        started = time.perf_counter()
        while not _converged(names, ("FR1", "FR2")):
            time.sleep(0.2)
        done = time.perf_counter()
    out = {"d_converge_after_last_start_s": round(done - started, 2),
           "d_create_start_and_converge_s": round(done - t0, 2)}
    print(f"{'d_converge_after_last_start_s':32} {out['d_converge_after_last_start_s']:>10} s   "
          f"(create, start and converge {size} queue managers: {out['d_create_start_and_converge_s']} s)")
    return out


def _known(h, name) -> set[str]:
    """The cluster queue managers ``name`` knows (over its control socket: a runmqsc process for
    each of 50 members would take the cores the cluster needs)."""
    import re
    _status, lines = h.qm(name).command("DISPLAY CLUSQMGR(*)")
    return set(re.findall(r"CLUSQMGR\(([^)\s]+)\)", "\n".join(lines)))


def _instances(h, name, queue: str) -> int:
    """How many instances of cluster queue ``queue`` ``name`` knows."""
    _status, lines = h.qm(name).command(f"DISPLAY QCLUSTER({queue}) CLUSQMGR")
    return sum(1 for line in lines if "CLUSQMGR(" in line)


def _mem_mib(pid: int, field: str) -> float:
    """``Rss`` or ``Pss`` (shared pages divided among the processes sharing them: the servers forked
    from one warm starter share the interpreter's and the imports' pages) of a process, in MiB."""
    with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return 0.0


def _msgs_in(conn, queue: str) -> int:
    """MSGSIN of ``queue`` since the last reset (PCF Reset Queue Statistics, which resets it)."""
    from mqlite import pymqi
    from mqlite.cmq import CMQC as C
    (r,) = pymqi.PCFExecute(conn).MQCMD_RESET_Q_STATS({C.MQCA_Q_NAME: queue.encode()})
    return int(r[C.MQIA_MSG_ENQ_COUNT])


def scale(size: int, instances: int, spread_msgs: int) -> dict:
    from mqlite import pymqi
    from mqlite.cmq import CMQC as C
    from mqlite.testing import Harness
    fulls = ("FR1", "FR2")
    partials = [f"PR{i}" for i in range(1, size - 1)]
    names = list(fulls) + partials
    hosts = partials[:instances]
    producer = partials[instances]
    qdef = "DEFINE QLOCAL(Q.SCALE) CLUSTER(SALES) MAXDEPTH(999999999)\n"
    out: dict = {}
    with Harness() as h:
        t0 = time.perf_counter()
        _cluster(h, names, fulls, {p: qdef for p in hosts})
        started = time.perf_counter()
        while True:
            views = {n: _known(h, n) for n in names}
            if all(set(fulls) <= v for v in views.values()) and all(len(views[f]) >= size for f in fulls) \
                    and all(_instances(h, f, "Q.SCALE") >= instances for f in fulls):
                break
            if time.perf_counter() - started > 600:
                raise SystemExit(f"not converged in 600 s: {sorted((n, len(v)) for n, v in views.items())}")
            time.sleep(0.5)
        done = time.perf_counter()
        out["e_size"] = size
        out["e_create_and_start_s"] = round(started - t0, 1)
        out["e_converge_after_last_start_s"] = round(done - started, 1)
        pids = {n: h.qm(n).pid() for n in names}
        time.sleep(5)                       # (the last repository exchanges settle)
        for field in ("Rss", "Pss"):
            mem = {n: _mem_mib(p, field) for n, p in pids.items() if p}
            key = field.lower()
            out[f"e_{key}_mib_partial_median"] = round(statistics.median(mem[n] for n in partials), 1)
            out[f"e_{key}_mib_partial_max"] = round(max(mem[n] for n in partials), 1)
            out[f"e_{key}_mib_full_repository"] = round(max(mem[n] for n in fulls), 1)
            out[f"e_{key}_mib_all"] = round(sum(mem.values()))
        c0 = {n: cpu_seconds(p) for n, p in pids.items() if p}
        time.sleep(10)
        idle = sum(cpu_seconds(pids[n]) - c0[n] for n in c0) / 10
        out["e_idle_cpu_percent_of_one_core_all"] = round(100 * idle, 1)
        conns = {n: h.qm(n).client() for n in names}
        repo_in = {n: _msgs_in(conns[n], "SYSTEM.CLUSTER.COMMAND.QUEUE") for n in names}
        out["e_repository_msgs_in_partial_median"] = statistics.median(repo_in[n] for n in partials)
        out["e_repository_msgs_in_full_repository"] = max(repo_in[n] for n in fulls)
        # The spread: the producer's first MQOPEN asks the full repositories for the queue's instances.
        t_open = time.perf_counter()
        q = pymqi.Queue(conns[producer], "Q.SCALE", C.MQOO_OUTPUT | C.MQOO_BIND_NOT_FIXED)
        md, pmo = pymqi.MD(), pymqi.PMO(Options=C.MQPMO_SYNCPOINT)
        body = b"x" * 256
        for i in range(spread_msgs):
            md.MsgId = C.MQMI_NONE
            q.put(body, md, pmo)
            if i % 100 == 99:
                conns[producer].commit()
        conns[producer].commit()
        watch = {n: pymqi.Queue(conns[n], "Q.SCALE", C.MQOO_INQUIRE) for n in hosts}
        while sum(w.inquire(C.MQIA_CURRENT_Q_DEPTH) for w in watch.values()) < spread_msgs:
            if time.perf_counter() - t_open > 600:
                break
            time.sleep(0.1)
        arrived = time.perf_counter() - t_open
        depths = {n: w.inquire(C.MQIA_CURRENT_Q_DEPTH) for n, w in watch.items()}
        even = spread_msgs / instances
        out["e_spread_depths"] = [depths[n] for n in hosts]
        out["e_spread_worst_off_even_percent"] = round(100 * max(abs(d - even) for d in depths.values()) / even, 2)
        out["e_spread_open_to_all_arrived_s"] = round(arrived, 2)
        repo_after = {n: _msgs_in(conns[n], "SYSTEM.CLUSTER.COMMAND.QUEUE") for n in fulls + (producer,) + tuple(hosts)}
        out["e_repository_msgs_for_the_queue_full_repository"] = max(repo_after[n] for n in fulls)
        out["e_repository_msgs_for_the_queue_producer"] = repo_after[producer]
        channels = {}
        for n in names:
            _status, lines = h.qm(n).command("DISPLAY CHSTATUS(*) STATUS")
            channels[n] = sum(line.count("STATUS(RUNNING)") for line in lines)
        out["e_channels_running_all"] = sum(channels.values())
        out["e_channels_running_full_repository"] = max(channels[n] for n in fulls)
        out["e_channels_running_partial_median"] = statistics.median(channels[n] for n in partials)
        for w in watch.values():
            w.close()
        q.close()
        for c in conns.values():
            c.disconnect()
    for k, v in out.items():
        print(f"{k:48} {v}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=200_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--json")
    ap.add_argument("--msgs", type=int, default=20_000)
    ap.add_argument("--producers", type=int, default=1, help="(b): applications putting on FR1 at once")
    ap.add_argument("--parts", default="abcd")
    ap.add_argument("--size", type=int, default=50, help="(e): queue managers in the cluster")
    ap.add_argument("--instances", type=int, default=10, help="(e): of them hosting the cluster queue")
    ap.add_argument("--spread", type=int, default=10_000, help="(e): messages put to it, NOT_FIXED")
    args = ap.parse_args()
    results = {}
    for name, dests, fresh in () if "a" not in args.parts else (("a_decisions_per_s", uniform(), False),
                               ("a_decisions_per_s_varied", varied(), False),
                               ("a_decisions_per_s_uncached", uniform(), True)):
        n = args.n if not fresh else args.n // 5
        runs = [decisions(dests, n, fresh) for _ in range(args.runs)]
        results[name] = round(statistics.median(runs))
        print(f"{name:32} median {results[name]:>10,} /s  runs: {', '.join(f'{r:,.0f}' for r in runs)}")
    if "b" in args.parts or "c" in args.parts:
        results.update(end_to_end(args.msgs, args.runs, args.producers))
    if "d" in args.parts:
        results.update(convergence(20))
    if "e" in args.parts:
        results.update(scale(args.size, args.instances, args.spread))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
