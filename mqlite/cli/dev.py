"""``mqlite dev``: what IBM's MQ Advanced for Developers container does, in one command and without
Docker (docs/testing.md). A queue manager (QM1, listening on 1414) with IBM's developer objects:

- DEV.QUEUE.1-3, DEV.DEAD.LETTER.QUEUE (its DEADQ) and DEV.BASE.TOPIC ('dev/');
- DEV.APP.SVRCONN for applications (user ``app``: connect and inquire, and browse, get, inquire
  and put on DEV.** queues, publish and subscribe on DEV.** topics; administrators blocked, as
  crtmqm's rules block them);
- DEV.ADMIN.SVRCONN for the administrator alone (user ``admin``, run as mqm);
- a back-stop rule that blocks every other channel, and CONNAUTH through DEV.AUTHINFO;
- mqweb, the console and REST APIs on HTTPS 9443, for admin (MQWebAdmin) and app (MQWebUser).

Both channels need a user and password (CHCKCLNT(REQUIRED)), as IBM's image has needed since 9.4.
The passwords are MQ_APP_PASSWORD and MQ_ADMIN_PASSWORD, or the secret files IBM's image reads
(/run/secrets/mqAppPassword, mqAdminPassword), else generated and printed once, when the queue
manager is made. A later run starts it if it is stopped, sets the passwords the environment gives,
and prints how to connect. ``--foreground`` then runs the queue manager in this process (a
container's or a service's entry point); it is ready when its port accepts connections."""
from __future__ import annotations

import argparse
import contextlib
import io
import os
import secrets
import sys
from typing import Any

from mqlite.cli.create import crtmqm_here
from mqlite.cli.proc import start_server
from mqlite.paths import python_module, same_code
from mqlite.mqsc.parser import split_commands
from mqlite.net.client import ControlSession, control_call
from mqlite.paths import QMPaths
from mqlite.security.users import hash_password

SECRETS = "/run/secrets"
LISTENER = "SYSTEM.LISTENER.TCP.1"
USERS = {"app": ("MQ_APP_PASSWORD", "mqAppPassword", ["mqclient"]),
         "admin": ("MQ_ADMIN_PASSWORD", "mqAdminPassword", ["mqm"])}
# IBM's developer configuration, as mq-container's 10-dev.mqsc.tpl has it with ChckClnt REQUIRED (the
# image's MQ_APP_PASSWORD set): a back-stop rule blocks every channel but these two.
DEV_MQSC = """
DEFINE QLOCAL('DEV.QUEUE.1') REPLACE
DEFINE QLOCAL('DEV.QUEUE.2') REPLACE
DEFINE QLOCAL('DEV.QUEUE.3') REPLACE
DEFINE QLOCAL('DEV.DEAD.LETTER.QUEUE') REPLACE
ALTER QMGR DEADQ('DEV.DEAD.LETTER.QUEUE')
DEFINE TOPIC('DEV.BASE.TOPIC') TOPICSTR('dev/') REPLACE
DEFINE AUTHINFO('DEV.AUTHINFO') AUTHTYPE(IDPWOS) CHCKCLNT(REQDADM) CHCKLOCL(OPTIONAL) ADOPTCTX(YES) REPLACE
ALTER QMGR CONNAUTH('DEV.AUTHINFO')
REFRESH SECURITY(*) TYPE(CONNAUTH)
DEFINE CHANNEL('DEV.ADMIN.SVRCONN') CHLTYPE(SVRCONN) REPLACE
DEFINE CHANNEL('DEV.APP.SVRCONN') CHLTYPE(SVRCONN) MCAUSER('app') REPLACE
SET CHLAUTH('*') TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(NOACCESS) DESCR('Back-stop rule - Blocks everyone') ACTION(REPLACE)
SET CHLAUTH('DEV.APP.SVRCONN') TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(CHANNEL) CHCKCLNT(REQUIRED) +
    DESCR('Allows connection via APP channel') ACTION(REPLACE)
SET CHLAUTH('DEV.ADMIN.SVRCONN') TYPE(BLOCKUSER) USERLIST('nobody') DESCR('Allows admins on ADMIN channel') ACTION(REPLACE)
SET CHLAUTH('DEV.ADMIN.SVRCONN') TYPE(USERMAP) CLNTUSER('admin') USERSRC(CHANNEL) +
    DESCR('Allows admin user to connect via ADMIN channel') ACTION(REPLACE)
SET CHLAUTH('DEV.ADMIN.SVRCONN') TYPE(USERMAP) CLNTUSER('admin') USERSRC(MAP) MCAUSER ('mqm') +
    DESCR ('Allow admin as MQ-admin') ACTION(REPLACE)
SET AUTHREC PRINCIPAL('app') OBJTYPE(QMGR) AUTHADD(CONNECT,INQ)
SET AUTHREC PROFILE('DEV.**') PRINCIPAL('app') OBJTYPE(QUEUE) AUTHADD(BROWSE,GET,INQ,PUT)
SET AUTHREC PROFILE('DEV.**') PRINCIPAL('app') OBJTYPE(TOPIC) AUTHADD(PUB,SUB)
"""


