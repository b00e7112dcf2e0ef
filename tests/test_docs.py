"""The documentation's command blocks and code snippets run as written (issue 63: the README's
pytest snippet lacked an import, its asyncio one was refused by `mqlite dev`, docs' MQSC had
comments after commands). Every fenced block of README.md and docs/*.md is in ``BLOCKS`` by its
file and first line — run, or skipped with the reason and the test that runs its substance — and a
block the table does not know fails the test, so a new snippet cannot go untested.

How a block runs: ``sh`` line by line in bash (``set -e``) from the checkout, with ``.venv/bin``
first on PATH and a data directory of its own; ``python`` as a script; a pytest snippet as a test
file under pytest. The marked substitutions (``Run.subst``) are the only changes: a free port for
1414 (and what must follow from it), ``--ports auto`` for the cluster's fixed ones, no console on
9443, and the `pip install` of what is installed already. A snippet that needs a queue manager the
block before it made runs between that block's lines and its last one (``Run.after``)."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from mqlite.cli.proc import free_port

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"


@dataclass(frozen=True)
class Run:
    subst: dict[str, str] = field(default_factory=dict)
    after: str = ""               # the first line of the block this one runs inside (before its last line)
    skip: str = ""                # why not here, and where it is run
    setup: str = ""               # shell lines that make what the block expects, and end it after
    before: tuple[str, ...] = ()  # the first lines of the same page's blocks a recipe runs before this one
    then: str = ""                # shell lines after the block that check what it promises


_DEV = "MQ_APP_PASSWORD=passw0rd1 MQ_ADMIN_PASSWORD=passw0rd2 mqlite dev --port {port} --web-port 0 >/dev/null"
README_BLOCKS = {
    "make run    # bring up the SALES cluster of examples/sales, route puts with each binding option, take it down":
        Run(skip="make run is tests/cluster/test_cluster.py::test_readme_main_job_runs_the_sales_cluster; "
                 "make test is this suite"),
    "from mqlite import pymqi": Run(),
    "pip install mqlite": Run(subst={"pip install mqlite": "true", "mqlite dev": "mqlite dev --port {port} --web-port 0",
                                     "localhost(1414)": "localhost({port})"}),
    "import asyncio": Run(subst={"localhost(1414)": "localhost({port})"}, after="pip install mqlite"),
    "mqlite up examples/sales          # FR1, FR2 (full repositories), PR1, PR2 (partials) from their MQSC files":
        Run(subst={"mqlite up examples/sales": "mqlite up examples/sales --ports auto"}),
    "make pipeline          # python examples/pipeline/run.py in the project's .venv (made on first use)":
        Run(skip="tests/spark/test_spark_stream.py::test_example_pipeline_runs_end_to_end runs it"),
    "mqlite crtmqm -p 1414 -u SYSTEM.DEAD.LETTER.QUEUE QM1   # create (with a TCP listener on 1414)":
        Run(subst={"1414": "{port}"}),
    "from mqlite import pymqi                      # instead of: import pymqi":
        Run(subst={"127.0.0.1(1414)": "127.0.0.1({port})"},
            after="mqlite crtmqm -p 1414 -u SYSTEM.DEAD.LETTER.QUEUE QM1   # create (with a TCP listener on 1414)"),
}
# A queue manager QM1 with object authority on, and `mqlite dev`'s QM1 with the console on {port2}.
_QM = "mqlite crtmqm -p {port} QM1 >/dev/null && mqlite strmqm QM1 >/dev/null"
_WEBDEV = "MQ_APP_PASSWORD=passw0rd MQ_ADMIN_PASSWORD=passw0rd mqlite dev --port {port} --web-port {port2} >/dev/null"
_CURL = {"https://localhost:9443": "https://localhost:{port2}", "curl -k": "curl -fsSk"}
_MQTT_MQSC = "* (an MQSC comment is a line of its own: a * after a command is a syntax error)"
_MQTT_AUTH = "mqlite setmqusr -m QM1 -u mqttapp -p 'a password' -g mqttapps"
_WEB_START = "mqlite setmqweb properties -k httpsPort -v 9443      # MQ's default; -1 turns it off"
BLOCKS: dict[str, dict[str, Run]] = {
    "README.md": README_BLOCKS,
    "docs/testing.md": {
        "MQ_APP_PASSWORD=... MQ_ADMIN_PASSWORD=... mqlite dev     # QM1 on 1414, ready in about a second": Run(
            skip="the reader's passwords: README's `pip install mqlite` block runs mqlite dev, and "
                 "tests/testkit/test_dev.py::test_foreground_is_a_service_entry_point --foreground"),
        "from mqlite import pymqi": Run(),
        "def test_orders_spread(mq_cluster):": Run(skip="a sketch (its ... are the reader's); the fixtures run as "
                                                        "tests/testkit/test_pytest_plugin.py's test_cluster and test_clock")},
    "docs/qsg.md": {
        "mqlite crtmqm --qsg QSG1 -p 1414 -u DLQ QMA          # the first member also defines SYSTEM.QSG.TRANSMIT.QUEUE":
            Run(skip="names a PostgreSQL host of the reader's (db.example); tests/qsg make such groups"),
        "* one queue, every member": Run(skip="MQSC for a group's member: tests/qsg/test_qsg.py defines these")},
    "docs/operations.md": {
        "TuningParameters:": Run(skip="a qm.ini stanza: tests/server/test_deep.py sets it"),
        "CHANNELS:": Run(skip="a qm.ini stanza: tests/channels/test_limits.py sets it")},
    "docs/channels.md": {
        "* on QM1": Run(skip="MQSC of two queue managers with fixed ports: tests/channels/test_channels.py defines these"),
        "from mqlite.testing import Harness": Run(skip="a sketch (its ... are the reader's): tests/channels use Harness")},
    "docs/amqp.md": {
        "DEFINE CHANNEL(AMQP.APPS) CHLTYPE(AMQP) PORT(5672)": Run(
            subst={"PORT(5672)": "PORT({port2})"}, setup=_QM,
            then="echo 'DISPLAY CHSTATUS(AMQP.APPS)' | mqlite runmqsc QM1 | grep 'STATUS(RUNNING)' >/dev/null"),
        "from proton import Message": Run(skip="the reader's password and an AMQP channel on 5672: "
                                               "tests/amqp/test_amqp_security.py sends so"),
        "// rhea (Node.js): a queue needs the queue capability": Run(skip="JavaScript: tests/amqp/test_rhea.py")},
    "docs/spark.md": {
        "from pyspark.sql import SparkSession": Run(skip="a sketch (replies is the reader's DataFrame): tests/spark")},
    "docs/security.md": {
        "mqlite crtmqm -p 1414 QM1 && mqlite strmqm QM1": Run(skip="10-dev.mqsc is IBM's template, not in this "
                                                                   "checkout: tests/server/test_security.py applies it")},
    "docs/protocol.md": {"+----------------------+-----------+---------------------+": Run(skip="a diagram")},
    "docs/design.md": {
        "   server sessions, channels, MQTT/AMQP, mqweb, tests            (callers: qm.open, qm.put, qm.get ...)":
            Run(skip="a diagram")},
    "docs/mqtt.md": {
        _MQTT_MQSC: Run(subst={"PORT(1883)": "PORT({port2})"}, setup=_QM),
        _MQTT_AUTH: Run(setup=_QM, before=(_MQTT_MQSC,)),
        "mosquitto_sub -h localhost -p 1883 -t 'sensors/#' -q 1 -v": Run(
            # the subscriber in the background until it has one message, and the publisher once it is subscribed
            subst={"mosquitto_sub -h localhost -p 1883 -t 'sensors/#' -q 1 -v":
                   "mosquitto_sub -h localhost -p {port2} -t 'sensors/#' -q 1 -v -C 1 -W 60 >\"$MQLITE_DATA/sub\" &\n"
                   "until echo 'DISPLAY SUB(*) TOPICSTR' | mqlite runmqsc QM1 | grep 'sensors/#' >/dev/null; do sleep 0.2; done",
                   "-p 1883": "-p {port2}"},
            setup=_QM, before=(_MQTT_MQSC, _MQTT_AUTH), then='wait; grep -qx "sensors/temp 21.5" "$MQLITE_DATA/sub"')},
    "docs/pymqi.md": {
        "export PYTHONPATH=$(python -c 'import mqlite.ibmmq as m; print(m.SHIM_PATH)')${PYTHONPATH:+:$PYTHONPATH}":
            Run(subst={"${PYTHONPATH:+:$PYTHONPATH}": "${{PYTHONPATH:+:$PYTHONPATH}}\n"
                       "python -c 'import ibmmq, mqlite.ibmmq; assert ibmmq.connect is mqlite.ibmmq.connect'"})},
    "docs/web.md": {
        "mqlite setmqweb properties -k httpPort -v 9080": Run(
            skip="tests/web/test_console.py runs this recipe, `mqlite up examples/sales --web` on free ports, and the "
                 "console's steps after it in a real browser"),
        _WEB_START: Run(subst={"9443": "{port}", "9080": "{port2}",
                               "mqlite setmqweb properties -k keyRepository -v /path/to/stem": "true"}),
        "curl -k -u admin:passw0rd https://localhost:9443/ibmmq/rest/v1/admin/installation": Run(
            subst={**_CURL, "curl ... -d": "curl -fsSk -u admin:passw0rd -H 'ibm-mq-rest-csrf-token: x' -H "
                   "'Content-Type: application/json' https://localhost:{port2}/ibmmq/rest/v2/admin/action/qmgr/QM1/mqsc -d"},
            setup=_WEBDEV, then="echo 'DISPLAY QLOCAL(Q1)' | mqlite runmqsc QM1 | grep AMQ8409I >/dev/null"),
        "curl -k -u admin:passw0rd 'https://localhost:9443/ibmmq/rest/v1/admin/qmgr/QM1/queue?type=all'": Run(
            subst={**_CURL, "curl ...": "curl -fsSk -u admin:passw0rd -H 'ibm-mq-rest-csrf-token: x' -H "
                   "'Content-Type: application/json'", "'.../": "'https://localhost:{port2}/ibmmq/rest/v1/admin/qmgr/QM1/"},
            setup=_WEBDEV + " && echo 'DEFINE QLOCAL(Q1)' | mqlite runmqsc QM1 >/dev/null",
            then="out=$(echo 'DISPLAY QLOCAL(Q2)' | mqlite runmqsc QM1 || true); grep AMQ8147E <<<\"$out\" >/dev/null"),
        "curl -k -u app:passw0rd -H 'ibm-mq-rest-csrf-token: x' -H 'Content-Type: text/plain;charset=utf-8' \\":
            Run(subst=_CURL, setup=_WEBDEV),
        "mqlite setmqusr -m QM1 -u alice --prompt -g MQWebAdminGroup": Run(
            subst={"--prompt": "--prompt <<<'a password'"}, setup=_QM,
            then="mqlite dspmqusr -m QM1 | grep alice | grep MQWebAdminGroup >/dev/null"),
        'mqlite setmqweb properties -k MQWebAdminRO -v "group:operators,user:auditor"': Run(
            then="python -c 'from mqlite.web.settings import settings_now as s; "
                 "assert s()[\"MQWebAdminRO\"] == \"group:operators,user:auditor\"'"),
        "curl -k -c jar -H 'Content-Type: application/json' https://localhost:9443/ibmmq/rest/v2/login \\": Run(
            subst={**_CURL, " jar ": ' "$MQLITE_DATA/jar" '},
            setup=_WEBDEV + " && mqlite setmqusr -m QM1 -u alice -p ... -g MQWebAdminGroup >/dev/null",
            then='grep -q LtpaToken2_ "$MQLITE_DATA/jar"'),
        "mqlite setmqweb properties -k apiDiscovery -v true": Run(subst=_CURL, setup=_WEBDEV)},
    "docs/asyncio.md": {"import asyncio": Run(subst={"127.0.0.1(1414)": "127.0.0.1({port})"}, setup=_DEV)},
}


def blocks(text: str) -> list[tuple[str, str]]:
    """The fenced blocks of a Markdown text: (language, body)."""
    return [(m.group(1), m.group(2)) for m in re.finditer(r"^```(\w*)\n(.*?)^```", text, re.M | re.S)]


def _env(data: Path) -> dict[str, str]:
    return dict(os.environ, MQLITE_DATA=str(data), PYTHONPATH=str(ROOT),
                PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])


def _subst(body: str, run: Run, ports: dict[str, int]) -> str:
    for old, new in run.subst.items():
        body = body.replace(old, new.format(**ports))
    return body


def _shell(lines: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", "set -euo pipefail\n" + "\n".join(lines)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=240)


def _python(lang: str, body: str, env: dict[str, str], tmp: Path) -> subprocess.CompletedProcess:
    if "def test_" in body:                         # a test for the pytest plugin
        path = tmp / "test_snippet.py"
        path.write_text(body)
        return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(path)],
                              cwd=tmp, env=env, capture_output=True, text=True, timeout=240)
    path = tmp / "snippet.py"
    path.write_text(body)
    return subprocess.run([sys.executable, str(path)], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=240)


def _documents() -> list[str]:
    return ["README.md"] + sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md"))


def indented_blocks(text: str) -> list[str]:
    """Markdown's indented code blocks (four spaces after a blank line, not a list's continuation):
    the first line of each. The docs write code fenced, with its language, so that it is run here."""
    lines, found, fenced = text.splitlines(), [], False
    for i, line in enumerate(lines):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("    ") and line.strip() and i and not lines[i - 1].strip():
            prev = next((p for p in reversed(lines[:i]) if p.strip()), "")
            if not re.match(r"^\s*([-*+]|\d+\.)\s|^ ", prev):
                found.append(line.strip())
    return found


def test_every_block_is_known() -> None:
    for doc in _documents():
        assert indented_blocks((ROOT / doc).read_text()) == [], f"{doc}: write code fenced, with its language"
        firsts = [body.splitlines()[0] for _lang, body in blocks((ROOT / doc).read_text())]
        assert sorted(firsts) == sorted(BLOCKS.get(doc, {})), f"a block of {doc} this test does not know: add it"


@pytest.mark.parametrize("doc,first", [(d, k) for d, known in BLOCKS.items() for k, r in known.items()
                                       if not r.skip and not r.after])
def test_the_block_runs_as_written(doc: str, first: str, tmp_path: Path) -> None:
    found = {body.splitlines()[0]: (lang, body) for lang, body in blocks((ROOT / doc).read_text())}
    lang, body = found[first]
    run = BLOCKS[doc][first]
    ports = {"port": free_port(), "port2": free_port()}
    env = _env(tmp_path / "data")
    inner = [(k, r) for k, r in BLOCKS[doc].items() if r.after == first]
    try:
        if run.setup:
            r = _shell([run.setup.format(**ports)], env)
            assert r.returncode == 0, r.stdout + r.stderr
        for key in run.before:                      # the recipe's blocks before this one, in order
            r = _block(*found[key], BLOCKS[doc][key], ports, env, tmp_path)
            assert r.returncode == 0, f"{key}:\n{r.stdout}{r.stderr}"
        if lang == "sh" and inner:
            lines = _subst(body, run, ports).splitlines()
            r = _shell(lines[:-1], env)
            assert r.returncode == 0, r.stdout + r.stderr
            for key, inner_run in inner:
                ri = _block(*found[key], inner_run, ports, env, tmp_path)
                assert ri.returncode == 0, f"{key}:\n{ri.stdout}{ri.stderr}"
                _check(doc, key, ri.stdout)
            r = _shell(lines[-1:], env)
        else:
            r = _block(lang, body, run, ports, env, tmp_path)
        assert r.returncode == 0, r.stdout + r.stderr
        _check(doc, first, r.stdout)
    finally:
        subprocess.run([sys.executable, "-m", "mqlite.cli.main", "down", "examples/sales"], cwd=ROOT, env=env,
                       capture_output=True, timeout=120)
        subprocess.run([sys.executable, "-m", "mqlite.cli.main", "endmqweb"], env=env, capture_output=True,
                       timeout=60)
        for qm in ("QM1",):
            subprocess.run([sys.executable, "-m", "mqlite.cli.main", "endmqm", "-i", qm], env=env,
                           capture_output=True, timeout=60)


def _block(lang: str, body: str, run: Run, ports: dict[str, int], env: dict[str, str],
           tmp: Path) -> subprocess.CompletedProcess:
    """One block run as its language runs: shell lines, MQSC through runmqsc to QM1, or Python;
    then the block's ``then`` lines, which check what it promised (a shell block's in its shell)."""
    body = _subst(body, run, ports)
    if lang == "sh":                                # its checks in the same shell (its background jobs)
        return _shell(body.splitlines() + ([run.then.format(**ports)] if run.then else []), env)
    if lang == "mqsc":
        r = subprocess.run([sys.executable, "-m", "mqlite.cli.main", "runmqsc", "QM1"], input=body, env=env,
                           capture_output=True, text=True, timeout=120)
    else:
        r = _python(lang, body, env, tmp)
    if r.returncode == 0 and run.then:
        t = _shell([run.then.format(**ports)], env)
        return subprocess.CompletedProcess(t.args, t.returncode, r.stdout + t.stdout, r.stderr + t.stderr)
    return r


def _check(doc: str, first: str, out: str) -> None:
    """What a block's comments promise it shows."""
    if doc == "docs/asyncio.md":
        assert out.splitlines()[0].startswith("b'order 1' b'") and "b'order 2'" in out, out
    elif first.startswith("import asyncio"):
        assert out.strip() == "b'order 1'", out
    elif first.startswith("from mqlite import pymqi                      # instead of"):
        assert "Hello from Python!" in out, out
    elif first.startswith("mqlite setmqweb properties -k httpsPort"):
        assert "MQWB1124I: Server 'mqweb' is running." in out and "Server mqweb stopped." in out, out
    elif first.startswith("curl -k -c jar"):
        assert '"name":"alice"' in out.replace(" ", ""), out
    elif first.startswith("mqlite setmqweb properties -k apiDiscovery"):
        assert '"swagger":"2.0"' in out.replace(" ", ""), out[:300]
    elif first.startswith("mqlite up examples/sales"):
        assert out.count("QMTYPE(REPOS)") == 2 and out.count("QMTYPE(NORMAL)") == 2, out
