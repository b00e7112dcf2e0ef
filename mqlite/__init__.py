"""mqlite: IBM MQ's queue-manager model in pure Python."""
from mqlite import compiled as _compiled

_compiled.install()        # the compiled build of the hot modules, when the checkout has one (mqlite/compiled.py)
