"""Tests for the keystone_perf_scope_roles context."""

from __future__ import annotations

import re

import pytest
from rally import exceptions

from rally_keystone_perf.plugins.contexts import scope_roles
from tests.unit.rally_fakes import AUTH_URL, TOKENS_URL, users_context

pytestmark = pytest.mark.usefixtures("fresh_sessions")
GRANTS = re.compile(f"{AUTH_URL}/(domains/[^/]+|system)/users/[^/]+/roles/[^/]+$")


@pytest.fixture
def keystone(requests_mock):
    """Keystone with a reader role, users in domain ``dom-<user id>``."""
    requests_mock.post(
        TOKENS_URL, status_code=201, headers={"X-Subject-Token": "ADMIN"}, json={}
    )
    requests_mock.get(
        f"{AUTH_URL}/roles?name=reader", json={"roles": [{"id": "R", "name": "reader"}]}
    )
    requests_mock.get(
        re.compile(f"{AUTH_URL}/users/[^/?]+$"),
        json=lambda req, _: {"user": {"domain_id": "dom-" + req.path.split("/")[3]}},
    )
    requests_mock.head(GRANTS, status_code=404)  # none held before
    requests_mock.put(GRANTS, status_code=204)
    requests_mock.delete(GRANTS, status_code=204)
    return requests_mock


def _calls(keystone, method: str) -> list[str]:
    return [r.path for r in keystone.request_history if r.method == method]


def test_grants_on_each_users_domain_and_the_system_then_revokes(keystone) -> None:
    ctx = users_context(tenants=1, users_per_tenant=2)
    made = scope_roles.KeystonePerfScopeRoles(ctx)
    made.config = {"scopes": ["domain", "system"], "role": "reader"}
    made.setup()
    granted = ctx["keystone_perf_scope_roles"]
    assert granted["domains"] == {"u1-1": "dom-u1-1", "u1-2": "dom-u1-2"}
    expected = [
        "/v3/domains/dom-u1-1/users/u1-1/roles/r",
        "/v3/system/users/u1-1/roles/r",
        "/v3/domains/dom-u1-2/users/u1-2/roles/r",
        "/v3/system/users/u1-2/roles/r",
    ]
    assert _calls(keystone, "PUT") == expected  # requests_mock lowers the path
    # every grant as the admin
    puts = [r for r in keystone.request_history if r.method == "PUT"]
    assert {r.headers["X-Auth-Token"] for r in puts} == {"ADMIN"}
    made.cleanup()
    assert _calls(keystone, "DELETE") == expected
    assert "keystone_perf_scope_roles" not in ctx


def test_each_grant_is_on_the_run_s_ledger_until_revoked(
    keystone, tmp_path, monkeypatch
) -> None:
    from rally_keystone_perf.deploy.faults import RUN_ENV
    from rally_keystone_perf.layout import grant_ledger
    from rally_keystone_perf.layout.rundir import RunDir

    run = RunDir(tmp_path)
    run.create()
    monkeypatch.setenv(RUN_ENV, str(tmp_path))
    written = []

    def granted(request, context) -> str:  # the ledger holds it already
        written.append(len(grant_ledger.read(run.scope_grants)))
        context.status_code = 204
        return ""

    keystone.put(GRANTS, text=granted)
    ctx = users_context(tenants=1, users_per_tenant=2)
    made = scope_roles.KeystonePerfScopeRoles(ctx)
    made.setup()
    assert written == [1, 2]
    assert [g.user_id for g in grant_ledger.read(run.scope_grants)] == ["u1-1", "u1-2"]
    keystone.delete(re.compile(f"{AUTH_URL}/domains/dom-u1-2/"), status_code=500)
    made.cleanup()  # the failed revoke stays for the own-cloud sweep
    (left,) = grant_ledger.read(run.scope_grants)
    assert left.path == "domains/dom-u1-2/users/u1-2/roles/R"


def test_the_default_is_the_reader_role_on_the_domain(keystone) -> None:
    ctx = users_context()
    made = scope_roles.KeystonePerfScopeRoles(ctx)
    assert (list(made.config["scopes"]), made.config["role"]) == (["domain"], "reader")
    made.setup()
    assert _calls(keystone, "PUT") == ["/v3/domains/dom-u1-1/users/u1-1/roles/r"]


def test_a_grant_already_gone_is_quiet_at_cleanup(keystone) -> None:
    ctx = users_context()
    made = scope_roles.KeystonePerfScopeRoles(ctx)
    made.setup()
    keystone.delete(GRANTS, status_code=404)
    made.cleanup()
    assert "keystone_perf_scope_roles" not in ctx


def test_a_cloud_without_the_role_fails_the_setup(requests_mock) -> None:
    requests_mock.post(
        TOKENS_URL, status_code=201, headers={"X-Subject-Token": "A"}, json={}
    )
    requests_mock.get(f"{AUTH_URL}/roles?name=reader", json={"roles": []})
    made = scope_roles.KeystonePerfScopeRoles(users_context())
    with pytest.raises(exceptions.ContextSetupFailure, match="no role 'reader'"):
        made.setup()


def test_a_role_the_user_already_holds_is_left_as_it_was(keystone) -> None:
    ctx = users_context(tenants=1, users_per_tenant=2)
    keystone.head(f"{AUTH_URL}/domains/dom-u1-2/users/u1-2/roles/R", status_code=204)
    made = scope_roles.KeystonePerfScopeRoles(ctx)
    made.setup()
    assert _calls(keystone, "PUT") == ["/v3/domains/dom-u1-1/users/u1-1/roles/r"]
    made.cleanup()
    assert _calls(keystone, "DELETE") == ["/v3/domains/dom-u1-1/users/u1-1/roles/r"]
