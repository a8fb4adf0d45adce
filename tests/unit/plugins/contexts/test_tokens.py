"""Tests for the keystone_perf_tokens context."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from rally.task import context

from rally_keystone_perf.plugins.contexts import tokens
from tests.unit.rally_fakes import (
    TASK_UUID,
    TOKENS_URL,
    body,
    password_body,
    users_context,
)

pytestmark = pytest.mark.usefixtures("fresh_sessions")


@pytest.fixture
def keystone(requests_mock):
    """Keystone issuing ``<username>#<n>`` tokens, n counting all issues."""
    counter = itertools.count(1)

    def issue(request, context) -> dict[str, Any]:
        name = body(request)["auth"]["identity"]["password"]["user"]["name"]
        context.status_code = 201
        context.headers["X-Subject-Token"] = f"{name}#{next(counter)}"
        return {"token": {}}

    requests_mock.post(TOKENS_URL, json=issue)
    return requests_mock


def _context(config: dict[str, Any] | None, tenants: int = 2, per_tenant: int = 2):
    ctx = users_context(tenants, per_tenant)
    if config is not None:
        ctx["config"] = {"keystone_perf_tokens": config}
    return ctx


def _issued(ctx: dict[str, Any]) -> dict[str, Any]:
    """The admin and user tokens the context issued (not their expiry)."""
    pool = ctx["keystone_perf_tokens"]
    return {"admin": pool["admin"], "users": pool["users"]}


def test_plugin_identity() -> None:
    assert tokens.CONTEXT_NAME == "keystone_perf_tokens"
    assert tokens.CONTEXT_REF == "keystone_perf_tokens@openstack"
    assert tokens.KeystonePerfTokens.get_name() == tokens.CONTEXT_NAME
    assert tokens.KeystonePerfTokens.get_fullname() == tokens.CONTEXT_REF
    assert tokens.KeystonePerfTokens.get_order() == 150


def test_setup_issues_admin_and_user_tokens(keystone) -> None:
    ctx = _context({"tokens_per_user": 3})
    tokens.KeystonePerfTokens(ctx).setup()

    # one admin token + 3 for each of the 4 users, nothing else
    assert keystone.call_count == 1 + 3 * 4
    assert all(r.method == "POST" for r in keystone.request_history)
    assert all(r.url == TOKENS_URL for r in keystone.request_history)
    pool = ctx["keystone_perf_tokens"]
    assert pool["admin"] == "admin#1"
    assert pool["users"] == {
        "u1-1": ["user1-1#2", "user1-1#3", "user1-1#4"],
        "u1-2": ["user1-2#5", "user1-2#6", "user1-2#7"],
        "u2-1": ["user2-1#8", "user2-1#9", "user2-1#10"],
        "u2-2": ["user2-2#11", "user2-2#12", "user2-2#13"],
    }


def test_tokens_are_project_scoped_password_tokens(keystone) -> None:
    ctx = _context({"tokens_per_user": 1}, tenants=2, per_tenant=1)
    tokens.KeystonePerfTokens(ctx).setup()
    sent = [body(r) for r in keystone.request_history]
    assert sent == [
        password_body("admin", "admin-pw", "admin"),
        password_body("user1-1", "user1-1-pw", "project1"),
        password_body("user2-1", "user2-1-pw", "project2"),
    ]
    assert all("X-Auth-Token" not in r.headers for r in keystone.request_history)


def test_default_config_is_one_token_per_user_and_an_admin_token(keystone) -> None:
    ctx = _context(None, tenants=1, per_tenant=2)
    ctx_obj = tokens.KeystonePerfTokens(ctx)
    assert dict(ctx_obj.config) == {
        "tokens_per_user": 1,
        "admin_token": True,
        "refresh": True,
        "warm_up_only": False,
    }
    ctx_obj.setup()
    assert keystone.call_count == 3
    assert _issued(ctx) == {
        "admin": "admin#1",
        "users": {"u1-1": ["user1-1#2"], "u1-2": ["user1-2#3"]},
    }


def test_config_under_the_full_name(keystone) -> None:
    ctx = _context(None, tenants=1, per_tenant=1)
    ctx["config"] = {"keystone_perf_tokens@openstack": {"tokens_per_user": 2}}
    tokens.KeystonePerfTokens(ctx).setup()
    assert keystone.call_count == 3
    assert ctx["keystone_perf_tokens"]["users"] == {"u1-1": ["user1-1#2", "user1-1#3"]}


