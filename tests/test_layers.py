"""The package's shape stays true: no new import circle between modules, no new upward import
between layers (docs/design.md). Imports under TYPE_CHECKING and inside functions count: a
back-reference is a circle whether or not Python has to resolve it at import time.

What is still to be untangled (issue 15) is listed below (the cluster package shares the engine's
rank: it raises the engine's MQIError); the test fails when a new circle or
upward import appears, and also when a listed one is gone, so that the list only ever shrinks."""
from __future__ import annotations

import ast
import os

from tests.conftest import ROOT

# Lowest first: a package may import packages at its own rank or below.
LAYERS = [("cmq", "paths", "props"), ("objects", "pubsub"), ("security",), ("engine", "cluster"), ("store",), ("net", "mqsc"), ("channels", "qsg"),
          ("server", "pymqi"), ("spark", "testing", "cli"), ("demo",)]
RANK = {pkg: rank for rank, pkgs in enumerate(LAYERS) for pkg in pkgs}

KNOWN_CIRCLES: list[set[str]] = []
KNOWN_UPWARD = {("cli", "demo")}


def _modules() -> dict[str, str]:
    out = {}
    for d, _dirs, files in os.walk(os.path.join(ROOT, "mqlite")):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(d, f)
                name = os.path.relpath(path, ROOT)[:-3].replace(os.sep, ".")
                out[name.removesuffix(".__init__")] = path
    return out


def _imports(path: str, known: dict[str, str]) -> set[str]:
    targets = set()
    for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                targets.add(full if full in known else node.module)
        elif isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
    return {t for t in targets if t in known}


def _graph() -> dict[str, set[str]]:
    mods = _modules()
    return {m: _imports(p, mods) - {m} for m, p in mods.items()}


def _circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """Strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[set[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = set()
                while True:
                    x = stack.pop()
                    on.discard(x)
                    comp.add(x)
                    if x == v:
                        break
                if len(comp) > 1:
                    out.append(comp)
    return out


def test_no_new_import_circle() -> None:
    found = _circles(_graph())
    new = [c for c in found if c not in KNOWN_CIRCLES]
    gone = [c for c in KNOWN_CIRCLES if c not in found]
    assert new == [], f"import circles: {[sorted(c) for c in new]}"
    assert gone == [], f"untangled (take them off KNOWN_CIRCLES): {[sorted(c) for c in gone]}"


def test_no_new_upward_import() -> None:
    upward = set()
    for mod, targets in _graph().items():
        src = mod.split(".")[1] if "." in mod else ""
        for t in targets:
            dst = t.split(".")[1] if "." in t else ""
            if src != dst and src in RANK and dst in RANK and RANK[dst] > RANK[src]:
                upward.add((src, dst))
    assert upward - KNOWN_UPWARD == set(), f"upward imports: {sorted(upward - KNOWN_UPWARD)}"
    assert KNOWN_UPWARD - upward == set(), f"gone (take them off KNOWN_UPWARD): {sorted(KNOWN_UPWARD - upward)}"


def test_the_checker_finds_a_circle() -> None:
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]
