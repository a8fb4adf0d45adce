"""The mix of operations an access log shows (``tasks --from-log``)."""

from __future__ import annotations

import collections

import pytest

from rally_keystone_perf.report.figures import traffic_mix as t
from rally_keystone_perf.report.readers.access_log import ServerRequest

ID = "0123456789abcdef0123456789abcdef"
REQUESTS_PER_OPERATION = {"revoke_token": 2, "create_delete_user": 2}


def _log(*routes: tuple[str, int], start: float = 0.0, step: float = 1.0) -> list:
    found, at = [], start
    for route, count in routes:
        method, path = route.split(" ", 1)
        for _ in range(count):
            found.append(ServerRequest(at, method, path, 200, 0.01, 1))
            at += step
    return found


def test_routes_map_to_operations_ids_and_prefixes_aside() -> None:
    requests = _log(
        ("GET /identity/v3/auth/tokens", 50),
        ("HEAD /v3/auth/tokens", 10),
        ("POST /v3/auth/tokens", 20),
        (f"GET /v3/users/{ID}/projects", 4),
        ("GET /v3/auth/catalog", 6),
    )
    mix = t.traffic_mix(requests)
    assert mix.operations == {
        "validate_token": 60,
        "create_token": 20,
        "get_catalog": 6,
    }
    assert mix.unmapped == {"GET /v3/users/{id}/projects": 4}
    assert (mix.requests, mix.mapped) == (90, 86)
    login = t.traffic_mix(requests, "authenticate_application_credential")
    assert login.operations["authenticate_application_credential"] == 20


def test_two_request_operations_take_their_first_request_off() -> None:
    requests = _log(
        ("POST /v3/auth/tokens", 30),
        ("DELETE /v3/auth/tokens", 10),
        ("POST /v3/users", 5),
        (f"DELETE /v3/users/{ID}", 4),
    )
    mix = t.traffic_mix(requests)
    assert mix.operations == {
        "create_token": 20,
        "revoke_token": 10,
        "create_delete_user": 4,
    }
    assert mix.unmapped == {"POST /v3/users": 1}
    # the operations send the log's requests again, route by route
    sent = collections.Counter()
    for name, count in mix.operations.items():
        sent[name] += count * REQUESTS_PER_OPERATION.get(name, 1)
    assert sum(sent.values()) == mix.mapped == 48


def test_the_rate_is_the_busiest_minute_s_in_operations() -> None:
    quiet = _log(("GET /v3/auth/tokens", 30), step=2.0)  # 30 a minute
    busy = _log(("GET /v3/auth/tokens", 90), ("GET /v3", 30), start=600.0, step=0.5)
    mix = t.traffic_mix(quiet + busy)
    # 120 requests in the minute from 600 s; 120 operations of 150 requests
    assert mix.busiest == 600.0
    assert mix.rate == pytest.approx(120 * (120 / 150) / 60)


def test_a_log_of_no_known_route_is_refused_with_its_routes() -> None:
    with pytest.raises(ValueError, match="GET /v3 3"):
        t.traffic_mix(_log(("GET /v3", 3)))
    with pytest.raises(ValueError, match="no request"):
        t.traffic_mix([])
    with pytest.raises(ValueError, match="auth"):
        t.traffic_mix(_log(("GET /v3/auth/tokens", 1)), "oauth")
