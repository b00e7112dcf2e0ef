"""mypy over mqlite/ (configured in pyproject.toml: strict for engine/, cluster/, store/ and
admin/) finds no error a module did not already have. tests/mypy_baseline.json holds each
module's count of errors still to be fixed; a module above its count fails (a new error), and so
does one below it (fixed: lower the count), so that the list only ever shrinks."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

from tests.conftest import ROOT

BASELINE = os.path.join(ROOT, "tests", "mypy_baseline.json")
_ERROR = re.compile(r"^(mqlite/[^:]+\.py):\d+: error: ")


def counts(output: str) -> dict[str, int]:
    """Errors per file in mypy's output."""
    out: dict[str, int] = {}
    for line in output.splitlines():
        m = _ERROR.match(line)
        if m:
            out[m.group(1)] = out.get(m.group(1), 0) + 1
    return out


def test_no_new_type_error() -> None:
    run = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--hide-error-context",
                          "--no-error-summary", "--show-error-codes"], cwd=ROOT, capture_output=True,
                         text=True, timeout=600)
    assert "error: " in run.stdout or run.returncode == 0, run.stdout + run.stderr   # mypy ran
    found = counts(run.stdout)
    with open(BASELINE, encoding="utf-8") as f:
        allowed: dict[str, int] = json.load(f)
    new = {p: (n, allowed.get(p, 0)) for p, n in found.items() if n > allowed.get(p, 0)}
    fixed = {p: (found.get(p, 0), n) for p, n in allowed.items() if found.get(p, 0) < n}
    errors = "\n".join(line for line in run.stdout.splitlines() if line.split(":")[0] in new)
    assert not new, f"new type errors (found, allowed) {new}:\n{errors}"
    assert not fixed, f"fewer type errors than tests/mypy_baseline.json allows (found, allowed): lower it {fixed}"


def test_counts_reads_mypy_output() -> None:
    text = ("mqlite/engine/put.py:3: error: x  [attr-defined]\nmqlite/engine/put.py:9: error: y  [misc]\n"
            "mqlite/engine/put.py:9: note: z\nmqlite/cli/main.py:1: error: w  [arg-type]\n")
    assert counts(text) == {"mqlite/engine/put.py": 2, "mqlite/cli/main.py": 1}
