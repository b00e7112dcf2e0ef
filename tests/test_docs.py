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
BLOCKS: dict[str, dict[str, Run]] = {
    "README.md": README_BLOCKS,
    "docs/testing.md": {
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
        "from proton import Message": Run(skip="the reader's password and an AMQP channel on 5672: "
                                               "tests/amqp/test_amqp_security.py sends so"),
        "// rhea (Node.js): a queue needs the queue capability": Run(skip="JavaScript: tests/amqp/test_rhea.py")},
    "docs/spark.md": {
        "from pyspark.sql import SparkSession": Run(skip="a sketch (replies is the reader's DataFrame): tests/spark")},
    "docs/security.md": {
        "mqlite crtmqm -p 1414 QM1 && mqlite strmqm QM1": Run(skip="10-dev.mqsc is IBM's template, not in this "
                                                                   "checkout: tests/server/test_security.py applies it")},
    "docs/protocol.md": {"+----------------------+-----------+---------------------+": Run(skip="a diagram")},
    "docs/asyncio.md": {"import asyncio": Run(subst={"127.0.0.1(1414)": "127.0.0.1({port})"}, setup=_DEV)},
}


def blocks(text: str) -> list[tuple[str, str]]:
    """The fenced blocks of a Markdown text: (language, body)."""
    return [(m.group(1), m.group(2)) for m in re.finditer(r"^```(\w*)\n(.*?)^```", text, re.M | re.S)]


def _env(data: Path) -> dict[str, str]:
    return dict(os.environ, MQLITE_DATA=str(data), PYTHONPATH=str(ROOT),
                PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])


def _subst(body: str, run: Run, port: int) -> str:
    for old, new in run.subst.items():
        body = body.replace(old, new.format(port=port))
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


def test_every_block_is_known() -> None:
    for doc in _documents():
        firsts = [body.splitlines()[0] for _lang, body in blocks((ROOT / doc).read_text())]
        assert sorted(firsts) == sorted(BLOCKS.get(doc, {})), f"a block of {doc} this test does not know: add it"


@pytest.mark.parametrize("doc,first", [(d, k) for d, known in BLOCKS.items() for k, r in known.items()
                                       if not r.skip and not r.after])
def test_the_block_runs_as_written(doc: str, first: str, tmp_path: Path) -> None:
    found = {body.splitlines()[0]: (lang, body) for lang, body in blocks((ROOT / doc).read_text())}
    lang, body = found[first]
    run = BLOCKS[doc][first]
    port = free_port()
    env = _env(tmp_path / "data")
    inner = [(k, r) for k, r in BLOCKS[doc].items() if r.after == first]
    try:
        if run.setup:
            r = _shell([run.setup.format(port=port)], env)
            assert r.returncode == 0, r.stdout + r.stderr
        if lang == "sh":
            lines = _subst(body, run, port).splitlines()
            head, tail = (lines[:-1], lines[-1:]) if inner else (lines, [])
            r = _shell(head, env)
            assert r.returncode == 0, r.stdout + r.stderr
            for key, inner_run in inner:
                ilang, ibody = found[key]
                ri = _python(ilang, _subst(ibody, inner_run, port), env, tmp_path)
                assert ri.returncode == 0, f"{key}:\n{ri.stdout}{ri.stderr}"
                _check(key, ri.stdout)
            if tail:
                r = _shell(tail, env)
                assert r.returncode == 0, r.stdout + r.stderr
            _check(first, r.stdout)
        else:
            r = _python(lang, _subst(body, run, port), env, tmp_path)
            assert r.returncode == 0, r.stdout + r.stderr
            if doc == "docs/asyncio.md":
                assert r.stdout.splitlines()[0].startswith("b'order 1' b'") and "b'order 2'" in r.stdout, r.stdout
    finally:
        subprocess.run([sys.executable, "-m", "mqlite.cli.main", "down", "examples/sales"], cwd=ROOT, env=env,
                       capture_output=True, timeout=120)
        for qm in ("QM1",):
            subprocess.run([sys.executable, "-m", "mqlite.cli.main", "endmqm", "-i", qm], env=env,
                           capture_output=True, timeout=60)


def _check(first: str, out: str) -> None:
    """What a block's comments promise it shows."""
    if first.startswith("import asyncio"):
        assert out.strip() == "b'order 1'", out
    elif first.startswith("from mqlite import pymqi                      # instead of"):
        assert "Hello from Python!" in out, out
    elif first.startswith("mqlite up examples/sales"):
        assert out.count("QMTYPE(REPOS)") == 2 and out.count("QMTYPE(NORMAL)") == 2, out
