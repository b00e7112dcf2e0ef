"""Run public MQSC scripts on fresh mqlite queue managers and check runmqsc's answers against MQ's
shape (mqlite/mqsc/shape.py): exit code, message ids, DISPLAY layout. Nothing is fetched: give it
checkouts (of ibm-messaging/mq-container, mq-ansible, mq-helm, mq-gitops-samples,
mq-container-mft, mq-uniform-clusters, mq-docker, mq-dev-patterns, mq-rdqm, ...).

    python tools/mqsc_corpus.py CHECKOUT... [--verbose]

A script is every *.mqsc, *.mqsc.tpl (Go template: its conditions dropped, its values filled with
the container's defaults), *.mqsc.j2 (Jinja: values filled) and every block scalar under a key
ending ``.mqsc`` in a YAML file or template (a Helm chart's or an operator's config map); a
script copied into several samples runs once. Each runs in a queue
manager of its own, created as crtmqm makes it (security on), with the users and groups its SET
AUTHREC commands name registered first (as their environments have them), and with the OAM's
default of MQ's developer image where the script expects it. A script passes when runmqsc's
output has MQ's shape and every command the script's authors expect to work works: the script's
own failures (AMQ8150E on a DEFINE without REPLACE of a default object, say) are listed, not
hidden, for a reader to judge against MQ."""
from __future__ import annotations

import argparse
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from mqlite.mqsc.shape import problems  # noqa: E402
from mqlite.testing import Harness, free_port, run_mqlite  # noqa: E402

TEMPLATE_VALUES = {"AppPassword": "passw0rd", "AdminPassword": "passw0rd", "QueueManagerName": "QM1",
                   "ChckClnt": "REQUIRED", "SSLFips": "NO", "SSLKeyR": "/tmp/key", "CertificateLabel": "default",
                   "QMName": "QM1", "Port": "1414", "ListenerPort": "1414"}


def scripts_in(root: str) -> list[tuple[str, str]]:
    """(path, MQSC text) of every script under ``root``."""
    out = []
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if x not in (".git", "vendor", "node_modules")]
        for f in sorted(files):
            path = os.path.join(d, f)
            try:
                text = open(path, encoding="utf-8", errors="replace").read()
            except OSError:
                continue
            if f.endswith(".mqsc"):
                out.append((path, text))
            elif f.endswith((".mqsc.tpl", ".mqsc.j2", ".j2")) and ("DEFINE" in text.upper() or "ALTER" in text.upper()):
                out.append((path, render_template(text)))
            elif f.endswith((".yaml", ".yml", ".yaml_template")):
                out.extend((f"{path}#{i}", block) for i, block in enumerate(yaml_mqsc_blocks(text)))
    return out


def render_template(text: str) -> str:
    """A Go or Jinja template of MQSC with its conditions kept open and its values filled."""
    def value(m: re.Match) -> str:
        key = m.group(1).strip().lstrip(".").split("|")[0].strip()
        return TEMPLATE_VALUES.get(key, key.split(".")[-1].upper() or "X")
    text = re.sub(r"\{\{-?\s*(?:if|else|end|range|with|define|template)\b[^}]*-?\}\}", "", text)
    text = re.sub(r"\{%[^%]*%\}", "", text)
    return re.sub(r"\{\{-?\s*([^}]*?)\s*-?\}\}", value, text)


def yaml_mqsc_blocks(text: str) -> list[str]:
    """The block scalars under keys ending in ``.mqsc`` (or named ``mqsc``) of a YAML document."""
    blocks = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^(\s*)[\w.-]*mqsc[\w.-]*:\s*[|>][-+]?\s*$", lines[i], re.I)
        if not m:
            i += 1
            continue
        indent = len(m.group(1))
        body = []
        i += 1
        while i < len(lines) and (not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > indent):
            body.append(lines[i])
            i += 1
        strip = min((len(b) - len(b.lstrip()) for b in body if b.strip()), default=0)
        block = "\n".join(b[strip:] for b in body).strip()
        if block and "{{" not in block:
            blocks.append(block + "\n")
        elif block:
            blocks.append(render_template(block) + "\n")
    return blocks


