"""The package's shape stays true: no import circle between modules, no package cycle at any depth,
and every package has a rank of its own, importing only packages ranked below it (docs/design.md).
Imports under TYPE_CHECKING and inside functions count (a back-reference is a circle whether or not
Python has to resolve it at import time), and so do relative imports and ``importlib.import_module``
of a literal name. A new package fails the test until it is given its place."""
from __future__ import annotations

import ast
import os

from tests.conftest import ROOT

# Lowest first, one package (or top-level module) a rank: a package may import only those before it.
LAYERS = ["cmq", "catalogue", "paths", "memory", "props", "objects", "pubsub", "security", "cluster", "engine", "store", "net", "mqsc", "admin",
          "channels", "mqtt", "amqp", "qsg", "server", "pymqi", "ibmmq", "aio", "spark", "web", "cli", "testing",
          "pytest_plugin"]
RANK = {pkg: rank for rank, pkg in enumerate(LAYERS)}


def _modules() -> dict[str, str]:
    out = {}
    for d, _dirs, files in os.walk(os.path.join(ROOT, "mqlite")):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(d, f)
                name = os.path.relpath(path, ROOT)[:-3].replace(os.sep, ".")
                out[name.removesuffix(".__init__")] = path
    return out


def _imports(name: str, path: str, known: dict[str, str]) -> set[str]:
    """The modules of ``known`` that module ``name`` (at ``path``) imports, at any depth of its code."""
    package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
    targets = set()
    for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                module = ".".join(base + ([module] if module else []))
            for alias in node.names:
                full = f"{module}.{alias.name}"
                targets.add(full if full in known else module)
        elif isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif (isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) == "import_module"
              and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            targets.add(node.args[0].value)
    return {t for t in targets if t in known}


def _graph() -> dict[str, set[str]]:
    mods = _modules()
    return {m: _imports(m, p, mods) - {m} for m, p in mods.items()}


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


def _package(module: str, depth: int) -> str:
    """The package ``module`` is in, ``depth`` names below mqlite (the module itself if shallower)."""
    return ".".join(module.split(".")[:depth + 1])


def test_no_import_circle() -> None:
    found = _circles(_graph())
    assert found == [], f"import circles: {[sorted(c) for c in found]}"


def test_no_package_cycle_at_any_depth() -> None:
    graph = _graph()
    deepest = max(m.count(".") for m in graph)
    for depth in range(1, deepest + 1):
        packages: dict[str, set[str]] = {}
        for mod, targets in graph.items():
            src = _package(mod, depth)
            packages.setdefault(src, set()).update(_package(t, depth) for t in targets)
        for src in packages:
            packages[src].discard(src)
        found = _circles(packages)
        assert found == [], f"package cycles at depth {depth}: {[sorted(c) for c in found]}"


def test_every_package_has_a_rank_and_imports_only_below_it() -> None:
    graph = _graph()
    tops = {m.split(".")[1] for m in graph if "." in m}
    assert tops - set(RANK) == set(), f"packages with no rank (add them to LAYERS): {sorted(tops - set(RANK))}"
    assert set(RANK) - tops == set(), f"ranked but gone: {sorted(set(RANK) - tops)}"
    assert graph["mqlite"] == set(), "mqlite/__init__.py imports nothing of its own"
    wrong = set()
    for mod, targets in graph.items():
        if mod == "mqlite":
            continue
        src = mod.split(".")[1]
        for t in targets:
            dst = t.split(".")[1]
            if src != dst and RANK[dst] > RANK[src]:
                wrong.add((src, dst, mod, t))
    assert wrong == set(), f"imports of a package ranked above: {sorted(wrong)}"


def test_the_checker_finds_a_circle() -> None:
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]


def test_the_checker_reads_relative_and_nested_imports(tmp_path) -> None:
    known = {"mqlite.engine.put": "", "mqlite.engine.get": "", "mqlite.cmq.structs": "", "mqlite.server": ""}
    src = tmp_path / "put.py"
    src.write_text("from .get import x\nfrom ..cmq import structs\n"
                   "def f():\n    import importlib\n    importlib.import_module('mqlite.server')\n")
    assert _imports("mqlite.engine.put", str(src), known) == {"mqlite.engine.get", "mqlite.cmq.structs",
                                                               "mqlite.server"}


def test_no_module_over_600_lines_and_no_class_of_400():
    """Issue 34's sizes: a module a reader can hold (generated constants aside), and no class that
    has become a package of its own."""
    long_modules, long_classes = [], []
    for name, path in sorted(_modules().items()):
        if name.startswith("mqlite.cmq.CMQ"):
            continue                    # generated by tools/gen_constants.py
        with open(path, encoding="utf-8") as f:
            source = f.read()
        if source.count("\n") > 600:
            long_modules.append((name, source.count("\n")))
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ClassDef) and node.end_lineno is not None \
                    and node.end_lineno - node.lineno + 1 >= 400:
                long_classes.append((name, node.name, node.end_lineno - node.lineno + 1))
    assert long_modules == [] and long_classes == []


