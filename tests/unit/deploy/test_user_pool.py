"""Tests for rally_keystone_perf.deploy.user_pool (its Keystone-free parts)."""

from __future__ import annotations

import contextlib
import json
import stat
from pathlib import Path
from typing import Any

import pytest

from rally_keystone_perf.deploy import user_pool
from rally_keystone_perf.deploy.backends import ldap


@pytest.mark.parametrize(
    ("text", "size"), [("12x512", (12, 512)), ("1X1", (1, 1)), ("3x04", (3, 4))]
)
def test_parse_size(text: str, size: tuple[int, int]) -> None:
    assert user_pool.parse_size(text) == size


@pytest.mark.parametrize("text", ["12", "x5", "0x5", "5x0", "axb", "-1x3", ""])
def test_parse_size_refuses(text: str) -> None:
    with pytest.raises(ValueError, match="TENANTSxUSERS"):
        user_pool.parse_size(text)


class FakeProviders:
    """Keystone's managers as create_pool calls them."""

    def __init__(self) -> None:
        self.projects: list[dict] = []
        self.users: list[dict] = []
        self.grants: list[tuple] = []
        self.role_api = self
        self.resource_api = self
        self.identity_api = self
        self.assignment_api = self

    def list_roles(self) -> list[dict]:
        return [
            {"id": "r-admin", "name": "admin"},
            {"id": "r-member", "name": "member"},
        ]

    def create_project(self, project_id: str, project: dict) -> dict:
        assert project["id"] == project_id
        self.projects.append(project)
        return project

    def create_user(self, user: dict) -> dict:
        created = {**user, "id": f"id-{len(self.users)}"}
        self.users.append(created)
        return created

    def create_grant(self, role_id: str, user_id: str, project_id: str) -> None:
        self.grants.append((role_id, user_id, project_id))


def test_create_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    from keystone.common import sql

    hashed: list[str] = []
    marked: list[list[str]] = []
    monkeypatch.setattr(user_pool, "_hash_once", hashed.append)
    monkeypatch.setattr(
        user_pool, "_mark_active_today", lambda ids: marked.append(ids) or "2026-11-22"
    )
    monkeypatch.setattr(sql, "session_for_write", contextlib.nullcontext)
    fake = FakeProviders()
    plan = user_pool.plan_users(2, 3)
    pool = user_pool.create_pool(fake, plan, "http://127.0.0.1:5000/v3")

    assert pool["version"] == user_pool.POOL_VERSION
    assert pool["auth_url"] == "http://127.0.0.1:5000/v3"
    assert pool["last_active_at"] == "2026-11-22"
    assert [len(t["users"]) for t in pool["tenants"]] == [3, 3]
    # one password for all, hashed once; every user is a member of its project
    assert hashed == [pool["password"]]
    assert {u["password"] for u in fake.users} == {pool["password"]}
    assert len(fake.grants) == 6
    assert {g[0] for g in fake.grants} == {"r-member"}
    first = pool["tenants"][0]
    assert fake.users[0]["default_project_id"] == first["id"]
    assert fake.grants[0] == ("r-member", "id-0", first["id"])
    assert marked == [[u.get("id") for u in fake.users]]
    names = [u["name"] for t in pool["tenants"] for u in t["users"]]
    assert len(set(names)) == 6


def test_create_pool_needs_the_member_role(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeProviders()
    monkeypatch.setattr(fake, "list_roles", lambda: [{"id": "r", "name": "admin"}])
    monkeypatch.setattr(user_pool, "_hash_once", lambda password: None)
    with pytest.raises(RuntimeError, match="no 'member' role"):
        user_pool.create_pool(fake, user_pool.plan_users(1, 1), "http://x/v3")


def test_create_pool_of_existing_users_makes_projects_and_grants_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """LDAP's users exist already (slapadd): no user is created, none hashed."""
    from keystone.common import sql

    hashed: list[str] = []
    monkeypatch.setattr(user_pool, "_hash_once", hashed.append)
    monkeypatch.setattr(user_pool, "_mark_active_today", pytest.fail)
    monkeypatch.setattr(sql, "session_for_write", contextlib.nullcontext)
    fake = FakeProviders()
    plan = ldap.plan_pool(2, 2)
    pool = user_pool.create_pool(fake, plan, "http://x/v3")

    assert fake.users == [] and hashed == []
    assert pool["password"] == plan["password"]
    assert pool["last_active_at"] is None
    planned = [u["id"] for users in plan["tenants"] for u in users]
    assert [g[1] for g in fake.grants] == planned
    assert [u["id"] for t in pool["tenants"] for u in t["users"]] == planned
    assert fake.grants[2][2] == pool["tenants"][1]["id"]


def test_write_pool_is_private(tmp_path: Path) -> None:
    out = tmp_path / "pool.json"
    pool: dict[str, Any] = {"version": 1, "password": "secret"}
    user_pool.write_pool(pool, out)
    assert json.loads(out.read_text()) == pool
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
