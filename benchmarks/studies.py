"""The seeds' studies end to end at their quick size: time against the target.

Runs ``rally-keystone-perf study SEED --size quick`` for each seed asked
(default: every study), each in a fresh folder, and prints each study's
wall time against the 25-minute target of the quick size and its exit
code; each study prints its own table beside the seed's as it ends (and
writes ``study-<seed>.md`` and ``.html`` in its folder). Run it on an idle
machine: the figures are the machine's only if nothing else runs.

Usage: python -m benchmarks.studies [SEED ...] [--runs-dir DIR]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from prettytable import PrettyTable

from benchmarks.harness import echo
from rally_keystone_perf import cli
from rally_keystone_perf.studies import registry

TARGET_MINUTES = 25.0  # the bound on a quick study in rounds (2 cores)


def run_study(seed: str, runs_dir: Path) -> tuple[float, int]:
    """Wall seconds and exit code of one quick study in a fresh folder."""
    folder = runs_dir / f"study-{seed}"
    echo(f"== study {seed} (quick) in {folder}")
    started = time.monotonic()
    code = cli.main(["study", seed, "--study-dir", str(folder), "--restart"])
    return time.monotonic() - started, code


def main(argv: list[str] | None = None) -> int:
    """Run the studies asked, then print their times."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("seeds", nargs="*", default=list(registry.STUDIES))
    parser.add_argument("--runs-dir", type=Path, default=None)
    args = parser.parse_args(argv)
    runs_dir = args.runs_dir or Path(tempfile.mkdtemp(prefix="ksp-studies-"))
    table = PrettyTable(["study", "minutes", "target", "exit code"])
    worst = 0
    for seed in args.seeds:
        seconds, code = run_study(registry.study(seed).seed, runs_dir)
        minutes = seconds / 60
        within = "under" if minutes < TARGET_MINUTES else "OVER"
        table.add_row([seed, f"{minutes:.1f}", f"{within} {TARGET_MINUTES:g}", code])
        worst = max(worst, code)
    print(table.get_string())
    return worst


if __name__ == "__main__":
    raise SystemExit(main())
