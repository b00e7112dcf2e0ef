"""Who an mqweb caller is and what it may do, as MQ's mqweb decides.

- **Authentication**: HTTP basic authentication, or the token cookie ``POST /login`` hands out
  (LTPA-style: ``LtpaToken2_<suffix>``, valid ``ltpaExpiration`` minutes). A user and password are
  checked by a queue manager of the data directory against its registry, as CONNAUTH checks a
  connection's (setmqusr's hashes, or the LDAP server of an IDPWLDAP CONNAUTH): the queue manager
  the URL names first, then the other running ones by name; the first that knows the user decides.
  A result is kept for ``AUTH_CACHE_SECONDS`` (MQ's Liberty keeps an authentication cache too),
  keyed by the user and a keyed digest of the password, never the password.
- **Roles** from the user's groups (the registry's and the operating system's), mapped by the
  ``MQWebAdmin``, ``MQWebAdminRO`` and ``MQWebUser`` properties (``group:NAME`` and
  ``user:NAME`` entries, as mqwebuser.xml's security-role elements): ``roles_of``.
- **The context an operation runs in** (``context_for``, MQ's rule for overlapping roles: the most
  privileged role that allows the operation): MQWebAdmin runs anything, and MQWebAdminRO displays
  and browses, as mqweb's own user (the server context); MQWebUser runs what its own user's OAM
  authority allows (the user context); the messaging API is for MQWebUser only.
- **Wrong passwords** are answered after ``authFailDelay`` seconds (as FAILDLAY), awaited by that
  request alone; checks not answered from the cache run one at a time, so a flood of wrong
  passwords costs one core at most and callers already known are not slowed."""
from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

ROLES = ("MQWebAdmin", "MQWebAdminRO", "MQWebUser")
SERVER, USER = "server", "user"
AUTH_CACHE_SECONDS = 300.0
FAILURE_CACHE_SECONDS = 60.0
CACHE_LIMIT = 10000


@dataclass(frozen=True)
class Identity:
    user: str
    groups: tuple[str, ...]
    roles: frozenset[str]
    mechanism: str = "basic"          # or "ltpaToken"


class AuthError(Exception):
    """No identity: 401, after ``delay`` seconds (a wrong password)."""

    def __init__(self, why: str, delay: float = 0.0) -> None:
        super().__init__(why)
        self.delay = delay


def parse_role_mapping(value: str) -> tuple[frozenset[str], frozenset[str]]:
    """A role property's value, ``group:A,user:b,...``: (groups, users). A bare name is a group."""
    groups: set[str] = set()
    users: set[str] = set()
    for entry in value.split(","):
        kind, sep, name = entry.strip().partition(":")
        if not sep:
            kind, name = "group", kind
        if name.strip():
            (users if kind.strip().lower() == "user" else groups).add(name.strip())
    return frozenset(groups), frozenset(users)


def roles_of(user: str, groups: tuple[str, ...] | list[str], mapping: dict[str, str]) -> frozenset[str]:
    """The roles a user holds: each role whose mapping names the user or one of its groups."""
    held = set()
    for role in ROLES:
        role_groups, role_users = parse_role_mapping(mapping.get(role, ""))
        if user in role_users or role_groups.intersection(groups):
            held.add(role)
    return frozenset(held)


def context_for(roles: frozenset[str], read_only: bool) -> str | None:
    """The security context an administrative operation runs in, or None when no role allows it.
    The most privileged role that allows it wins: MQWebAdmin, then (for displays and browsing)
    MQWebAdminRO, both as mqweb's own user; then MQWebUser, as the caller's user."""
    if "MQWebAdmin" in roles or (read_only and "MQWebAdminRO" in roles):
        return SERVER
    if "MQWebUser" in roles:
        return USER
    return None


def basic_credentials(header: str) -> tuple[str, str] | None:
    """The user and password of an ``Authorization: Basic`` header, None if it is not one."""
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "basic" or not token.strip():
        return None
    try:
        user, sep, password = base64.b64decode(token.strip(), validate=True).decode("utf-8").partition(":")
    except (binascii.Error, UnicodeDecodeError):
        return None
    return (user, password) if sep and user else None


