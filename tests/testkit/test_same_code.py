"""The processes mqlite starts (the ``mqlite`` command, queue managers, mqweb) run the code the
starting process imported, wherever they are started from: ``python -m`` puts the working
directory first on the module path, so a run from one checkout with PYTHONPATH naming another
started the first checkout's servers (how a before/after benchmark measured one side twice)."""
from __future__ import annotations

import os

import pytest

import mqlite
from mqlite.cli.proc import run_mqlite
from mqlite.paths import CODE_ROOT, same_code


def test_a_child_imports_this_mqlite_not_the_working_directorys(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    decoy = tmp_path / "mqlite"
    (decoy / "cli").mkdir(parents=True)
    (decoy / "__init__.py").write_text("raise ImportError('the decoy in the working directory')\n")
    (decoy / "cli" / "__init__.py").write_text("")
    (decoy / "cli" / "main.py").write_text("print('DECOY')\n")
    monkeypatch.chdir(tmp_path)
    r = run_mqlite("--help", timeout=60)
    assert "DECOY" not in r.stdout and "decoy" not in r.stderr
    assert r.returncode == 0 and "dspmqtrn" in r.stdout


def test_the_code_root_leads_the_childs_path() -> None:
    assert os.path.dirname(os.path.dirname(os.path.abspath(mqlite.__file__))) == CODE_ROOT
    env = same_code({"PYTHONPATH": "/elsewhere", "X": "1"})
    assert env["PYTHONPATH"] == CODE_ROOT + os.pathsep + "/elsewhere" and env["X"] == "1"
    assert same_code({})["PYTHONPATH"] == CODE_ROOT
