"""The optional compiled build of the hot modules (docs/performance.md, issue 69's ninth step).

``tools/build_compiled.py`` compiles the modules named in ``MODULES`` with mypyc into ``.compiled/``
beside the package (never into the source tree), with a manifest of the sources it compiled. When
``mqlite`` is imported from a checkout that has such a build, and every one of those sources is
still what was compiled (their SHA-256), an import finder loads the compiled module in place of
each source; if any source changed since, none is used (a mixed build could pair a compiled class
with an interpreted subclass, which cannot be), and the sources run as they are. The source stays
plain Python either way, and without a build (an installed wheel, a fresh clone) nothing changes.

``MQLITE_COMPILED=no`` in the environment runs the sources even with a build present (the suite
is run both ways in CI: Makefile ``test``)."""
from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Sequence

# The modules compiled: the engine's queue and message paths, the journal's frames and the
# spill, the packed MQI structures, and the get/put verbs' codecs.
MODULES = (
    "mqlite.engine.message", "mqlite.engine.queue", "mqlite.engine.paging", "mqlite.engine.batch",
    "mqlite.engine.get", "mqlite.engine.departures", "mqlite.engine.plainput",
    "mqlite.engine.shared", "mqlite.store.scratch", "mqlite.store.frames",
)

PACKAGE_ROOT = Path(__file__).resolve().parent.parent      # the directory holding mqlite/
BUILD_DIR = PACKAGE_ROOT / ".compiled"
MANIFEST = "manifest.json"


def source_digest(module: str, root: Path = PACKAGE_ROOT) -> str:
    path = root.joinpath(*module.split(".")).with_suffix(".py")
    return hashlib.sha256(path.read_bytes()).hexdigest()


def usable(build: Path = BUILD_DIR, root: Path = PACKAGE_ROOT) -> dict[str, str] | None:
    """The compiled modules (name -> extension file) when ``build`` holds a build of every source
    as it is now; None otherwise (no build, a source changed since, a module missing)."""
    try:
        manifest = json.loads((build / MANIFEST).read_text(encoding="utf-8"))
        if manifest.get("python") != sys.implementation.cache_tag:
            return None
        found: dict[str, str] = {}
        for module, digest in manifest["sources"].items():
            if source_digest(module, root) != digest:
                return None
            found[module] = str(build / manifest["extensions"][module])
        return found
    except (OSError, ValueError, KeyError, TypeError):
        return None


class _Finder(importlib.abc.MetaPathFinder):
    """Loads the modules of a usable build from their extension files."""

    def __init__(self, extensions: dict[str, str]) -> None:
        self.extensions = extensions

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        ext = self.extensions.get(fullname)
        if ext is None:
            return None
        return importlib.util.spec_from_file_location(fullname, ext,
                                                      loader=importlib.machinery.ExtensionFileLoader(fullname, ext))


def install() -> bool:
    """Use the compiled build when there is a usable one and the environment does not say no;
    whether it is used."""
    if os.environ.get("MQLITE_COMPILED", "").lower() in ("no", "0", "false"):
        return False
    if any(isinstance(f, _Finder) for f in sys.meta_path):
        return True
    extensions = usable()
    if not extensions:
        return False
    if str(BUILD_DIR) not in sys.path:
        sys.path.append(str(BUILD_DIR))          # (mypyc's shared library for the group, a top-level module)
    sys.meta_path.insert(0, _Finder(extensions))
    return True


def active() -> bool:
    """Whether the compiled modules are in use in this process."""
    return any(isinstance(f, _Finder) for f in sys.meta_path)