# Where a message is made from stored rows rather than given a new number: recovery of prepared
# units of work (definitions) and a deep queue's pages read back (paging).
RESTORES = {"mqlite.engine.definitions", "mqlite.engine.paging"}


def _joins(source: str) -> list[str]:
    """What a module does that only engine/arrivals.py may: a journal record of a message put
    (``PutMsg(...)``), a new message (``Message(...)``, ``Message.packed(...)``), a number given
    (``qm._seq += 1``, ``qm.arrivals.seq += 1``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else (
                f"{f.value.id}.{f.attr}" if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) else "")
            if name in ("PutMsg", "Message", "Message.packed"):
                found.append(name)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Attribute) and (
                node.target.attr == "_seq" or node.target.attr == "seq" and isinstance(node.target.value, ast.Attribute)
                and node.target.value.attr == "arrivals"):
            found.append(f"{node.target.attr} +=")
    return sorted(found)


def test_one_owner_for_a_message_joining_a_queue() -> None:
    """Issue 64: every path that adds a message to a local queue numbers it, journals it and makes
    it visible through engine/arrivals.py; no other module of the engine makes a PutMsg record, a
    numbered Message or a new number."""
    offenders = {name: found for name, path in _modules().items()
                 if name.startswith("mqlite.engine.") and name != "mqlite.engine.arrivals" and name not in RESTORES
                 and (found := _joins(open(path, encoding="utf-8").read()))}
    assert offenders == {}


def test_the_owner_check_finds_a_second_enqueue() -> None:
    """The enqueue pubsub had of its own, and route's, as the check reads them."""
    assert _joins("qm._seq += 1\nm = Message.packed(qm._seq, md, b'', None, False, 0)\n"
                  "store.append(PutMsg(m.seq, 'Q', b'', b'', None))\n") == ["Message.packed", "PutMsg", "_seq +="]
    assert _joins("self.qm.arrivals.seq += 1\nacct.seq += 1\nnew = Message(1, md, b'', None, False, 0)\n") == [
        "Message", "seq +="]


def _part(module: str) -> str:
    """A part, for private members: a package, or in the engine one module (each is a concept of its
    own there: the handles, a verb, the journal's owner, a service)."""
    parts = module.split(".")
    return ".".join(parts[:3] if parts[1:2] == ["engine"] else parts[:2])


def _is_protocol(cls: ast.ClassDef) -> bool:
    return any(ast.unparse(b) in ("Protocol", "typing.Protocol") or ast.unparse(b).startswith("Protocol[")
               for b in cls.bases)


def _privates(sources: dict[str, str]) -> list[str]:
    """Private members (``_name``, not dunder) read across parts: ``x._name`` where ``x`` is not
    ``self`` or ``cls`` and no class of the reader's part has ``_name``, though one of another part
    does; and so a Protocol naming one (a host's interface to another part is public)."""
    has: dict[str, set[str]] = {}
    reads: list[tuple[str, str, int, str, str]] = []
    for module, source in sources.items():
        part = _part(module)
        own = has.setdefault(part, set())
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ClassDef):
                for item in node.body:
                    names = ([item.name] if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) else
                             [t.id for t in (item.targets if isinstance(item, ast.Assign) else [item.target])
                              if isinstance(t, ast.Name)] if isinstance(item, (ast.Assign, ast.AnnAssign)) else [])
                    for name in names:
                        if name.startswith("_") and not name.startswith("__"):
                            if _is_protocol(node):
                                reads.append((module, part, item.lineno, name, f"Protocol {node.name} names"))
                            else:
                                own.add(name)
            elif isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
                if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                    if isinstance(node.ctx, ast.Store):
                        own.add(node.attr)
                else:
                    reads.append((module, part, node.lineno, node.attr, "reads"))
    anywhere = set().union(*has.values())
    return sorted(f"{module}:{line} {how} {name}" for module, part, line, name, how in reads
                  if name in anywhere and name not in has[part])


def test_no_part_reads_another_parts_private_member() -> None:
    """Issue 64: what one part uses of another is public (declared in the Protocol it is used
    through, where there is one); a private member is that part's own business."""
    sources = {name: open(path, encoding="utf-8").read() for name, path in _modules().items()}
    assert _privates(sources) == []


def test_the_private_member_check_finds_a_reach_and_a_private_protocol() -> None:
    core = "class QueueManager:\n    def _shared_call(self):\n        self._stamp = 1\n"
    helper = ("from typing import Protocol\nclass Host(Protocol):\n    def _shared_call(self): ...\n"
              "class Batches:\n    def go(self):\n        self.qm._shared_call()\n        self._own()\n"
              "    def _own(self):\n        other._own()\n        q._stamp\n")
    assert _privates({"mqlite.engine.qmgr": core, "mqlite.engine.batch": helper}) == [
        "mqlite.engine.batch:10 reads _stamp", "mqlite.engine.batch:3 Protocol Host names _shared_call",
        "mqlite.engine.batch:6 reads _shared_call"]
    assert _privates({"mqlite.pymqi.qmgr": core, "mqlite.pymqi.queue": "q._shared_call()\n"}) == []


