"""The server process: ``python -m mqlite.server.main QMNAME`` (strmqm starts it in the background)."""
from __future__ import annotations

import gc
import os
import signal
import sys

from mqlite.memory import few_arenas
from mqlite.server.listener import PortBusy
from mqlite.server.server import QMServer
from mqlite.store.check import StoreDamaged


def main(argv: list[str]) -> int:
    name = argv[0]
    few_arenas()
    srv = None
    try:
        srv = QMServer(name, accept_damage="--accept-damage" in argv[1:])
        srv.start()
    except PortBusy as e:                       # (refused before anything ran: the store closed, no pid file)
        if srv is not None:
            srv.store.close()
            srv.pager.close()
            for path in (srv.paths.socket, srv.paths.pid):
                if os.path.exists(path):
                    os.unlink(path)
        print(f"ERROR {e}", flush=True)
        return 1
    except (OSError, StoreDamaged) as e:
        if srv is not None:                     # (what it started, ended: a listener whose port was taken late)
            srv.shutdown(immediate=True)
            srv.stopped.wait(15)
        print(f"ERROR {e}", flush=True)
        return 1
    # The hot paths allocate many short-lived objects and make no reference cycles: collect rarely.
    gc.freeze()
    gc.set_threshold(50_000, 20, 100)
    # Several busy threads (sessions, channel agents) share the interpreter: hand it over sooner
    # than CPython's default 5 ms, so one thread's burst does not stall another's reply.
    sys.setswitchinterval(float(os.environ.get("MQLITE_SWITCH_INTERVAL", "0.0005")))
    signal.signal(signal.SIGTERM, lambda *_: srv.shutdown(immediate=True))
    signal.signal(signal.SIGINT, lambda *_: srv.shutdown(immediate=True))
    print("READY", flush=True)
    # Detach from the starter's pipe: from here on only the error log speaks.
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    while not srv.stopped.wait(0.5):
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
