"""MQ's commands for the mqweb server (docs/web.md): strmqweb, endmqweb, dspmqweb and setmqweb
properties, for the queue managers of the data directory ($MQLITE_DATA)."""
from __future__ import annotations

import argparse
from typing import Any


def add_web_commands(sub: Any) -> None:
    p = sub.add_parser("strmqweb", help="start the mqweb server (REST APIs) for this data directory's queue managers")
    p.add_argument("--foreground", action="store_true", help="run attached (a container's or service's entry point)")
    p.set_defaults(fn=lambda a: _server().start(foreground=a.foreground))
    p = sub.add_parser("endmqweb", help="end the mqweb server")
    p.set_defaults(fn=lambda a: _server().stop())
    p = sub.add_parser("dspmqweb", help="whether the mqweb server runs, and its URLs")
    p.set_defaults(fn=lambda a: _server().display())
    p = sub.add_parser("setmqweb", help="set the mqweb server's properties (setmqweb properties -k KEY -v VALUE)")
    p.add_argument("what", choices=["properties"])
    p.add_argument("-k", required=True, help="the property: httpHost, httpPort, httpsPort, keyRepository, "
                   "certificateLabel, ltpaExpiration, ltpaCookieName, authFailDelay, MQWebAdmin, MQWebAdminRO, MQWebUser")
    p.add_argument("-v", required=True, help="the value")
    p.set_defaults(fn=_setmqweb)


def _server() -> Any:
    from mqlite.web import server  # (Starlette and uvicorn only where mqweb is used)
    return server


def _setmqweb(a: argparse.Namespace) -> int:
    from mqlite.web.settings import set_property
    problem = set_property(a.k, a.v)
    if problem:
        print(problem)
        return 1
    print("MQWB1100I: The 'setmqweb' command completed successfully.")
    return 0
