"""Tests for the shared scenario base: pre-issued tokens kept fresh."""

from __future__ import annotations

import time

import pytest
from keystoneauth1 import exceptions as ks_exc

from rally_keystone_perf.client import atomics, keystone_v3
from rally_keystone_perf.plugins.scenarios import base, identity, tokens
from tests.unit.rally_fakes import (
    ADMIN_TOKEN,
    AUTH_URL,
    TOKENS_URL,
    atomic_names,
    body,
    scenario_context,
)

PROJECTS_URL = f"{AUTH_URL}/projects"

pytestmark = pytest.mark.usefixtures("fresh_sessions")


@pytest.fixture(autouse=True)
def no_refreshed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(base, "_REFRESHED", {})


def _context(refresh_in: float | None, refresh: bool = True) -> dict:
    ctx = scenario_context()
    pool = ctx["keystone_perf_tokens"]
    pool["refresh"] = refresh
    when = None if refresh_in is None else time.time() + refresh_in
    pool["refresh_at"] = {ADMIN_TOKEN: when}
    for user_tokens in pool["users"].values():
        for token in user_tokens:
            pool["refresh_at"][token] = when
    return ctx


@pytest.fixture
def keystone(requests_mock):
    requests_mock.get(PROJECTS_URL, json={"projects": []})
    requests_mock.post(
        TOKENS_URL,
        status_code=201,
        headers={"X-Subject-Token": "FRESH"},
        json={"token": {"expires_at": "2999-01-01T00:00:00Z"}},
    )
    return requests_mock


def test_a_token_far_from_expiry_is_used_as_is(keystone) -> None:
    scen = identity.ListProjects(_context(refresh_in=3600))
    scen.run()
    assert keystone.call_count == 1
    assert keystone.last_request.headers["X-Auth-Token"] == ADMIN_TOKEN
    assert atomic_names(scen) == [atomics.LIST_PROJECTS]


def test_a_token_about_to_expire_is_replaced_once(keystone) -> None:
    ctx = _context(refresh_in=-1)
    scen = identity.ListProjects(ctx)
    scen.run()
    # one refresh (timed apart), then the measured request with the new token
    refresh, listing = keystone.request_history
    assert (refresh.method, refresh.url) == ("POST", TOKENS_URL)
    assert body(refresh)["auth"]["identity"]["password"]["user"]["name"] == "admin"
    assert listing.headers["X-Auth-Token"] == "FRESH"
    assert atomic_names(scen) == [atomics.REFRESH_TOKEN, atomics.LIST_PROJECTS]
    # the next iteration of this process reuses the replacement
    again = identity.ListProjects(ctx)
    again.run()
    assert keystone.call_count == 3
    assert keystone.last_request.headers["X-Auth-Token"] == "FRESH"
    assert atomic_names(again) == [atomics.LIST_PROJECTS]


def test_user_tokens_are_refreshed_with_the_users_credential(keystone) -> None:
    keystone.get(TOKENS_URL, json={"token": {}})
    scen = tokens.ValidateToken(_context(refresh_in=-5))
    scen.run(validator="self")
    names = [
        body(r)["auth"]["identity"]["password"]["user"]["name"]
        for r in keystone.request_history
        if r.method == "POST"
    ]
    assert names == ["user1-1"]
    check = keystone.last_request
    assert check.headers["X-Auth-Token"] == check.headers["X-Subject-Token"] == "FRESH"


@pytest.mark.parametrize(
    ("issued", "expires", "refresh_at"),
    [
        # an hour's token: 30 s before it expires
        ("2026-11-22T08:00:00Z", "2026-11-22T09:00:00.000000Z", 1795337970.0),
        # a 20 s token: half-way (10 s before)
        ("2026-11-22T08:59:40Z", "2026-11-22T09:00:00Z", 1795337990.0),
        (None, "2026-11-22T09:00:00Z", 1795337970.0),
        ("2026-11-22T08:00:00Z", None, None),
    ],
)
def test_refresh_time(issued, expires, refresh_at) -> None:
    token = {"issued_at": issued, "expires_at": expires}
    assert keystone_v3.refresh_time({"token": token}) == refresh_at
    assert keystone_v3.refresh_time("not a body") is None


def test_unknown_expiry_is_never_refreshed(keystone) -> None:
    identity.ListProjects(_context(refresh_in=None)).run()
    assert keystone.call_count == 1


def test_refresh_off_keeps_the_first_token_and_fails_with_401(requests_mock) -> None:
    requests_mock.get(PROJECTS_URL, status_code=401, json={})
    scen = identity.ListProjects(_context(refresh_in=-10, refresh=False))
    with pytest.raises(ks_exc.Unauthorized):
        scen.run()
    assert requests_mock.call_count == 1
    assert requests_mock.last_request.headers["X-Auth-Token"] == ADMIN_TOKEN


def test_threads_finding_a_stale_token_refresh_it_once(keystone) -> None:
    import threading

    ctx = _context(refresh_in=-1)
    start = threading.Barrier(8)

    def iteration() -> None:
        scen = identity.ListProjects(ctx)
        start.wait()
        scen.run()

    threads = [threading.Thread(target=iteration) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    posts = [r for r in keystone.request_history if r.method == "POST"]
    assert len(posts) == 1
    gets = [r for r in keystone.request_history if r.method == "GET"]
    assert {r.headers["X-Auth-Token"] for r in gets} == {"FRESH"}
