"""Run pymqi's and IBM's ibmmq test suites (and ibmmq's examples) against mqlite, with only the
import and the connection settings changed. Nothing is fetched and nothing of theirs is copied
here: give checkouts of dsuch/pymqi and ibm-messaging/mq-mqi-python.

    python tools/real_suites.py [--pymqi CHECKOUT] [--ibmmq CHECKOUT] [--examples] [--json out.json]
                                [--datadog CHECKOUT --datadog-python PYTHON]

Their test_pcf.py needs ``ddt`` (their requirements.txt): ``pip install ddt`` first, or it is a
collection error.

``import pymqi`` and ``import ibmmq`` resolve to mqlite's faces through shim folders put first on
PYTHONPATH (ibmmq's is mqlite.ibmmq.SHIM_PATH; pymqi's is written into a temporary folder). The
queue managers (pymqi's MQTEST, ibmmq's QM1) are created as the suites' setup scripts create
theirs: security on (the OAM), CHLAUTH disabled, no CONNAUTH, the SVRCONN channels and queues their
configs and examples name, the users they name (and this process's OS user; admin in mqm, app in
mqclient). ibmmq's examples are copied and their port 1414 replaced. Prints each test's outcome and
the counts.

``--datadog`` runs DataDog's IBM MQ check's own test suite (``ibm_mq/tests`` of a checkout of
DataDog/integrations-core, or of a fork that renamed the ``datadog_checks`` package) with
``--datadog-python``: a Python whose environment has datadog-checks-base, datadog-checks-dev, mock
and psutil (the check's test requirements; pymqi is mqlite's face). The check is copied, its
queue manager QM1 made as its docker compose file makes it (the developer image's DEV objects, its
tests/compose/config.mqsc, then its ``prepare_queue_manager``), and its connection settings (port,
password) replaced; its ``dd_environment`` fixture, which starts docker, yields the running queue
manager instead.
"""
from __future__ import annotations

import argparse
import getpass
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from mqlite.ibmmq import SHIM_PATH  # noqa: E402
from mqlite.testing import Harness, run_mqlite  # noqa: E402

QM, CHANNEL = "MQTEST", "CH1"
OBJECTS = """ALTER QMGR CHLAUTH(DISABLED)
DEFINE QLOCAL(TEST.PYMQI.RFH2PUTGET) REPLACE
DEFINE QLOCAL(TEST.PYMQI.QUEUEMANAGER) REPLACE
DEFINE QLOCAL(TEST.PYIBMMQ.RFH2PUTGET) REPLACE
DEFINE QLOCAL(TEST.PYIBMMQ.QUEUEMANAGER) REPLACE
DEFINE QLOCAL(RUNNER.NOT.EMPTY) REPLACE
DEFINE QLOCAL(DEV.QUEUE.1) REPLACE
DEFINE QLOCAL(DEV.QUEUE.2) REPLACE
DEFINE QLOCAL(DEV.DEAD.LETTER.QUEUE) REPLACE
DEFINE QMODEL(DEV.APP.MODEL.QUEUE) REPLACE
DEFINE TOPIC(DEV.BASE.TOPIC) TOPICSTR('dev/') REPLACE
DEFINE CHANNEL(DEV.APP.SVRCONN) CHLTYPE(SVRCONN) REPLACE
"""
# What IBM's developer image gives its application group (mq-container's 10-dev.mqsc.tpl).
APP_AUTHORITY = """SET AUTHREC OBJTYPE(QMGR) GROUP('mqclient') AUTHADD(CONNECT,INQ)
SET AUTHREC PROFILE('DEV.**') OBJTYPE(QUEUE) GROUP('mqclient') AUTHADD(BROWSE,GET,INQ,PUT)
SET AUTHREC PROFILE('DEV.**') OBJTYPE(TOPIC) GROUP('mqclient') AUTHADD(PUB,SUB)
SET AUTHREC PROFILE('DEV.APP.MODEL.QUEUE') OBJTYPE(QUEUE) GROUP('mqclient') AUTHADD(DSP,GET,PUT,INQ,BROWSE)
"""
# What ibmmq's examples say their user needs beyond that (each example's docstring: "fails with
# 2035 if the user does not have the authority"): context and alternate-user options, MQSET, the
# default model queue for dynamic queues.
EXAMPLE_AUTHORITY = """SET AUTHREC OBJTYPE(QMGR) GROUP('mqclient') AUTHADD(SETID,SETALL,ALTUSR)
SET AUTHREC PROFILE('DEV.**') OBJTYPE(QUEUE) GROUP('mqclient') AUTHADD(SET,SETID,SETALL,PASSID,PASSALL)
SET AUTHREC PROFILE('SYSTEM.DEFAULT.MODEL.QUEUE') OBJTYPE(QUEUE) GROUP('mqclient') AUTHADD(DSP,GET,PUT,INQ,BROWSE)
"""
PYMQI_SHIM = '''"""``import pymqi`` resolved to mqlite's pymqi face (tools/real_suites.py)."""
import sys

import mqlite.pymqi as _face

for _sub in ("CMQC", "CMQCFC", "CMQXC", "CMQZC"):
    sys.modules[f"{__name__}.{_sub}"] = getattr(_face, _sub)
sys.modules[__name__] = _face
'''


