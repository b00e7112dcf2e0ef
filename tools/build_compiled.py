"""Build the optional compiled modules (mqlite/compiled.py ``MODULES``) with mypyc into .compiled/.

    python tools/build_compiled.py [--check]

The package is copied to a scratch directory and compiled there (mypyc's setuptools build reads
no pyproject.toml there), then the extension files and mypyc's shared library for the group are
copied into .compiled/ with a manifest of the sources' SHA-256: mqlite uses the build only while
every source is what was compiled. ``--check`` says whether the build in .compiled/ is usable and
exits 1 if not. Needs a C compiler and Python's headers (python3-dev); mypy (with mypyc) is a
test dependency."""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mqlite import compiled  # noqa: E402

SETUP = """\
from setuptools import setup
from mypyc.build import mypycify
setup(name="mqlite_compiled", ext_modules=mypycify({paths!r} + ["--ignore-missing-imports", "--follow-imports=silent"],
                                                   opt_level="3"))
"""


def build(out: Path) -> None:
    began = time.monotonic()
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    with tempfile.TemporaryDirectory(prefix="mqlite-mypyc-") as tmp:
        work = Path(tmp)
        shutil.copytree(ROOT / "mqlite", work / "mqlite", ignore=shutil.ignore_patterns("__pycache__", "*.so"))
        paths = [str(Path(*m.split(".")).with_suffix(".py")) for m in compiled.MODULES]
        (work / "setup.py").write_text(SETUP.format(paths=paths), encoding="utf-8")
        env = dict(os.environ, MQLITE_COMPILED="no")
        subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace"], cwd=work, env=env, check=True,
                       stdout=subprocess.DEVNULL)
        if out.exists():
            shutil.rmtree(out)
        out.mkdir()
        extensions = {}
        for m in compiled.MODULES:
            rel = Path(*m.split(".")).with_suffix("")
            ext = rel.parent / (rel.name + suffix)
            (out / ext.parent).mkdir(parents=True, exist_ok=True)
            shutil.copy2(work / ext, out / ext)
            extensions[m] = str(ext)
        for shared in work.glob("*__mypyc" + suffix):         # the group's shared library
            shutil.copy2(shared, out / shared.name)
        manifest = {"python": sys.implementation.cache_tag, "extensions": extensions,
                    "sources": {m: compiled.source_digest(m, work) for m in compiled.MODULES}}
        (out / compiled.MANIFEST).write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    print(f"compiled {len(compiled.MODULES)} modules into {out} in {time.monotonic() - began:.0f} s")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true", help="whether the build in .compiled/ is usable")
    args = ap.parse_args()
    if args.check:
        ok = compiled.usable() is not None
        print("usable" if ok else "not usable (none, or a source changed since: build again)")
        return 0 if ok else 1
    build(compiled.BUILD_DIR)
    return 0


if __name__ == "__main__":
    sys.exit(main())
