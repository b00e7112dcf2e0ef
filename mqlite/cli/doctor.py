"""``mqlite doctor``: what this machine has for mqlite, each thing checked and, when it is missing,
how to get it (issue 63: the README said Python was the only prerequisite; Spark needs Java,
mqweb and AMQP their extras, the test suite npm, Debian packages and PostgreSQL). Core needs
(Python 3.11, a data directory it can write) fail; an optional feature's missing part is a note
naming the feature and the fix. Exit code 0 when the core is there, 1 otherwise."""
from __future__ import annotations

import importlib.util
import os
import shutil
import socket
import subprocess
import sys
from dataclasses import dataclass

from mqlite.paths import data_root

OK, NOTE, FAIL = "ok", "note", "FAIL"


@dataclass(frozen=True)
class Finding:
    level: str
    what: str
    fix: str = ""


def _module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _port_free(port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _answers(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return False
    return True


def _java() -> str:
    """``java -version``'s first line, or "" when there is no Java."""
    if shutil.which("java") is None:
        return ""
    try:
        r = subprocess.run(["java", "-version"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return (r.stderr or r.stdout).strip().splitlines()[0] if (r.stderr or r.stdout).strip() else ""


def core() -> list[Finding]:
    out = []
    v = sys.version_info
    out.append(Finding(OK if v >= (3, 11) else FAIL, f"Python {v.major}.{v.minor}.{v.micro}",
                       "" if v >= (3, 11) else "mqlite needs Python 3.11 or newer"))
    root = data_root()
    try:
        os.makedirs(root, exist_ok=True)
        probe = os.path.join(root, f".doctor-{os.getpid()}")
        with open(probe, "w", encoding="ascii") as f:
            f.write("ok")
        os.unlink(probe)
        out.append(Finding(OK, f"data directory {root} (MQLITE_DATA) can be written"))
    except OSError as e:
        out.append(Finding(FAIL, f"data directory {root} cannot be written: {e.strerror or e}",
                           "set MQLITE_DATA to a directory of yours"))
    found = shutil.which("mqlite")
    here = os.path.join(os.path.dirname(sys.executable), "mqlite")
    if found:
        out.append(Finding(OK, f"the mqlite command: {found}"))
    else:
        out.append(Finding(NOTE, "the mqlite command is not on PATH",
                           f"run {here}, or put {os.path.dirname(sys.executable)} on PATH "
                           "(after make run or make test: export PATH=$PWD/.venv/bin:$PATH)"))
    return out


# extra -> (a module it brings, what it enables)
EXTRAS = {"web": ("uvicorn", "mqweb: the REST APIs and the console (strmqweb, mqlite dev)"),
          "amqp": ("proton", "AMQP 1.0 channels (CHLTYPE(AMQP))"),
          "spark": ("pyspark", "the Spark data source (format mqlite)"),
          "pg": ("psycopg", "queue-sharing groups across hosts (a PostgreSQL shared store)"),
          "tls": ("cryptography", "PKCS#12 key repositories (SSLKEYR .p12; PEM needs nothing)"),
          "ldap": ("ldap3", "CONNAUTH with AUTHTYPE(IDPWLDAP)")}


def features() -> list[Finding]:
    out = []
    for extra, (module, what) in EXTRAS.items():
        if _module(module):
            out.append(Finding(OK, f"{what}: the {extra} extra is installed"))
        else:
            out.append(Finding(NOTE, f"{what}: not available", f"pip install 'mqlite[{extra}]'"))
    if _module("pyspark"):
        java = _java()
        out.append(Finding(OK, f"Java for Spark: {java}") if java else
                   Finding(NOTE, "Spark needs Java (17 or 21), which is not on PATH",
                           "install a JDK (Debian: apt-get install openjdk-17-jre-headless)"))
    if _module("psycopg"):
        out.append(Finding(OK, "PostgreSQL answers on 127.0.0.1:5432") if _answers(5432) else
                   Finding(NOTE, "no PostgreSQL on 127.0.0.1:5432 (shared queues on one host use SQLite)",
                           "for a group across hosts: crtmqm --qsgstore postgresql://..."))
    for port, who, fix in ((1414, "mqlite dev's listener", "mqlite dev --port N"),
                           (9443, "mqweb's HTTPS port", "setmqweb properties -k httpsPort -v N"),
                           (5672, "an AMQP channel's default PORT", "DEFINE CHANNEL(...) CHLTYPE(AMQP) PORT(N)"),
                           (1883, "an MQTT channel's default PORT", "DEFINE CHANNEL(...) CHLTYPE(MQTT) PORT(N)")):
        if not _port_free(port):
            out.append(Finding(NOTE, f"port {port} ({who}) is taken by another program", f"use another: {fix}"))
    return out


def development(repo: str) -> list[Finding]:
    """What ``make test`` needs beyond the extras (only when run from a checkout)."""
    out = []
    for tool, why in (("npm", "rhea, the AMQP tests' Node.js client"), ("java", "the Spark tests"),
                      ("chromium", "the console's browser tests"), ("mosquitto_pub", "the MQTT tests")):
        path = shutil.which(tool)
        out.append(Finding(OK, f"{tool}: {path}") if path else
                   Finding(NOTE, f"{tool} is missing: {why}",
                           "make test installs Debian's packages itself when run as root (tools/services.sh)"
                           if tool in ("chromium", "mosquitto_pub") else f"install {tool}"))
    out.append(Finding(OK, "PostgreSQL on 127.0.0.1:5432 for the queue-sharing group tests") if _answers(5432)
               else Finding(NOTE, "no PostgreSQL on 127.0.0.1:5432: the queue-sharing group tests need it "
                                  "(a trust login and a database named test)", "apt-get install postgresql"))
    shared = os.path.join(os.path.dirname(repo), "shared")
    out.append(Finding(OK, f"{shared} beside the checkout") if os.path.isdir(shared) else
               Finding(NOTE, f"{shared} is missing: some tests read its reference files"))
    return out


def main() -> int:
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    sections = [("mqlite", core()), ("features", features())]
    if os.path.exists(os.path.join(repo, "Makefile")) and os.path.isdir(os.path.join(repo, "tests")):
        sections.append(("the test suite (make test)", development(repo)))
    failed = False
    for title, found in sections:
        print(f"{title}:")
        for f in found:
            failed |= f.level == FAIL
            print(f"  {f.level:<4} {f.what}" + (f"\n         fix: {f.fix}" if f.fix else ""))
    print("mqlite doctor: " + ("something mqlite needs is missing (FAIL above)." if failed else
                               "mqlite can run here; notes name what optional features need."))
    return 1 if failed else 0
