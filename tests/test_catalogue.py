"""MQ's message catalogue is one table (mqlite/catalogue.py): no message text is written anywhere
else, every id the code names is in it, every call gives exactly the inserts its message has, and
mqlite's own MQL ids are only those docs/mqsc.md lists with a reason."""
from __future__ import annotations

import ast
import os
import re
import string

from mqlite.catalogue import MESSAGES, entry, message
from tests.conftest import ROOT

ID = re.compile(r"(?:AMQ|MQL)\d{4}[IEWST]")
CALLS = {"message", "entry", "text"}


def _sources() -> dict[str, ast.Module]:
    out = {}
    for d, _dirs, files in os.walk(os.path.join(ROOT, "mqlite")):
        for f in files:
            path = os.path.join(d, f)
            if f.endswith(".py") and not path.endswith(os.path.join("mqlite", "catalogue.py")):
                out[os.path.relpath(path, ROOT)] = ast.parse(open(path, encoding="utf-8").read())
    return out


def _leading_text(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
        return str(node.values[0].value)
    return None


def _fields(template: str) -> set[str]:
    return {name.split(".")[0].split("[")[0] for _lit, name, _spec, _conv in string.Formatter().parse(template)
            if name is not None}


def test_no_message_text_outside_the_catalogue() -> None:
    found = []
    for path, tree in _sources().items():
        inner = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}
        for node in ast.walk(tree):
            if id(node) in inner:
                continue
            s = _leading_text(node)
            if s is not None and re.match(ID.pattern + r"\s*:", s):
                found.append(f"{path}:{getattr(node, 'lineno', '?')}: {s[:60]}")
    assert found == []


def test_every_id_named_is_catalogued_and_every_call_gives_its_inserts() -> None:
    unknown, mismatched = [], []
    used: set[str] = set()
    for path, tree in _sources().items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and ID.fullmatch(node.value):
                used.add(node.value)
                if node.value not in MESSAGES:
                    unknown.append(f"{path}:{node.lineno}: {node.value}")
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in CALLS and node.args \
                    and isinstance(node.args[0], ast.Constant) and node.args[0].value in MESSAGES:
                mid = node.args[0].value
                given = {k.arg for k in node.keywords}
                if None in given:
                    continue                          # **inserts: checked where they are built
                if given != _fields(MESSAGES[mid]):
                    mismatched.append(f"{path}:{node.lineno}: {mid} given {sorted(given)}, "  # type: ignore[type-var]
                                      f"has {sorted(_fields(MESSAGES[mid]))}")
    assert unknown == []
    assert mismatched == []
    assert sorted(set(MESSAGES) - used) == []        # no message the code never writes


def test_mqlites_own_ids_are_only_those_documented() -> None:
    doc = open(os.path.join(ROOT, "docs", "mqsc.md"), encoding="utf-8").read()
    section = doc.split("## mqlite's own message ids", 1)[1].split("\n## ", 1)[0]
    listed = set(re.findall(r"^\| (MQL\d{4}[IEWST]) \|", section, re.M))
    own = {mid for mid in MESSAGES if mid.startswith("MQL")}
    assert own - listed == set(), "an MQL id docs/mqsc.md does not list"
    assert listed - own == set(), "docs/mqsc.md lists an MQL id the catalogue no longer has"


def test_messages_print_as_mq_prints_them() -> None:
    assert message("AMQ8147E", name="NO.SUCH.Q") == "AMQ8147E: IBM MQ object NO.SUCH.Q not found."
    assert message("AMQ8101S", reason=2035) == "AMQ8101S: IBM MQ error (7F3) has occurred."
    assert entry("AMQ8003I", name="QM1") == ("AMQ8003I", "IBM MQ queue manager 'QM1' started.")
    assert all(ID.fullmatch(mid) for mid in MESSAGES)
