"""What a users context costs: Rally's own creation against the user pool.

Starts a local Keystone (uwsgi, SQLite, Keystone's default password hashing)
and measures:

* Rally's ``users`` context creating SAMPLE users through the API (its
  setup time from Rally's ``contexts_results``), per user and extrapolated
  to seed 000's 12 x 512;
* the user pool of 12 x 512 made by the launcher before Keystone starts
  (``run.json`` ``user_pool.seconds``), and the ``keystone_perf_users``
  context taking those 6144 users in a workload.

Usage: python -m benchmarks.users_setup [--sample 10] [--tenants 12]
[--users-per-tenant 512] [--runs DIR]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from prettytable import PrettyTable

from benchmarks.harness import echo, keystone
from rally_keystone_perf.deploy.options import LaunchOptions


def _token_workload(contexts: dict) -> dict:
    return {
        "scenario": {"KeystonePerf.create_token": {}},
        "runner": {"constant": {"times": 4, "concurrency": 2}},
        "contexts": contexts,
        "sla": {"failure_rate": {"max": 0}},
    }


def _setup_of(workload, name: str) -> float:
    (timing,) = [t for t in workload.context_timings if t.name == name]
    if timing.setup is None or timing.error:
        raise SystemExit(f"{name} setup failed: {timing.error}")
    return timing.setup


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=10)
    parser.add_argument("--tenants", type=int, default=12)
    parser.add_argument("--users-per-tenant", type=int, default=512)
    parser.add_argument("--runs", type=Path, default=None)
    args = parser.parse_args()
    total = args.tenants * args.users_per_tenant
    size = (args.tenants, args.users_per_tenant)
    options = LaunchOptions(user_pool=size)
    table = PrettyTable(
        ["how", "users", "setup (s)", "per user (ms)", f"{total} users"]
    )
    table.align = "r"
    table.align["how"] = "l"
    with keystone(options, args.runs) as bench:
        pool_seconds = float((bench.run.state().user_pool or {})["seconds"])
        echo(f"Rally's users context creating {args.sample} users")
        (rally,) = bench.start_task(
            "rally-users",
            [
                _token_workload(
                    {"users": {"tenants": 1, "users_per_tenant": args.sample}}
                )
            ],
        )
        rally_setup = _setup_of(rally, "users@openstack")
        echo(f"keystone_perf_users taking {total} users from the pool")
        (pooled,) = bench.start_task(
            "pooled-users",
            [
                _token_workload(
                    {
                        "keystone_perf_users": {
                            "tenants": args.tenants,
                            "users_per_tenant": args.users_per_tenant,
                        }
                    }
                )
            ],
        )
        pooled_setup = _setup_of(pooled, "keystone_perf_users@openstack")
    per_user = rally_setup / args.sample
    table.add_row(
        [
            "Rally users context (API, 6 requests/user)",
            args.sample,
            f"{rally_setup:.1f}",
            f"{per_user * 1000:.0f}",
            f"~{per_user * total / 60:.0f} min (extrapolated)",
        ]
    )
    table.add_row(
        [
            "user pool (Keystone's managers, before start)",
            total,
            f"{pool_seconds:.1f}",
            f"{pool_seconds / total * 1000:.1f}",
            f"{pool_seconds:.0f} s",
        ]
    )
    table.add_row(
        [
            "keystone_perf_users taking the pool",
            total,
            f"{pooled_setup:.2f}",
            f"{pooled_setup / total * 1000:.3f}",
            f"{pooled_setup:.1f} s",
        ]
    )
    print(table)


if __name__ == "__main__":
    main()
