"""Giving freed memory back to the system. glibc's allocator keeps what a thread freed in that
thread's arena, and a block freed once raises its mmap threshold so that the next one that size
stays too: after a storm of connections (each a thread) or of 16 MiB password checks the queue
manager kept hundreds of megabytes it no longer used (issue 62). ``trim`` hands it back at once
(the password checks), ``trim_soon`` a second after the last of a run of connections ended.
``few_arenas`` keeps the number of arenas small: glibc makes up to eight per core, one more each
time threads contend, and every arena keeps the pieces its live objects pin; with the interpreter
lock very little of the server allocates in parallel, so a storm on a busy machine, where many
threads are in the middle of their work at once, left more arenas (and 16 MB more) than on a
quiet one."""
from __future__ import annotations

import ctypes
import ctypes.util
import threading
from collections.abc import Callable
from typing import Any

DELAY = 1.0
ARENAS = 2
M_ARENA_MAX = -8                            # (glibc's malloc.h)


def _libc() -> Any:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.malloc_trim.argtypes = [ctypes.c_size_t]
        return libc
    except (OSError, AttributeError):       # not glibc: nothing to do
        return None


_LIBC = _libc()
_lock = threading.Lock()
_timer: threading.Timer | None = None


def few_arenas() -> None:
    """At most ARENAS allocator arenas (before the process starts its threads)."""
    if _LIBC is not None:
        _LIBC.mallopt(M_ARENA_MAX, ARENAS)


def trim() -> None:
    if _LIBC is not None:
        _LIBC.malloc_trim(0)


def trim_soon() -> None:
    """A trim DELAY seconds from now, unless one is already due (a run of ends costs one)."""
    global _timer
    if _LIBC is None:
        return
    with _lock:
        if _timer is not None:
            return
        _timer = threading.Timer(DELAY, _due)
        _timer.daemon = True
        _timer.start()


def _due() -> None:
    global _timer
    with _lock:
        _timer = None
    trim()


def then_trim(run: Callable[[], None]) -> Callable[[], None]:
    """``run`` (a connection's thread), then ``trim_soon``."""
    def go() -> None:
        try:
            run()
        finally:
            trim_soon()
    return go
