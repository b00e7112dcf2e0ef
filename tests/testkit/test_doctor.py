"""``mqlite doctor`` (issue 63): each thing mqlite needs or can use, checked, with the fix for what
is missing; a data directory it cannot write fails, an optional feature's absence is a note."""
from __future__ import annotations

import os
import sys

from mqlite.testing import run_mqlite


def test_doctor_says_what_is_there(tmp_path) -> None:
    env = dict(os.environ, MQLITE_DATA=str(tmp_path / "data"),
               PATH=os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep)
                                    if not os.path.exists(os.path.join(p, "mqlite"))))
    r = run_mqlite("doctor", env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    v = sys.version_info
    assert f"ok   Python {v.major}.{v.minor}.{v.micro}" in r.stdout
    assert f"ok   data directory {tmp_path / 'data'} (MQLITE_DATA) can be written" in r.stdout
    # without .venv/bin on PATH, the command's own path is the fix
    assert "note the mqlite command is not on PATH" in r.stdout
    assert f"fix: run {os.path.join(os.path.dirname(sys.executable), 'mqlite')}" in r.stdout
    assert "the web extra is installed" in r.stdout and "Java for Spark: " in r.stdout
    assert "the test suite (make test):" in r.stdout


def test_doctor_fails_on_a_data_directory_it_cannot_write(tmp_path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    r = run_mqlite("doctor", env=dict(os.environ, MQLITE_DATA=str(blocker / "data")))
    assert r.returncode == 1
    assert f"FAIL data directory {blocker / 'data'} cannot be written" in r.stdout
    assert "fix: set MQLITE_DATA to a directory of yours" in r.stdout