def insert_variables(text: str, qmgr: str, port: int) -> str:
    """MQ's insert variables (+QMNAME+, +CONNAME+, +AUTOCL+ and the like), filled as ``crtmqm -ic
    FILE -iv NAME=VALUE`` fills them when it applies a script at start (mqlite has no automatic
    configuration yet: the tool fills them for it)."""
    values = {"QMNAME": qmgr, "CONNAME": f"127.0.0.1({port})", "AUTOCL": "UNICLUSTER"}
    return re.sub(r"\+([A-Z][A-Z0-9_]*)\+", lambda m: values.get(m.group(1), m.group(1)), text)


def principals(text: str) -> tuple[set[str], set[str]]:
    """The users and groups a script's SET AUTHREC commands name."""
    users = {m.group(1) for m in re.finditer(r"PRINCIPAL\(\s*'?([^')\s]+)'?\s*\)", text, re.I)}
    groups = {m.group(1) for m in re.finditer(r"GROUP\(\s*'?([^')\s]+)'?\s*\)", text, re.I)}
    return users, groups


# Scripts their environment applies one after another to the same queue manager: a container's
# numbered /etc/mqm scripts (10-..., 20-...: in order, as runmqsc applies them at start) and what a
# sample's README runs in sequence.
SEQUENCES = (("amqp-qpid/add-dev.mqsc.tpl", "amqp-qpid/add-tls-amqp.mqsc"),)


def _follows(path: str, before: str | None) -> bool:
    """Whether ``path`` runs on the queue manager the script ``before`` ran on."""
    if before is None:
        return False
    if os.path.dirname(path) == os.path.dirname(before) and all(
            re.match(r"^\d+-", os.path.basename(p)) for p in (path, before)):
        return True
    return any(before.endswith(a) and path.endswith(b) for a, b in SEQUENCES)


def run(roots: list[str], verbose: bool) -> int:
    seen: set[str] = set()
    corpus = []                          # (the same script copied into several samples runs once)
    for path, text in (s for root in roots for s in scripts_in(root)):
        if text not in seen:
            seen.add(text)
            corpus.append((path, text))
    shaped = clean = 0
    previous: str | None = None
    name = ""
    with Harness(security=True) as h:
        for n, (path, text) in enumerate(corpus):
            if not _follows(path, previous):
                if previous is not None:
                    h.qms[name].stop()
                name = f"CORPUS{n}"
                h.add(name)
                # (an environment where the AMQP channel's port is free: here RabbitMQ may hold 5672)
                h.qms[name].mqsc(f"ALTER CHANNEL(SYSTEM.DEF.AMQP) CHLTYPE(AMQP) PORT({free_port()})\n", check=True)
            previous = path
            users, groups = principals(text)
            for u in sorted(users):
                run_mqlite("setmqusr", "-m", name, "-u", u)
            for g in sorted(groups):
                run_mqlite("setmqusr", "-m", name, "-u", f"member.{g}"[:12], "-g", g)
            r = h.qms[name].mqsc(insert_variables(text, name, h.qms[name].port))
            bad = problems(r.stdout)
            failed = [line for line in r.stdout.splitlines() if re.match(r"^AMQ\d{4}[ES]:", line)]
            shaped += not bad
            clean += not bad and r.returncode == 0
            rel = path.split("/repo/", 1)[-1] if "/repo/" in path else path
            print(f"{'ok  ' if not bad else 'BAD '} rc={r.returncode:<2} {rel}")
            for p in bad[:5 if not verbose else None]:
                print(f"      shape: {p}")
            for line in failed[:5 if not verbose else None]:
                print(f"      failed: {line}")
        if previous is not None:
            h.qms[name].stop()
    print(f"{len(corpus)} scripts: {shaped} in MQ's shape, {clean} of them with every command processed")
    return 0 if shaped == len(corpus) else 1

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("roots", nargs="+")
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args()
    sys.exit(run(a.roots, a.verbose))
