"""Tests for rally_keystone_perf.client.keystone_v3 (and the names in atomics.py)."""

from __future__ import annotations

import pytest
import requests
from keystoneauth1 import exceptions as ks_exc
from rally.task import atomic
from requests_mock import ANY

from rally_keystone_perf.client import atomics, keystone_v3, lean_http
from tests.unit.rally_fakes import atomic_names, body, password_body

ROOT = "http://keystone.test:5000/v3"
USER = keystone_v3.PasswordUser(
    username="alice",
    password="s3cret-pw",
    user_domain_name="Default",
    project_name="demo",
    project_domain_name="Default",
)


# Every test starts with an empty per-process session cache.
pytestmark = pytest.mark.usefixtures("fresh_sessions")


@pytest.fixture
def owner() -> atomic.ActionTimerMixin:
    """What Rally's ActionTimer needs: an object with ``_atomic_actions``."""
    return atomic.ActionTimerMixin()


@pytest.fixture
def identity(owner: atomic.ActionTimerMixin) -> keystone_v3.IdentityClient:
    return keystone_v3.IdentityClient(
        keystone_v3.shared_session(), ROOT, timer_owner=owner
    )


def _only_atomic(owner: atomic.ActionTimerMixin, name: str) -> dict:
    assert atomic_names(owner) == [name]
    action = owner.atomic_actions()[0]
    assert action["children"] == []
    assert action["finished_at"] >= action["started_at"] > 0
    return action


# --- atomics -------------------------------------------------------------


def test_atomic_names_are_the_documented_ones() -> None:
    assert tuple(atomics.ROUTES) == (
        "keystone.create_token",
        "keystone.authenticate_application_credential",
        "keystone.validate_token",
        "keystone.list_projects",
        "keystone.list_role_assignments",
        "keystone.list_auth_projects",
        "keystone.get_catalog",
        "keystone.create_user",
        "keystone.delete_user",
        "keystone.revoke_token",
        "keystone.list_revocation_events",
    )


# --- identity_url ----------------------------------------------------------


@pytest.mark.parametrize(
    ("auth_url", "expected"),
    [
        ("http://h:5000", "http://h:5000/v3"),
        ("http://h:5000/", "http://h:5000/v3"),
        ("http://h:5000/v3", "http://h:5000/v3"),
        ("http://h:5000/v3/", "http://h:5000/v3"),
        ("http://h:5000/v3//", "http://h:5000/v3"),
        ("http://h:5000/v2.0", "http://h:5000/v3"),
        ("http://h:5000/v2.0/", "http://h:5000/v3"),
        ("https://cloud.example/identity", "https://cloud.example/identity/v3"),
        ("https://cloud.example/identity/", "https://cloud.example/identity/v3"),
        ("https://cloud.example/identity/v3", "https://cloud.example/identity/v3"),
        (
            "https://cloud.example:443/identity/v2.0",
            "https://cloud.example:443/identity/v3",
        ),
        ("http://h:5000/v3?foo=1#frag", "http://h:5000/v3"),
    ],
)
def test_identity_url(auth_url: str, expected: str) -> None:
    assert keystone_v3.identity_url(auth_url) == expected


def test_client_normalises_its_url() -> None:
    ident = keystone_v3.IdentityClient(
        keystone_v3.shared_session(), "http://h:5000/v2.0/"
    )
    assert ident.url == "http://h:5000/v3"


# --- sessions --------------------------------------------------------------


def test_shared_session_is_reused_for_the_same_settings() -> None:
    first = keystone_v3.shared_session()
    assert keystone_v3.shared_session() is first
    assert keystone_v3.shared_session(verify=True, cert=None) is first


def test_shared_session_differs_per_tls_settings() -> None:
    plain = keystone_v3.shared_session()
    insecure = keystone_v3.shared_session(verify=False)
    cacert = keystone_v3.shared_session(verify="/etc/ca.pem")
    with_cert = keystone_v3.shared_session(cert=("/c.pem", "/k.pem"))
    sessions = [plain, insecure, cacert, with_cert]
    assert len({id(s) for s in sessions}) == 4
    assert insecure.verify is False
    assert cacert.verify == "/etc/ca.pem"
    assert with_cert.cert == ("/c.pem", "/k.pem")


