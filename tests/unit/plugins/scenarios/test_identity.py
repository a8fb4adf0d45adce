"""Tests for KeystonePerf.create_delete_user and KeystonePerf.list_projects."""

from __future__ import annotations

import pytest
from keystoneauth1 import exceptions as ks_exc
from rally.task import scenario as rally_scenario

from rally_keystone_perf.client import atomics
from rally_keystone_perf.plugins.scenarios import identity
from tests.unit.rally_fakes import (
    ADMIN_TOKEN,
    AUTH_URL,
    TASK_UUID,
    atomic_names,
    body,
    run_failing,
    run_refused,
    scenario_context,
)

USERS_URL = f"{AUTH_URL}/users"
PROJECTS_URL = f"{AUTH_URL}/projects"

pytestmark = pytest.mark.usefixtures("fresh_sessions")


@pytest.fixture
def users_api(requests_mock):
    requests_mock.post(USERS_URL, status_code=201, json={"user": {"id": "NEWID"}})
    requests_mock.delete(f"{USERS_URL}/NEWID", status_code=204)
    return requests_mock


@pytest.mark.parametrize(
    ("name", "cls", "contexts"),
    [
        (
            "KeystonePerf.create_delete_user",
            identity.CreateDeleteUser,
            {
                "keystone_perf_tokens@openstack": {},
                "admin_cleanup@openstack": ["keystone"],
                "users@openstack": {},
            },
        ),
        (
            "KeystonePerf.list_projects",
            identity.ListProjects,
            {"keystone_perf_tokens@openstack": {}, "users@openstack": {}},
        ),
    ],
)
def test_registered(name: str, cls: type, contexts: dict) -> None:
    assert rally_scenario.Scenario.get(name) is cls
    assert cls.get_default_context() == contexts


# --- create_delete_user ----------------------------------------------------


def test_create_delete_user(users_api) -> None:
    scen = identity.CreateDeleteUser(scenario_context())
    scen.run()
    assert users_api.call_count == 2
    create, delete = users_api.request_history
    assert (create.method, create.url) == ("POST", USERS_URL)
    assert create.headers["X-Auth-Token"] == ADMIN_TOKEN
    user = body(create)["user"]
    assert set(user) == {"name", "password", "domain_id", "enabled"}
    assert user["domain_id"] == "default"
    assert user["enabled"] is True
    assert user["name"]
    assert len(user["password"]) >= 16
    assert (delete.method, delete.url) == ("DELETE", f"{USERS_URL}/NEWID")
    assert delete.headers["X-Auth-Token"] == ADMIN_TOKEN
    assert atomic_names(scen) == [atomics.CREATE_USER, atomics.DELETE_USER]


def test_create_delete_user_name_is_found_by_rally_cleanup(users_api) -> None:
    scen = identity.CreateDeleteUser(scenario_context())
    scen.run()
    name = body(users_api.request_history[0])["user"]["name"]
    # admin_cleanup removes leftovers by matching Rally's generated names
    assert identity.CreateDeleteUser.name_matches_object(name, task_id=TASK_UUID)
    assert TASK_UUID.split("-")[0] in name


def test_create_delete_user_names_and_passwords_differ(users_api) -> None:
    for iteration in (1, 2):
        identity.CreateDeleteUser(scenario_context(iteration=iteration)).run()
    assert users_api.call_count == 4
    first, second = (body(users_api.request_history[i])["user"] for i in (0, 2))
    assert first["name"] != second["name"]
    assert first["password"] != second["password"]


def test_create_delete_user_in_domain(users_api) -> None:
    identity.CreateDeleteUser(scenario_context()).run(domain_id="dom42")
    assert body(users_api.request_history[0])["user"]["domain_id"] == "dom42"


def test_create_delete_user_deletes_the_returned_id(requests_mock) -> None:
    requests_mock.post(USERS_URL, status_code=201, json={"user": {"id": "abc-9"}})
    requests_mock.delete(f"{USERS_URL}/abc-9", status_code=204)
    identity.CreateDeleteUser(scenario_context()).run()
    assert [r.method for r in requests_mock.request_history] == ["POST", "DELETE"]
    assert requests_mock.last_request.url == f"{USERS_URL}/abc-9"


def test_create_delete_user_create_fails(requests_mock) -> None:
    requests_mock.post(USERS_URL, status_code=409, json={})
    scen = identity.CreateDeleteUser(scenario_context())
    [action] = run_failing(scen, ks_exc.Conflict, requests_mock, requests=1)
    assert action["name"] == atomics.CREATE_USER
    assert action["failed"] is True


def test_create_delete_user_delete_fails(requests_mock) -> None:
    requests_mock.post(USERS_URL, status_code=201, json={"user": {"id": "X"}})
    requests_mock.delete(f"{USERS_URL}/X", status_code=500, json={})
    scen = identity.CreateDeleteUser(scenario_context())
    created, deleted = run_failing(
        scen, ks_exc.InternalServerError, requests_mock, requests=2
    )
    assert created["name"] == atomics.CREATE_USER and "failed" not in created
    assert deleted["name"] == atomics.DELETE_USER and deleted["failed"] is True


@pytest.mark.parametrize(
    ("missing", "expected"),
    [
        ({"pool": False}, "keystone_perf_tokens context is missing"),
        ({"admin_token": None}, "no admin token"),
    ],
    ids=["pool", "admin_token"],
)
def test_create_delete_user_without(
    requests_mock, missing: dict, expected: str
) -> None:
    scen = identity.CreateDeleteUser(scenario_context(**missing))
    assert expected in run_refused(scen, requests_mock)


def test_admin_only_context_uses_the_admin_credential(users_api) -> None:
    ctx = scenario_context()
    for key in ("users", "tenants"):
        del ctx[key]
    ctx["admin"]["credential"]["auth_url"] = "http://admin.test:35357/"
    users_api.post(
        "http://admin.test:35357/v3/users", status_code=201, json={"user": {"id": "A"}}
    )
    users_api.delete("http://admin.test:35357/v3/users/A", status_code=204)
    identity.CreateDeleteUser(ctx).run()
    assert [r.url for r in users_api.request_history] == [
        "http://admin.test:35357/v3/users",
        "http://admin.test:35357/v3/users/A",
    ]


# --- list_projects ---------------------------------------------------------


def test_list_projects(requests_mock) -> None:
    requests_mock.get(PROJECTS_URL, json={"projects": [{"id": "p"}]})
    scen = identity.ListProjects(scenario_context())
    assert scen.run() is None
    assert requests_mock.call_count == 1
    req = requests_mock.last_request
    assert (req.method, req.url) == ("GET", PROJECTS_URL)
    assert req.headers["X-Auth-Token"] == ADMIN_TOKEN
    assert "X-Subject-Token" not in req.headers
    assert atomic_names(scen) == [atomics.LIST_PROJECTS]


def test_list_projects_without_pool(requests_mock) -> None:
    scen = identity.ListProjects(scenario_context(pool=False))
    message = run_refused(scen, requests_mock)
    assert "keystone_perf_tokens context is missing" in message
    assert scen.atomic_actions() == []


def test_list_projects_forbidden(requests_mock) -> None:
    requests_mock.get(PROJECTS_URL, status_code=403, json={})
    scen = identity.ListProjects(scenario_context())
    actions = run_failing(scen, ks_exc.Forbidden, requests_mock, requests=1)
    assert actions[0]["failed"] is True