class DevError(Exception):
    pass


def password(user: str, environ: dict[str, str], secrets_dir: str = SECRETS) -> str | None:
    """The password the environment gives ``user``: its variable, else its secret file; None when
    neither does. DevError when it is shorter than 8 characters (IBM's image refuses those too)."""
    variable, secret_file, _groups = USERS[user]
    given = environ.get(variable)
    if given is None:
        try:
            with open(os.path.join(secrets_dir, secret_file), encoding="utf-8") as f:
                given = f.read().strip()
        except OSError:
            return None
    if len(given) < 8:
        raise DevError(f"the password of '{user}' ({variable}) must be at least 8 characters long")
    return given


def _create(name: str) -> None:
    """crtmqm, with no listener yet: its port opens once the developer objects are there, so a
    client that finds it open finds them too (``--foreground``'s readiness)."""
    failed = crtmqm_here(name, None, "DEV.DEAD.LETTER.QUEUE")
    if failed:
        raise DevError(f"crtmqm {name}: {failed}")


def _mqsc(paths: QMPaths, text: str, check: bool = True) -> bool:
    """The script's commands over the control socket; whether all succeeded (with ``check``,
    DevError on the first that fails)."""
    with ControlSession(paths.socket, paths.name, "mqlite dev") as session:
        for cmd in split_commands(text):
            status, lines = session.mqsc(cmd.text)
            if status != "ok":
                if check:
                    raise DevError(f"{cmd.text}: " + " ".join(lines))
                return False
        return True


def _port(paths: QMPaths, default: int) -> int:
    """The port the queue manager's listener has (a queue manager made by an earlier run keeps
    the one it was made with)."""
    from mqlite.web.mqsc import blocks
    with ControlSession(paths.socket, paths.name, "mqlite dev") as session:
        _status, lines = session.mqsc(f"DISPLAY LISTENER('{LISTENER}') PORT")
    for b in blocks("\n".join(lines)):
        for key, value in b.fields:
            if key == "PORT" and value.strip().isdigit():
                return int(value)
    return default


def developer_objects(paths: QMPaths, passwords: dict[str, str]) -> None:
    """IBM's developer configuration on a running queue manager: the users app and admin with
    these passwords (first, so that their groups exist for the authority records), then the DEV
    objects, channel rules and authority records."""
    for user, secret in passwords.items():
        _set_user(paths, user, secret)
    _mqsc(paths, DEV_MQSC)


def _set_user(paths: QMPaths, user: str, secret: str) -> None:
    groups = USERS[user][2]
    reply = control_call(paths.socket, paths.name, {"op": "setusr", "user": user, "add": groups, "remove": [],
                                                    "delete": False, "hash": hash_password(secret)}, "mqlite dev")
    if reply is None or not reply.get("ok"):
        raise DevError(f"the user {user} could not be set: {reply and reply.get('msg')}")


def dev(args: argparse.Namespace, environ: dict[str, str] | None = None) -> int:
    environ = dict(os.environ) if environ is None else environ
    name, port = args.name, args.port
    paths = QMPaths.of(name)
    try:
        given = {u: password(u, environ, args.secrets) for u in USERS}
        if not paths.exists():
            _create(name)
        if not paths.running_pid():
            failed = start_server(name)
            if failed:
                raise DevError(f"{name} could not start: {failed}. See {paths.errors}/AMQERR01.LOG")
        # The developer objects are made once (a later run keeps what the developer changed); the
        # users first, so that their groups exist for the authority records.
        fresh = not _mqsc(paths, "DISPLAY CHANNEL('DEV.APP.SVRCONN')", check=False)
        generated = {u: secrets.token_urlsafe(12) for u, p in given.items() if p is None} if fresh else {}
        passwords = {**generated, **{u: p for u, p in given.items() if p is not None}}
        if fresh:
            developer_objects(paths, passwords)
            _mqsc(paths, f"DEFINE LISTENER('{LISTENER}') TRPTYPE(TCP) PORT({port}) CONTROL(QMGR) REPLACE"
                  + ("" if args.foreground else f"\nSTART LISTENER('{LISTENER}')"))
        else:
            for user, secret in passwords.items():
                _set_user(paths, user, secret)
        port = _port(paths, port)
    except DevError as e:
        print(f"mqlite dev: {e}.", file=sys.stderr)
        return 20
    _describe(name, port, generated)
    print(_console(args.web_port))
    if args.foreground:
        return _foreground(name, paths)
    return 0