class Authenticator:
    """Checks credentials through a ``verify(user, password, hint) -> (user, groups) | None``
    (the queue managers' registries), keeps recent answers and the login sessions."""

    def __init__(self, verify: Callable[[str, str, str], tuple[str, tuple[str, ...]] | None],
                 settings: Callable[[], dict[str, Any]]) -> None:
        self.verify = verify
        self.settings = settings
        self._key = secrets.token_bytes(32)            # digests of passwords are keyed, per process
        self.lock = threading.Lock()
        self.known: dict[tuple[str, bytes], tuple[tuple[str, tuple[str, ...]], float]] = {}
        self.refused: dict[tuple[str, bytes], float] = {}
        self.sessions: dict[str, tuple[Identity, float]] = {}
        self._identities: dict[tuple[str, tuple[str, ...], str], tuple[dict[str, Any], Identity]] = {}
        self.cookie = self.settings().get("ltpaCookieName") or "LtpaToken2_" + secrets.token_hex(8)
        self.checking: asyncio.Semaphore | None = None      # made in the server's loop

    def _digest(self, user: str, password: str) -> tuple[str, bytes]:
        return user, hashlib.blake2b(password.encode("utf-8"), key=self._key, digest_size=32).digest()

    def identity(self, user: str, groups: tuple[str, ...], mechanism: str) -> Identity:
        """The identity with the roles the settings give now (kept while the settings are the same)."""
        mapping = self.settings()
        key = (user, groups, mechanism)
        hit = self._identities.get(key)
        if hit is None or hit[0] is not mapping:
            hit = (mapping, Identity(user, groups, roles_of(user, groups, mapping), mechanism))
            if len(self._identities) > CACHE_LIMIT:
                self._identities.clear()
            self._identities[key] = hit
        return hit[1]

    async def check(self, user: str, password: str, hint: str) -> Identity:
        """The identity of a user and password (AuthError when refused, with the failure delay)."""
        key = self._digest(user, password)
        now = time.monotonic()
        with self.lock:
            hit = self.known.get(key)
            if hit and hit[1] > now:
                return self.identity(*hit[0], "basic")
            refused = self.refused.get(key, 0) > now
        if not refused:
            if self.checking is None:
                self.checking = asyncio.Semaphore(1)
            async with self.checking:
                with self.lock:               # (the same check may have been answered meanwhile)
                    hit = self.known.get(key)
                    refused = self.refused.get(key, 0) > time.monotonic()
                if hit and hit[1] > time.monotonic():
                    return self.identity(*hit[0], "basic")
                found = None if refused else await asyncio.to_thread(self.verify, user, password, hint)
            with self.lock:
                self._trim()
                if found is not None:
                    self.known[key] = (found, time.monotonic() + AUTH_CACHE_SECONDS)
                    return self.identity(*found, "basic")
                self.refused[key] = time.monotonic() + FAILURE_CACHE_SECONDS
        raise AuthError("the user and password were not accepted", delay=float(self.settings()["authFailDelay"]))

    def _trim(self) -> None:
        now = time.monotonic()
        for table in (self.known, self.refused):
            if len(table) > CACHE_LIMIT:
                for k in [k for k, v in table.items() if (v[1] if isinstance(v, tuple) else v) <= now]:
                    del table[k]
                while len(table) > CACHE_LIMIT:
                    del table[next(iter(table))]

    def login(self, ident: Identity) -> str:
        """A new session for the identity: its token (the cookie's value)."""
        token = secrets.token_urlsafe(32)
        expires = time.monotonic() + 60 * float(self.settings()["ltpaExpiration"])
        with self.lock:
            self.sessions = {t: s for t, s in self.sessions.items() if s[1] > time.monotonic()}
            self.sessions[token] = (Identity(ident.user, ident.groups, ident.roles, "ltpaToken"), expires)
        return token

    def session(self, token: str) -> Identity | None:
        with self.lock:
            found = self.sessions.get(token)
        if found is None or found[1] <= time.monotonic():
            return None
        return found[0]

    def logout(self, token: str) -> bool:
        with self.lock:
            return self.sessions.pop(token, None) is not None
