"""Seed 001 on this machine: its sequential table and the revocation cost.

``sequential``: for SQL vs LDAP identity and fernet vs JWS tokens (uwsgi
mode, stock Keystone: bcrypt's default cost for SQL passwords, slapd's
salted SHA for LDAP ones), runs the bundled ``*-serial-<size>.json`` task
files of tasks/uwsgi/ and prints seconds per 100 items (100 x the mean of
the operation's atomic action) beside seed 001's own figures, with the
ratios that can be compared across hardware: LDAP/SQL and JWS/fernet (the
seed's PKI/UUID). Each Keystone starts with a 12 x 512 user pool, so the
time to make 6144 users (in SQL, or slapadd into LDAP) is printed too.

``revocation``: one Keystone per cache setting (Keystone's default
request-local cache, memcached); revocation events are added in steps
(``--events``, cumulative) and at each size token validations and
revocation listings are timed one at a time: client and server median.
The full size's 10000 events take most of an hour to add on 2 cores with
Keystone's default cache (each revocation validates the admin token twice).

Usage: python -m benchmarks.seed001 [--part sequential|revocation|all]
[--size quick|full] [--events 0,1000,10000] [--runs-dir DIR]
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from keystoneauth1 import exceptions as ks_exceptions
from prettytable import PrettyTable

from benchmarks.harness import Bench, atomic_durations, echo, keystone, median_ms
from rally_keystone_perf import paths
from rally_keystone_perf.client import atomics, keystone_v3
from rally_keystone_perf.deploy.options import LaunchOptions
from rally_keystone_perf.report.readers import rally_json

SOURCE = "../shared/seeds/001_*.txt, 'Compare PKI vs UUID, SQL vs LDAP'"
ROWS = {  # the seed's row -> our serial task file and the atomic it times
    "user creation": ("create-delete-user", atomics.CREATE_USER),
    "token generation": ("create-token", atomics.CREATE_TOKEN),
    "token validation": ("validate-token", atomics.VALIDATE_TOKEN),
}
# seconds per 100 items, Havana on devstack (its "Performances results")
SEED = {
    ("sql", "uuid"): {"user creation": 31.35, "token generation": 29.73,
                      "token validation": 2.32},
    ("ldap", "uuid"): {"user creation": 29.36, "token generation": 27.74,
                       "token validation": 2.29},
    ("sql", "pki"): {"user creation": 31.34, "token generation": 32.27,
                     "token validation": 2.86},
    ("ldap", "pki"): {"user creation": 29.39, "token generation": 30.40,
                      "token validation": 2.84},
}  # fmt: skip
CONFIGS = [("sql", "fernet"), ("sql", "jws"), ("ldap", "fernet"), ("ldap", "jws")]
POOL = (12, 512)  # seed 000's 6144 users


def _per_100(workload: rally_json.Workload, atomic: str) -> float:
    durations = atomic_durations(workload)[atomic]
    return 100 * statistics.mean(durations) if durations else float("nan")


def measure_config(identity: str, provider: str, size: str, runs: Path | None) -> dict:
    """Seconds per 100 items of each row on one Keystone, and its pool's time."""
    options = LaunchOptions(identity=identity, token_provider=provider, user_pool=POOL)
    found: dict[str, float] = {}
    with keystone(options, runs) as bench:
        for row, (slug, atomic) in ROWS.items():
            if identity == "ldap" and slug == "create-delete-user":
                continue  # Keystone's LDAP identity driver is read-only
            task = paths.tasks_dir() / "uwsgi" / f"{slug}-serial-{size}.json"
            outcome = bench.rally.start_task(task)
            if outcome.report is None:
                raise SystemExit(f"{task} produced no report")
            (workload,) = rally_json.load_report(outcome.report)
            found[row] = _per_100(workload, atomic)
        found["pool"] = float((bench.run.state().user_pool or {}).get("seconds", 0))
    return found


def _ratio(ours: float, base: float) -> str:
    return f"{ours / base:.2f}" if base and ours == ours else "-"


def sequential_table(ours: dict[tuple[str, str], dict[str, float]]) -> PrettyTable:
    """Ours (fernet, JWS) and the seed's (UUID, PKI), with comparable ratios."""
    table = PrettyTable(
        ["seconds / 100", *(f"{i} {p}" for i, p in CONFIGS)]
        + ["seed SQL UUID", "seed SQL PKI", "seed LDAP UUID", "seed LDAP PKI"]
        + ["LDAP/SQL", "seed LDAP/SQL", "JWS/fernet", "seed PKI/UUID"]
    )
    for row in ROWS:
        mine = [ours[c].get(row, float("nan")) for c in CONFIGS]
        seed = [SEED[k][row] for k in (("sql", "uuid"), ("sql", "pki"),
                                       ("ldap", "uuid"), ("ldap", "pki"))]  # fmt: skip
        table.add_row(
            [row, *(f"{v:.2f}" if v == v else "n/a (read-only)" for v in mine)]
            + [f"{v:.2f}" for v in seed]
            + [_ratio(mine[2], mine[0]), _ratio(seed[2], seed[0])]
            + [_ratio(mine[1], mine[0]), _ratio(seed[1], seed[0])]
        )
    table.add_row(
        [f"user pool {POOL[0]}x{POOL[1]} (s)"]
        + [f"{ours[c]['pool']:.1f}" for c in CONFIGS]
        + ["-"] * 8
    )
    return table


