"""crtmqm: a queue manager made, with crtmqm's default objects, in the data directory (the
``mqlite crtmqm`` command runs this; ``mqlite dev`` and the test harness call it in their own
process). Also the control commands' exit codes, as IBM MQ's."""
from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import time

from mqlite.catalogue import message
from mqlite.cmq import CMQC
from mqlite.engine.clock import Clock
from mqlite.engine.ports import SaveMeta
from mqlite.engine.qmgr import QueueManager
from mqlite.objects.attrs import TABLE
from mqlite.objects.model import MQObject
from mqlite.objects.names import valid_name
from mqlite.paths import DEFAULT_QM_INI, QMPaths, data_root
from mqlite.qsg.service import STORE_KEY as QSG_STORE_KEY
from mqlite.qsg.service import system_objects
from mqlite.security.users import os_user_of_uid
from mqlite.store.shared import SharedStore, open_shared
from mqlite.store.sqlite import Store

EXISTS, RUNNING, NOT_EXIST, NOT_AVAILABLE, UNEXPECTED, NAME_ERROR = 8, 5, 16, 40, 71, 72
STORE_ERROR = 71   # the shared store could not be opened: MQ's "unexpected error" exit code


# --- crtmqm -------------------------------------------------------------------------------------
def crtmqm(args: argparse.Namespace) -> int:
    name = args.qmgr
    if not valid_name(name, "QMGR"):
        print(message("AMQ7048E"), file=sys.stderr)
        return NAME_ERROR
    paths = QMPaths.of(name)
    if paths.exists():
        print(message("AMQ8110E"), file=sys.stderr)
        return EXISTS
    shared = None
    if args.qsg:
        shared = _join_group(name, args.qsg, args.qsgstore)
        if isinstance(shared, int):
            return shared
    os.makedirs(paths.root, exist_ok=True)
    store = Store(paths.db)
    qm = QueueManager(name, store, Clock())
    # The user creating it administers it (as IBM MQ's crtmqm needs a member of mqm); MQSNOAUT=yes
    # creates it without the OAM, as on IBM MQ.
    count = qm.create(deadq=args.u or "", admin=os_user_of_uid(os.getuid()),
                      oam=os.environ.get("MQSNOAUT", "").lower() not in ("yes", "true", "1"))
    if shared is not None:
        qm.qmgr.attrs["QSGNAME"] = args.qsg
        qm.save(qm.qmgr)
        store.append(SaveMeta("qsg_name", args.qsg))
        store.append(SaveMeta(QSG_STORE_KEY, shared.location))
        qm.shared = shared
        count += system_objects(qm)
        shared.join(name, time.time())
        shared.leave(name, time.time())
        shared.close()
    if args.d:
        qm.qmgr.attrs["DEFXMITQ"] = args.d
        qm.save(qm.qmgr)
    if args.p is not None:
        lst = MQObject("LISTENER", "SYSTEM.LISTENER.TCP.1", TABLE.defaults("LISTENER"))
        lst.attrs.update({"PORT": args.p, "CONTROL": CMQC.MQSVC_CONTROL_Q_MGR})   # started with the queue manager
        qm.add_object(lst)
        count += 1
    store.close()
    if not os.path.exists(paths.ini):
        with open(paths.ini, "w", encoding="utf-8") as f:
            f.write(DEFAULT_QM_INI)
    paths.write_config({"name": name, "port": args.p, "created": time.time()})
    print("IBM MQ queue manager created.")
    print(f"Directory '{paths.root}' created.")
    print(f"Creating or replacing default objects for queue manager '{name}'.")
    print(f"Default objects statistics : {count} created. 0 replaced. 0 failed.")
    print("Completing setup.")
    print("Setup completed.")
    return 0


def _join_group(name: str, qsg: str, location: str | None) -> SharedStore | int:
    """Check a new member's group: a 1-4 character name that is no member's name, and a store
    that can be reached. Returns the open store."""
    if not (1 <= len(qsg) <= 4 and valid_name(qsg, "QMGR")) or qsg == name:
        print(message("MQL7020E", qsg=qsg), file=sys.stderr)
        return NAME_ERROR
    location = location or os.path.join(data_root(), "qsg", f"{qsg}.db")
    try:
        shared = open_shared(qsg, location)
    except Exception as e:  # noqa: BLE001 - a database driver's own errors
        print(message("MQL7021E", qsg=qsg, e=e), file=sys.stderr)
        return STORE_ERROR
    names = {m for m, _s, _h in shared.members()}
    if qsg in names or name in names:
        print(message("MQL7022E", value=name if name in names else qsg, qsg=qsg),
              file=sys.stderr)
        shared.close()
        return EXISTS
    return shared


def crtmqm_here(name: str, port: int | None, deadq: str, qsg: str | None = None, qsg_store: str | None = None,
                secure: bool = True) -> str:
    """crtmqm run in the caller's process (no interpreter to start), its output kept: "" when the
    queue manager was made, else what crtmqm said. Without ``secure``, as MQSNOAUT=yes makes it."""
    args = argparse.Namespace(qmgr=name, p=port, u=deadq, d=None, qsg=qsg, qsgstore=qsg_store)
    saved = os.environ.get("MQSNOAUT")
    if not secure:
        os.environ["MQSNOAUT"] = "yes"
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            rc = crtmqm(args)
    finally:
        if saved is None:
            os.environ.pop("MQSNOAUT", None)
        else:
            os.environ["MQSNOAUT"] = saved
    return "" if rc == 0 else out.getvalue().strip() or f"exit code {rc}"
