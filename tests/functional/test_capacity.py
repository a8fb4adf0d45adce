"""``capacity`` on a real Keystone (uwsgi, 2 processes, SQLite): a short search.

list_projects, whose throughput here is 11-15 a second, against
``p95<500ms,success>=99%``: steps of 6 s from 5 a second, doubling, then
the bracket halved until it is narrower than 50% (one step a rate): about
four steps, each a Rally task with its contexts. The search must find a sustained rate
below the server's throughput and above the start, print every step and
write ``capacity.md``; nothing is left running. Bounded: about 2 minutes.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rally_keystone_perf import cli
from rally_keystone_perf.deploy.rundir import RunDir
from tests.functional.conftest import FAST_HASH_ROUNDS, run_processes, write_task

pytestmark = pytest.mark.functional

WORKLOAD = {
    "scenario": {"KeystonePerf.list_projects": {}},
    "runner": {"constant": {"times": 10, "concurrency": 1}},  # replaced per step
    "contexts": {"keystone_perf_tokens": {}},
}
SEARCH = [
    "--slo", "p95<500ms,success>=99%",
    "--start-rate", "5", "--max-rate", "80", "--step-seconds", "6",
    "--repeats", "1", "--precision", "0.5", "--max-steps", "6",
]  # fmt: skip


def test_a_search_finds_a_sustained_rate_and_stops_keystone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    task = write_task(tmp_path / "list.json", [WORKLOAD])
    runs = tmp_path / "runs"
    argv = ["capacity", "--task", str(task), "--runs-dir", str(runs), *SEARCH]
    code = cli.main([*argv, "--password-hash-rounds", str(FAST_HASH_ROUNDS)])
    out = capsys.readouterr().out
    assert code == 0, out[-3000:]
    found = re.search(
        r"^sustained: ([\d.]+)/s under p95<500ms,success>=99% \(not at ([\d.]+)/s",
        out,
        re.M,
    )
    assert found, out
    sustained, above = float(found[1]), float(found[2])
    assert 5 <= sustained < above <= 80
    assert above / sustained <= 1.5 or "6 steps taken" in out
    steps = re.findall(r"^\|\s+([\d.]+) \|\s+([\d.]+) \|.*\| (met|missed) ", out, re.M)
    assert len(steps) >= 4, out
    for offered, achieved, verdict in steps:
        if verdict == "met":  # give or take one answer in the 3-s judged half
            assert float(achieved) >= 0.95 * float(offered) - 1 / 3
    assert "knee: " in out and "stopped: " in out
    (root,) = runs.glob("2*")
    assert (root / "capacity.md").read_text().startswith("## Capacity against")
    assert len(list((root / "capacity-tasks").glob("step-*.json"))) == len(steps)
    assert not run_processes(RunDir(root))
