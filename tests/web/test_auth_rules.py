"""mqweb's pure security rules: role mapping from groups and users, the context an operation runs
in (MQ's rule for overlapping roles), and reading basic authentication."""
from __future__ import annotations

import base64

from hypothesis import given
from hypothesis import strategies as st

from mqlite.web.auth import ROLES, SERVER, USER, basic_credentials, context_for, parse_role_mapping, roles_of

MAPPING = {"MQWebAdmin": "group:admins,user:root2", "MQWebAdminRO": "readers", "MQWebUser": "group:apps, user:solo"}


def test_roles_come_from_groups_and_named_users() -> None:
    assert roles_of("x", ["admins"], MAPPING) == {"MQWebAdmin"}
    assert roles_of("root2", [], MAPPING) == {"MQWebAdmin"}
    assert roles_of("y", ["readers", "apps"], MAPPING) == {"MQWebAdminRO", "MQWebUser"}
    assert roles_of("solo", ["staff"], MAPPING) == {"MQWebUser"}
    assert roles_of("admins", [], MAPPING) == frozenset()          # a user named like a group is not in it
    assert parse_role_mapping(" group:a , user:b,c,, user: ") == ({"a", "c"}, {"b"})


@given(st.sets(st.sampled_from(ROLES)), st.booleans())
def test_the_most_privileged_role_that_allows_it_decides_the_context(roles: set[str], read_only: bool) -> None:
    got = context_for(frozenset(roles), read_only)
    if "MQWebAdmin" in roles or (read_only and "MQWebAdminRO" in roles):
        assert got == SERVER
    elif "MQWebUser" in roles:
        assert got == USER
    else:
        assert got is None
    if not read_only and roles == {"MQWebAdminRO"}:
        assert got is None                                  # read-only may not change anything


@given(st.text(min_size=1).filter(lambda u: ":" not in u), st.text())
def test_basic_credentials_round_trip(user: str, password: str) -> None:
    token = base64.b64encode(f"{user}:{password}".encode()).decode()
    assert basic_credentials(f"Basic {token}") == (user, password)
    assert basic_credentials(f"basic  {token}") == (user, password)
    assert basic_credentials(f"Bearer {token}") is None


def test_basic_credentials_refuses_what_it_cannot_read() -> None:
    for header in ("", "Basic", "Basic !!!", "Basic " + base64.b64encode(b"nocolon").decode(),
                   "Basic " + base64.b64encode(b":nouser").decode(), "Basic " + base64.b64encode(b"\xff:x").decode()):
        assert basic_credentials(header) is None, header