def _serial(name: str, times: int, contexts: dict) -> dict:
    return {
        "scenario": {name: {}},
        "runner": {"serial": {"times": times}},
        "contexts": contexts,
        "sla": {"failure_rate": {"max": 0}},
    }


def _events_now(bench: Bench) -> str:
    """How many revocation events Keystone lists, or why it cannot list them.

    With memcached, Keystone caches the whole list as one item: past
    memcached's 1 MB item limit (about 8000 events) the listing answers 500.
    """
    secret = json.loads(bench.run.admin_secret.read_text())
    identity = keystone_v3.IdentityClient(
        keystone_v3.shared_session(), str(bench.run.state().auth_url)
    )
    user = keystone_v3.PasswordUser(
        secret["username"], secret["password"], project_name="admin"
    )
    token = identity.create_token(user)
    try:
        return str(len(identity.list_revocation_events(token)))
    except ks_exceptions.HttpError as exc:
        return f"? (listing: HTTP {exc.http_status})"


def _medians(bench: Bench, workload: rally_json.Workload, atomic: str) -> list[str]:
    """The atomic's client median and its route's server median, in ms."""
    route = atomics.ROUTES[atomic]
    failed = sum(1 for it in workload.iterations if it.error)
    if failed:
        return [f"{failed} of {len(workload.iterations)} failed", "-"]
    server = [
        r.server_time for r in bench.server_requests(workload) if r.route == route
    ]
    client_ms = median_ms(atomic_durations(workload)[atomic])
    return [f"{client_ms:.1f}", f"{median_ms(server):.1f}"]


def measure_revocation(
    cache: str, steps: list[int], times: int, runs: Path | None
) -> list[list[str]]:
    """Rows of (cache, events, validation and listing medians) for one Keystone."""
    rows = []
    users = {"keystone_perf_users": {"tenants": 1, "users_per_tenant": 4}}
    tokens = {**users, "keystone_perf_tokens": {"tokens_per_user": -(-times // 4)}}
    with keystone(LaunchOptions(cache=cache, user_pool=(1, 4)), runs) as bench:
        added = 0
        for target in steps:
            workloads = []
            if target > added:  # events: cumulative over the steps
                more = {
                    "keystone_perf_revocations": {
                        "events": target - added,
                        "workers": 1,
                    }
                }
                workloads.append(
                    _serial("KeystonePerf.list_revocation_events", 1, {**users, **more})
                )
            workloads.append(_serial("KeystonePerf.validate_token", times, tokens))
            workloads.append(_serial("KeystonePerf.list_revocation_events", 20, users))
            results = bench.start_task(f"revocation-{cache}-{target}", workloads)
            added = target
            validate, listing = results[-2], results[-1]
            rows.append(
                [cache, _events_now(bench)]
                + _medians(bench, validate, atomics.VALIDATE_TOKEN)
                + _medians(bench, listing, atomics.LIST_REVOCATION_EVENTS)
            )
            echo(f"{cache}: {rows[-1]}")
    return rows


def main(argv: list[str] | None = None) -> int:
    """Print the parts asked for."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--part", choices=["sequential", "revocation", "all"], default="all"
    )
    parser.add_argument("--size", choices=["quick", "full"], default="quick")
    parser.add_argument(
        "--events",
        default=None,
        help="cumulative steps, e.g. 0,1000,10000 (quick: 0,100,1000)",
    )
    parser.add_argument(
        "--runs-dir", type=Path, default=None, help="keep the run folders here"
    )
    args = parser.parse_args(argv)
    if args.part in ("sequential", "all"):
        ours = {c: measure_config(*c, args.size, args.runs_dir) for c in CONFIGS}
        print(f"\nSeed 001's sequential table ({args.size}; seed: {SOURCE})")
        print(sequential_table(ours))
    if args.part in ("revocation", "all"):
        default = "0,100,1000" if args.size == "quick" else "0,1000,10000"
        steps = [int(n) for n in (args.events or default).split(",")]
        times = 50 if args.size == "quick" else 200
        table = PrettyTable(
            [
                "cache",
                "events",
                "validate client ms",
                "validate server ms",
                "list events client ms",
                "list events server ms",
            ]
        )
        for cache in ("none", "memcached"):
            table.add_rows(measure_revocation(cache, steps, times, args.runs_dir))
        print(
            f"\nValidation against the revocation table's size ({times} serial "
            "validations and 20 listings per size; medians)"
        )
        print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
