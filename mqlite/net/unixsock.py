"""A queue manager's bindings socket at any depth of data directory. An AF_UNIX address holds 107
bytes on Linux, and a data directory under a test's or a CI runner's temporary directory passes
that (strmqm failed with "AF_UNIX path too long"). A longer path is reached through the directory
opened by itself: ``/proc/self/fd/<fd>/qmgr.sock`` names the same file, in a few bytes."""
from __future__ import annotations

import os
import socket
from collections.abc import Callable

MAX_PATH = 107


def _through_directory(path: str, call: Callable[[str], None]) -> None:
    if len(os.fsencode(path)) <= MAX_PATH or not os.path.isdir("/proc/self/fd"):
        call(path)
        return
    fd = os.open(os.path.dirname(path) or ".", os.O_PATH | os.O_DIRECTORY)
    try:
        call(f"/proc/self/fd/{fd}/{os.path.basename(path)}")
    finally:
        os.close(fd)


def bind(sock: socket.socket, path: str) -> None:
    _through_directory(path, sock.bind)


def connect(sock: socket.socket, path: str) -> None:
    _through_directory(path, sock.connect)
