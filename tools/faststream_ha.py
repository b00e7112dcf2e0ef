"""Run faststream-mq's high-availability tests (``tests/brokers/mq/test_ha.py``) against two mqlite
queue managers, with only the connection settings changed. Nothing is fetched and nothing of
theirs is copied here: give a checkout of faststream-mq and a Python whose environment has
faststream-mq's test requirements (faststream-mq, pytest, pytest-asyncio).

    python tools/faststream_ha.py CHECKOUT [--python PYTHON] [-- PYTEST-ARGS...]

Their set-up is IBM's developer image twice: two queue managers named QM1 (ports 1414 and 1415),
DEV.APP.SVRCONN and DEV.ADMIN.SVRCONN, users app and admin with the password "password", and
IBM's ``runmqsc -n`` at /opt/mqm/bin. Here: two mqlite queue managers named QM1, each in a data
directory of its own, open (no OAM, no CHLAUTH, no CONNAUTH) with those channels and the
developer image's model queue; their tests are copied to a scratch directory with the two ports
replaced by these queue managers' and /opt/mqm/bin/runmqsc by a script that runs ``mqlite
runmqsc``; ``import ibmmq`` gives mqlite's face (its shim folder first on PYTHONPATH). Prints
pytest's output and ends with its exit code.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from mqlite.ibmmq import SHIM_PATH  # noqa: E402
from mqlite.testing import Harness  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OBJECTS = ("DEFINE CHANNEL(DEV.ADMIN.SVRCONN) CHLTYPE(SVRCONN) REPLACE\n"
           "DEFINE QMODEL(DEV.APP.MODEL.QUEUE) REPLACE\n")
TESTS = ["tests/brokers/mq/test_ha.py"]


def patched_copy(checkout: str, scratch: str, primary: int, secondary: int, runmqsc: str) -> str:
    """Their tests, copied, with the ports and runmqsc's path replaced."""
    dest = os.path.join(scratch, "faststream-mq")
    shutil.copytree(os.path.join(checkout, "tests"), os.path.join(dest, "tests"))
    for extra in ("pyproject.toml", "docs"):
        src = os.path.join(checkout, extra)
        if os.path.isfile(src):
            shutil.copy(src, dest)
        elif os.path.isdir(src):
            shutil.copytree(src, os.path.join(dest, extra))
    for folder, _dirs, files in os.walk(os.path.join(dest, "tests")):
        for name in files:
            if not name.endswith(".py"):
                continue
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            new = text.replace("/opt/mqm/bin/runmqsc", runmqsc)
            new = re.sub(r"port(: int)? ?= ?1414\b", lambda m: m.group(0).replace("1414", str(primary)), new)
            new = re.sub(r"port=1415\b", f"port={secondary}", new)
            if new != text:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(new)
    return dest


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("checkout")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("pytest_args", nargs="*")
    args = ap.parse_args()
    scratch = tempfile.mkdtemp(prefix="mqlite-faststream-")
    os.environ["MQSNOAUT"] = "yes"
    try:
        with Harness(os.path.join(scratch, "primary"), channel="DEV.APP.SVRCONN") as one:
            primary = one.add("QM1", OBJECTS)
            with Harness(os.path.join(scratch, "secondary"), channel="DEV.APP.SVRCONN") as two:
                secondary = two.add("QM1", OBJECTS)
                runmqsc = os.path.join(scratch, "runmqsc")
                with open(runmqsc, "w", encoding="utf-8") as f:
                    f.write(f'#!/bin/sh\nexec "{args.python}" -m mqlite.cli.main runmqsc "$@"\n')
                os.chmod(runmqsc, os.stat(runmqsc).st_mode | stat.S_IEXEC)
                dest = patched_copy(args.checkout, scratch, primary.port, secondary.port, runmqsc)
                env = dict(os.environ, PYTHONPATH=os.pathsep.join([SHIM_PATH, dest, ROOT]))
                cmd = [args.python, "-m", "pytest", "-p", "no:cacheprovider", "-o", "asyncio_mode=auto",
                       "-v", *TESTS, *args.pytest_args]
                return subprocess.run(cmd, cwd=dest, env=env, timeout=900).returncode
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
