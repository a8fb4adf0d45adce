"""The mix of operations an access log shows, for ``KeystonePerf.mix``.

Each request maps to an operation by its method and route (:data:`ROUTES`;
ids, a path's prefix before ``/v3`` and the query string set aside). A log
cannot tell everything; what it cannot, follows a stated default:

* ``POST /v3/auth/tokens`` is a password login, project-scoped
  (``create_token``), unless ``auth`` says an application credential's
  (``authenticate_application_credential``);
* ``GET`` and ``HEAD /v3/auth/tokens`` are validations as the admin does
  them (``validate_token``), whoever validated.

The shares are of requests. An operation of two requests is counted by
its second one, and its first one taken off its own route's count:
``revoke_token`` (a login, then its revocation) by ``DELETE
/v3/auth/tokens``, a login fewer per revocation; ``create_delete_user`` by
each pair of ``POST /v3/users`` and ``DELETE /v3/users/{id}`` (those left
unpaired are listed as unmapped). Every other route is counted and listed
as unmapped, never dropped silently.

The rate is that of the log's busiest minute, in operations a second.
"""

from __future__ import annotations

import collections
import re
from collections.abc import Iterable
from dataclasses import dataclass

from rally_keystone_perf.report.readers.access_log import ServerRequest

LOGIN = "POST /v3/auth/tokens"
REVOKE = "DELETE /v3/auth/tokens"
CREATE_USER, DELETE_USER = "POST /v3/users", "DELETE /v3/users/{id}"
ROUTES = {  # a request's route -> its operation (one request each)
    "GET /v3/auth/tokens": "validate_token",
    "HEAD /v3/auth/tokens": "validate_token",
    "GET /v3/projects": "list_projects",
    "GET /v3/role_assignments": "list_role_assignments",
    "GET /v3/auth/projects": "list_auth_projects",
    "GET /v3/auth/catalog": "get_catalog",
    "GET /v3/OS-REVOKE/events": "list_revocation_events",
}
AUTH_OPERATIONS = ("create_token", "authenticate_application_credential")
AUTH = AUTH_OPERATIONS[0]  # a login, unless said otherwise: a password's
_ID = re.compile(r"^(?:[0-9a-fA-F]{32}|[0-9a-fA-F-]{36}|\d+)$")
MINUTE = 60.0


@dataclass(frozen=True)
class TrafficMix:
    """What a log's requests make: each operation's count (its weight),
    the requests it stands for, the unmapped routes' counts, and the
    busiest minute's rate of operations a second."""

    operations: dict[str, int]
    requests: int  # every request of the log
    mapped: int  # the requests the operations stand for
    unmapped: dict[str, int]  # route -> requests, most first
    rate: float  # operations a second in the busiest minute
    busiest: float  # that minute's start, seconds since the epoch


def route(request: ServerRequest) -> str:
    """``METHOD /v3/...`` with ids as ``{id}`` and any prefix before
    ``/v3`` (``/identity/v3``) left out."""
    path = request.path
    start = path.find("/v3/") if not path.endswith("/v3") else len(path) - 3
    path = path[start:] if start >= 0 else path
    parts = path.rstrip("/").split("/")
    parts = ["{id}" if _ID.match(part) else part for part in parts]
    return f"{request.method} {'/'.join(parts) or '/'}"


def _counted(routes: collections.Counter[str], auth: str) -> dict[str, int]:
    """Each operation's count, two-request ones taken off (module doc)."""
    found: collections.Counter[str] = collections.Counter()
    for name, count in routes.items():
        if name in ROUTES:
            found[ROUTES[name]] += count
    revokes = min(routes[REVOKE], routes[LOGIN])
    found["revoke_token"] = revokes
    found[auth] = routes[LOGIN] - revokes
    found["create_delete_user"] = min(routes[CREATE_USER], routes[DELETE_USER])
    return {name: count for name, count in found.most_common() if count}


def _unmapped(routes: collections.Counter[str], ops: dict[str, int]) -> dict[str, int]:
    """The requests no operation stands for, by route, most first."""
    left = collections.Counter(
        {r: n for r, n in routes.items() if r not in ROUTES and r != LOGIN}
    )
    left[REVOKE] -= ops.get("revoke_token", 0)
    for name in (CREATE_USER, DELETE_USER):
        left[name] -= ops.get("create_delete_user", 0)
    return {name: count for name, count in left.most_common() if count > 0}


def _busiest(requests: Iterable[ServerRequest], share: float) -> tuple[float, float]:
    """The busiest minute's operations a second (``share``: operations per
    request) and when it began."""
    minutes = collections.Counter(int(r.start // MINUTE) for r in requests)
    minute, count = max(minutes.items(), key=lambda item: (item[1], -item[0]))
    return count * share / MINUTE, minute * MINUTE


def traffic_mix(requests: list[ServerRequest], auth: str = AUTH) -> TrafficMix:
    """The log's mix (see the module's doc); ``auth`` the operation a
    login maps to (:data:`AUTH_OPERATIONS`).

    :raises ValueError: no request, or none of a known route (the counts
        by route said).
    """
    if auth not in AUTH_OPERATIONS:
        raise ValueError(f"auth: {auth!r} is not one of {', '.join(AUTH_OPERATIONS)}")
    if not requests:
        raise ValueError("the log holds no request")
    routes = collections.Counter(route(r) for r in requests)
    operations = _counted(routes, auth)
    unmapped = _unmapped(routes, operations)
    mapped = len(requests) - sum(unmapped.values())
    if not operations:
        counts = ", ".join(f"{name} {n}" for name, n in routes.most_common(10))
        raise ValueError(f"no request maps to an operation of the mix: {counts}")
    rate, busiest = _busiest(requests, sum(operations.values()) / len(requests))
    return TrafficMix(operations, len(requests), mapped, unmapped, rate, busiest)
