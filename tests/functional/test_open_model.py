"""Open-model load on a real Keystone: a 1 s freeze shows as queueing.

``run`` of a list_projects workload under the ``keystone_perf_arrival_rate``
runner at 5 iterations a second for 10 s (about a third of what Keystone's
2 processes serve here: at 20 a second every iteration queued, stall or
not, and the test could not tell), Rally's engine; the
``keystone_perf_fault`` hook freezes Keystone's processes (SIGSTOP) at 3 s
and thaws them at 5 s. Every iteration due during the freeze waits for the
thaw: about rate x stall = 10 of them, each answered after it, where a
closed-model load of 2 users would have sent 2 and waited; the ones due
before it were answered at once. On each engine: Rally's (the runner in
Rally's process) and Locust's (2 local workers, each its dealt share of the
schedule on the master's clock; in the slow tier, tox -e slow). Bounded:
about a minute each.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rally_keystone_perf import cli
from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.report.readers.rally_json import load_report
from tests.functional.conftest import FAST_HASH_ROUNDS, run_processes, write_task

# alone on the machine: a stall counted at the offered rate
pytestmark = [pytest.mark.functional, pytest.mark.serial]

RATE, STALL = 5, 2.0


def _fault(action: str, at: int) -> dict:
    return {
        "description": f"{action} Keystone",
        "action": {"keystone_perf_fault": {"action": action, "target": "node1"}},
        "trigger": {"event": {"unit": "time", "at": [at]}},
    }


WORKLOAD = {
    "scenario": {"KeystonePerf.list_projects": {}},
    "runner": {
        "keystone_perf_arrival_rate": {
            "rate": RATE,
            "duration": 10,
            "max_in_flight": 100,  # and uwsgi's listen backlog, 100: > 10
        }
    },
    "contexts": {"keystone_perf_users": {"tenants": 1, "users_per_tenant": 1}},
    "hooks": [_fault("freeze", 3), _fault("thaw", 5)],
}


# Locust's open model in the slow tier: its schedule dealt to the workers is
# unit tested (tests/unit/loadgen), its engine run end to end by
# test_locust_engine; Rally's runner is the CI's check of the count
@pytest.mark.parametrize(
    "engine",
    [
        pytest.param([], id="rally"),
        pytest.param(
            ["--engine", "locust", "--workers", "2"],
            id="locust",
            marks=pytest.mark.slow,
        ),
    ],
)
def test_a_freeze_is_counted_as_rate_times_stall(
    engine: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    task = write_task(tmp_path / "open.json", [WORKLOAD])
    runs = tmp_path / "runs"
    argv = ["run", "--task", str(task), "--runs-dir", str(runs), *engine]
    code = cli.main([*argv, "--password-hash-rounds", str(FAST_HASH_ROUNDS)])
    out = capsys.readouterr().out
    assert code == 0, out[-3000:]
    (root,) = runs.glob("2*")
    (report,) = (root / "results").glob("open-*.json")
    (workload,) = load_report(report)
    faults = [json.loads(line) for line in (root / "logs" / "faults.jsonl").open()]
    assert [f["action"] for f in faults] == ["freeze", "thaw"]
    frozen, thawed = faults[0]["finished"], faults[1]["finished"]
    # due while Keystone was frozen, answered once it thawed
    waited = [
        it
        for it in workload.iterations
        if frozen <= it.timestamp < thawed and it.timestamp + it.duration > thawed
    ]
    expected = RATE * (thawed - frozen)
    assert abs(len(waited) - expected) <= 0.2 * expected, (len(waited), expected)
    assert not [it for it in workload.iterations if it.error]
    assert max(it.duration for it in workload.iterations) >= 0.8 * STALL
    before = [it.duration for it in workload.iterations if it.timestamp < frozen - 1]
    assert before and max(before) < 0.5 * STALL  # not queued: below capacity
    assert "open model: 5 iterations/s asked, 50 due, 50 started, 0 dropped" in out
    assert not run_processes(RunDir(root))
