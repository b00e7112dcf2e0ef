"""``import ibmmq`` resolved to mqlite's ibmmq face (only when this folder is on PYTHONPATH)."""
import sys

import mqlite.ibmmq as _face

for _sub in ("CMQC", "CMQCFC", "CMQXC", "CMQZC", "CMQSTRC"):
    sys.modules[f"{__name__}.{_sub}"] = getattr(_face, _sub)
sys.modules[__name__] = _face
