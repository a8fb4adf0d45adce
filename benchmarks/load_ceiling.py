"""Is the suite the bottleneck? Rally's list_projects vs wrk on the same server.

Starts a local Keystone, drives ``GET /v3/projects`` (with a pre-issued admin
token) with wrk (Debian's ``wrk``) at concurrency C for D seconds, then with
Rally's ``KeystonePerf.list_projects`` at the same concurrency for about the
same time, and prints both throughputs and their ratio. The token reaches wrk
through its environment, never a file or the terminal.

Usage: python -m benchmarks.load_ceiling [--concurrency 10] [--duration 30]
[--mode uwsgi]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from prettytable import PrettyTable

from benchmarks.common import echo, keystone
from rally_keystone_perf.deploy.options import LaunchOptions
from rally_keystone_perf.plugins import client
from rally_keystone_perf.report import stats

WRK_SCRIPT = """
wrk.method = "GET"
wrk.headers["X-Auth-Token"] = os.getenv("KP_TOKEN")
"""
_REQUESTS_PER_SEC = re.compile(r"Requests/sec:\s+([\d.]+)")
_NON_2XX = re.compile(r"Non-2xx or 3xx responses:\s+(\d+)")


def admin_token(auth_url: str, secret_file: Path) -> str:
    """Issue the admin token wrk sends (one request, before any timing)."""
    secret = json.loads(secret_file.read_text())
    identity = client.IdentityClient(client.shared_session(), auth_url)
    user = client.PasswordUser(
        secret["username"], secret["password"], project_name="admin"
    )
    return identity.create_token(user)


def run_wrk(url: str, token: str, concurrency: int, duration: int) -> tuple[float, int]:
    """wrk's requests per second and its count of non-2xx answers."""
    wrk = shutil.which("wrk")
    if wrk is None:
        raise SystemExit("wrk is not installed; install it with: apt-get install wrk")
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(WRK_SCRIPT)
    try:
        result = subprocess.run(
            [
                wrk,
                "-t",
                "2",
                "-c",
                str(concurrency),
                "-d",
                f"{duration}s",
                "--timeout",
                "60s",
                "-s",
                script.name,
                url,
            ],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "KP_TOKEN": token},
        )
    finally:
        os.unlink(script.name)
    rps = _REQUESTS_PER_SEC.search(result.stdout)
    if rps is None:
        raise SystemExit(f"cannot read wrk's output:\n{result.stdout}")
    non_2xx = _NON_2XX.search(result.stdout)
    return float(rps.group(1)), int(non_2xx.group(1)) if non_2xx else 0


def main(argv: list[str] | None = None) -> int:
    """Print wrk's and Rally's throughput; exit 2 when Rally is under 90 %."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--concurrency", type=int, default=10)
    parser.add_argument("--duration", type=int, default=30, help="seconds per tool")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument(
        "--mode",
        default="uwsgi",
        help="deployment mode (nginx-uwsgi keeps connections alive; the uwsgi "
        "router opens one per request)",
    )
    parser.add_argument("--runs-dir", type=Path, default=None)
    args = parser.parse_args(argv)
    options = LaunchOptions(
        mode=args.mode, processes=args.processes, password_hash_rounds=4
    )
    with keystone(options, args.runs_dir) as bench:
        auth_url = str(bench.run.state().auth_url)
        token = admin_token(auth_url, bench.run.admin_secret)
        url = f"{auth_url}/projects"
        echo(
            f"wrk: GET /v3/projects, {args.concurrency} connections, {args.duration} s"
        )
        wrk_rps, wrk_errors = run_wrk(url, token, args.concurrency, args.duration)
        times = max(args.concurrency, round(wrk_rps * args.duration))
        echo(
            f"rally: KeystonePerf.list_projects, concurrency {args.concurrency}, "
            f"{times} times"
        )
        workload = {
            "scenario": {"KeystonePerf.list_projects": {}},
            "runner": {"constant": {"times": times, "concurrency": args.concurrency}},
            "contexts": {"users": {"tenants": 1, "users_per_tenant": 1}},
        }
        (result,) = bench.start_task("load-ceiling", [workload])
    rally_rps = stats.throughput(result) or 0.0
    total = stats.total_row(stats.main_stats(result))
    ratio = rally_rps / wrk_rps if wrk_rps else float("nan")
    table = PrettyTable(["tool", "concurrency", "requests/s", "failures"])
    table.add_row(["wrk", args.concurrency, f"{wrk_rps:.2f}", wrk_errors])
    failed = total.count - round((total.success or 0) * total.count)
    table.add_row(
        [
            "rally KeystonePerf.list_projects",
            args.concurrency,
            f"{rally_rps:.2f}",
            failed,
        ]
    )
    print(table)
    print(f"rally / wrk = {ratio:.1%} (target: at least 90%)")
    return 0 if ratio >= 0.9 else 2


if __name__ == "__main__":
    raise SystemExit(main())
