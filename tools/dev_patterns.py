"""Run IBM's mq-dev-patterns Python samples against mqlite, unchanged, in their two modes: JSON
endpoints (env.json) and CCDT (MQCCDTURL). Only the connection settings are ours: a queue
manager on a free port with the developer image's objects, an env.json naming it, and the
repository's own ccdt.json with its ports pointed here (its first CONNAME of each group is a port
nobody listens on, so the group's failover is exercised). ``import ibmmq`` resolves to mqlite's
face through its shim directory. Nothing is fetched: give a checkout.

    python tools/dev_patterns.py /path/to/mq-dev-patterns

Prints one line per sample and mode (passed / failed with the output's tail) and exits 1 when any
failed.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from mqlite.ibmmq import SHIM_PATH  # noqa: E402
from mqlite.testing import Harness, free_port  # noqa: E402

OBJECTS = """DEFINE QLOCAL(DEV.QUEUE.1)
DEFINE QLOCAL(DEV.QUEUE.2)
DEFINE QMODEL(DEV.APP.MODEL.QUEUE) DEFTYPE(TEMPDYN)
DEFINE TOPIC(DEV.BASE.TOPIC) TOPICSTR('dev/')
"""
# The samples as the README pairs them: (first, second, what each must log, whether the second is
# started first and waits: a responder for requests, a subscriber for publications).
PAIRS = [("basicput.py", "basicget.py", ("Put message successful", "Have message from input queue"), False),
         ("basicrequest.py", "basicresponse.py", ("Reply", ""), True),
         ("basicpublish.py", "basicsubscribe.py", ("Publish message successful", "Have publication on topic"), True)]


def endpoint(port: int, qmgr: str) -> dict[str, str]:
    return {"HOST": "127.0.0.1", "PORT": str(port), "CHANNEL": "DEV.APP.SVRCONN", "QMGR": qmgr,
            "APP_USER": "app", "APP_PASSWORD": "passw0rd", "QUEUE_NAME": "DEV.QUEUE.1",
            "BACKOUT_QUEUE": "DEV.QUEUE.2", "MODEL_QUEUE_NAME": "DEV.APP.MODEL.QUEUE",
            "DYNAMIC_QUEUE_PREFIX": "APP.REPLIES.*", "TOPIC_NAME": "dev/"}


def their_ccdt(checkout: str, port: int, down: int) -> dict:
    """The repository's ccdt.json, each group's connections pointed at ``down`` then ``port``."""
    with open(os.path.join(checkout, "ccdt.json"), encoding="utf-8") as f:
        doc = json.load(f)
    for ch in doc["channel"]:
        conns = ch["clientConnection"]["connection"]
        for i, c in enumerate(conns):
            c["host"], c["port"] = "127.0.0.1", (down if i == 0 and len(conns) > 1 else port)
        ch.pop("transmissionSecurity", None)        # the TLS entry (QM1TLS) is not used here
    return doc


def run(sample: str, cwd: str, env: dict[str, str], timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, sample], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def main() -> int:
    if len(sys.argv) != 2 or not os.path.isdir(os.path.join(sys.argv[1], "Python")):
        print(__doc__)
        return 2
    checkout = os.path.abspath(sys.argv[1])
    pydir = os.path.join(checkout, "Python")
    work = tempfile.mkdtemp(prefix="mqlite-devpatterns-")
    failed = 0
    with Harness(os.path.join(work, "data"), channel="DEV.APP.SVRCONN") as h:
        qm = h.add("QM1", OBJECTS)
        ccdt_path = os.path.join(work, "ccdt.json")
        with open(ccdt_path, "w", encoding="utf-8") as f:
            json.dump(their_ccdt(checkout, qm.port, free_port()), f)
        for mode, qmgr in (("endpoints", "QM1"), ("ccdt", "*QMGroupA")):
            cfg = os.path.join(work, f"env-{mode}.json")
            with open(cfg, "w", encoding="utf-8") as f:
                json.dump({"MQ_ENDPOINTS": [endpoint(qm.port, qmgr)]}, f)
            env = {k: v for k, v in os.environ.items() if not k.startswith("MQ")}
            env.update(JSON_CONFIG=cfg, PYTHONPATH=os.pathsep.join([SHIM_PATH, pydir]),
                       MQLITE_DATA=h.data_dir)
            if mode == "ccdt":
                env["MQCCDTURL"] = "file://" + ccdt_path
            for producer, consumer, (says, hears), waits in PAIRS:
                if waits:
                    second = subprocess.Popen([sys.executable, consumer], cwd=pydir, env=env, text=True,
                                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
                    time.sleep(2)                      # subscribed / waiting before the first one runs
                    p = run(producer, pydir, env)
                    try:
                        out, _ = second.communicate(timeout=60)
                    except subprocess.TimeoutExpired:
                        second.kill()
                        out, _ = second.communicate()
                    results = [(producer, p.returncode, p.stdout + p.stderr, says),
                               (consumer, second.returncode, out, hears)]
                else:
                    p = run(producer, pydir, env)
                    c = run(consumer, pydir, env)
                    results = [(producer, p.returncode, p.stdout + p.stderr, says),
                               (consumer, c.returncode, c.stdout + c.stderr, hears)]
                for name, rc, out, must in results:
                    ok = rc == 0 and "Error" not in out and (not must or must in out)
                    failed += not ok
                    print(f"{mode:9} {name:20} {'passed' if ok else 'FAILED'}")
                    if not ok:
                        print("    " + "\n    ".join(out.strip().splitlines()[-8:]))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
