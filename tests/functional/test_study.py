"""``study 000`` end to end at one level: real Keystones, two of its three
configs (one eventlet worker and Apache: CI's time) up at once and
measured in two rounds taken in turns, the seed's table beside
ours, each ratio with its interval, the page written. The other seeds run
the same code (their tables, words-only rows like seed 003's and ratios are
unit tested); the full quick studies are a benchmark: ``python -m
benchmarks.studies``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rally_keystone_perf import cli
from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.studies import seed000
from tests.functional.conftest import (
    FAST_HASH_ROUNDS,
    cli_options,
    require_mode,
    run_processes,
)
from tests.functional.test_html_browser import chromium, render_and_check

pytestmark = pytest.mark.functional


def _section(out: str, label: str) -> str:
    """A config's part of the printed study: its line, table and bottlenecks."""
    return next(part for part in out.split("\n\n") if part.startswith(f"{label}: "))


def test_study_000_at_concurrency_4(tmp_path: Path, runs_dir: Path, capsys) -> None:
    require_mode(cli_options(["--mode", "apache"]))
    argv = ["study", "000", "--levels", "4", "--rounds", "2"]
    argv += ["--configs", f"{seed000.ONE},{seed000.APACHE}"]
    argv += ["--runs-dir", str(runs_dir)]
    argv += ["--password-hash-rounds", str(FAST_HASH_ROUNDS)]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    for config in seed000.STUDY.narrowed([seed000.ONE, seed000.APACHE]).configs:
        section = _section(out, config.label)
        row = re.search(r"^\| +4 \|(.*)$", section, re.M)
        assert row is not None, config.label
        cells = [cell.strip() for cell in row.group(1).split("|")]
        assert cells[0] == f"{seed000.TABLE[(config.label, 4)][1]:.3f}"  # seed avg
        assert float(cells[1]) > 0  # ours
        assert "c4: bottleneck " in section and "not measured" not in section
    ratios = re.findall(
        r"^\| (4 workers vs 1|Apache vs 1 worker) +\| +4 \| (\S+) +\| (\S+)x", out, re.M
    )
    assert [(name, seed) for name, seed, _ in ratios] == [
        ("Apache vs 1 worker", "3.34x"),  # 4 workers vs 1: eventlet-4w not run
    ]
    assert all(float(ours) > 0 for _, _, ours in ratios)
    intervals = re.findall(
        r"^\| (?:4 workers|Apache).*?\|\s+([\d.]+)-([\d.]+)x\s+\|", out, re.M
    )
    assert len(intervals) == 1, out  # the ratio with its interval over the rounds
    assert "ours: 2 rounds taken in turns" in out
    folder = runs_dir / "study-000-quick"
    assert (folder / "study-000.md").read_text().startswith("## study 000 (quick)")
    render_and_check(
        chromium(), tmp_path, "study", (folder / "study-000.html").read_text(), 2, 0
    )
    for run in folder.glob("*/2*"):
        assert not run_processes(RunDir(run)), f"{run}: processes left running"
