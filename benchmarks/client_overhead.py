"""Requests per iteration and client overhead, measured against a real Keystone.

For each KeystonePerf scenario (and, for comparison, rally-openstack's
KeystoneBasic.authenticate_user_and_validate_token), runs a workload through
Rally and prints:

* the requests per iteration the server received inside the load window,
  by route (from the server's access log);
* for each atomic action, the median client-side duration (Rally) next to the
  median server-side time of the same requests (uwsgi's access log), the gap,
  and whether it is within 5 % or 3 ms, whichever is larger.

Usage: python -m benchmarks.client_overhead [--times N] [--concurrency C]
"""

from __future__ import annotations

import argparse
import collections
from pathlib import Path

from prettytable import PrettyTable

from benchmarks.harness import Bench, atomic_durations, echo, keystone, median_ms
from rally_keystone_perf.client import atomics
from rally_keystone_perf.deploy.options import LaunchOptions
from rally_keystone_perf.report.readers import access_log, rally_json

SCENARIOS = [
    "KeystonePerf.create_token",
    "KeystonePerf.validate_token",
    "KeystonePerf.list_projects",
    "KeystonePerf.create_delete_user",
    "KeystonePerf.revoke_token",
    "KeystonePerf.list_revocation_events",
]
REFERENCE = "KeystoneBasic.authenticate_user_and_validate_token"
USERS = {"users": {"tenants": 2, "users_per_tenant": 2}}


def requests_table(bench: Bench, results: list[rally_json.Workload]) -> PrettyTable:
    """Requests per iteration, counted server-side, by route."""
    table = PrettyTable(["scenario", "iterations", "requests/iteration", "by route"])
    table.align["by route"] = "l"
    for workload in results:
        seen = bench.server_requests(workload)
        routes = access_log.count_routes(seen)
        n = len(workload.iterations)
        table.add_row(
            [
                workload.scenario_name,
                n,
                f"{len(seen) / n:.2f}",
                ", ".join(f"{r} x{c / n:.2f}" for r, c in sorted(routes.items())),
            ]
        )
    return table


def overhead_table(
    bench: Bench, results: list[rally_json.Workload]
) -> tuple[PrettyTable, bool]:
    """Client median vs server median per atomic action, and whether all pass."""
    table = PrettyTable(
        [
            "atomic action",
            "client median ms",
            "server median ms",
            "gap ms",
            "gap %",
            "limit ms",
            "within",
        ]
    )
    ok = True
    for workload in results:
        if workload.scenario_name == REFERENCE:
            continue
        server_by_route: dict[str, list[float]] = collections.defaultdict(list)
        for request in bench.server_requests(workload):
            server_by_route[request.route].append(request.server_time)
        for name, durations in atomic_durations(workload).items():
            client = median_ms(durations)
            server = median_ms(server_by_route[atomics.ROUTES[name]])
            gap = client - server
            limit = max(0.05 * server, 3.0)
            within = abs(gap) <= limit
            ok &= within
            table.add_row(
                [
                    name,
                    f"{client:.1f}",
                    f"{server:.1f}",
                    f"{gap:.2f}",
                    f"{100 * gap / server:.1f}",
                    f"{limit:.1f}",
                    "yes" if within else "NO",
                ]
            )
    return table, ok


def main(argv: list[str] | None = None) -> int:
    """Run the workloads and print both tables; exit 2 if a gap is over its limit."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--times", type=int, default=30)
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument(
        "--runs-dir",
        type=Path,
        default=None,
        help="keep the run folder here (default: a temporary one)",
    )
    args = parser.parse_args(argv)
    options = LaunchOptions(processes=2, password_hash_rounds=4)
    runner = {"constant": {"times": args.times, "concurrency": args.concurrency}}
    workloads = [
        {"scenario": {name: {}}, "runner": runner, "contexts": dict(USERS)}
        for name in [*SCENARIOS, REFERENCE]
    ]
    with keystone(options, args.runs_dir) as bench:
        results = bench.start_task("client-overhead", workloads)
        echo("")
        print("Requests per iteration, counted in the server's access log")
        print(requests_table(bench, results))
        table, ok = overhead_table(bench, results)
        print("\nClient-side atomic median vs server-side median of the same requests")
        print(table)
    print("\nall within 5% or 3 ms" if ok else "\nSOME GAPS ARE OVER THE LIMIT")
    return 0 if ok else 2


if __name__ == "__main__":
    raise SystemExit(main())
