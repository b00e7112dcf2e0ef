"""Run ibm-mq-cli's ``put_message`` and ``get_message`` (which call IBM's amqsputc and amqsgetc)
against an mqlite queue manager, with mqlite's samples standing in for IBM's. Nothing is fetched
and nothing of theirs is copied here: give the folder that holds the ``ibm_mq_cli`` package (its
wheel unpacked, or a site-packages) and a Python that has pexpect.

    python tools/ibm_mq_cli.py FOLDER [--python PYTHON]

ibm-mq-cli names IBM's installation by absolute paths (/opt/mqm/samp/bin/amqsputc, /opt/mqm/bin/
setmqenv) and the developer image's listener (localhost(1414)): its package is copied to a
scratch folder with those replaced by mqlite's console scripts (the folder of this interpreter's
``amqsputc``), no setmqenv, and this queue manager's port. A queue manager QM1 is made open (no
OAM, no CHLAUTH, no CONNAUTH) with DEV.APP.SVRCONN and DEV.QUEUE.1; ``put_message`` is given a
password (the samples prompt for one: MQSAMP_USER_ID=app), two messages and ``exit``, then
``get_message`` is run. Prints their output; exits 0 when the messages came back in order.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from mqlite.testing import Harness  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MESSAGES = ["first from ibm-mq-cli", "second from ibm-mq-cli"]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("folder")
    ap.add_argument("--python", default=sys.executable)
    args = ap.parse_args()
    bindir = os.path.dirname(shutil.which("amqsputc") or os.path.join(os.path.dirname(sys.executable), "amqsputc"))
    scratch = tempfile.mkdtemp(prefix="mqlite-ibm-mq-cli-")
    os.environ["MQSNOAUT"] = "yes"
    try:
        with Harness(os.path.join(scratch, "data"), channel="DEV.APP.SVRCONN") as h:
            qm = h.add("QM1", "DEFINE QLOCAL(DEV.QUEUE.1)\n")
            shutil.copytree(os.path.join(args.folder, "ibm_mq_cli"), os.path.join(scratch, "ibm_mq_cli"))
            main_py = os.path.join(scratch, "ibm_mq_cli", "main.py")
            with open(main_py, encoding="utf-8") as f:
                text = f.read()
            text = (text.replace(". /opt/mqm/bin/setmqenv -s", "true")
                    .replace("/opt/mqm/samp/bin/", bindir + "/")
                    .replace("localhost(1414)", qm.conname))
            with open(main_py, "w", encoding="utf-8") as f:
                f.write(text)
            env = dict(os.environ, PYTHONPATH=os.pathsep.join([scratch, ROOT]),
                       PATH=bindir + os.pathsep + os.environ.get("PATH", ""))
            cli = [args.python, "-m", "ibm_mq_cli.main"]
            put = subprocess.run(cli + ["put_message", "DEV.QUEUE.1", "QM1"], env=env, text=True, timeout=120,
                                 input="passw0rd\n" + "".join(m + "\n" for m in MESSAGES) + "exit\n",
                                 capture_output=True)
            print(put.stdout, put.stderr)
            get = subprocess.run(cli + ["get_message", "DEV.QUEUE.1", "QM1"], env=env, text=True, timeout=120,
                                 input="passw0rd\n", capture_output=True)
            print(get.stdout, get.stderr)
            wanted = "".join(f"message <{m}>\n" for m in MESSAGES)
            return 0 if put.returncode == 0 and get.returncode == 0 and wanted in get.stdout else 1
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
