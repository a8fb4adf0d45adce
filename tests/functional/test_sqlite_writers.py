"""Concurrent writers on the embedded default: ``up`` with no deployment
option (uwsgi, 2 processes, SQLite), rally-openstack's own Keystone
scenarios at concurrency 4, as someone else's Rally would run them: no
iteration fails, and keystone.log has no locked database.

bcrypt at its minimum cost (``--password-hash-rounds 4``; Keystone's
default 12 took this test past 3 minutes): a cheaper hash only brings each
user's writes closer together, so the writers contend more, not less.
"""

from __future__ import annotations

from pathlib import Path

from rally_keystone_perf import cli
from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.report.readers import rally_json
from rally_keystone_perf.run import rally_runner
from rally_keystone_perf.run.session import run_redactor
from tests.functional.conftest import FAST_HASH_ROUNDS, run_processes, write_task

TIMES = 12  # per scenario, at concurrency 4: each pair of writers contends
CONCURRENCY = 4
SCENARIOS = (
    "KeystoneBasic.authenticate_user_and_validate_token",
    "KeystoneBasic.create_and_list_users",
    "KeystoneBasic.create_update_and_delete_tenant",
)
# left out for CI's time: create_and_list_tenants (the same project INSERTs
# as create_update_and_delete_tenant) and Authenticate.keystone (a token
# issue, as in authenticate_user_and_validate_token); every workload's
# users context still creates its users and projects in parallel


def _workload(scenario: str) -> dict:
    return {
        "scenario": {scenario: {}},
        "runner": {"constant": {"times": TIMES, "concurrency": CONCURRENCY}},
        "contexts": {"users": {"tenants": 2, "users_per_tenant": 2}},
    }


def test_rally_openstacks_keystone_scenarios_on_up_lose_no_iteration(
    tmp_path: Path,
) -> None:
    runs = tmp_path / "runs"
    fast = ["--password-hash-rounds", str(FAST_HASH_ROUNDS)]
    assert cli.main(["up", "--runs-dir", str(runs), *fast]) == 0
    run = RunDir((runs / "current").resolve())
    try:
        runner = rally_runner.RallyRunner(run, run_redactor(run), lambda _m: None)
        runner.prepare()  # Rally's users context creates its users in parallel
        task = write_task(
            tmp_path / "keystone-basic.json", [_workload(name) for name in SCENARIOS]
        )
        outcome = runner.start_task(task)
        assert outcome.report is not None
        workloads = rally_json.load_report(outcome.report)
    finally:
        assert cli.main(["down", "--run", str(run.root)]) == 0
    assert [w.scenario_name for w in workloads] == list(SCENARIOS)
    failed = {
        w.scenario_name: [i.error for i in w.iterations if i.error] for w in workloads
    }
    assert failed == {name: [] for name in SCENARIOS}
    assert all(len(w.iterations) == TIMES for w in workloads)
    assert "database is locked" not in (run.logs / "keystone.log").read_text()
    assert not run_processes(run)