def test_admin_token_false_sends_no_admin_request(keystone) -> None:
    ctx = _context({"admin_token": False, "tokens_per_user": 2}, 1, 1)
    tokens.KeystonePerfTokens(ctx).setup()
    assert keystone.call_count == 2
    names = [
        body(r)["auth"]["identity"]["password"]["user"]["name"]
        for r in keystone.request_history
    ]
    assert names == ["user1-1", "user1-1"]
    assert _issued(ctx) == {
        "admin": None,
        "users": {"u1-1": ["user1-1#1", "user1-1#2"]},
    }


def test_without_admin_or_users(keystone) -> None:
    ctx: dict[str, Any] = {"task": {"uuid": TASK_UUID}}
    tokens.KeystonePerfTokens(ctx).setup()
    assert keystone.call_count == 0
    assert _issued(ctx) == {"admin": None, "users": {}}


def test_setup_failure_propagates_and_stores_no_pool(requests_mock) -> None:
    from keystoneauth1 import exceptions as ks_exc

    requests_mock.post(TOKENS_URL, status_code=401, json={})
    ctx = _context({}, 1, 1)
    with pytest.raises(ks_exc.Unauthorized):
        tokens.KeystonePerfTokens(ctx).setup()
    assert requests_mock.call_count == 1
    assert "keystone_perf_tokens" not in ctx


def test_cleanup_forgets_tokens_without_requests(keystone) -> None:
    ctx = _context({}, 1, 1)
    ctx_obj = tokens.KeystonePerfTokens(ctx)
    ctx_obj.setup()
    sent = keystone.call_count
    ctx_obj.cleanup()
    assert "keystone_perf_tokens" not in ctx
    assert keystone.call_count == sent
    ctx_obj.cleanup()  # idempotent, e.g. after a failed setup
    assert keystone.call_count == sent


def _validate(config: dict) -> list[str]:
    """Rally's syntax check of ``config`` for this context: the errors."""
    return context.Context.validate(
        name=tokens.CONTEXT_REF,
        context=None,
        config=None,
        plugin_cfg=config,
        vtype="syntax",
    )


@pytest.mark.parametrize(
    "config",
    [
        {"tokens_per_user": 1},
        {"tokens_per_user": 100, "admin_token": False},
        {},
    ],
)
def test_schema_accepts(config: dict) -> None:
    assert _validate(config) == []


@pytest.mark.parametrize(
    ("config", "detail"),
    [
        ({"tokens_per_user": 0}, "less than the minimum of 1"),
        ({"tokens_per_user": 101}, "greater than the maximum of 100"),
        ({"tokens_per_user": "2"}, "is not of type 'integer'"),
        ({"admin_token": "yes"}, "is not of type 'boolean'"),
        ({"foo": 1}, "'foo' was unexpected"),
    ],
)
def test_schema_rejects(config: dict, detail: str) -> None:
    result = _validate(config)
    assert len(result) == 1
    assert detail in result[0]


def test_warm_up_only_skips_users_active_today(keystone) -> None:
    import datetime

    ctx = _context({"warm_up_only": True, "admin_token": False}, 1, 3)
    today = datetime.datetime.now(datetime.timezone.utc).date().isoformat()
    ctx["users"][0]["last_active_at"] = today  # e.g. from a user pool
    ctx["users"][1]["last_active_at"] = "2000-01-01"
    tokens.KeystonePerfTokens(ctx).setup()
    # only the two users not yet active today log in
    assert keystone.call_count == 2
    assert sorted(ctx["keystone_perf_tokens"]["users"]) == ["u1-2", "u1-3"]


def test_expiry_is_recorded_and_refresh_is_on_by_default(requests_mock) -> None:
    requests_mock.post(
        TOKENS_URL,
        status_code=201,
        headers={"X-Subject-Token": "TOK"},
        json={"token": {"expires_at": "2026-11-22T09:00:00.000000Z"}},
    )
    ctx = _context({"admin_token": False}, 1, 1)
    tokens.KeystonePerfTokens(ctx).setup()
    pool = ctx["keystone_perf_tokens"]
    assert pool["refresh"] is True
    assert pool["refresh_at"] == {"TOK": 1795338000.0 - 30}
