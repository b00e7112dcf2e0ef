"""The README's main job: create and start a queue manager from examples/QM1.mqsc, put and get
messages through the pymqi-compatible API over a client connection, print what happened, stop it."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _mqlite(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mqlite.cli.main", *args], input=stdin, text=True,
                          capture_output=True)


def _show(title: str, proc: subprocess.CompletedProcess) -> None:
    print(f"$ {title}")
    print((proc.stdout + proc.stderr).rstrip())
    print()


def main(port: int = 0) -> int:
    from mqlite import pymqi
    from mqlite.pymqi import CMQC

    here = os.path.dirname(os.path.abspath(__file__))
    mqsc_file = os.path.join(os.path.dirname(here), "examples", "QM1.mqsc")
    os.environ.setdefault("MQLITE_DATA", tempfile.mkdtemp(prefix="mqlite-demo-"))
    port = port or _free_port()
    qm = "DEMO.QM1"
    _show(f"mqlite crtmqm -p {port} {qm}", _mqlite("crtmqm", "-p", str(port), qm))
    _show(f"mqlite strmqm {qm}", _mqlite("strmqm", qm))
    try:
        with open(mqsc_file, encoding="utf-8") as f:
            _show(f"mqlite runmqsc {qm} < examples/QM1.mqsc", _mqlite("runmqsc", qm, stdin=f.read()))
        print(f"$ python: pymqi.connect('{qm}', 'DEV.APP.SVRCONN', '127.0.0.1({port})')")
        qmgr = pymqi.connect(qm, "DEV.APP.SVRCONN", f"127.0.0.1({port})")
        queue = pymqi.Queue(qmgr, "DEV.QUEUE.1", CMQC.MQOO_OUTPUT | CMQC.MQOO_INQUIRE)
        for i in range(3):
            md = pymqi.MD()
            queue.put(f"Hello from mqlite #{i}", md)
            print(f"put  msg #{i}  MsgId={md.MsgId.hex()}  PutDate={md.PutDate.decode()} PutTime={md.PutTime.decode()}")
        depth = queue.inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
        print(f"CURDEPTH of DEV.QUEUE.1 is {depth}")
        queue.close()
        alias = pymqi.Queue(qmgr, "DEV.ALIAS.1")
        gmo = pymqi.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_FAIL_IF_QUIESCING, WaitInterval=1000)
        while True:
            md = pymqi.MD()
            try:
                body = alias.get(None, md, gmo)
            except pymqi.MQMIError as e:
                if e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                    print(f"get  -> {e}  (queue is empty)")
                    break
                raise
            print(f"get  through alias DEV.ALIAS.1: {body.decode()!r}  Format={md.Format.decode().strip()}")
        alias.close()
        qmgr.disconnect()
        print()
        _show(f"echo 'DISPLAY QSTATUS(DEV.QUEUE.1)' | mqlite runmqsc {qm}",
              _mqlite("runmqsc", qm, stdin="DISPLAY QSTATUS(DEV.QUEUE.1)\n"))
    finally:
        _show(f"mqlite endmqm -i {qm}", _mqlite("endmqm", "-i", qm))
        _show("mqlite dspmq", _mqlite("dspmq"))
        _mqlite("dltmqm", qm)
    return 0


if __name__ == "__main__":
    sys.exit(main())
