"""Tests for KeystonePerf.create_token and KeystonePerf.validate_token."""

from __future__ import annotations

import pytest
from rally.task import scenario as rally_scenario

from rally_keystone_perf.client import atomics
from rally_keystone_perf.plugins.scenarios import tokens
from tests.unit.rally_fakes import (
    ADMIN_TOKEN,
    TOKENS_URL,
    atomic_names,
    body,
    password_body,
    run_failing,
    run_refused,
    scenario_context,
)

pytestmark = pytest.mark.usefixtures("fresh_sessions")


@pytest.fixture
def validate(requests_mock):
    requests_mock.get(TOKENS_URL, json={"token": {"methods": ["password"]}})
    return requests_mock


# --- registration --------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "cls"),
    [
        ("KeystonePerf.create_token", tokens.CreateToken),
        ("KeystonePerf.validate_token", tokens.ValidateToken),
    ],
)
def test_registered(name: str, cls: type) -> None:
    assert rally_scenario.Scenario.get(name) is cls
    assert cls.get_platform() == "openstack"


def test_validate_token_brings_the_token_pool() -> None:
    assert tokens.ValidateToken.get_default_context() == {
        "keystone_perf_tokens@openstack": {},
        "users@openstack": {},
    }
    # create_token warms each user up once (no admin token) before the load
    assert tokens.CreateToken.get_default_context() == {
        "keystone_perf_tokens@openstack": {
            "tokens_per_user": 1,
            "admin_token": False,
            "warm_up_only": True,
        },
        "users@openstack": {},
    }


# --- create_token ----------------------------------------------------------


def test_create_token_scoped(issue) -> None:
    scen = tokens.CreateToken(scenario_context(iteration=1))
    scen.run()
    assert issue.call_count == 1
    req = issue.last_request
    assert (req.method, req.url) == ("POST", TOKENS_URL)
    assert "X-Auth-Token" not in req.headers
    assert body(req) == password_body("user1-1", "user1-1-pw", "project1")
    assert atomic_names(scen) == [atomics.CREATE_TOKEN]


def test_create_token_unscoped(issue) -> None:
    scen = tokens.CreateToken(scenario_context())
    scen.run(scope="unscoped")
    assert issue.call_count == 1
    sent = body(issue.last_request)
    assert "scope" not in sent["auth"]
    assert sent == password_body("user1-1", "user1-1-pw", None)
    assert atomic_names(scen) == [atomics.CREATE_TOKEN]


def test_create_token_needs_no_pool(issue) -> None:
    scen = tokens.CreateToken(scenario_context(pool=False))
    scen.run(scope="project")
    assert issue.call_count == 1


@pytest.mark.parametrize(
    ("iteration", "username", "project"),
    [
        (1, "user1-1", "project1"),
        (2, "user2-1", "project2"),
        (3, "user1-2", "project1"),
        (4, "user2-2", "project2"),
        (5, "user1-1", "project1"),
    ],
)
def test_create_token_uses_the_round_robin_user(
    issue, iteration: int, username: str, project: str
) -> None:
    ctx = scenario_context(iteration=iteration, tenants=2, users_per_tenant=2)
    tokens.CreateToken(ctx).run()
    assert issue.call_count == 1
    assert body(issue.last_request) == password_body(
        username, f"{username}-pw", project
    )


def test_create_token_failure_is_a_failed_atomic(requests_mock) -> None:
    from keystoneauth1 import exceptions as ks_exc

    requests_mock.post(TOKENS_URL, status_code=401, json={})
    scen = tokens.CreateToken(scenario_context())
    [action] = run_failing(scen, ks_exc.Unauthorized, requests_mock, requests=1)
    assert action["name"] == atomics.CREATE_TOKEN
    assert action["failed"] is True


# --- validate_token --------------------------------------------------------


@pytest.mark.parametrize(
    ("iteration", "subject"), [(1, "u1-1-T1"), (2, "u1-1-T2"), (3, "u1-1-T1")]
)
def test_validate_token_as_admin(validate, iteration: int, subject: str) -> None:
    scen = tokens.ValidateToken(scenario_context(iteration=iteration))
    scen.run()
    assert validate.call_count == 1
    req = validate.last_request
    assert (req.method, req.url) == ("GET", TOKENS_URL)
    assert req.headers["X-Auth-Token"] == ADMIN_TOKEN
    assert req.headers["X-Subject-Token"] == subject
    assert req.body is None
    assert atomic_names(scen) == [atomics.VALIDATE_TOKEN]


@pytest.mark.parametrize(
    ("iteration", "subject"), [(1, "u1-1-T1"), (2, "u1-1-T2"), (4, "u1-1-T2")]
)
def test_validate_token_as_self(validate, iteration: int, subject: str) -> None:
    scen = tokens.ValidateToken(scenario_context(iteration=iteration))
    scen.run(validator="self")
    assert validate.call_count == 1
    req = validate.last_request
    assert req.headers["X-Auth-Token"] == subject
    assert req.headers["X-Subject-Token"] == subject
    assert atomic_names(scen) == [atomics.VALIDATE_TOKEN]


def test_validate_token_as_self_needs_no_admin_token(validate) -> None:
    scen = tokens.ValidateToken(scenario_context(admin_token=None))
    scen.run(validator="self")
    assert validate.call_count == 1


def test_validate_token_uses_the_iteration_users_tokens(validate) -> None:
    ctx = scenario_context(iteration=2, tenants=2, users_per_tenant=1)
    tokens.ValidateToken(ctx).run()
    assert validate.last_request.headers["X-Subject-Token"].startswith("u2-1-")


def test_validate_token_rotates_every_users_tokens(validate) -> None:
    used: dict[str, set[str]] = {}
    for iteration in range(1, 9):
        ctx = scenario_context(
            iteration=iteration, tenants=2, users_per_tenant=2, tokens_per_user=2
        )
        tokens.ValidateToken(ctx).run()
        subject = validate.last_request.headers["X-Subject-Token"]
        used.setdefault(subject.rsplit("-", 1)[0], set()).add(subject)
    assert validate.call_count == 8
    assert used == {
        user: {f"{user}-T1", f"{user}-T2"} for user in ("u1-1", "u1-2", "u2-1", "u2-2")
    }


def test_validate_token_without_pool(requests_mock) -> None:
    scen = tokens.ValidateToken(scenario_context(pool=False))
    message = run_refused(scen, requests_mock)
    assert "keystone_perf_tokens context is missing" in message
    assert "add it to the workload's contexts" in message
    assert scen.atomic_actions() == []


def test_validate_token_as_admin_without_admin_token(requests_mock) -> None:
    scen = tokens.ValidateToken(scenario_context(admin_token=None))
    message = run_refused(scen, requests_mock, validator="admin")
    assert "no admin token" in message
    assert "'admin_token'" in message
