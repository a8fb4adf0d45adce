"""Is the launcher's default Keystone a stock one? Measured against a minimal one.

Starts two Keystones one after the other, same mode (uwsgi, its stock
profile), same venv: one from a minimal keystone.conf (paths, SQLite and
fernet keys only: ``benchmarks/minimal-keystone.conf.tmpl``), one from the
launcher's default rendering. Against each it sends the same sequential
token validations and project lists (Rally, concurrency 1) and reads the
server's own time of each request from its access log. Prints both server
medians and their ratio; exits 2 when the launcher's default is more than
25% slower than the minimal Keystone on either.

Usage: python -m benchmarks.stock_keystone [--times N] [--runs-dir DIR]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from prettytable import PrettyTable

from benchmarks.harness import echo, keystone, median_ms
from rally_keystone_perf.client import atomics
from rally_keystone_perf.deploy.options import LaunchOptions

MINIMAL = Path(__file__).with_name("minimal-keystone.conf.tmpl")
LIMIT = 1.25  # the launcher's default may be at most 25% slower
SCENARIOS = {
    "KeystonePerf.validate_token": atomics.ROUTES["keystone.validate_token"],
    "KeystonePerf.list_projects": atomics.ROUTES["keystone.list_projects"],
}


def _workloads(times: int) -> list[dict]:
    runner = {"constant": {"times": times, "concurrency": 1}}
    users = {"users": {"tenants": 1, "users_per_tenant": 1}}
    return [
        {
            "scenario": {"KeystonePerf.validate_token": {}},
            "runner": runner,
            "contexts": {**users, "keystone_perf_tokens": {"tokens_per_user": 2}},
        },
        {
            "scenario": {"KeystonePerf.list_projects": {}},
            "runner": runner,
            "contexts": users,
        },
    ]


def server_medians(
    options: LaunchOptions, times: int, runs: Path | None
) -> dict[str, float]:
    """Median server ms of each scenario's measured request on one Keystone."""
    medians = {}
    with keystone(options, runs) as bench:
        for workload in bench.start_task("stock-keystone", _workloads(times)):
            route = SCENARIOS[workload.scenario_name]
            seen = bench.server_requests(workload)
            timed = [r.server_time for r in seen if r.route == route and r.status < 400]
            if len(timed) < times:
                raise SystemExit(
                    f"{workload.scenario_name}: {len(timed)} of {times} "
                    f"{route} requests answered ({len(seen)} requests seen)"
                )
            medians[workload.scenario_name] = median_ms(timed)
    return medians


def main(argv: list[str] | None = None) -> int:
    """Measure both Keystones, print the table; exit 2 past the 25% limit."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--times", type=int, default=50, help="requests per kind")
    parser.add_argument(
        "--runs-dir",
        type=Path,
        default=None,
        help="keep the run folders here (default: temporary ones)",
    )
    args = parser.parse_args(argv)
    echo(f"minimal keystone.conf ({MINIMAL.name})")
    minimal = server_medians(
        LaunchOptions(keystone_conf_template=str(MINIMAL)),
        args.times,
        args.runs_dir,
    )
    echo("the launcher's default keystone.conf")
    default = server_medians(LaunchOptions(), args.times, args.runs_dir)
    table = PrettyTable(
        ["request", "minimal ms", "launcher ms", "launcher / minimal", "within 25%"]
    )
    ok = True
    for name, route in SCENARIOS.items():
        ratio = default[name] / minimal[name]
        ok &= ratio <= LIMIT
        table.add_row(
            [
                route,
                f"{minimal[name]:.1f}",
                f"{default[name]:.1f}",
                f"{ratio:.2f}",
                "yes" if ratio <= LIMIT else "NO",
            ]
        )
    print(f"Server median of {args.times} sequential requests each (uwsgi, SQLite)")
    print(table)
    return 0 if ok else 2


if __name__ == "__main__":
    raise SystemExit(main())
