"""The mqweb server process and MQ's commands for it: ``strmqweb`` starts it in the background
(ready when its port answers), ``endmqweb`` ends it, ``dspmqweb`` says whether it runs and where,
``setmqweb properties -k KEY -v VALUE`` sets MQ's server properties, kept in
``<data>/web/settings.json``: httpHost (default localhost) and httpPort (default 9080; -1 turns
HTTP off). The server is uvicorn running web/app.py's Starlette application; ``python -m
mqlite.web.server`` is the process itself (``--foreground`` of strmqweb runs it attached)."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from typing import Any

from mqlite.paths import data_root, pid_alive

DEFAULTS: dict[str, Any] = {"httpHost": "localhost", "httpPort": 9080}
INTEGER_KEYS = ("httpPort",)
READY_WAIT = 30.0


def web_dir() -> str:
    return os.path.join(data_root(), "web")


def settings_path() -> str:
    return os.path.join(web_dir(), "settings.json")


def pid_path() -> str:
    return os.path.join(web_dir(), "mqweb.pid")


def settings() -> dict[str, Any]:
    out = dict(DEFAULTS)
    try:
        with open(settings_path(), encoding="utf-8") as f:
            out.update(json.load(f))
    except (OSError, ValueError):
        pass
    return out


def set_property(key: str, value: str) -> str | None:
    """setmqweb properties -k KEY -v VALUE: an error message, or None when set."""
    if key not in DEFAULTS:
        return f"MQWB1104E: Unknown arguments specified: the property '{key}' is not one mqlite's mqweb has."
    current = settings()
    if key in INTEGER_KEYS:
        try:
            number = int(value)
        except ValueError:
            return f"MQWB1103E: No value specified for argument {key}: '{value}' is not a port number."
        if number != -1 and not 1 <= number <= 65535:
            return f"MQWB1103E: No value specified for argument {key}: {number} is not a port number."
        current[key] = number
    else:
        current[key] = value
    os.makedirs(web_dir(), exist_ok=True)
    tmp = settings_path() + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump({k: v for k, v in current.items() if k in DEFAULTS}, f, indent=1)
    os.replace(tmp, settings_path())
    return None


def running_pid() -> int | None:
    try:
        with open(pid_path(), encoding="ascii") as f:
            pid = int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return pid if pid_alive(pid) else None


def urls() -> list[str]:
    s = settings()
    if int(s["httpPort"]) == -1:
        return []
    base = f"http://{s['httpHost']}:{s['httpPort']}/ibmmq/"
    return [base + "rest/"]


def _answers(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


def start(foreground: bool = False) -> int:
    """strmqweb: the server in the background, its pid recorded, ready when its port answers."""
    if running_pid() is not None:
        print("MQWB1118E: Server 'mqweb' is already running.")
        return 1
    s = settings()
    if int(s["httpPort"]) == -1:
        print("MQWB1104E: No port to listen on: httpPort is -1 (setmqweb properties -k httpPort -v PORT).")
        return 1
    if foreground:
        return serve()
    os.makedirs(web_dir(), exist_ok=True)
    log = open(os.path.join(web_dir(), "mqweb.log"), "ab")      # noqa: SIM115 - the child keeps it
    proc = subprocess.Popen([sys.executable, "-m", "mqlite.web.server"], stdout=log, stderr=log,
                            stdin=subprocess.DEVNULL, start_new_session=True, env=dict(os.environ))
    log.close()
    deadline = time.monotonic() + READY_WAIT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            print(f"MQWB1106E: Failed to start the server 'mqweb' (exit code {proc.returncode}); see "
                  f"{os.path.join(web_dir(), 'mqweb.log')}.")
            return 1
        if _answers(str(s["httpHost"]), int(s["httpPort"])):
            print("Starting server mqweb.")
            print(f"Server mqweb started with process ID {proc.pid}.")
            return 0
        time.sleep(0.05)
    proc.terminate()
    print("MQWB1106E: The server 'mqweb' did not answer on its port in time.")
    return 1


def stop() -> int:
    """endmqweb: end the server (SIGTERM, waited for)."""
    pid = running_pid()
    if pid is None:
        print("MQWB1125I: Server 'mqweb' is not running.")
        return 0
    print("Stopping server mqweb.")
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 15
    while pid_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    if pid_alive(pid):
        os.kill(pid, signal.SIGKILL)
    print("Server mqweb stopped.")
    return 0


def display() -> int:
    """dspmqweb: whether the server runs, and where."""
    if running_pid() is None:
        print("MQWB1125I: Server 'mqweb' is not running.")
        return 1
    print("MQWB1124I: Server 'mqweb' is running.")
    print("URLS:")
    for url in urls():
        print(f"  {url}")
    return 0


def serve() -> int:
    """The server process: uvicorn on httpHost:httpPort, its pid in the web directory while it runs."""
    import uvicorn

    from mqlite.web.app import create_app
    for name in ("MQSERVER", "MQCCDTURL", "MQCHLLIB", "MQCHLTAB"):
        os.environ.pop(name, None)          # mqweb reaches its queue managers by local bindings
    s = settings()
    os.makedirs(web_dir(), exist_ok=True)
    with open(pid_path(), "w", encoding="ascii") as f:
        f.write(str(os.getpid()))
    try:
        uvicorn.run(create_app(), host=str(s["httpHost"]), port=int(s["httpPort"]), log_level="warning",
                    access_log=False, timeout_keep_alive=30, limit_concurrency=1000)
    finally:
        try:
            os.unlink(pid_path())
        except OSError:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(serve())