def pytest_run(tests_dir: str, env: dict[str, str], work: str, name: str, python: str = sys.executable,
               cwd: str | None = None) -> dict[str, str]:
    """Each test's outcome (passed, failed, error, skipped) from a pytest run of ``tests_dir``."""
    report = os.path.join(work, f"{name}.xml")
    subprocess.run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}",
                    "--continue-on-collection-errors",
                    tests_dir], cwd=cwd or tests_dir, env=env, capture_output=True, text=True,
                   timeout=3600)
    out: dict[str, str] = {}
    if not os.path.exists(report):
        return out
    for case in ET.parse(report).iter("testcase"):
        key = f"{case.get('classname', '').split('.')[-1]}.{case.get('name')}"
        kinds = [c.tag for c in case]
        status = ("failed" if "failure" in kinds else "error" if "error" in kinds
                  else "skipped" if "skipped" in kinds else "passed")
        detail = next((c.get("message", "") for c in case if c.tag in ("failure", "error", "skipped")), "")
        out[key] = status + (f": {detail.splitlines()[0][:160]}" if detail else "")
    return out


def run_examples(examples_dir: str, env: dict[str, str]) -> dict[str, str]:
    """ibmmq's examples, each run once against the queue manager (60 s at most)."""
    out = {}
    for f in sorted(os.listdir(examples_dir)):
        if not f.endswith(".py"):
            continue
        try:
            p = subprocess.run([sys.executable, f], cwd=examples_dir, env=env, capture_output=True, text=True,
                               timeout=60)
            text = (p.stdout + p.stderr).strip().splitlines()
            bad = p.returncode != 0 or any(re.search(r"Traceback|MQI Error\. |PYIBMMQ Error", ln) for ln in text)
            out[f] = "failed: " + (text[-1][:160] if text else f"exit {p.returncode}") if bad else "passed"
        except subprocess.TimeoutExpired:
            out[f] = "failed: timed out after 60 s"
    return out


