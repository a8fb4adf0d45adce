"""Tests for rally_keystone_perf.deploy.own_cloud.probe (over requests_mock)."""

from __future__ import annotations

import pytest
import requests

from rally_keystone_perf.deploy.own_cloud import probe
from rally_keystone_perf.deploy.own_cloud.target import CloudTarget, TargetError

V3 = "https://keystone.test:5000/v3"
TARGET = CloudTarget(
    cloud="mine",
    auth_url="https://keystone.test:5000",
    username="alice",
    project_name="demo",
    password="s3cret",
)
VERSION = {"version": {"id": "v3.14", "status": "stable"}}


def token(*roles: str) -> dict:
    """A POST /v3/auth/tokens answer's body with ``roles``."""
    return {
        "token": {
            "roles": [{"id": f"id-{r}", "name": r} for r in roles],
            "user": {"id": "u-1", "name": "alice"},
            "project": {"id": "p-1", "name": "demo"},
        }
    }


@pytest.fixture
def keystone(requests_mock):
    """A Keystone v3 at V3 whose login gives alice the member role."""
    requests_mock.get(V3, json=VERSION)
    requests_mock.post(
        f"{V3}/auth/tokens",
        status_code=201,
        json=token("member", "reader"),
        headers={"X-Subject-Token": "tok-1"},
    )
    return requests_mock


def test_v3_url() -> None:
    assert probe.v3_url("http://k:5000") == "http://k:5000/v3"
    assert probe.v3_url("http://k:5000/v3/") == "http://k:5000/v3"
    assert probe.v3_url("http://k/identity/") == "http://k/identity/v3"


def test_verify_of() -> None:
    assert probe.verify_of(TARGET) is True
    assert probe.verify_of(CloudTarget("c", "u", "n", "p", cacert="/ca")) == "/ca"
    off = CloudTarget("c", "u", "n", "p", cacert="/ca", verify=False)
    assert probe.verify_of(off) is False


def test_success_returns_the_api_version_and_roles(keystone) -> None:
    found = probe.probe(TARGET)
    assert found == probe.Probe(
        v3_url=V3,
        api_version="v3.14",
        roles=("member", "reader"),
        user_id="u-1",
        project_id="p-1",
    )


def test_a_versionless_auth_url_gets_v3(keystone) -> None:
    probe.probe(TARGET)
    assert [r.url for r in keystone.request_history] == [
        f"{V3}",
        f"{V3}/auth/tokens",
    ]


def test_the_login_is_a_password_login_scoped_to_the_project(keystone) -> None:
    probe.probe(TARGET)
    body = keystone.request_history[1].json()["auth"]
    assert body["identity"]["password"]["user"] == {
        "name": "alice",
        "password": "s3cret",
        "domain": {"name": "Default"},
    }
    assert body["scope"]["project"]["name"] == "demo"


def test_refused_credentials_name_the_user(keystone) -> None:
    keystone.post(f"{V3}/auth/tokens", status_code=401, json={})
    with pytest.raises(TargetError, match="user 'alice' on project 'demo' \\(401\\)"):
        probe.probe(TARGET)


def test_not_a_keystone_v3_version_document(requests_mock) -> None:
    requests_mock.get(V3, status_code=200, text="<html>hello</html>")
    with pytest.raises(TargetError, match="without a Keystone v3 version document"):
        probe.probe(TARGET)


def test_a_tls_failure_names_cacert(requests_mock) -> None:
    requests_mock.get(V3, exc=requests.exceptions.SSLError("certificate verify"))
    with pytest.raises(TargetError, match="TLS verification failed") as caught:
        probe.probe(TARGET)
    assert "cacert" in str(caught.value)


def test_an_unreachable_cloud(requests_mock) -> None:
    requests_mock.get(V3, exc=requests.exceptions.ConnectionError("refused"))
    with pytest.raises(TargetError, match=f"cannot reach {V3}: refused"):
        probe.probe(TARGET)


def test_a_timeout(requests_mock) -> None:
    requests_mock.get(V3, exc=requests.exceptions.ConnectTimeout("slow"))
    with pytest.raises(TargetError, match="did not answer in 15 s"):
        probe.probe(TARGET)


def test_admin_needed_and_missing(keystone) -> None:
    with pytest.raises(TargetError) as caught:
        probe.probe(TARGET, admin_for=["KeystonePerf.list_projects"])
    message = str(caught.value)
    assert "roles member, reader" in message
    assert "KeystonePerf.list_projects needs the admin role" in message


def test_admin_needed_and_held(keystone) -> None:
    keystone.post(
        f"{V3}/auth/tokens",
        status_code=201,
        json=token("admin"),
        headers={"X-Subject-Token": "tok-1"},
    )
    assert probe.probe(TARGET, admin_for=["x"]).roles == ("admin",)


def test_revocation_needed_and_absent(keystone) -> None:
    keystone.get(f"{V3}/OS-REVOKE/events", status_code=404)
    with pytest.raises(TargetError, match="no OS-REVOKE API, which a, b need$"):
        probe.probe(TARGET, revocation_for=["a", "b"])


def test_revocation_listing_uses_the_login_token(keystone) -> None:
    keystone.get(f"{V3}/OS-REVOKE/events", json={"events": []})
    probe.probe(TARGET, revocation_for=["a"])
    listing = keystone.request_history[-1]
    assert listing.headers["X-Auth-Token"] == "tok-1"
    assert "since" in listing.qs
    assert keystone.call_count == 3


def test_a_login_answer_without_a_token(requests_mock) -> None:
    requests_mock.get(V3, json=VERSION)
    requests_mock.post(f"{V3}/auth/tokens", status_code=201, text="<html>")
    with pytest.raises(TargetError, match="no token in the answer"):
        probe.probe(TARGET)
