"""Run wphillipmoore/mq-rest-admin-python's integration suite (pymqrest) against mqlite's mqweb,
unchanged: two queue managers QM1 and QM2 made from its dev environment's seed MQSC
(mq-rest-admin-dev-environment's ``seed/base-qm1.mqsc`` and ``base-qm2.mqsc``, their CONNAMEs and
listener ports rewritten to free loopback ports), channels both ways, the user mqadmin/mqadmin in
each registry (mqm, so MQWebAdmin), mqweb on a free HTTP port, and ``MQ_SKIP_LIFECYCLE=1`` (its
own scripts would start IBM's containers). Fetches nothing: give it the checkouts and a Python
that has pymqrest's test dependencies.

    python tools/pymqrest.py --checkout /tmp/pymqrest --devenv /tmp/mqdevenv --python /tmp/rv/bin/python
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from mqlite.cli.proc import free_port, run_mqlite  # noqa: E402


def seed(path: str, ports: dict[str, int], listener: int) -> str:
    """The seed MQSC with its container host names and ports made loopback ones."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    text = re.sub(r"CONNAME\('(qm[12]|localhost)\((\d+)\)'\)",
                  lambda m: f"CONNAME('127.0.0.1({ports.get(m.group(1).upper(), ports['QM1'])})')", text)
    return re.sub(r"PORT\(1415\)", f"PORT({listener})", text)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--checkout", required=True, help="a clone of wphillipmoore/mq-rest-admin-python")
    ap.add_argument("--devenv", required=True, help="a clone of wphillipmoore/mq-rest-admin-dev-environment")
    ap.add_argument("--python", default=sys.executable, help="a Python with pymqrest and pytest installed")
    ap.add_argument("pytest_args", nargs="*", default=["tests/integration", "-q", "-p", "no:cacheprovider"])
    args = ap.parse_args()
    data = tempfile.mkdtemp(prefix="mqlite-pymqrest-")
    env = dict(os.environ, MQLITE_DATA=data)
    ports = {"QM1": free_port(), "QM2": free_port()}
    web = free_port()

    def mqlite(*a: str, stdin: str | None = None) -> None:
        r = run_mqlite(*a, stdin=stdin, env=env, timeout=120)
        if r.returncode not in (0, 10):
            raise SystemExit(f"mqlite {' '.join(a)}: {r.stdout}{r.stderr}")
    try:
        for qm in ("QM1", "QM2"):
            mqlite("crtmqm", "-p", str(ports[qm]), qm)
            mqlite("strmqm", qm)
        for qm in ("QM1", "QM2"):             # (both listen before either starts its sender)
            mqlite("runmqsc", qm, stdin=seed(os.path.join(args.devenv, "seed", f"base-{qm.lower()}.mqsc"), ports,
                                              free_port()))
            mqlite("setmqusr", "-m", qm, "-u", "mqadmin", "-p", "mqadmin", "-g", "mqm")
        for qm, other in (("QM1", "QM2"), ("QM2", "QM1")):
            # (QM1's sender started before QM2 had its receiver, and waits its retry interval: again now)
            mqlite("runmqsc", qm, stdin=f"STOP CHANNEL({qm}.TO.{other}) STATUS(INACTIVE)\n")
            mqlite("runmqsc", qm, stdin=f"START CHANNEL({qm}.TO.{other})\n")
        for key, value in (("httpHost", "127.0.0.1"), ("httpPort", str(web)), ("httpsPort", "-1")):
            mqlite("setmqweb", "properties", "-k", key, "-v", value)
        mqlite("strmqweb")
        base = f"http://127.0.0.1:{web}/ibmmq/rest/v2"
        run_env = dict(os.environ, MQ_REST_ADMIN_RUN_INTEGRATION="1", MQ_SKIP_LIFECYCLE="1", MQ_REST_BASE_URL=base,
                       MQ_REST_BASE_URL_QM2=base, MQ_ADMIN_USER="mqadmin", MQ_ADMIN_PASSWORD="mqadmin")
        return subprocess.run([args.python, "-m", "pytest", *args.pytest_args], cwd=args.checkout,
                              env=run_env, check=False).returncode
    finally:
        run_mqlite("endmqweb", env=env)
        for qm in ("QM1", "QM2"):
            run_mqlite("endmqm", "-i", qm, env=env)
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
