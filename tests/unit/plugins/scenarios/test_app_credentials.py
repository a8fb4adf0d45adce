"""Tests for issue 57's token scenarios: application credentials, and
validate_token's token_kind, service validator and allow_expired."""

from __future__ import annotations

import time

import pytest
from rally.task import scenario as rally_scenario

from rally_keystone_perf.client import atomics
from rally_keystone_perf.client.keystone_admin import AppCredential
from rally_keystone_perf.plugins.scenarios import base, tokens
from tests.unit.rally_fakes import (
    TOKENS_URL,
    atomic_names,
    body,
    run_refused,
    scenario_context,
)

pytestmark = pytest.mark.usefixtures("fresh_sessions")


@pytest.fixture(autouse=True)
def no_refreshed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(base, "_REFRESHED", {})


def _context(iteration: int = 1, refresh_in: float | None = None) -> dict:
    ctx = scenario_context(iteration=iteration, tenants=1, users_per_tenant=2)
    ctx["keystone_perf_app_credentials"] = {
        user["id"]: AppCredential(f"ac-{user['id']}", "n", user["id"], "sec")
        for user in ctx["users"]
    }
    pool = ctx["keystone_perf_tokens"]
    pool["app_credential"] = {
        user_id: [f"{user_id}-AC{k}" for k in (1, 2)] for user_id in pool["users"]
    }
    pool["service"] = "SERVICE"
    when = None if refresh_in is None else time.time() + refresh_in
    pool["refresh_at"] = {t: when for ts in pool["app_credential"].values() for t in ts}
    ctx["keystone_perf_service_user"] = {
        "credential": {"auth_url": ctx["admin"]["credential"]["auth_url"]}
    }
    return ctx


@pytest.fixture
def validate(requests_mock):
    requests_mock.get(TOKENS_URL, json={"token": {}})
    return requests_mock


def test_registered_with_its_context() -> None:
    cls = tokens.AuthenticateApplicationCredential
    name = "KeystonePerf.authenticate_application_credential"
    assert rally_scenario.Scenario.get(name) is cls
    assert cls.get_default_context() == {
        "keystone_perf_app_credentials@openstack": {},
        "users@openstack": {},
    }


def test_authenticate_application_credential(requests_mock) -> None:
    requests_mock.post(TOKENS_URL, status_code=201, headers={"X-Subject-Token": "T"})
    scen = tokens.AuthenticateApplicationCredential(_context(iteration=2))
    scen.run()
    assert requests_mock.call_count == 1
    sent = body(requests_mock.last_request)["auth"]["identity"]
    assert sent["methods"] == ["application_credential"]
    assert sent["application_credential"] == {"id": "ac-u1-2", "secret": "sec"}
    assert atomic_names(scen) == [atomics.AUTHENTICATE_APP_CRED]


def test_authenticate_without_the_context_is_refused(requests_mock) -> None:
    scen = tokens.AuthenticateApplicationCredential(scenario_context())
    assert "keystone_perf_app_credentials" in run_refused(scen, requests_mock)


def test_validate_an_application_credential_token(validate) -> None:
    scen = tokens.ValidateToken(_context(iteration=3))  # u1-1's second visit
    scen.run(token_kind="application_credential")
    req = validate.last_request
    assert req.headers["X-Subject-Token"] == "u1-1-AC2"
    assert req.url == TOKENS_URL
    assert atomic_names(scen) == [atomics.VALIDATE_TOKEN]


def test_validate_as_a_service_as_keystonemiddleware(validate) -> None:
    scen = tokens.ValidateToken(_context())
    scen.run(validator="service", allow_expired=True)
    assert validate.call_count == 1
    req = validate.last_request
    assert req.url == f"{TOKENS_URL}?allow_expired=1"
    assert req.headers["X-Auth-Token"] == "SERVICE"
    assert req.headers["X-Subject-Token"] == "u1-1-T1"
    assert req.headers["OpenStack-Identity-Access-Rules"] == "1"
    assert atomic_names(scen) == [atomics.VALIDATE_TOKEN]


def test_validate_as_admin_sends_no_access_rules_header(validate) -> None:
    tokens.ValidateToken(_context()).run()
    assert "OpenStack-Identity-Access-Rules" not in validate.last_request.headers


def test_service_validator_without_its_context_is_refused(requests_mock) -> None:
    scen = tokens.ValidateToken(scenario_context())
    message = run_refused(scen, requests_mock, validator="service")
    assert "keystone_perf_service_user" in message


def test_app_credential_tokens_are_refreshed_with_the_credential(
    requests_mock,
) -> None:
    requests_mock.post(
        TOKENS_URL,
        status_code=201,
        headers={"X-Subject-Token": "FRESH"},
        json={"token": {"expires_at": "2999-01-01T00:00:00Z"}},
    )
    requests_mock.get(TOKENS_URL, json={"token": {}})
    scen = tokens.ValidateToken(_context(refresh_in=-1))
    scen.run(validator="self", token_kind="application_credential")
    refresh, check = requests_mock.request_history
    assert body(refresh)["auth"]["identity"]["methods"] == ["application_credential"]
    assert check.headers["X-Subject-Token"] == "FRESH"
    assert atomic_names(scen) == [atomics.REFRESH_TOKEN, atomics.VALIDATE_TOKEN]
