"""mqweb's settings, as MQ's ``setmqweb properties -k KEY -v VALUE`` sets them, kept in
``<data>/web/settings.json``: the server's (``httpHost``, ``httpPort``, ``httpsPort``,
``keyRepository``, ``certificateLabel``) and security's (``ltpaExpiration``, ``ltpaCookieName``,
``authFailDelay`` and the role mappings ``MQWebAdmin``, ``MQWebAdminRO``, ``MQWebUser``:
web/auth.py), and ``apiDiscovery`` (MQ's apiDiscovery-1.0 feature in mqwebuser.xml: web/openapi.py)."""
from __future__ import annotations

import json
import os
from typing import Any

from mqlite.paths import data_root

DEFAULTS: dict[str, Any] = {"httpHost": "localhost", "httpPort": -1, "httpsPort": 9443, "keyRepository": "",
                            "certificateLabel": "", "ltpaExpiration": 120, "ltpaCookieName": "",
                            "authFailDelay": 1.0, "MQWebAdmin": "group:MQWebAdminGroup,group:mqm",
                            "MQWebAdminRO": "group:MQWebAdminROGroup", "MQWebUser": "group:MQWebUserGroup",
                            "apiDiscovery": False}
INTEGER_KEYS = ("httpPort", "httpsPort")
BOOLEAN_KEYS = ("apiDiscovery",)
NUMBER_KEYS = {"ltpaExpiration": (1, 24 * 60 * 365), "authFailDelay": (0.0, 60.0)}


def web_dir() -> str:
    return os.path.join(data_root(), "web")


def settings_path() -> str:
    return os.path.join(web_dir(), "settings.json")


def settings() -> dict[str, Any]:
    out = dict(DEFAULTS)
    try:
        with open(settings_path(), encoding="utf-8") as f:
            out.update(json.load(f))
    except (OSError, ValueError):
        pass
    return out


_cached: tuple[str, float, dict[str, Any]] | None = None      # (the file, its mtime, settings)


def settings_now() -> dict[str, Any]:
    """settings(), read again only when the file changed (a stat at every request: about a
    microsecond, so that a setmqweb is in force at the next request, as Liberty's configuration
    update is). The same dict until it changes."""
    global _cached
    path = settings_path()
    try:
        stamp = float(os.stat(path).st_mtime_ns)
    except OSError:
        stamp = 0.0
    if _cached is None or _cached[:2] != (path, stamp):
        _cached = (path, stamp, settings())
    return _cached[2]


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
    elif key in BOOLEAN_KEYS:
        if value.lower() not in ("true", "false"):
            return f"MQWB1103E: No value specified for argument {key}: '{value}' is not true or false."
        current[key] = value.lower() == "true"
    elif key in NUMBER_KEYS:
        low, high = NUMBER_KEYS[key]
        try:
            amount = type(low)(value)
        except ValueError:
            amount = None
        if amount is None or not low <= amount <= high:
            return f"MQWB1103E: No value specified for argument {key}: '{value}' is not a number from {low} to {high}."
        current[key] = amount
    else:
        current[key] = value
    os.makedirs(web_dir(), exist_ok=True)
    tmp = settings_path() + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump({k: v for k, v in current.items() if k in DEFAULTS}, f, indent=1)
    os.replace(tmp, settings_path())
    return None
