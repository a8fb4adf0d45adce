"""Instruction counts under callgrind, on real Keystones in one process.

A build with a known extra cost in token validation (the A/B calibration's
loop, about 5% of a validation's instructions) is told apart by ``ab
--instructions --rounds 0`` (the counts alone: no timed rounds, which a
count needs not and which took about 100 s here) and failed by ``gate
--max-instruction-increase 1%``; that A/B of two git refs is also the
builds' (each side's spec, version and commit recorded). Bounded: one small
workload, short replays. How repeatable a count is (the same Keystone
counted ten times, the other core idle or busy: within 0.05%) is
``benchmarks.instruction_counts``' figure, not a CI test's: CI's time.
The timed rounds of ``ab`` are test_ab's and test_gate's.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from benchmarks import ab_calibration
from rally_keystone_perf import cli
from rally_keystone_perf.deploy.builds import source
from rally_keystone_perf.deploy.instructions import count, markers
from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.run import instructions
from tests.functional.conftest import FAST_HASH_ROUNDS, run_processes, write_task

# alone on the machine: its replays already run two at a time (a layout a
# core); beside another test it took 226 s in CI, past the 3-minute rule
pytestmark = [pytest.mark.functional, pytest.mark.serial]


@pytest.fixture(autouse=True)
def _valgrind() -> None:
    """Skip (fail under CI) without valgrind and its headers."""
    if shutil.which("valgrind") is None or not markers.HEADER.exists():
        if os.environ.get("CI") == "true":
            pytest.fail("CI must install valgrind (.ci/run does)")
        pytest.skip("valgrind is not installed (apt-get install valgrind)")


# about 700 instructions an iteration: ~12M, 5% of a validation's ~240M
EXTRA_ITERATIONS = 17_000
VALIDATE = {
    "scenario": {"KeystonePerf.validate_token": {}},
    "runner": {"constant": {"times": 8, "concurrency": 2}},
    "contexts": {"keystone_perf_users": {"tenants": 1, "users_per_tenant": 2}},
}


# each side counted in 2 memory layouts of 2 segments of 3 validations after
# 4 warm-up ones, where ab --instructions counts 4 layouts of 2 x 4 after 10:
# CI's time (the layouts span 0.3-0.4%, the cost told apart is 5%)
SHORT = count.CountPlan(warm_up=4, segments=2, iterations=3, layouts=2)


def test_ab_instructions_detects_a_known_extra_cost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(instructions.count, "CountPlan", lambda: SHORT)
    repo = source.make_checkout(tmp_path / "src" / "keystone")
    base = source.installed_version()
    ab_calibration.slowed_branch(repo, base, 5, EXTRA_ITERATIONS)
    task = write_task(tmp_path / "validate.json", [VALIDATE])
    url, folder = f"git+file://{repo}", tmp_path / "ab"
    argv = [
        *("ab", "--task", str(task), "--rounds", "0", "--ab-dir", str(folder)),
        *("--password-hash-rounds", str(FAST_HASH_ROUNDS), "--instructions"),
        *("--build-cache", str(tmp_path / "builds")),
        f"--a=--keystone-build {url}@{base}",
        f"--b=--keystone-build {url}@slow-5",
    ]
    assert cli.main(argv) == 0
    _check_the_builds_ran(folder, repo, base, url)
    counts = json.loads((folder / "instructions.json").read_text())
    a, b = (counts["sides"][s]["workloads"][0]["per_request"] for s in "ab")
    assert 1.02 < b / a < 1.10
    assert _instruction_check(folder, "1%") == "FAIL"
    assert _instruction_check(folder, "10%") == "PASS"


def _check_the_builds_ran(folder: Path, repo: Path, base: str, url: str) -> None:
    """An A/B of two git refs (the builds' own check): counted alone, no
    round and no side started; each side's spec, version and commit the
    ref's; no replay left running."""
    state = json.loads((folder / "ab.json").read_text())
    assert state["status"] == "done" and state["rounds"] == []
    options = {s: state["sides"][s]["options"]["keystone_build"] for s in "ab"}
    assert options == {"a": f"{url}@{base} ({base})", "b": f"{url}@slow-5 ({base})"}
    assert not [s for s in "ab" if "run" in state["sides"][s]]
    counted = json.loads((folder / "instructions.json").read_text())["sides"]
    for side, ref in (("a", base), ("b", "slow-5")):
        build = counted[side]["build"]
        assert build["spec"] == f"{url}@{ref}" and build["version"] == base
        assert build["source"]["commit"] == source.git(repo, "rev-parse", ref)
        assert not run_processes(RunDir(folder / instructions.FOLDER / side))


def _instruction_check(folder: Path, threshold: str) -> str:
    """The status of the gate's instructions/request check at ``threshold``."""
    out = folder / f"gate-{threshold}.json"
    argv = ["gate", str(folder), "--format", "json", "--out", str(out)]
    assert cli.main([*argv, "--max-instruction-increase", threshold]) in (0, 2)
    checks = json.loads(out.read_text())["checks"]
    (found,) = [c for c in checks if c["criterion"] == "instructions/request"]
    return str(found["status"])


def test_sides_differing_by_deployment_are_refused_before_any_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    task = write_task(tmp_path / "validate.json", [VALIDATE])
    folder = tmp_path / "ab"
    argv = ["ab", "--task", str(task), "--ab-dir", str(folder), "--instructions"]
    assert cli.main([*argv, "--b=--processes 1"]) == 1
    assert "also differ by --processes" in capsys.readouterr().err
    assert not (folder / "ab.json").exists()
