"""Tests for the keystone_perf_revocations context."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from rally import exceptions
from rally.task import context

from rally_keystone_perf.plugins.contexts import revocations
from tests.unit.rally_fakes import AUTH_URL, TOKENS_URL, body, users_context

pytestmark = pytest.mark.usefixtures("fresh_sessions")


EVENTS_URL = f"{AUTH_URL}/OS-REVOKE/events"


@pytest.fixture
def keystone(requests_mock):
    """Keystone issuing ``T<n>`` tokens; each revocation adds two events."""
    counter = itertools.count(1)
    events: list[dict[str, str]] = []

    def issue(request, ctx) -> dict[str, Any]:
        ctx.status_code = 201
        ctx.headers["X-Subject-Token"] = f"T{next(counter)}"
        return {"token": {}}

    def revoke(request, ctx) -> str:
        token = request.headers["X-Subject-Token"]
        events.extend([{"audit_id": token}, {"audit_chain_id": token}])
        ctx.status_code = 204
        return ""

    requests_mock.post(TOKENS_URL, json=issue)
    requests_mock.delete(TOKENS_URL, text=revoke)
    requests_mock.get(EVENTS_URL, json=lambda request, ctx: {"events": events})
    return requests_mock


def _setup(config: dict[str, Any], ctx: dict[str, Any]) -> dict[str, Any]:
    plugin = revocations.KeystonePerfRevocations(ctx)
    plugin.config = {**revocations.KeystonePerfRevocations.DEFAULT_CONFIG, **config}
    plugin.setup()
    return ctx


def test_registered() -> None:
    plugin = context.Context.get("keystone_perf_revocations", platform="openstack")
    assert plugin is revocations.KeystonePerfRevocations


def test_revokes_tokens_minted_from_the_admin_token(keystone) -> None:
    ctx = _setup({"events": 10, "workers": 2}, users_context())
    history = keystone.request_history
    assert body(history[0])["auth"]["identity"]["methods"] == ["password"]
    minted = [r for r in history[1:] if r.method == "POST"]
    revoked = [r for r in history if r.method == "DELETE"]
    # two events per revocation: five tokens make ten events
    assert len(minted) == len(revoked) == 5
    for request in minted:  # the token method: no password check per event
        assert body(request)["auth"]["identity"] == {
            "methods": ["token"],
            "token": {"id": "T1"},
        }
    assert {r.headers["X-Auth-Token"] for r in revoked} == {"T1"}
    assert sorted(r.headers["X-Subject-Token"] for r in revoked) == sorted(
        f"T{n}" for n in range(2, 7)
    )
    assert ctx["keystone_perf_revocations"]["events"] == 10
    assert ctx["keystone_perf_revocations"]["tokens"] == 5


def test_an_odd_count_rounds_up(keystone) -> None:
    ctx = _setup({"events": 7}, users_context())
    assert ctx["keystone_perf_revocations"] == {
        "events": 8,
        "tokens": 4,
        "seconds": ctx["keystone_perf_revocations"]["seconds"],
    }


def test_no_events_is_one_login(keystone) -> None:
    ctx = _setup({"events": 0}, users_context())
    assert keystone.call_count == 1
    assert ctx["keystone_perf_revocations"]["events"] == 0


def test_a_list_keystone_cannot_serve_is_a_clear_setup_failure(keystone) -> None:
    """Keystone with memcached past ~8000 events: the listing answers 500."""
    keystone.get(EVENTS_URL, status_code=500, json={"error": {"code": 500}})
    with pytest.raises(exceptions.ContextSetupFailure, match="answered 500.*1 MB"):
        _setup({"events": 4}, users_context())


def test_needs_the_admin(keystone) -> None:
    ctx = users_context()
    del ctx["admin"]
    with pytest.raises(exceptions.ContextSetupFailure, match="admin credential"):
        _setup({"events": 1}, ctx)
    assert keystone.call_count == 0


@pytest.mark.parametrize(
    ("config", "detail"),
    [
        ({}, "'events' is a required property"),
        ({"events": -1}, "less than the minimum of 0"),
        ({"events": 1, "workers": 0}, "less than the minimum of 1"),
        ({"events": 1, "x": 1}, "'x' was unexpected"),
    ],
)
def test_the_schema_refuses_bad_sizes(config: dict, detail: str) -> None:
    errors = context.Context.validate(
        name=revocations.CONTEXT_REF,
        context=None,
        config=None,
        plugin_cfg=config,
        vtype="syntax",
    )
    assert len(errors) == 1 and detail in errors[0]
