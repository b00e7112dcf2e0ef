"""Users and groups the queue manager knows, and password hashes.

mqlite keeps its own registry of users (in the queue manager's store), managed with the
``setmqusr``/``dspmqusr`` control commands; IDPWOS checks passwords against it (it stands where IBM
MQ asks the operating system). A user's groups are those of the registry and, when the operating
system knows a user of that name, its OS groups. Passwords are kept only as salted scrypt hashes.
"""
from __future__ import annotations

import grp
import hashlib
import hmac
import os
import pwd
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from mqlite.memory import trim

ADMIN_GROUP = "mqm"
_N, _R, _P = 2 ** 14, 8, 1
# Checked against when a user is unknown, so that an unknown user costs what a wrong password does.
_DUMMY = "scrypt$16384$8$1$" + "00" * 16 + "$" + "00" * 32
CHECKS = int(os.environ.get("MQLITE_PASSWORD_CHECKS", "2"))     # password checks run at once
CHECK_WAIT = 10.0            # seconds a check may wait for its turn (a connection's handshake limit)
_CHECKER = ThreadPoolExecutor(max_workers=CHECKS, thread_name_prefix="password-check")


def hash_password(password: str, salt: bytes | None = None) -> str:
    salt = salt or os.urandom(16)
    digest = hashlib.scrypt(password.encode("utf-8"), salt=salt, n=_N, r=_R, p=_P, dklen=32)
    return f"scrypt${_N}${_R}${_P}${salt.hex()}${digest.hex()}"


def verify_password(stored: str | None, password: str, wait: float = CHECK_WAIT) -> bool:
    """Whether ``password`` matches the stored hash; an unknown user (None) is checked against a
    dummy hash, so that the answer takes as long and is the same.

    A check is a 16 MiB scrypt. They run on CHECKS threads of their own, the others queued: 64
    logins at once took the queue manager from 36 to 594 MB, the memory kept by the allocator of
    each thread that had run one (issue 62). A check that has waited ``wait`` seconds (the
    connection's handshake limit) without its turn fails, as a wrong password does."""
    job = _CHECKER.submit(_verify, stored, password)
    try:
        return job.result(timeout=wait)
    except TimeoutError:
        job.cancel()
        return False


def _verify(stored: str | None, password: str) -> bool:
    try:
        _alg, n, r, p, salt, digest = (stored or _DUMMY).split("$")
        got = hashlib.scrypt(password.encode("utf-8"), salt=bytes.fromhex(salt), n=int(n), r=int(r), p=int(p),
                             dklen=len(digest) // 2)
    except (ValueError, MemoryError):
        return False
    finally:
        trim()
    return stored is not None and hmac.compare_digest(got.hex(), digest)


def os_user_of_uid(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


def os_knows(name: str, group: bool) -> bool:
    """Whether the operating system has a user (or, with ``group``, a group) of this name."""
    try:
        (grp.getgrnam if group else pwd.getpwnam)(name)
        return True
    except KeyError:
        return False


def os_groups(user: str) -> list[str]:
    """The operating system's groups of ``user`` (none if the OS does not know the user)."""
    try:
        pw = pwd.getpwnam(user)
    except KeyError:
        return []
    names = []
    for gid in os.getgrouplist(user, pw.pw_gid):
        try:
            names.append(grp.getgrgid(gid).gr_name)
        except KeyError:
            continue
    return names


@dataclass(frozen=True)
class Principal:
    """A connection's identity for authority checks."""
    user: str
    groups: tuple[str, ...]
    admin: bool                   # a member of mqm: every authority, no records needed