def datadog_run(h: Harness, qm: Any, env: dict[str, str], checkout: str, python: str, work: str) -> dict[str, str]:
    """DataDog's IBM MQ check's tests against ``qm`` (QM1, made by suite_qm)."""
    src = os.path.join(checkout, "ibm_mq")
    dst = os.path.join(work, "datadog", "ibm_mq")
    shutil.copytree(src, dst)
    package = next(d for d in os.listdir(dst) if d.endswith("_checks"))
    prefix = package[:-len("_checks")]
    if package != "datadog_checks":            # a fork's rename, undone so datadog_checks.base is found
        os.rename(os.path.join(dst, package), os.path.join(dst, "datadog_checks"))
    for root, _dirs, files in os.walk(dst):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(root, f)
                with open(path, encoding="utf-8") as fh:
                    text = fh.read()
                if package != "datadog_checks":
                    text = text.replace(f"{prefix}_checks", "datadog_checks").replace(f"{prefix}_agent",
                                                                                       "datadog_agent")
                if f == "common.py" and root.endswith("tests"):
                    text = (text.replace("PORT = '11414'", f"PORT = '{qm.port}'")
                            .replace("PASSWORD = 'passw0rd'", "PASSWORD = 'password'"))
                if f == "conftest.py" and root.endswith("tests"):
                    # Its docker environment, replaced by the queue manager already running.
                    text = text.replace("def dd_environment(", "def _docker_environment(") + (
                        "\n\n@pytest.fixture(scope='session')\ndef dd_environment():\n"
                        "    prepare_queue_manager()\n"
                        "    yield common.INSTANCE, copy.deepcopy(common.E2E_METADATA)\n")
                with open(path, "w", encoding="utf-8") as fh:
                    fh.write(text)
    # What its compose file runs on the developer image: tests/compose/config.mqsc (statistics,
    # accounting, queue monitoring). A line mqlite refuses is printed, not fatal: the suite says
    # what it costs.
    with open(os.path.join(dst, "tests", "compose", "config.mqsc"), encoding="utf-8") as fh:
        out = qm.mqsc(fh.read()).stdout
    for line in out.splitlines():
        if re.match(r"\d+ : |AMQ8405I|AMQ\d{4}E|.* is not valid for", line.strip()):
            print(f"   config.mqsc: {line.strip()}")
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(env, PYTHONPATH=os.pathsep.join([os.path.join(work, "shim"), dst, repo]),
               DOCKER_HOST="tcp://127.0.0.1:2375",    # only its host name is read: 127.0.0.1
               # What its hatch.toml sets, the version as mqlite's queue manager reports it.
               IBM_MQ_VERSION="9", IBM_MQ_COMPOSE_VERSION="9", IBM_MQ_VERSION_RAW="9.4.0.0")
    out = pytest_run(os.path.join(dst, "tests"), env, work, "datadog", python=python, cwd=dst)
    # Its statistics collection against this queue manager's own statistics messages (the suite
    # feeds it messages recorded from IBM MQ): traffic on DEV.QUEUE.1, one STATINT, one check run.
    probe = os.path.join(work, "datadog_stats.py")
    with open(probe, "w", encoding="utf-8") as fh:
        fh.write(DATADOG_STATS_PROBE)
    qm.mqsc("ALTER QMGR STATQ(ON) STATINT(1)\n", check=True)
    r = subprocess.run([python, probe, qm.conname, "admin", "password"], env=env, capture_output=True, text=True,
                       timeout=120)
    found = [ln for ln in r.stdout.splitlines() if ln.startswith("ibm_mq.stats.")]
    out["live statistics collection"] = (f"passed: {len(found)} statistics metrics" if found
                                         else f"failed: {(r.stdout + r.stderr).strip()[-300:]}")
    for line in found:
        print(f"   live statistics: {line}")
    return out


