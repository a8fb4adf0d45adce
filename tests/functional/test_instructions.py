"""Instruction counts under callgrind, on real Keystones in one process.

A build with a known extra cost in token validation (the A/B calibration's
loop, about 5% of a validation's instructions) and one more SELECT in it
(:data:`PLANTED`) is told apart by ``ab --instructions --rounds 0`` (the
counts alone: no timed rounds, which a count needs not and which took about
100 s here), failed by ``gate --max-instruction-increase 1%`` and by ``gate
--max-statement-increase 0``: one read more per validation, counted
exactly; that A/B of two git refs is also the builds' (each side's spec,
version and commit recorded). The loop and the query share one build: a
build of its own would cost CI another minute. Bounded: one small
workload, short replays. How repeatable a count is (the same Keystone
counted ten times, the other core idle or busy: within 0.05%) is
``benchmarks.instruction_counts``' figure, not a CI test's: CI's time.
The timed rounds of ``ab`` are test_ab's and test_gate's.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import ab_calibration
from rally_keystone_perf import cli
from rally_keystone_perf.deploy.builds import source
from rally_keystone_perf.deploy.instructions import count
from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.run import instructions
from tests.functional.conftest import FAST_HASH_ROUNDS, run_processes, write_task

# alone on the machine: its replays already run two at a time (a layout a
# core); beside another test it took 226 s in CI, past the 3-minute rule
pytestmark = [
    pytest.mark.functional,
    pytest.mark.serial,
    pytest.mark.usefixtures("valgrind_installed"),
]


# about 700 instructions an iteration: ~12M, 5% of a validation's ~240M
EXTRA_ITERATIONS = 17_000
VALIDATE = {
    "scenario": {"KeystonePerf.validate_token": {}},
    "runner": {"constant": {"times": 8, "concurrency": 2}},
    "contexts": {"keystone_perf_users": {"tenants": 1, "users_per_tenant": 2}},
}


# one more SELECT per validation, on a Keystone table, in its own reader
# session (so one more BEGIN and COMMIT too, which the gate does not judge)
PLANTED_CALL = "        _planted_query()  # rally-keystone-perf functional test\n"
PLANTED = '''

def _planted_query():
    """rally-keystone-perf's functional test: one more SELECT."""
    import sqlalchemy
    from keystone.common import sql

    with sql.session_for_read() as session:
        session.execute(sqlalchemy.text("SELECT count(*) FROM project")).scalar()
'''
QUERY_BRANCH = "slow-5-query"


def planted_branch(repo: Path, base: str) -> str:
    """``slow-5`` with one more SELECT in token validation."""
    source.git(repo, "checkout", "-q", "-B", QUERY_BRANCH, "slow-5")
    auth = repo / "keystone" / "api" / "auth.py"
    text = auth.read_text()
    assert text.count(ab_calibration.CALL) == 1
    auth.write_text(
        text.replace(ab_calibration.CALL, ab_calibration.CALL + PLANTED_CALL) + PLANTED
    )
    source.commit(repo, "functional test: one more SELECT per validation")
    source.git(repo, "checkout", "-q", base)
    return QUERY_BRANCH


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
    planted_branch(repo, base)
    task = write_task(tmp_path / "validate.json", [VALIDATE])
    url, folder = f"git+file://{repo}", tmp_path / "ab"
    argv = [
        *("ab", "--task", str(task), "--rounds", "0", "--ab-dir", str(folder)),
        *("--password-hash-rounds", str(FAST_HASH_ROUNDS), "--instructions"),
        *("--build-cache", str(tmp_path / "builds")),
        f"--a=--keystone-build {url}@{base}",
        f"--b=--keystone-build {url}@{QUERY_BRANCH}",
    ]
    assert cli.main(argv) == 0
    _check_the_builds_ran(folder, repo, base, url)
    counts = json.loads((folder / "instructions.json").read_text())
    a, b = (counts["sides"][s]["workloads"][0] for s in "ab")
    assert 1.02 < b["per_request"] / a["per_request"] < 1.10
    assert _check(folder, "--max-instruction-increase", "1%") == "FAIL"
    assert _check(folder, "--max-instruction-increase", "10%") == "PASS"
    sql_a, sql_b = a["statements_per_request"], b["statements_per_request"]
    assert sql_a["read"] > 0 and sql_b["read"] == sql_a["read"] + 1
    assert sql_b["write"] == sql_a["write"] == 0
    assert _check(folder, "--max-statement-increase", "0") == "FAIL"
    assert _check(folder, "--max-statement-increase", "1") == "PASS"


def _check_the_builds_ran(folder: Path, repo: Path, base: str, url: str) -> None:
    """An A/B of two git refs (the builds' own check): counted alone, no
    round and no side started; each side's spec, version and commit the
    ref's; no replay left running."""
    state = json.loads((folder / "ab.json").read_text())
    assert state["status"] == "done" and state["rounds"] == []
    options = {s: state["sides"][s]["options"]["keystone_build"] for s in "ab"}
    assert options == {
        "a": f"{url}@{base} ({base})",
        "b": f"{url}@{QUERY_BRANCH} ({base})",
    }
    assert not [s for s in "ab" if "run" in state["sides"][s]]
    counted = json.loads((folder / "instructions.json").read_text())["sides"]
    for side, ref in (("a", base), ("b", QUERY_BRANCH)):
        build = counted[side]["build"]
        assert build["spec"] == f"{url}@{ref}" and build["version"] == base
        assert build["source"]["commit"] == source.git(repo, "rev-parse", ref)
        assert not run_processes(RunDir(folder / instructions.FOLDER / side))


def _check(folder: Path, option: str, threshold: str) -> str:
    """The status of the gate's check that ``option`` at ``threshold`` adds."""
    out = folder / f"gate{option}-{threshold}.json"
    argv = ["gate", str(folder), "--format", "json", "--out", str(out)]
    assert cli.main([*argv, option, threshold]) in (0, 2)
    checks = json.loads(out.read_text())["checks"]
    criterion = "instructions/request" if "instruction" in option else "statements"
    (found,) = [c for c in checks if c["criterion"].startswith(criterion)]
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
