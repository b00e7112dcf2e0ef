"""A data directory deep enough that its bindings socket's path passes AF_UNIX's 107 bytes (a CI
runner's or pytest-xdist's temporary directory): strmqm starts, runmqsc, bindings connections and
endmqm reach it (it failed with "AF_UNIX path too long")."""
from __future__ import annotations

import os

from mqlite.cmq import CMQC as C
from tests.conftest import mqlite


def test_a_queue_manager_in_a_deep_directory_is_reached_by_its_socket(tmp_path, monkeypatch) -> None:
    data = tmp_path / ("d" * 60) / ("e" * 60)
    monkeypatch.setenv("MQLITE_DATA", str(data))
    assert len(os.fsencode(str(data / "qmgrs" / "QMDEEP" / "qmgr.sock"))) > 107
    assert mqlite("crtmqm", "QMDEEP", env={**os.environ, "MQSNOAUT": "yes"}).returncode == 0
    r = mqlite("strmqm", "QMDEEP")
    assert r.returncode == 0, r.stdout + r.stderr
    try:
        r = mqlite("runmqsc", "QMDEEP", stdin="DEFINE QLOCAL(DEEP.Q)\n")
        assert "AMQ8006I" in r.stdout, r.stdout
        from mqlite import pymqi
        qmgr = pymqi.connect("QMDEEP")
        q = pymqi.Queue(qmgr, "DEEP.Q", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED | C.MQOO_INQUIRE)
        q.put(b"deep")
        assert q.get() == b"deep"
        assert q.inquire(C.MQIA_CURRENT_Q_DEPTH) == 0
        q.close()
        qmgr.disconnect()
    finally:
        r = mqlite("endmqm", "-i", "QMDEEP")
    assert r.returncode == 0, r.stdout + r.stderr
