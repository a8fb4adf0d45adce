"""Tests for the keystone_perf_app_credentials and keystone_perf_service_user
contexts, and the tokens the keystone_perf_tokens context issues with them."""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest
from rally import exceptions

from rally_keystone_perf.plugins.contexts import app_credentials, service_user, tokens
from tests.unit.rally_fakes import AUTH_URL, TOKENS_URL, body, users_context

pytestmark = pytest.mark.usefixtures("fresh_sessions")
RALLY_NAME = re.compile(r"c_rally_58289582_[A-Za-z0-9]{8}$")  # TASK_UUID's


@pytest.fixture
def keystone(requests_mock):
    """Keystone issuing ``<name>#<n>`` tokens and making credentials."""
    counter = itertools.count(1)

    def issue(request, context) -> dict[str, Any]:
        identity = body(request)["auth"]["identity"]
        if identity["methods"] == ["application_credential"]:
            name = identity["application_credential"]["id"]
        else:
            name = identity["password"]["user"]["name"]
        context.status_code = 201
        context.headers["X-Subject-Token"] = f"{name}#{next(counter)}"
        return {"token": {}}

    def make(request, context) -> dict[str, Any]:
        user_id = request.path.split("/")[3]
        context.status_code = 201
        return {
            "application_credential": {"id": f"ac-{user_id}", "secret": "the-SECRET-1"}
        }

    requests_mock.post(TOKENS_URL, json=issue)
    requests_mock.post(
        re.compile(f"{AUTH_URL}/users/[^/]+/application_credentials$"), json=make
    )
    requests_mock.delete(
        re.compile(f"{AUTH_URL}/users/[^/]+/application_credentials/"),
        status_code=204,
    )
    return requests_mock


def test_each_user_makes_its_own_credential_and_deletes_it(keystone) -> None:
    ctx = users_context(tenants=1, users_per_tenant=2)
    made = app_credentials.KeystonePerfAppCredentials(ctx)
    made.setup()
    creds = ctx["keystone_perf_app_credentials"]
    assert sorted(creds) == ["u1-1", "u1-2"]
    assert creds["u1-1"].id == "ac-u1-1" and creds["u1-1"].secret == "the-SECRET-1"
    assert all(RALLY_NAME.match(c.name) for c in creds.values())
    posts = [r for r in keystone.request_history if "application_cred" in r.url]
    # each made with its own user's token
    assert [r.headers["X-Auth-Token"] for r in posts] == ["user1-1#1", "user1-2#2"]
    assert "the-SECRET-1" not in repr(creds)
    made.cleanup()
    deletes = [r for r in keystone.request_history if r.method == "DELETE"]
    assert [r.path for r in deletes] == [
        "/v3/users/u1-1/application_credentials/ac-u1-1",
        "/v3/users/u1-2/application_credentials/ac-u1-2",
    ]
    assert "keystone_perf_app_credentials" not in ctx


def test_cleanup_of_a_credential_already_gone_is_quiet(keystone) -> None:
    ctx = users_context()
    made = app_credentials.KeystonePerfAppCredentials(ctx)
    made.setup()
    keystone.delete(
        re.compile(f"{AUTH_URL}/users/[^/]+/application_credentials/"),
        status_code=404,
        json={},
    )
    made.cleanup()  # its user deleted first: Keystone deleted the credential


def test_the_tokens_context_issues_app_credential_and_service_tokens(
    keystone,
) -> None:
    ctx = users_context(tenants=1, users_per_tenant=2)
    app_credentials.KeystonePerfAppCredentials(ctx).setup()
    ctx["keystone_perf_service_user"] = {
        "credential": {
            "auth_url": AUTH_URL,
            "username": "svc",
            "password": "pw",
            "tenant_name": "svcproject",
        }
    }
    ctx["config"] = {"keystone_perf_tokens": {"tokens_per_user": 2}}
    tokens.KeystonePerfTokens(ctx).setup()
    pool = ctx["keystone_perf_tokens"]
    assert pool["app_credential"] == {
        "u1-1": ["ac-u1-1#8", "ac-u1-1#9"],
        "u1-2": ["ac-u1-2#10", "ac-u1-2#11"],
    }
    assert pool["service"] == "svc#12"


@pytest.fixture
def admin_api(requests_mock):
    requests_mock.post(
        TOKENS_URL, status_code=201, headers={"X-Subject-Token": "ADMIN"}, json={}
    )
    requests_mock.get(
        f"{AUTH_URL}/roles?name=service",
        json={"roles": [{"id": "r-svc", "name": "service"}]},
    )
    requests_mock.post(
        f"{AUTH_URL}/projects", status_code=201, json={"project": {"id": "p-svc"}}
    )
    requests_mock.post(
        f"{AUTH_URL}/users", status_code=201, json={"user": {"id": "u-svc"}}
    )
    requests_mock.put(
        f"{AUTH_URL}/projects/p-svc/users/u-svc/roles/r-svc", status_code=204
    )
    requests_mock.delete(f"{AUTH_URL}/users/u-svc", status_code=204)
    requests_mock.delete(f"{AUTH_URL}/projects/p-svc", status_code=404, json={})
    return requests_mock


def test_the_service_user_is_made_granted_and_deleted(admin_api) -> None:
    ctx = users_context()
    ctx["config"] = {"keystone_perf_service_user": {"role": "service"}}
    made = service_user.KeystonePerfServiceUser(ctx)
    made.setup()
    record = ctx["keystone_perf_service_user"]
    assert (record["user_id"], record["project_id"]) == ("u-svc", "p-svc")
    credential = record["credential"]
    assert RALLY_NAME.match(credential["username"])
    assert RALLY_NAME.match(credential["tenant_name"])
    sent = [body(r) for r in admin_api.request_history if r.path == "/v3/users"]
    assert sent[0]["user"]["default_project_id"] == "p-svc"
    assert admin_api.request_history[-1].method == "PUT"  # the role granted
    made.cleanup()
    assert [r.path for r in admin_api.request_history if r.method == "DELETE"] == [
        "/v3/users/u-svc",
        "/v3/projects/p-svc",
    ]


def test_a_cloud_without_the_role_is_refused(admin_api) -> None:
    admin_api.get(f"{AUTH_URL}/roles?name=service", json={"roles": []})
    ctx = users_context()
    ctx["config"] = {"keystone_perf_service_user": {"role": "service"}}
    with pytest.raises(exceptions.ContextSetupFailure, match="no role 'service'"):
        service_user.KeystonePerfServiceUser(ctx).setup()
