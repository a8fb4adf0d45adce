"""Tokens expiring mid-run on a real Keystone: refreshed vs a naive client."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rally_keystone_perf import cli, paths
from rally_keystone_perf.client import atomics
from rally_keystone_perf.report.readers.rally_json import load_report
from tests.functional.conftest import FAST_HASH_ROUNDS

pytestmark = pytest.mark.functional

LIFETIME = 8  # seconds a token lives
DURATION = 24  # seconds each workload runs: three lifetimes


def test_refreshed_tokens_outlive_the_expiration(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    task = json.loads((paths.tasks_dir() / "token-expiry.json").read_text())
    for subtask in task["subtasks"]:
        for workload in subtask["workloads"]:
            workload["runner"]["constant_for_duration"]["duration"] = DURATION
    path = tmp_path / "token-expiry.json"
    path.write_text(json.dumps(task))
    code = cli.main(
        [
            "run",
            "--task",
            str(path),
            "--token-expiration",
            str(LIFETIME),
            "--password-hash-rounds",
            str(FAST_HASH_ROUNDS),
            "--runs-dir",
            str(tmp_path / "runs"),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0  # every SLA passed: the suite's workloads had no failure
    (report,) = (tmp_path / "runs").glob("2*/results/token-expiry-*.json")
    listing, validating, naive = load_report(report)

    for workload in (listing, validating):
        assert workload.iterations
        assert not [it for it in workload.iterations if it.error]
        refreshes = [
            action
            for it in workload.iterations
            for action in it.atomic_actions
            if action["name"] == atomics.REFRESH_TOKEN
        ]
        # each token was replaced at least once per lifetime, by each process
        assert len(refreshes) >= DURATION // LIFETIME - 1

    failed = [it for it in naive.iterations if it.error]
    assert failed and len(failed) < len(naive.iterations)
    assert {it.error[0] for it in failed} == {"Unauthorized"}
    # the first failure comes once the first token expired, never before
    first = min(it.timestamp for it in failed)
    assert first - naive.iterations[0].timestamp >= LIFETIME - 2
    assert "x Unauthorized" in out and "(HTTP 401)" in out