DATADOG_STATS_PROBE = '''import sys, time, datetime as dt
import pymqi
from datadog_checks.base.stubs import aggregator
from datadog_checks.base.utils.time import ensure_aware_datetime
from datadog_checks.ibm_mq import IbmMqCheck
conname, user, password = sys.argv[1:4]
c = pymqi.connect("QM1", "DEV.ADMIN.SVRCONN", conname, user, password)
q = pymqi.Queue(c, "DEV.QUEUE.1")
for _ in range(5):
    q.put(b"counted")
g = pymqi.Queue(c, "DEV.QUEUE.1", pymqi.CMQC.MQOO_INPUT_SHARED)
for _ in range(3):
    g.get()
c.disconnect()
time.sleep(2.5)
host, port = conname.rstrip(")").split("(")
check = IbmMqCheck("ibm_mq", {}, [{"channel": "DEV.ADMIN.SVRCONN", "queue_manager": "QM1", "host": host,
                                   "port": port, "username": user, "password": password,
                                   "queues": ["DEV.QUEUE.1"], "collect_statistics_metrics": True}])
check._config.instance_creation_datetime = ensure_aware_datetime(dt.datetime(2000, 1, 1))
check.run()
for name in sorted(n for n in aggregator.metric_names if n.startswith("ibm_mq.stats.")):
    print(name, [(m.value, [t for t in m.tags if t.startswith("persistent")])
                 for m in aggregator.metrics(name) if "queue:DEV.QUEUE.1" in m.tags])
'''


def suite_qm(h: Harness, name: str, channel: str, chckclnt: str) -> tuple[Any, dict[str, str]]:
    """A queue manager as the suites' setup scripts make theirs (connection authentication with
    CHCKCLNT as their configs say), and the environment naming it."""
    qm = h.add(name, OBJECTS + f"DEFINE CHANNEL({channel}) CHLTYPE(SVRCONN) REPLACE\n"
               f"ALTER AUTHINFO(SYSTEM.DEFAULT.AUTHINFO.IDPWOS) AUTHTYPE(IDPWOS) CHCKCLNT({chckclnt}) FAILDLAY(0)\n"
               "ALTER QMGR CONNAUTH(SYSTEM.DEFAULT.AUTHINFO.IDPWOS)\nREFRESH SECURITY TYPE(CONNAUTH)\n")
    for user, group in ((getpass.getuser(), "mqm"), ("admin", "mqm"), ("app", "mqclient")):
        r = run_mqlite("setmqusr", "-m", name, "-u", user, "-g", group, "--password-stdin", stdin="password\n")
        assert r.returncode == 0, r.stdout + r.stderr
    qm.mqsc(APP_AUTHORITY, check=True)               # after the users: the group must exist
    # A working queue manager always has some queue with messages on it (IBM's system queues do);
    # pymqi's and ibmmq's filter tests look for one (INQUIRE_Q with CURRENT_Q_DEPTH > 0).
    from mqlite import pymqi
    c = qm.bindings()
    pymqi.Queue(c, "RUNNER.NOT.EMPTY").put(b"so that a depth filter finds a queue")
    c.disconnect()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MQ", "PYMQI_", "PY_IBMMQ"))}
    env["MQLITE_DATA"] = h.data_dir
    for prefix in ("PYMQI_TEST_", "PY_IBMMQ_TEST_"):
        env.update({f"{prefix}QM_NAME": name, f"{prefix}QM_HOST": "127.0.0.1", f"{prefix}QM_PORT": str(qm.port),
                    f"{prefix}QM_CHANNEL": channel, f"{prefix}QM_TRANSPORT": "TCP"})
    return qm, env