# Subclasses in the engine that are kinds of their base, not pieces of one class: clocks, and the
# shared queue (a local queue whose messages the group's store holds).
KINDS = {("OffsetClock", "Clock"), ("FakeClock", "Clock"), ("SharedQueueState", "QueueState")}
TYPING = {"NamedTuple", "TypedDict", "Enum", "IntEnum", "Generic"}


def _mixins(sources: dict[str, str]) -> list[str]:
    """Classes of the engine built from other classes of it: a base that is not a Protocol (nor
    typing's, nor an exception) and not a kind of ``KINDS``."""
    protocols = {n.name for src in sources.values() for n in ast.walk(ast.parse(src))
                 if isinstance(n, ast.ClassDef) and _is_protocol(n)}
    found = []
    for module, source in sources.items():
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ClassDef) and not _is_protocol(node):
                for base in node.bases:
                    b = ast.unparse(base)
                    if b not in protocols and b not in TYPING and not b.endswith(("Error", "Exception")) \
                            and (node.name, b) not in KINDS:
                        found.append(f"{module}: {node.name}({b})")
    return sorted(found)


def test_the_mqi_core_is_parts_not_mixins() -> None:
    """Issue 64: the queue manager is not combined from classes; its MQI core (registry,
    connections, opens, puts, gets) are objects it holds, like every other part."""
    sources = {name: open(path, encoding="utf-8").read() for name, path in _modules().items()
               if name.startswith("mqlite.engine.")}
    assert _mixins(sources) == []
    qmgr = ast.parse(sources["mqlite.engine.qmgr"])
    assert [ast.unparse(b) for n in qmgr.body if isinstance(n, ast.ClassDef) and n.name == "QueueManager"
            for b in n.bases] == []


def test_the_mixin_check_finds_a_mixin() -> None:
    src = ("from typing import Protocol\nclass Host(Protocol): pass\nclass PutMixin(CoreState): pass\n"
           "class Part(Host): pass\nclass Oops(ValueError): pass\nclass FakeClock(Clock): pass\n")
    assert _mixins({"mqlite.engine.x": src}) == ["mqlite.engine.x: PutMixin(CoreState)"]   # (Part(Host) implements a Protocol)


def _leaves(source: str) -> list[str]:
    """What a module does that only engine/departures.py may: a journal record of a message gone
    (``DelMsg(...)``), a get's unit-of-work entry (``("get", queue, message)``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) == "DelMsg":
            found.append("DelMsg")
        elif isinstance(node, ast.Tuple) and node.elts and isinstance(node.elts[0], ast.Constant) \
                and node.elts[0].value == "get" and len(node.elts) == 3:
            found.append("('get', ...)")
    return sorted(found)


def test_one_owner_for_a_message_leaving_a_queue() -> None:
    """Issue 64: a message taken from a local queue is held in a unit of work or journalled as
    gone through engine/departures.py only (recovery rebuilds what the journal says: RESTORES)."""
    offenders = {name: found for name, path in _modules().items()
                 if name.startswith("mqlite.engine.") and name != "mqlite.engine.departures" and name not in RESTORES
                 and (found := _leaves(open(path, encoding="utf-8").read()))}
    assert offenders == {}


def test_the_departure_check_finds_a_second_dequeue() -> None:
    assert _leaves("conn.uow.append(('get', qs, m))\nops.append(P.DelMsg(m.seq))\nx = ('get', 1)\n") == [
        "('get', ...)", "DelMsg"]


# Issue 64's typed edges: a function's parameter of these names in these modules is the session,
# the server or the engine, and is typed as the Protocol (or class) it is used through.
EDGES = {"mqlite.server.verbs": {"s"}, "mqlite.server.amqpsvc": {"srv"}, "mqlite.server.mqxr": {"srv"},
         "mqlite.server.protosvc": {"srv"}, "mqlite.server.mqttclient": {"srv", "qm"},
         "mqlite.server.amqpconn": {"srv", "qm"}, "mqlite.server.mqttdelivery": {"srv", "qm"}}


def _untyped_edges(module: str, source: str, names: set[str]) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs:
                if a.arg in names and (a.annotation is None or ast.unparse(a.annotation) in ("Any", "typing.Any")):
                    found.append(f"{module}:{node.lineno} {node.name}({a.arg})")
    return found


def test_the_edges_are_typed() -> None:
    """The session a verb serves, the host a protocol service runs on and the engine its calls get
    are typed: no ``Any`` (nor a missing annotation) on them."""
    modules = _modules()
    assert set(EDGES) <= set(modules)
    found = [f for m, names in EDGES.items()
             for f in _untyped_edges(m, open(modules[m], encoding="utf-8").read(), names)]
    assert found == []
    assert _untyped_edges("m", "def f(s: Any, t: Any): ...\ndef g(s): ...\ndef h(s: SessionPort): ...\n",
                          {"s"}) == ["m:1 f(s)", "m:2 g(s)"]
