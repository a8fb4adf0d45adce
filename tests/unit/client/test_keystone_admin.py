"""Tests for rally_keystone_perf.client.keystone_admin, and the token calls
issue 57 added to rally_keystone_perf.client.keystone_v3."""

from __future__ import annotations

import pytest
from rally.task import atomic

from rally_keystone_perf.client import atomics, keystone_admin, keystone_v3
from tests.unit.rally_fakes import atomic_names, body

ROOT = "http://keystone.test:5000/v3"
CRED = keystone_admin.AppCredential("ac1", "c_rally_1_x", "u1", "the-secret")

pytestmark = pytest.mark.usefixtures("fresh_sessions")


@pytest.fixture
def owner() -> atomic.ActionTimerMixin:
    return atomic.ActionTimerMixin()


@pytest.fixture
def identity(owner: atomic.ActionTimerMixin) -> keystone_v3.IdentityClient:
    return keystone_v3.IdentityClient(
        keystone_v3.shared_session(), ROOT, timer_owner=owner
    )


def test_the_management_calls_are_the_clients() -> None:
    assert issubclass(keystone_v3.IdentityClient, keystone_admin.AdminCalls)
    for name in ("list_projects", "list_role_assignments", "create_user"):
        assert getattr(keystone_v3.IdentityClient, name) is getattr(
            keystone_admin.AdminCalls, name
        )


def test_app_credential_repr_hides_the_secret() -> None:
    assert "the-secret" not in repr(CRED)
    assert "the-secret" not in str(CRED)


def test_authenticate_application_credential(requests_mock, identity, owner) -> None:
    requests_mock.post(
        f"{ROOT}/auth/tokens", status_code=201, headers={"X-Subject-Token": "AC"}
    )
    issued = identity.authenticate_application_credential(CRED)
    assert issued.value == "AC"
    assert requests_mock.call_count == 1
    req = requests_mock.last_request
    assert "X-Auth-Token" not in req.headers
    assert body(req) == {
        "auth": {
            "identity": {
                "methods": ["application_credential"],
                "application_credential": {"id": "ac1", "secret": "the-secret"},
            }
        }
    }
    assert atomic_names(owner) == [atomics.AUTHENTICATE_APP_CRED]
    route = atomics.ROUTES[atomics.AUTHENTICATE_APP_CRED]
    assert route == atomics.ROUTES[atomics.CREATE_TOKEN]  # the body differs alone


def test_validate_token_as_keystonemiddleware(requests_mock, identity, owner) -> None:
    requests_mock.get(f"{ROOT}/auth/tokens", json={"token": {}})
    identity.validate_token("SVC", "SUBJ", access_rules=True, allow_expired=True)
    req = requests_mock.last_request
    assert req.url == f"{ROOT}/auth/tokens?allow_expired=1"
    assert req.headers["OpenStack-Identity-Access-Rules"] == "1"
    assert (req.headers["X-Auth-Token"], req.headers["X-Subject-Token"]) == (
        "SVC",
        "SUBJ",
    )
    identity.validate_token("SVC", "SUBJ")
    req = requests_mock.last_request
    assert req.url == f"{ROOT}/auth/tokens"
    assert "OpenStack-Identity-Access-Rules" not in req.headers
    assert atomic_names(owner) == [atomics.VALIDATE_TOKEN] * 2


def test_application_credentials_made_listed_deleted(requests_mock, owner) -> None:
    ident = keystone_v3.IdentityClient(keystone_v3.shared_session(), ROOT)
    path = f"{ROOT}/users/u1/application_credentials"
    made = {"application_credential": {"id": "ac9", "secret": "s9"}}
    requests_mock.post(path, status_code=201, json=made)
    requests_mock.get(path, json={"application_credentials": [{"id": "ac9"}]})
    requests_mock.delete(f"{path}/ac9", status_code=204)
    cred = ident.create_application_credential("USER", "u1", "n1")
    assert (cred.id, cred.name, cred.user_id, cred.secret) == ("ac9", "n1", "u1", "s9")
    sent = requests_mock.request_history[0]
    assert sent.headers["X-Auth-Token"] == "USER"
    assert body(sent)["application_credential"]["name"] == "n1"
    assert ident.list_application_credentials("ADMIN", "u1", "n 1") == [{"id": "ac9"}]
    assert requests_mock.last_request.url == f"{path}?name=n%201"
    ident.delete_application_credential("ADMIN", "u1", "ac9")
    assert requests_mock.call_count == 3


def test_service_project_user_and_role(requests_mock) -> None:
    ident = keystone_v3.IdentityClient(keystone_v3.shared_session(), ROOT)
    requests_mock.post(
        f"{ROOT}/projects", status_code=201, json={"project": {"id": "p"}}
    )
    requests_mock.get(
        f"{ROOT}/roles?name=service",
        json={"roles": [{"id": "r9", "name": "service"}]},
    )
    requests_mock.put(f"{ROOT}/projects/p/users/u/roles/r9", status_code=204)
    requests_mock.delete(f"{ROOT}/projects/p", status_code=204)
    assert ident.create_project("ADMIN", "svc") == "p"
    assert body(requests_mock.last_request)["project"]["name"] == "svc"
    assert ident.role_id("ADMIN", "service") == "r9"
    ident.grant_project_role("ADMIN", "p", "u", "r9")
    ident.delete_project("ADMIN", "p")
    assert requests_mock.call_count == 4
    requests_mock.get(f"{ROOT}/roles?name=nope", json={"roles": []})
    assert ident.role_id("ADMIN", "nope") is None


def test_user_domain_id_and_role_grants_are_untimed(
    requests_mock, identity, owner
) -> None:
    requests_mock.get(f"{ROOT}/users/u1", json={"user": {"domain_id": "d1"}})
    requests_mock.put(f"{ROOT}/domains/d1/users/u1/roles/R", status_code=204)
    requests_mock.delete(f"{ROOT}/system/users/u1/roles/R", status_code=204)
    assert identity.user_domain_id("T", "u1") == "d1"
    identity.grant_role("T", "domains/d1", "u1", "R")
    identity.grant_role("T", "system", "u1", "R", revoke=True)
    sent = [
        (r.method, r.path, r.headers["X-Auth-Token"])
        for r in requests_mock.request_history
    ]
    assert sent == [
        ("GET", "/v3/users/u1", "T"),
        ("PUT", "/v3/domains/d1/users/u1/roles/r", "T"),
        ("DELETE", "/v3/system/users/u1/roles/r", "T"),
    ]
    assert atomic_names(owner) == []


def test_password_auth_body_with_a_scope_of_its_own() -> None:
    user = keystone_v3.PasswordUser("u", "p", project_name="proj")
    system = {"system": {"all": True}}
    assert keystone_v3.password_auth_body(user, scope=system)["auth"]["scope"] == system


@pytest.mark.parametrize(("status", "held"), [(204, True), (404, False)])
def test_has_role_asks_with_head(requests_mock, identity, status, held) -> None:
    requests_mock.head(f"{ROOT}/system/users/u1/roles/R", status_code=status)
    assert identity.has_role("T", "system", "u1", "R") is held
