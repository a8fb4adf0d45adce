"""Is the suite the bottleneck? Each engine's list_projects vs wrk, one server.

Starts a local Keystone made cheap by memcached (uwsgi, 2 processes), drives
``GET /v3/projects`` (with a pre-issued admin token) with wrk (Debian's
``wrk``) at concurrency C, then runs ``KeystonePerf.list_projects`` at the
same concurrency with each engine (Rally's runner; Locust with 1 local
worker), about as many iterations as wrk sent. The tools take turns over
``--rounds`` rounds of D/rounds seconds each (wrk, Rally, Locust, wrk, ...):
this machine's speed drifts over minutes, and a share of wrk's is only
fair against wrk measured beside it. Prints each tool's requests/s (every
round together), its share of wrk's and the client CPU per iteration (the
engine's processes' CPU time inside the load windows, as the report prints
it: :mod:`benchmarks.engines`), against issue 18's targets: Rally at most
2.5 ms and at least 85% of wrk, Locust at most 1 ms and at least 90%. Exit
2 when an engine misses one. The token reaches wrk through its environment, never a
file or the terminal.

Usage: python -m benchmarks.load_ceiling [--concurrency 10] [--duration 30]
[--rounds 3] [--mode uwsgi] [--cache memcached] [--workers 0,1]
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

from benchmarks.engines import (
    EngineRun,
    add_server_options,
    engine_label,
    run_round,
    server_options,
)
from benchmarks.harness import echo, keystone
from rally_keystone_perf.client import keystone_v3

WRK_SCRIPT = """
wrk.method = "GET"
wrk.headers["X-Auth-Token"] = os.getenv("KP_TOKEN")
"""
_REQUESTS_PER_SEC = re.compile(r"Requests/sec:\s+([\d.]+)")
_NON_2XX = re.compile(r"Non-2xx or 3xx responses:\s+(\d+)")


def admin_token(auth_url: str, secret_file: Path) -> str:
    """Issue the admin token wrk sends (one request, before any timing)."""
    secret = json.loads(secret_file.read_text())
    identity = keystone_v3.IdentityClient(keystone_v3.shared_session(), auth_url)
    user = keystone_v3.PasswordUser(
        secret["username"], secret["password"], project_name="admin"
    )
    return identity.create_token(user)


def run_wrk(url: str, token: str, concurrency: int, duration: int) -> tuple[float, int]:
    """wrk's requests per second and its count of non-2xx answers."""
    echo(f"wrk: GET /v3/projects, {concurrency} connections, {duration} s")
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


TARGETS = {  # issue 18: client CPU ms per iteration, share of wrk's req/s
    "rally": (2.5, 0.85),
    "locust": (1.0, 0.90),
}


def engine_row(run: EngineRun, wrk_rps: float) -> tuple[list[str], bool]:
    """One engine's row and whether it meets its targets."""
    rps = run.rate()
    failed = run.failures()
    cpu_ms = run.client_ms()
    max_cpu, min_share = TARGETS[run.label.split()[0]]
    share = rps / wrk_rps if wrk_rps else 0.0
    met = cpu_ms is not None and cpu_ms <= max_cpu and share >= min_share
    row = [
        run.label,
        f"{rps:.2f}",
        f"{share:.0%} (>= {min_share:.0%})",
        f"{'n/a' if cpu_ms is None else f'{cpu_ms:.2f}'} (<= {max_cpu:g})",
        str(failed),
        "yes" if met else "no",
    ]
    return row, met


def main(argv: list[str] | None = None) -> int:
    """Print wrk's and each engine's throughput and client CPU per iteration;
    exit 2 when an engine misses its targets."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--concurrency", type=int, default=10)
    parser.add_argument("--duration", type=int, default=30, help="seconds per tool")
    add_server_options(parser)
    parser.add_argument(
        "--workers",
        type=lambda text: [int(n) for n in text.split(",")],
        default=[0, 1],
        help="engines: 0 is Rally's runner, N Locust with N local workers "
        "(default: 0,1)",
    )
    parser.add_argument(
        "--rounds", type=int, default=3, help="turns the tools take (default: 3)"
    )
    parser.add_argument("--runs-dir", type=Path, default=None)
    args = parser.parse_args(argv)
    if not 1 <= args.rounds <= args.duration:
        parser.error("--rounds must be between 1 and --duration")
    seconds = args.duration / args.rounds
    runs = [EngineRun(engine_label(w), args.concurrency, w) for w in args.workers]
    wrk_rates, wrk_errors = [], 0
    with keystone(server_options(args), args.runs_dir) as bench:
        auth_url = str(bench.run.state().auth_url)
        token = admin_token(auth_url, bench.run.admin_secret)
        for round_no in range(1, args.rounds + 1):
            rate, errors = run_wrk(
                f"{auth_url}/projects", token, args.concurrency, round(seconds)
            )
            wrk_rates.append(rate)
            wrk_errors += errors
            times = max(4 * args.concurrency, round(rate * seconds))
            for run in runs:
                run_round(bench, run, times, round_no)
    wrk_rps = sum(wrk_rates) / len(wrk_rates)  # rounds of equal length
    table = PrettyTable(
        [
            "tool",
            "requests/s",
            "of wrk (target)",
            "client CPU ms/iteration (target)",
            "failures",
            "targets met",
        ]
    )
    table.add_row(["wrk", f"{wrk_rps:.2f}", "", "", wrk_errors, ""])
    verdicts = []
    for run in runs:
        row, met = engine_row(run, wrk_rps)
        table.add_row(row)
        verdicts.append(met)
    print(f"GET /v3/projects (KeystonePerf.list_projects), c{args.concurrency}")
    print(table)
    print(
        "client CPU: Rally's process and all it started, inside the load "
        "window (logs/resources-client.csv, as the report prints it)"
    )
    return 0 if all(verdicts) else 2


if __name__ == "__main__":
    raise SystemExit(main())
