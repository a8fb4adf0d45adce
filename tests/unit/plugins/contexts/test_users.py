"""Tests for the keystone_perf_users context (Rally's users, or a user pool)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from rally_openstack.task.contexts.keystone import users as rally_users

from rally_keystone_perf.deploy.user_pool import POOL_ENV, POOL_VERSION
from rally_keystone_perf.plugins.contexts import users
from tests.unit.rally_fakes import AUTH_URL, TASK_UUID, users_context


def _pool(tenants: int = 2, per_tenant: int = 3, **extra: Any) -> dict[str, Any]:
    return {
        "version": POOL_VERSION,
        "auth_url": AUTH_URL,
        "domain": "Default",
        "password": "POOLPW",
        "last_active_at": "2026-11-22",
        "tenants": [
            {
                "id": f"p{t}",
                "name": f"pool-p{t}",
                "users": [
                    {"id": f"p{t}u{u}", "name": f"pool-p{t}-u{u}"}
                    for u in range(per_tenant)
                ],
            }
            for t in range(tenants)
        ],
        **extra,
    }


def _context(tenants: int, per_tenant: int) -> dict[str, Any]:
    """What Rally hands the context: admin, env, task and the default users."""
    ctx = users_context(1, 1)  # Rally's default users context ran first
    ctx["env"] = {"platforms": {"openstack": {"admin": None, "users": []}}}
    ctx["config"] = {
        users.CONTEXT_NAME: {"tenants": tenants, "users_per_tenant": per_tenant}
    }
    ctx["task"] = {"uuid": TASK_UUID}
    return ctx


def _make(ctx: dict[str, Any]) -> users.KeystonePerfUsers:
    obj = object.__new__(users.KeystonePerfUsers)
    obj.context = ctx
    obj.config = dict(rally_users.UserGenerator.DEFAULT_CONFIG)
    obj.config.update(ctx["config"][users.CONTEXT_NAME])
    obj.existing_users = []
    return obj


@pytest.fixture
def pool_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "pool.json"
    path.write_text(json.dumps(_pool()))
    monkeypatch.setenv(POOL_ENV, str(path))
    return path


def test_plugin_identity() -> None:
    assert users.KeystonePerfUsers.get_fullname() == "keystone_perf_users@openstack"
    # after Rally's default users context (100), before the tokens (150)
    assert users.KeystonePerfUsers.get_order() == 101
    assert issubclass(users.KeystonePerfUsers, rally_users.UserGenerator)


def test_pool_users_are_taken_without_a_request(pool_file, requests_mock) -> None:
    ctx = _context(2, 2)
    before = (ctx["users"], ctx["tenants"])
    obj = _make(ctx)
    obj.setup()
    assert requests_mock.call_count == 0
    assert [u["id"] for u in ctx["users"]] == ["p0u0", "p0u1", "p1u0", "p1u1"]
    assert sorted(ctx["tenants"]) == ["p0", "p1"]
    first = ctx["users"][0]
    assert first["tenant_id"] == "p0"
    assert first["last_active_at"] == "2026-11-22"
    cred = first["credential"]
    assert (cred["username"], cred["password"]) == ("pool-p0-u0", "POOLPW")
    assert cred["tenant_name"] == "pool-p0"
    assert cred["user_domain_name"] == cred["project_domain_name"] == "Default"
    assert cred["auth_url"] == AUTH_URL
    assert ctx["tenants"]["p1"]["users"] == ctx["users"][2:]
    assert ctx["user_choice_method"] == "random"
    # cleanup deletes nothing and hands the default context its own users back
    obj.cleanup()
    assert requests_mock.call_count == 0
    assert (ctx["users"], ctx["tenants"]) == before


@pytest.mark.parametrize(
    ("pool", "tenants", "per_tenant", "problem"),
    [
        (_pool(), 2, 3, None),
        (_pool(), 3, 1, "2 projects, 3 wanted"),
        (_pool(), 1, 4, "3 users per project, 4 wanted"),
        (_pool(auth_url="http://other:5000/v3"), 1, 1, "made for http://other"),
        (_pool(version=99), 1, 1, "not a version 1 user pool"),
        ([], 1, 1, "not a version 1 user pool"),
    ],
)
def test_pool_problem(pool: Any, tenants: int, per_tenant: int, problem) -> None:
    found = users.pool_problem(pool, AUTH_URL + "/", tenants, per_tenant)
    if problem is None:
        assert found is None
    else:
        assert problem in found


def _fallback(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Rally's own creation, faked as it behaves: it replaces, then empties."""
    calls: list[str] = []

    def setup(self: Any) -> None:
        calls.append("setup")
        self.context["users"] = [{"id": "created-by-api"}]
        self.context["tenants"] = {"t-api": {}}

    def cleanup(self: Any) -> None:
        calls.append(f"cleanup {[u['id'] for u in self.context['users']]}")
        self.context["users"] = []
        self.context["tenants"] = {}

    monkeypatch.setattr(rally_users.UserGenerator, "setup", setup)
    monkeypatch.setattr(rally_users.UserGenerator, "cleanup", cleanup)
    return calls


def test_without_a_pool_users_are_created_as_rally_does(monkeypatch) -> None:
    monkeypatch.delenv(POOL_ENV, raising=False)
    calls = _fallback(monkeypatch)
    ctx = _context(2, 2)
    default_users = ctx["users"]  # made by Rally's default users context
    obj = _make(ctx)
    obj.setup()
    assert ctx["users"] == [{"id": "created-by-api"}]
    obj.cleanup()
    assert calls == ["setup", "cleanup ['created-by-api']"]
    # the default context, cleaned up next, gets its own users back to delete
    assert ctx["users"] == default_users and ctx["users"]


def test_a_pool_too_small_falls_back(pool_file, monkeypatch) -> None:
    calls = _fallback(monkeypatch)
    obj = _make(_context(12, 512))
    obj.setup()
    obj.cleanup()
    assert calls == ["setup", "cleanup ['created-by-api']"]


def test_an_unreadable_pool_falls_back(tmp_path, monkeypatch) -> None:
    broken = tmp_path / "pool.json"
    broken.write_text("{not json")
    monkeypatch.setenv(POOL_ENV, str(broken))
    calls = _fallback(monkeypatch)
    _make(_context(1, 1)).setup()
    assert calls == ["setup"]


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("user_password", "chosen-pw"),
        ("user_domain", "other"),
        ("project_domain", "other"),
    ],
)
def test_options_the_pool_cannot_honour_fall_back(
    pool_file, monkeypatch, option: str, value: str
) -> None:
    calls = _fallback(monkeypatch)
    ctx = _context(1, 1)
    ctx["config"][users.CONTEXT_NAME][option] = value
    _make(ctx).setup()
    assert calls == ["setup"]


def test_default_domain_options_keep_the_pool(pool_file, requests_mock) -> None:
    ctx = _context(1, 1)
    # what UserGenerator.__init__ fills in from the admin credential or CONF
    ctx["config"][users.CONTEXT_NAME].update(
        user_domain="default", project_domain="Default"
    )
    _make(ctx).setup()
    assert [u["id"] for u in ctx["users"]] == ["p0u0"]
