"""Fixtures the server tests share."""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from mqlite.testing import Harness, run_mqlite


@pytest.fixture(scope="module")
def secured() -> Iterator[Any]:
    """A queue manager as crtmqm makes it (security on), with the users app (mqclient) and admin
    (mqm), password passw0rd."""
    with Harness(security=True) as h:
        qm = h.add("QMSEC")
        for user, groups in (("app", ["mqclient"]), ("admin", ["mqm"])):
            r = run_mqlite("setmqusr", "-m", "QMSEC", "-u", user, "--password-stdin", *[a for g in groups for a in ("-g", g)],
                           stdin="passw0rd\n")
            assert r.returncode == 0, r.stdout + r.stderr
        yield qm
