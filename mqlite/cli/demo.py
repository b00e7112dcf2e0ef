"""The README's main job: the SALES cluster of examples/sales (two full repositories, two partial
repositories) brought up from its MQSC files on free loopback ports, DISPLAY CLUSQMGR, then puts
from FR1 (which hosts no instance) to the cluster queue SALES.ORDERS with each binding option,
the messages got back from the two instances on PR1 and PR2, and the cluster taken down; all in a
data directory of its own, removed at the end."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Any

from mqlite.cli.proc import run_mqlite


def _show(title: str, proc: subprocess.CompletedProcess) -> None:
    print(f"$ {title}")
    print((proc.stdout + proc.stderr).rstrip())
    print()


def _drain(pymqi: Any, conname: str, qm: str) -> list[str]:
    from mqlite.pymqi import CMQC
    conn = pymqi.connect(qm, "DEV.APP.SVRCONN", conname)
    q = pymqi.Queue(conn, "SALES.ORDERS", CMQC.MQOO_INPUT_SHARED)
    gmo = pymqi.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_FAIL_IF_QUIESCING, WaitInterval=2000)
    out = []
    while True:
        try:
            out.append(q.get(None, pymqi.MD(), gmo).decode())
        except pymqi.MQMIError as e:
            if e.reason != CMQC.MQRC_NO_MSG_AVAILABLE:
                raise
            break
        gmo.WaitInterval = 500
    conn.disconnect()
    return out


def main() -> int:
    """The demo, in a data directory of its own (never the user's MQLITE_DATA, whose queue managers
    of the same names it would take down and delete), removed at the end."""
    own = tempfile.mkdtemp(prefix="mqlite-demo-")
    users = os.environ.get("MQLITE_DATA")
    os.environ["MQLITE_DATA"] = own
    try:
        return _run()
    finally:
        if users is None:
            os.environ.pop("MQLITE_DATA", None)
        else:
            os.environ["MQLITE_DATA"] = users
        shutil.rmtree(own, ignore_errors=True)


def _run() -> int:
    from mqlite import pymqi
    from mqlite.cli import topology
    from mqlite.pymqi import CMQC

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    directory = os.path.join(root, "examples", "sales")
    print("$ mqlite up examples/sales --ports auto")
    members = topology.up(directory, auto_ports=True)
    print()
    port_of = {m.name: m.port for m in members}
    try:
        _show("echo 'DISPLAY CLUSQMGR(*) QMTYPE STATUS' | mqlite runmqsc FR1",
              run_mqlite("runmqsc", "FR1", stdin="DISPLAY CLUSQMGR(*) QMTYPE STATUS\n"))
        # The workload algorithm ranks a channel that is still starting below running and inactive
        # ones (MQ's channel-state rules): start FR1's auto-defined cluster-sender channels first,
        # so that the round-robin below is not bent by channel start-up.
        _show("echo 'START CHANNEL(SALES.PR1) / START CHANNEL(SALES.PR2)' | mqlite runmqsc FR1",
              run_mqlite("runmqsc", "-e", "FR1", stdin="START CHANNEL(SALES.PR1)\nSTART CHANNEL(SALES.PR2)\n"))
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            st = run_mqlite("runmqsc", "-e", "FR1", stdin="DISPLAY CHSTATUS(SALES.PR*) STATUS\n").stdout
            if st.count("STATUS(RUNNING)") == 2:
                break
            time.sleep(0.2)
        fr1 = pymqi.connect("FR1", "DEV.APP.SVRCONN", f"127.0.0.1({port_of['FR1']})")
        persistent = pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT)
        cases = [("BIND_NOT_FIXED", CMQC.MQOO_BIND_NOT_FIXED, "every put chooses: round-robin"),
                 ("BIND_ON_OPEN", CMQC.MQOO_BIND_ON_OPEN, "one instance, chosen at MQOPEN"),
                 ("BIND_ON_GROUP", CMQC.MQOO_BIND_ON_GROUP, "each group to one instance")]
        for label, option, what in cases:
            q = pymqi.Queue(fr1, "SALES.ORDERS", CMQC.MQOO_OUTPUT | option)
            print(f"$ python: put to SALES.ORDERS from FR1 with MQOO_{label} ({what})")
            if option == CMQC.MQOO_BIND_ON_GROUP:
                for g in "AB":
                    for i in range(1, 4):
                        flags = CMQC.MQMF_LAST_MSG_IN_GROUP if i == 3 else CMQC.MQMF_MSG_IN_GROUP
                        q.put(f"group {g} message {i}", pymqi.MD(MsgFlags=flags, Persistence=CMQC.MQPER_PERSISTENT),
                              pymqi.PMO(Options=CMQC.MQPMO_LOGICAL_ORDER))
            else:
                for i in range(1, 7 if option == CMQC.MQOO_BIND_NOT_FIXED else 4):
                    persistent.MsgId = b""
                    q.put(f"{label} order {i}", persistent)
            q.close()
            for qm in ("PR1", "PR2"):
                got = _drain(pymqi, f"127.0.0.1({port_of[qm]})", qm)
                print(f"  got on {qm}: {got}")
            print()
        fr1.disconnect()
        _show("echo 'DISPLAY QCLUSTER(SALES.ORDERS) CLUSQT' | mqlite runmqsc FR1",
              run_mqlite("runmqsc", "FR1", stdin="DISPLAY QCLUSTER(SALES.ORDERS) CLUSQT\n"))
    finally:
        print("$ mqlite down examples/sales")
        topology.down(directory, delete=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
