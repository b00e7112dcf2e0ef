"""The queue manager's error log: errors/AMQERR01.LOG, rotated to AMQERR02 and AMQERR03 as MQ does."""
from __future__ import annotations

import os
import sys
import threading
import time
from typing import Any

UNWRITTEN_KEPT = 100


class ErrorLog:
    def __init__(self, directory: str, qmgr: str, limit: int = 2 * 1024 * 1024) -> None:
        self.dir = directory
        self.qmgr = qmgr
        self.limit = limit
        self.lock = threading.Lock()
        os.makedirs(directory, exist_ok=True)
        self.path = os.path.join(directory, "AMQERR01.LOG")
        self._unwritten: list[str] = []
        self._file: Any = None

    def write(self, msgid: str, text: str, explanation: str = "") -> None:
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime())
        entry = (f"{stamp} - Process({os.getpid()}) Program(mqlite) QMgr({self.qmgr})\n"
                 f"{msgid}: {text}\n")
        if explanation:
            entry += f"EXPLANATION:\n{explanation}\n"
        entry += "-" * 80 + "\n"
        with self.lock:
            self._unwritten.append(entry)
            text = "".join(self._unwritten)
            try:
                self._rotate(len(text))
                if self._file is None:
                    # Kept open: a process out of file descriptors can still say so.
                    self._file = open(self.path, "a", encoding="utf-8")
                self._file.write(text)
                self._file.flush()
                self._unwritten.clear()
            except OSError as e:
                # A full disk must not turn a log line into a failed MQI call: the entry goes to
                # standard error (the server's console log) now and to the file with the next
                # entry that can be written (the last UNWRITTEN_KEPT of them).
                del self._unwritten[:-UNWRITTEN_KEPT]
                print(f"{entry}(not written to {self.path} yet: {e})", file=sys.stderr, flush=True)

    def _rotate(self, incoming: int) -> None:
        try:
            size = os.path.getsize(self.path)
        except OSError:
            return
        if size + incoming <= self.limit:
            return
        p2 = os.path.join(self.dir, "AMQERR02.LOG")
        p3 = os.path.join(self.dir, "AMQERR03.LOG")
        if self._file is not None:
            self._file.close()
            self._file = None
        if os.path.exists(p2):
            os.replace(p2, p3)
        os.replace(self.path, p2)