def tls_repositories(work: str) -> dict[str, str]:
    """pymqi's test_tls, run as its docstring prepares it: a queue-manager repository ``mqtest``
    and a client one ``client`` (CN=client) from one CA, in mqlite's PEM form of MQ's key
    databases (an RSA key: its CipherSpec is TLS_RSA_WITH_AES_256_CBC_SHA256). The test points
    SSLKEYR at the first with Change Queue Manager and connects without REFRESH SECURITY."""
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from tests.server.test_tls import PKI      # (the test kit's CA: cryptography, nothing fetched)
    qmgr_dir, client_dir = os.path.join(work, "tls", "qmgr"), os.path.join(work, "tls", "client")
    os.makedirs(qmgr_dir)
    os.makedirs(client_dir)
    pki = PKI(qmgr_dir)
    pki.repo("mqtest", "mqtest", use_rsa=True)
    pki.dir = client_dir
    pki.repo("client", "client", use_rsa=True)
    return {"PYMQI_TEST_TLS_SKIP": "0", "PYMQI_TEST_TLS_KEY_REPO_LOCATION_QMGR": qmgr_dir,
            "PYMQI_TEST_TLS_KEY_REPO_LOCATION_CLIENT": client_dir}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pymqi", help="a checkout of dsuch/pymqi")
    ap.add_argument("--ibmmq", help="a checkout of ibm-messaging/mq-mqi-python")
    ap.add_argument("--examples", action="store_true", help="also run ibmmq's examples")
    ap.add_argument("--datadog", help="a checkout of DataDog/integrations-core (its ibm_mq check)")
    ap.add_argument("--datadog-python", default=sys.executable,
                    help="a Python with datadog-checks-base, datadog-checks-dev, mock and psutil")
    ap.add_argument("--json", help="write every outcome here")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="mqlite-suites-")
    os.makedirs(os.path.join(work, "shim", "pymqi"))
    with open(os.path.join(work, "shim", "pymqi", "__init__.py"), "w", encoding="utf-8") as f:
        f.write(PYMQI_SHIM)
    results: dict[str, dict[str, str]] = {}
    with Harness(os.path.join(work, "data"), channel="UNUSED.SVRCONN", security=True) as h:
        if args.pymqi:
            # pymqi's config: queue manager MQTEST, channel CH1 (its create_mq_objects.py).
            _qm, env = suite_qm(h, "MQTEST", "CH1", "OPTIONAL")
            # The application user its tox.ini's docker environment names (test_queue_manager's
            # setUpClass grants it authorities by name; an empty name is a malformed PCF list).
            env.update(PYTHONPATH=os.path.join(work, "shim"), PYMQI_TEST_QM_APP_USER="app",
                       PYMQI_TEST_QM_APP_PASSWORD="password")
            env.update(tls_repositories(work))
            results["pymqi tests"] = pytest_run(os.path.join(args.pymqi, "code", "tests"), env, work, "pymqi")
        if args.ibmmq or args.datadog:
            # ibmmq's config and examples, and DataDog's check: QM1, DEV.ADMIN.SVRCONN /
            # DEV.APP.SVRCONN, users admin and app.
            qm, env = suite_qm(h, "QM1", "DEV.ADMIN.SVRCONN", "REQUIRED")
        if args.datadog:
            results["datadog ibm_mq tests"] = datadog_run(h, qm, env, args.datadog, args.datadog_python, work)
        if args.ibmmq:
            env.update(PYTHONPATH=SHIM_PATH, PY_IBMMQ_TEST_QM_APP_CHANNEL="DEV.APP.SVRCONN")
            results["ibmmq tests"] = pytest_run(os.path.join(args.ibmmq, "code", "tests"), env, work, "ibmmq")
            if args.examples:
                # The examples name localhost(1414): the copies here name this queue manager's port.
                examples = os.path.join(work, "examples")
                shutil.copytree(os.path.join(args.ibmmq, "code", "examples"), examples)
                for f in os.listdir(examples):
                    if f.endswith(".py"):
                        path = os.path.join(examples, f)
                        with open(path, encoding="utf-8") as fh:
                            text = fh.read()
                        with open(path, "w", encoding="utf-8") as fh:
                            fh.write(text.replace("'1414'", f"'{qm.port}'").replace('"1414"', f'"{qm.port}"')
                                     .replace("(1414)", f"({qm.port})"))
                qm.mqsc(EXAMPLE_AUTHORITY, check=True)
                results["ibmmq examples"] = run_examples(examples, env)
    for suite, outcomes in results.items():
        counts: dict[str, int] = {}
        for o in outcomes.values():
            counts[o.split(":")[0]] = counts.get(o.split(":")[0], 0) + 1
        print(f"== {suite}: " + ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) + f" of {len(outcomes)}")
        for name, o in sorted(outcomes.items()):
            print(f"   {name}: {o}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
