"""Seed 001's bundled task files: the sequential tests and the req/s table.

Seed 001 timed 100 user creations, 100 token creations and 100 token
validations one after another (its table: seconds per 100 items, UUID vs
PKI tokens, SQL vs LDAP identity), then the most ``token_authenticate`` and
``revocation_list_get`` requests per second Keystone served, its clients
sending requests back to back for 20 s. Here:

``<scenario>-serial-<size>.json``
    Rally's ``serial`` runner (one iteration at a time: concurrency 1), 100
    times in ``full`` size, 20 in ``quick``. 100 x the report's mean is the
    seed's figure. ``create-delete-user`` needs an SQL identity backend:
    Keystone's LDAP identity driver is read-only.
``<scenario>-throughput-c8-<size>.json``
    ``constant_for_duration`` at concurrency 8 for 20 s (``quick``: 5 s);
    the report's throughput is the seed's requests per second.
    ``list_revocation_events`` (``GET /v3/OS-REVOKE/events``) is the
    successor of the PKI revocation list, and the listing's cost grows with
    the events, so the ``keystone_perf_revocations`` context adds some first.
"""

from __future__ import annotations

from typing import Any

from rally_keystone_perf.tasks.seed_plans import ScenarioPlan

SEED = "001"
SERIAL_TIMES = {"full": 100, "quick": 20}  # the seed's 100 items in a row
THROUGHPUT_CONCURRENCY = 8  # one fixed level for the req/s table
THROUGHPUT_SECONDS = {"full": 20, "quick": 5}  # the seed ran its clients 20 s
REVOCATION_EVENTS = {"full": 100, "quick": 20}
# a sequential test needs few users: Rally's round robin cycles through them
SEQUENTIAL_USERS = {"keystone_perf_users": {"tenants": 1, "users_per_tenant": 4}}
SQL_ONLY = (
    "Needs an SQL identity backend (Keystone's default): Keystone's LDAP "
    "identity driver is read-only, and with --identity ldap the suite refuses "
    "this task."
)


class Sequential(ScenarioPlan):
    """One iteration after another: Rally's ``serial`` runner (concurrency 1)."""

    def runner(self, concurrency: int, size: str) -> dict[str, Any]:
        return {"serial": {"times": SERIAL_TIMES[size]}}

    def size_note(self, size: str) -> str:
        if size == "full":
            return (
                "100 times, as seed 001 timed 100 items in a row (its table's "
                "seconds per 100 items: 100 x the mean)"
            )
        return "20 times (seed 001: 100 in a row)"

    def level_name(self, concurrency: int) -> str:
        return "serial"

    def level_title(self, concurrency: int) -> str:
        return "serial"

    def level_text(self, concurrency: int) -> str:
        return "one iteration at a time (Rally's serial runner: concurrency 1)"


class SequentialUsers(Sequential):
    """Seed 001's user creation: the create/delete cycle's contexts."""

    def contexts(self, size: str) -> dict[str, Any]:
        return {"users": {"tenants": 1, "users_per_tenant": 1}}


class SequentialTokens(Sequential):
    """Seed 001's token generation: a few users, round robin."""

    def contexts(self, size: str) -> dict[str, Any]:
        return dict(SEQUENTIAL_USERS)


class SequentialValidations(Sequential):
    """Seed 001's token validation: every iteration a token not validated yet."""

    def contexts(self, size: str) -> dict[str, Any]:
        # the seed validated each of its 100 tokens once: as many tokens as
        # iterations, which the scenario's round robin takes in turn
        users = SEQUENTIAL_USERS["keystone_perf_users"]["users_per_tenant"]
        per_user = -(-SERIAL_TIMES[size] // users)  # ceiling
        return {
            **SEQUENTIAL_USERS,
            "keystone_perf_tokens": {"tokens_per_user": per_user},
        }


class Throughput(ScenarioPlan):
    """Requests per second at one concurrency: ``constant_for_duration``."""

    def runner(self, concurrency: int, size: str) -> dict[str, Any]:
        return {
            "constant_for_duration": {
                "duration": THROUGHPUT_SECONDS[size],
                "concurrency": concurrency,
            }
        }

    def size_note(self, size: str) -> str:
        if size == "full":
            return (
                "20 s of load, as seed 001 ran its clients (the report's "
                "throughput is its requests per second)"
            )
        return "5 s of load (seed 001: 20 s)"

    def level_name(self, concurrency: int) -> str:
        return f"throughput-c{concurrency}"


class ThroughputTokens(Throughput):
    """Seed 001's token_authenticate per second."""

    def contexts(self, size: str) -> dict[str, Any]:
        return {"keystone_perf_users": {"tenants": 1, "users_per_tenant": 8}}


class ThroughputRevocations(Throughput):
    """Seed 001's revocation_list_get per second, as revocation events."""

    def contexts(self, size: str) -> dict[str, Any]:
        events = REVOCATION_EVENTS[size]
        return {"keystone_perf_revocations": {"events": events}}

    def size_note(self, size: str) -> str:
        return (
            f"{super().size_note(size)}, with {REVOCATION_EVENTS[size]} "
            "revocation events added before the load"
        )


PLANS: tuple[ScenarioPlan, ...] = (
    SequentialUsers(
        "create-delete-user",
        "KeystonePerf.create_delete_user",
        SEED,
        (1,),
        "User create and delete in a row: POST /v3/users, DELETE /v3/users/{id}",
        SQL_ONLY,
    ),
    SequentialTokens(
        "create-token",
        "KeystonePerf.create_token",
        SEED,
        (1,),
        "Token creation in a row: one POST /v3/auth/tokens per iteration",
    ),
    SequentialValidations(
        "validate-token",
        "KeystonePerf.validate_token",
        SEED,
        (1,),
        "Token validation in a row: one GET /v3/auth/tokens per iteration, "
        "each of a token not validated before",
    ),
    ThroughputTokens(
        "create-token",
        "KeystonePerf.create_token",
        SEED,
        (THROUGHPUT_CONCURRENCY,),
        "Token creations per second (seed 001's token_authenticate): one POST "
        "/v3/auth/tokens per iteration",
    ),
    ThroughputRevocations(
        "list-revocation-events",
        "KeystonePerf.list_revocation_events",
        SEED,
        (THROUGHPUT_CONCURRENCY,),
        "Revocation lists per second (seed 001's revocation_list_get, whose "
        "successor is GET /v3/OS-REVOKE/events): one listing per iteration",
    ),
)