def _describe(name: str, port: int, generated: dict[str, str]) -> None:
    print(f"Queue manager {name} is running, listening on 127.0.0.1({port}) (loopback only, as a listener "
          "without IPADDR is in mqlite; give it an IPADDR to listen elsewhere).")
    print("  DEV.APP.SVRCONN    user app:   DEV.QUEUE.1-3, DEV.DEAD.LETTER.QUEUE, DEV.BASE.TOPIC ('dev/')")
    print("  DEV.ADMIN.SVRCONN  user admin: the administrator (runmqsc -c, PCF)")
    for user, secret in generated.items():
        print(f"  Password of {user} (generated; printed this once): {secret}")
    if not generated:
        print("  Passwords: MQ_APP_PASSWORD and MQ_ADMIN_PASSWORD (or /run/secrets), as given when they were set.")
    print()
    print("  from mqlite import pymqi")
    print(f"  qm = pymqi.connect('{name}', 'DEV.APP.SVRCONN', 'localhost({port})', 'app', APP_PASSWORD)")
    print("  pymqi.Queue(qm, 'DEV.QUEUE.1').put(b'hello')")
    print()
    print(f"  export MQSERVER='DEV.APP.SVRCONN/TCP/localhost({port})'   # for IBM's samples; end it: mqlite endmqm {name}")


def _console(port: int) -> str:
    """mqweb, as IBM's image starts it: the console and REST APIs on HTTPS ``port`` (9443), for
    ``admin`` (MQWebAdmin, through its group mqm) and ``app`` (MQWebUser: the messaging REST API
    and what its own authority allows); what to print about it."""
    import importlib.util
    if not port:
        return "  Console: not started (--web-port 0)."
    if importlib.util.find_spec("starlette") is None or importlib.util.find_spec("uvicorn") is None:
        return "  Console: mqweb is not installed (pip install 'mqlite[web]')."
    from mqlite.web import server
    from mqlite.web.settings import set_property, settings
    if server.running_pid() is None:
        current = settings()
        users = str(current["MQWebUser"])
        if "user:app" not in [u.strip() for u in users.split(",")]:
            set_property("MQWebUser", f"{users},user:app" if users else "user:app")
        if int(current["httpsPort"]) != port:
            set_property("httpsPort", str(port))
        with contextlib.redirect_stdout(io.StringIO()) as said:
            failed = server.start()
        if failed:
            return f"  Console: mqweb did not start: {said.getvalue().strip()}"
    urls = [u.replace("/ibmmq/rest/", "/ibmmq/console/") for u in server.urls() if u.startswith("https")]
    return f"  Console: {', '.join(urls)} (user admin; app for the messaging REST API); end it: mqlite endmqweb"


def _foreground(name: str, paths: QMPaths) -> int:
    """The queue manager in this process: the background server ends, and this one takes over
    (ready when its listener accepts; SIGTERM ends it)."""
    control_call(paths.socket, name, {"op": "end", "immediate": True}, "mqlite dev")
    import time
    deadline = time.monotonic() + 30
    while paths.running_pid() and time.monotonic() < deadline:
        time.sleep(0.05)
    sys.stdout.flush()
    os.execve(sys.executable, python_module("mqlite.server.main", name), same_code())
    return 0                                        # (not reached)


def add_dev_command(sub: Any) -> None:
    p = sub.add_parser("dev", help="a queue manager as IBM's developer container has it (QM1 on 1414, DEV objects)")
    p.add_argument("--name", default="QM1", help="the queue manager's name (QM1)")
    p.add_argument("--port", type=int, default=1414, help="its listener's port (1414)")
    p.add_argument("--secrets", default=SECRETS, help="where the password files are (/run/secrets)")
    p.add_argument("--web-port", type=int, default=9443,
                   help="the mqweb console's HTTPS port (9443, as IBM's image; 0: no console)")
    p.add_argument("--foreground", action="store_true",
                   help="run the queue manager in this process (a container's or service's entry point)")
    p.set_defaults(fn=dev)
