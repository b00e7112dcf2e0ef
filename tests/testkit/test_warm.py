"""The warm starter (mqlite/server/warm.py): a fresh queue manager forked from a process that has
imported mqlite once is a real queue manager process of its own — its own session, its own data
directory's environment, ended by endmqm and by kill -9 like any other — and an asker whose
import-time settings differ is refused and starts its server the ordinary way."""
from __future__ import annotations

import os
import time
from typing import Any

from mqlite import pymqi
from mqlite.server.warm import STARTER, Starter
from mqlite.testing import Harness


def _put_get(qm: Any) -> bytes:
    c = qm.client()
    try:
        c.put1("SYSTEM.DEFAULT.LOCAL.QUEUE", b"hello")
        q = pymqi.Queue(c, "SYSTEM.DEFAULT.LOCAL.QUEUE")
        try:
            return bytes(q.get())
        finally:
            q.close()
    finally:
        c.disconnect()


def test_a_forked_queue_manager_is_a_process_of_its_own(tmp_path: Any) -> None:
    with Harness(str(tmp_path / "one")) as h:
        start = time.monotonic()
        qm = h.add("WARMQM")
        took = time.monotonic() - start
        pid = qm.pid()
        assert pid and pid != os.getpid() and os.getsid(pid) == pid          # a session leader, as strmqm's
        assert STARTER.proc is not None and os.getppid() != pid
        assert f"DATPATH({h.data_dir}" in qm.mqsc("DISPLAY QMSTATUS DATPATH").stdout     # the asker's data directory
        assert _put_get(qm) == b"hello"
        qm.kill9()                                                          # kill -9: gone, reaped, restartable
        assert not qm.running()
        qm.start()
        assert qm.pid() not in (None, pid) and _put_get(qm) == b"hello"
        assert took < 5                                                     # (bench/testkit.py measures it)
    with Harness(str(tmp_path / "two")) as h2:                             # another data directory, same starter
        qm2 = h2.add("WARMQM")
        assert f"DATPATH({h2.data_dir}" in qm2.mqsc("DISPLAY QMSTATUS DATPATH").stdout
        assert _put_get(qm2) == b"hello"


def test_other_import_time_settings_are_refused(tmp_path: Any, monkeypatch: Any) -> None:
    starter = Starter()
    try:
        with Harness(str(tmp_path)) as h:
            h.add("FIRSTQM")                                   # (the module's starter, with this environment)
            monkeypatch.setenv("MQLITE_FRAME_TIMEOUT", "7")
            # A starter started now takes this environment, and relays the server's own refusal.
            refused = starter.start("NOSUCHQM")
            assert refused is not None and refused.startswith("ERROR "), refused
            assert STARTER.start("NOSUCHQM") is None           # the shared one: read at import, so refused
            qm = h.add("SECONDQM")                             # ... and the harness starts it the ordinary way
            with open(f"/proc/{qm.pid()}/environ", "rb") as f:
                assert b"MQLITE_FRAME_TIMEOUT=7" in f.read().split(b"\0")
            with open(f"/proc/{qm.pid()}/cmdline", "rb") as f:
                assert b"mqlite.server.main" in f.read()
    finally:
        starter.close()