def test_shared_session_list_cert_is_keyed_like_a_tuple() -> None:
    assert keystone_v3.shared_session(cert=["/c", "/k"]) is keystone_v3.shared_session(
        cert=("/c", "/k")
    )


def test_shared_session_is_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    parent = keystone_v3.shared_session()
    monkeypatch.setattr(keystone_v3.os, "getpid", lambda: -12345)
    child = keystone_v3.shared_session()
    assert child is not parent
    assert keystone_v3.shared_session() is child


def test_the_environment_is_read_once_per_host(
    requests_mock, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads = []
    real = requests.sessions.get_environ_proxies

    def counted(url: str, no_proxy: object = None) -> dict:
        reads.append(url)
        return real(url, no_proxy=no_proxy)

    monkeypatch.setattr(requests.sessions, "get_environ_proxies", counted)
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", "/etc/bundle.pem")
    requests_mock.get(ANY, json={"projects": []})
    ident = keystone_v3.IdentityClient(keystone_v3.shared_session(), ROOT)
    for _ in range(3):
        ident.list_projects("tok")
    keystone_v3.IdentityClient(
        keystone_v3.shared_session(), "http://other:5000"
    ).list_projects("tok")
    assert len(reads) == 2  # once per host, not once per request
    assert requests_mock.request_history[0].verify == "/etc/bundle.pem"


def test_the_lean_transport_serves_the_process_once_chosen() -> None:
    keystoneauth = keystone_v3.shared_session()
    keystone_v3.use_transport("lean")
    lean = keystone_v3.shared_session()
    assert isinstance(lean, lean_http.LeanSession) and lean is not keystoneauth
    assert lean.pool_size == keystone_v3.POOL_SIZE
    assert keystone_v3.shared_session() is lean


def test_the_transport_is_lean_unless_the_environment_says(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    keystone_v3.use_transport(None)
    monkeypatch.delenv(keystone_v3.TRANSPORT_ENV, raising=False)
    assert keystone_v3.transport() == "lean"
    monkeypatch.setenv(keystone_v3.TRANSPORT_ENV, "keystoneauth")
    assert keystone_v3.transport() == "keystoneauth"
    monkeypatch.setenv(keystone_v3.TRANSPORT_ENV, "curl")
    with pytest.raises(ValueError, match="KEYSTONE_PERF_HTTP='curl'"):
        keystone_v3.shared_session()


def test_shared_session_pool_and_timeout() -> None:
    sess = keystone_v3.shared_session(timeout=7.5)
    assert sess.timeout == 7.5
    for scheme in ("http://x", "https://x"):
        adapter = sess.session.get_adapter(scheme)
        assert adapter._pool_maxsize == keystone_v3.POOL_SIZE


@pytest.mark.parametrize(
    ("credential", "verify", "cert"),
    [
        ({}, True, None),
        ({"https_insecure": True, "https_cacert": "/ca.pem"}, False, None),
        ({"https_insecure": False, "https_cacert": "/ca.pem"}, "/ca.pem", None),
        ({"https_cert": ("/c", "/k")}, True, ("/c", "/k")),
    ],
)
def test_session_for_credential(credential: dict, verify: object, cert: object) -> None:
    sess = keystone_v3.session_for_credential(credential)
    assert sess.verify == verify
    assert sess.cert == cert
    assert sess is keystone_v3.shared_session(verify=verify, cert=cert)


# --- PasswordUser / bodies -------------------------------------------------


def test_password_user_repr_hides_the_password() -> None:
    text = repr(USER)
    assert "s3cret-pw" not in text
    assert "alice" in text and "demo" in text
    assert "s3cret-pw" not in str(USER)
    assert "s3cret-pw" not in f"{[USER]}"


def test_password_auth_body_scoped() -> None:
    assert keystone_v3.password_auth_body(USER) == password_body(
        "alice", "s3cret-pw", "demo"
    )


def test_password_auth_body_unscoped() -> None:
    assert keystone_v3.password_auth_body(USER, unscoped=True) == password_body(
        "alice", "s3cret-pw", None
    )


def test_password_auth_body_without_project_is_unscoped() -> None:
    user = keystone_v3.PasswordUser("bob", "pw")
    assert keystone_v3.password_auth_body(user) == password_body("bob", "pw", None)


def test_credential_user_from_rally_credential() -> None:
    user = keystone_v3.credential_user(
        {
            "username": "carol",
            "password": "pw",
            "tenant_name": None,
            "project_name": "proj",
            "user_domain_name": "Users",
            "project_domain_name": None,
        }
    )
    assert user == keystone_v3.PasswordUser(
        username="carol",
        password="pw",
        user_domain_name="Users",
        project_name="proj",
        project_domain_name="Default",
    )


# --- requests --------------------------------------------------------------


def test_create_token(requests_mock, identity, owner) -> None:
    requests_mock.post(
        f"{ROOT}/auth/tokens",
        status_code=201,
        headers={"X-Subject-Token": "NEWTOKEN"},
        json={"token": {}},
    )
    assert identity.create_token(USER) == "NEWTOKEN"
    assert requests_mock.call_count == 1
    req = requests_mock.last_request
    assert req.method == "POST"
    assert req.url == f"{ROOT}/auth/tokens"
    assert "X-Auth-Token" not in req.headers
    assert "X-Subject-Token" not in req.headers
    assert req.headers["Content-Type"] == "application/json"
    assert body(req) == password_body("alice", "s3cret-pw", "demo")
    _only_atomic(owner, atomics.CREATE_TOKEN)


def test_create_token_unscoped(requests_mock, identity, owner) -> None:
    requests_mock.post(
        f"{ROOT}/auth/tokens", status_code=201, headers={"X-Subject-Token": "U"}
    )
    assert identity.create_token(USER, unscoped=True) == "U"
    assert requests_mock.call_count == 1
    sent = body(requests_mock.last_request)
    assert "scope" not in sent["auth"]
    assert sent == password_body("alice", "s3cret-pw", None)
    _only_atomic(owner, atomics.CREATE_TOKEN)


def test_validate_token(requests_mock, identity, owner) -> None:
    requests_mock.get(f"{ROOT}/auth/tokens", json={"token": {"user": {"id": "u1"}}})
    assert identity.validate_token("AUTH", "SUBJECT") == {"user": {"id": "u1"}}
    assert requests_mock.call_count == 1
    req = requests_mock.last_request
    assert req.method == "GET"
    assert req.url == f"{ROOT}/auth/tokens"
    assert req.headers["X-Auth-Token"] == "AUTH"
    assert req.headers["X-Subject-Token"] == "SUBJECT"
    assert req.body is None
    _only_atomic(owner, atomics.VALIDATE_TOKEN)


def test_list_projects(requests_mock, identity, owner) -> None:
    projects = [{"id": "p1", "name": "one"}, {"id": "p2", "name": "two"}]
    requests_mock.get(f"{ROOT}/projects", json={"projects": projects})
    assert identity.list_projects("ADMIN") == projects
    assert requests_mock.call_count == 1
    req = requests_mock.last_request
    assert (req.method, req.url) == ("GET", f"{ROOT}/projects")
    assert req.headers["X-Auth-Token"] == "ADMIN"
    assert "X-Subject-Token" not in req.headers
    _only_atomic(owner, atomics.LIST_PROJECTS)


def test_create_user(requests_mock, identity, owner) -> None:
    requests_mock.post(f"{ROOT}/users", status_code=201, json={"user": {"id": "NEWID"}})
    assert identity.create_user("ADMIN", "rally-user", "pw1") == "NEWID"
    assert requests_mock.call_count == 1
    req = requests_mock.last_request
    assert (req.method, req.url) == ("POST", f"{ROOT}/users")
    assert req.headers["X-Auth-Token"] == "ADMIN"
    assert body(req) == {
        "user": {
            "name": "rally-user",
            "password": "pw1",
            "domain_id": "default",
            "enabled": True,
        }
    }
    _only_atomic(owner, atomics.CREATE_USER)


def test_create_user_with_domain_and_project(requests_mock, identity) -> None:
    requests_mock.post(f"{ROOT}/users", status_code=201, json={"user": {"id": "X"}})
    identity.create_user(
        "ADMIN", "n", "p", domain_id="dom1", default_project_id="proj1"
    )
    assert requests_mock.call_count == 1
    assert body(requests_mock.last_request) == {
        "user": {
            "name": "n",
            "password": "p",
            "domain_id": "dom1",
            "enabled": True,
            "default_project_id": "proj1",
        }
    }


def test_delete_user(requests_mock, identity, owner) -> None:
    requests_mock.delete(f"{ROOT}/users/abc123", status_code=204)
    assert identity.delete_user("ADMIN", "abc123") is None
    assert requests_mock.call_count == 1
    req = requests_mock.last_request
    assert (req.method, req.url) == ("DELETE", f"{ROOT}/users/abc123")
    assert req.headers["X-Auth-Token"] == "ADMIN"
    _only_atomic(owner, atomics.DELETE_USER)


def test_no_timer_owner_records_nothing(requests_mock) -> None:
    requests_mock.get(f"{ROOT}/projects", json={"projects": []})
    ident = keystone_v3.IdentityClient(keystone_v3.shared_session(), ROOT)
    assert ident.list_projects("T") == []
    assert requests_mock.call_count == 1


def test_each_call_is_its_own_atomic(requests_mock, identity, owner) -> None:
    requests_mock.get(f"{ROOT}/projects", json={"projects": []})
    requests_mock.get(f"{ROOT}/auth/tokens", json={"token": {}})
    identity.list_projects("T")
    identity.validate_token("T", "S")
    identity.list_projects("T")
    assert requests_mock.call_count == 3
    assert atomic_names(owner) == [
        atomics.LIST_PROJECTS,
        atomics.VALIDATE_TOKEN,
        atomics.LIST_PROJECTS,
    ]
    assert all(a["children"] == [] for a in owner.atomic_actions())


@pytest.mark.parametrize(
    ("status", "error"),
    [
        (401, ks_exc.Unauthorized),
        (403, ks_exc.Forbidden),
        (404, ks_exc.NotFound),
        (500, ks_exc.InternalServerError),
        (503, ks_exc.ServiceUnavailable),
    ],
)
def test_http_errors_raise_and_mark_the_atomic_failed(
    requests_mock, identity, owner, status: int, error: type
) -> None:
    requests_mock.get(
        f"{ROOT}/auth/tokens",
        status_code=status,
        json={"error": {"code": status, "message": "nope"}},
    )
    with pytest.raises(error):
        identity.validate_token("A", "S")
    assert requests_mock.call_count == 1  # no retry
    action = _only_atomic(owner, atomics.VALIDATE_TOKEN)
    assert action["failed"] is True


@pytest.mark.parametrize(
    "call",
    [
        lambda i: i.create_token(USER),
        lambda i: i.list_projects("T"),
        lambda i: i.create_user("T", "n", "p"),
        lambda i: i.delete_user("T", "uid"),
    ],
    ids=["create_token", "list_projects", "create_user", "delete_user"],
)
def test_every_method_raises_keystoneauth_http_errors(
    requests_mock, identity, call
) -> None:
    requests_mock.register_uri(ANY, ANY, status_code=404, json={})
    with pytest.raises(ks_exc.NotFound):
        call(identity)
    assert requests_mock.call_count == 1


def test_connection_error_is_not_retried(requests_mock, identity, owner) -> None:
    requests_mock.get(f"{ROOT}/projects", exc=requests.exceptions.ConnectionError)
    with pytest.raises(ks_exc.ConnectFailure):
        identity.list_projects("T")
    assert requests_mock.call_count == 1
    assert _only_atomic(owner, atomics.LIST_PROJECTS)["failed"] is True
