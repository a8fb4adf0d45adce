"""``rally-keystone-perf gate`` on real runs: an injected slowdown fails it.

Two runs of one token-create workload against real local Keystones: a
baseline with 2 server processes and the injected slowdown (that the same
config passes is ``tox -e gate``'s A/A, in rounds taken in turns): a
single process (at concurrency 4 on 2 cores its requests queue behind
each other: about +100%) with a costlier password hash (bcrypt cost
11 instead of 4: about +120 ms of CPU per token). Together about +250%, far
beyond the drift between two runs of one config on a shared machine (a
baseline 40% slower than its rerun was seen in CI, and failed this test when
the slowdown was the single process alone).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from rally_keystone_perf import cli
from tests.functional.conftest import FAST_HASH_ROUNDS, write_task

# alone on the machine: a slowdown told apart in time
pytestmark = [pytest.mark.functional, pytest.mark.serial]

SLOW_HASH_ROUNDS = 11
TOKEN_WORKLOAD = {
    "scenario": {"KeystonePerf.create_token": {}},
    "runner": {"constant": {"times": 40, "concurrency": 4}},
    "contexts": {"users": {"tenants": 2, "users_per_tenant": 2}},
    "sla": {"failure_rate": {"max": 0}},
}


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Rally JSON reports of the baseline, the same config and the slowed run."""
    root = tmp_path_factory.mktemp("gate")
    task = write_task(root / "gate-token.json", [TOKEN_WORKLOAD])
    found = {}
    for name, processes, rounds in (
        ("baseline", 2, FAST_HASH_ROUNDS),
        ("slowed", 1, SLOW_HASH_ROUNDS),
    ):
        runs = root / name
        code = cli.main(
            [
                "run",
                "--task",
                str(task),
                "--runs-dir",
                str(runs),
                "--processes",
                str(processes),
                "--password-hash-rounds",
                str(rounds),
            ]
        )
        assert code == 0, f"the {name} run failed"
        (found[name],) = (runs / "current" / "results").glob("*.json")
    return found


# Two runs of one config minutes apart drift on a shared 2-core machine: the
# median of 40 token creates moved +25% and -29% between such runs, and in
# CI on 2026-11-24 +55% (p95 +65%, the total's +73%), a real shift the test
# rightly calls significant. The tolerance leaves room for that; the
# injected slowdown is about +250% (+150% against a baseline 40% slow).
MAX_REGRESSION = "100%"


def _gate(current: Path, baseline: Path, junit: Path) -> int:
    return cli.main(
        [
            "gate",
            str(current),
            "--baseline",
            str(baseline),
            "--junit",
            str(junit),
            "--max-regression",
            MAX_REGRESSION,
        ]
    )


def test_injected_slowdown_fails_with_exit_2_naming_the_figures(
    reports: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    code = _gate(reports["slowed"], reports["baseline"], tmp_path / "junit.xml")
    out = capsys.readouterr()
    assert code == 2, out.out
    assert "gate FAILED" in out.err
    assert "FAIL KeystonePerf.create_token c4: median keystone.create_token" in out.out
    failed = {
        case.get("name")
        for case in ET.parse(tmp_path / "junit.xml").getroot().iter("testcase")
        if case.find("failure") is not None
    }
    assert {"median keystone.create_token", "median total"} <= failed
