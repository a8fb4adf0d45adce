"""Tests for KeystonePerf.list_revocation_events and KeystonePerf.revoke_token."""

from __future__ import annotations

import pytest
from keystoneauth1 import exceptions as ks_exc
from rally.task import scenario as rally_scenario

from rally_keystone_perf.client import atomics
from rally_keystone_perf.plugins.scenarios import revocation
from tests.unit.rally_fakes import (
    ADMIN_TOKEN,
    AUTH_URL,
    TOKENS_URL,
    atomic_names,
    body,
    password_body,
    run_failing,
    run_refused,
    scenario_context,
)

EVENTS_URL = f"{AUTH_URL}/OS-REVOKE/events"

pytestmark = pytest.mark.usefixtures("fresh_sessions")


@pytest.mark.parametrize(
    ("name", "cls", "contexts"),
    [
        (
            "KeystonePerf.list_revocation_events",
            revocation.ListRevocationEvents,
            {"keystone_perf_tokens@openstack": {}, "users@openstack": {}},
        ),
        ("KeystonePerf.revoke_token", revocation.RevokeToken, {"users@openstack": {}}),
    ],
)
def test_registered(name: str, cls: type, contexts: dict) -> None:
    assert rally_scenario.Scenario.get(name) is cls
    assert cls.get_default_context() == contexts


def test_list_revocation_events_is_one_request(requests_mock) -> None:
    requests_mock.get(EVENTS_URL, json={"events": [{"audit_id": "a"}]})
    scen = revocation.ListRevocationEvents(scenario_context())
    scen.run()
    (request,) = requests_mock.request_history
    assert (request.method, request.url) == ("GET", EVENTS_URL)
    assert request.headers["X-Auth-Token"] == ADMIN_TOKEN
    assert atomic_names(scen) == [atomics.LIST_REVOCATION_EVENTS]


def test_list_revocation_events_without_a_token_pool(requests_mock) -> None:
    scen = revocation.ListRevocationEvents(scenario_context(pool=False))
    assert "keystone_perf_tokens context is missing" in run_refused(scen, requests_mock)


def test_revoke_token_revokes_the_token_it_issued(requests_mock) -> None:
    requests_mock.post(
        TOKENS_URL, status_code=201, headers={"X-Subject-Token": "NEW"}, json={}
    )
    requests_mock.delete(TOKENS_URL, status_code=204)
    scen = revocation.RevokeToken(scenario_context())
    scen.run()
    issue, revoke = requests_mock.request_history
    assert body(issue) == password_body("user1-1", "user1-1-pw", "project1")
    assert revoke.method == "DELETE"
    assert revoke.headers["X-Auth-Token"] == "NEW"
    assert revoke.headers["X-Subject-Token"] == "NEW"
    assert atomic_names(scen) == [atomics.CREATE_TOKEN, atomics.REVOKE_TOKEN]


def test_a_failed_revocation_is_its_own_action(requests_mock) -> None:
    requests_mock.post(
        TOKENS_URL, status_code=201, headers={"X-Subject-Token": "NEW"}, json={}
    )
    requests_mock.delete(TOKENS_URL, status_code=404, json={})
    scen = revocation.RevokeToken(scenario_context())
    issued, revoked = run_failing(scen, ks_exc.NotFound, requests_mock, requests=2)
    assert issued["name"] == atomics.CREATE_TOKEN and "failed" not in issued
    assert revoked["name"] == atomics.REVOKE_TOKEN and revoked["failed"] is True
