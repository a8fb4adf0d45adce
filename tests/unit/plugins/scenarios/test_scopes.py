"""Tests for KeystonePerf.create_token's domain and system scopes."""

from __future__ import annotations

import pytest

from rally_keystone_perf.client import atomics
from rally_keystone_perf.plugins.scenarios import tokens
from tests.unit.rally_fakes import (
    atomic_names,
    body,
    password_body,
    run_refused,
    scenario_context,
)

pytestmark = pytest.mark.usefixtures("fresh_sessions")


def _granted(scopes: list[str]) -> dict:
    ctx = scenario_context(tenants=1, users_per_tenant=2, iteration=2)
    ctx["keystone_perf_scope_roles"] = {
        "role_id": "r",
        "scopes": scopes,
        "domains": {"u1-1": "d1", "u1-2": "d2"},
        "grants": [],
    }
    return ctx


@pytest.mark.parametrize(
    ("scope", "expected"),
    [
        ("domain", {"domain": {"id": "d2"}}),  # iteration 2: the second user's
        ("system", {"system": {"all": True}}),
    ],
)
def test_create_token_scoped_to_the_domain_or_the_system(
    issue, scope: str, expected: dict
) -> None:
    scen = tokens.CreateToken(_granted(["domain", "system"]))
    scen.run(scope=scope)
    assert issue.call_count == 1
    sent = body(issue.last_request)
    assert sent["auth"]["scope"] == expected
    unscoped = password_body("user1-2", "user1-2-pw", None)
    assert sent["auth"]["identity"] == unscoped["auth"]["identity"]
    assert atomic_names(scen) == [atomics.CREATE_TOKEN]


@pytest.mark.parametrize(
    ("granted", "scope"), [(None, "domain"), (["domain"], "system")]
)
def test_a_scope_without_its_grant_is_refused_before_any_request(
    requests_mock, granted: list[str] | None, scope: str
) -> None:
    ctx = _granted(granted or []) if granted else scenario_context()
    message = run_refused(tokens.CreateToken(ctx), requests_mock, scope=scope)
    assert "keystone_perf_scope_roles" in message
    assert f'"{scope}" in its scopes' in message
