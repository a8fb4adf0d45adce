"""Tests for rally_keystone_perf.deploy.service_catalog (fake managers)."""

from __future__ import annotations

from typing import Any

from rally_keystone_perf.deploy import service_catalog


class FakeProviders:
    """Keystone's managers as register calls them."""

    def __init__(self) -> None:
        self.roles = [{"id": "r-admin", "name": "admin"}]
        self.projects: list[dict] = []
        self.users: list[dict] = []
        self.grants: list[tuple] = []
        self.services: list[dict] = []
        self.endpoints: list[dict] = []
        self.role_api = self.resource_api = self.identity_api = self
        self.assignment_api = self.catalog_api = self

    def list_roles(self) -> list[dict]:
        return list(self.roles)

    def create_role(self, role_id: str, role: dict) -> dict:
        self.roles.append(role)
        return role

    def create_project(self, project_id: str, project: dict) -> dict:
        self.projects.append(project)
        return project

    def create_user(self, user: dict) -> dict:
        created = {**user, "id": f"u{len(self.users)}"}
        self.users.append(created)
        return created

    def create_grant(self, role_id: str, user_id: str, project_id: str) -> None:
        self.grants.append((role_id, user_id, project_id))

    def create_service(self, service_id: str, service: dict) -> dict:
        self.services.append(service)
        return service

    def create_endpoint(self, endpoint_id: str, endpoint: dict) -> dict:
        self.endpoints.append(endpoint)
        return endpoint


SPEC: dict[str, Any] = {
    "region": "RegionOne",
    "password": "SERVICE-PW",
    "services": [
        {"user": "nova", "type": "compute", "url": "http://127.0.0.1:1/v2.1"},
        {"user": "glance", "type": "image", "url": "http://127.0.0.1:2"},
    ],
}


def test_register_creates_users_roles_services_and_endpoints() -> None:
    providers = FakeProviders()
    assert service_catalog.register(providers, SPEC, "default") == 2
    (project,) = providers.projects
    assert project["name"] == "service" and project["domain_id"] == "default"
    # the admin role is reused, the service role created once
    assert [r["name"] for r in providers.roles] == ["admin", "service"]
    assert [u["name"] for u in providers.users] == ["nova", "glance"]
    assert {u["password"] for u in providers.users} == {"SERVICE-PW"}
    assert len(providers.grants) == 4
    assert {g[2] for g in providers.grants} == {project["id"]}
    assert [s["type"] for s in providers.services] == ["compute", "image"]
    compute = [
        e for e in providers.endpoints if e["service_id"] == providers.services[0]["id"]
    ]
    assert sorted(e["interface"] for e in compute) == ["admin", "internal", "public"]
    assert {e["url"] for e in compute} == {"http://127.0.0.1:1/v2.1"}
    assert {e["region_id"] for e in providers.endpoints} == {"RegionOne"}
