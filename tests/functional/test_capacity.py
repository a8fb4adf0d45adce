"""``capacity`` on a real Keystone (uwsgi, 2 processes, SQLite).

In CI, a short search: list_projects (11-15 a second here) against
``p95<500ms,success>=99%``, two steps of 4 s (4 then 8 a second): every
step printed and judged, the sustained rate named, ``capacity.md`` and a
task per step written, nothing left running. About a minute.

In the slow tier (``tox -e slow``), how close a search comes: steps of 6 s
from 5 a second, doubling, then the bracket halved until it is narrower
than 50% (one step a rate): about four steps, each a Rally task with its
contexts. The search must find a sustained rate below the server's
throughput and above the start. About 2 minutes.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rally_keystone_perf import cli
from rally_keystone_perf.layout.rundir import RunDir
from tests.functional.conftest import FAST_HASH_ROUNDS, run_processes, write_task

# alone on the machine: a sustained rate
pytestmark = [pytest.mark.functional, pytest.mark.serial]

WORKLOAD = {
    "scenario": {"KeystonePerf.list_projects": {}},
    "runner": {"constant": {"times": 10, "concurrency": 1}},  # replaced per step
    "contexts": {"keystone_perf_tokens": {}},
}
SHORT = [
    "--slo", "p95<500ms,success>=99%",
    "--start-rate", "4", "--max-rate", "8", "--step-seconds", "4",
    "--repeats", "1", "--precision", "0.5", "--max-steps", "2",
]  # fmt: skip
SEARCH = [
    "--slo", "p95<500ms,success>=99%",
    "--start-rate", "5", "--max-rate", "80", "--step-seconds", "6",
    "--repeats", "1", "--precision", "0.5", "--max-steps", "6",
]  # fmt: skip
STEP_ROW = re.compile(r"^\|\s+([\d.]+) \|\s+([\d.]+) \|.*\| (met|missed) ", re.M)


def _search(tmp_path: Path, search: list[str]) -> tuple[int, Path]:
    """``capacity`` of the list_projects task with ``search``; its exit code
    and its run folder."""
    task = write_task(tmp_path / "list.json", [WORKLOAD])
    runs = tmp_path / "runs"
    argv = ["capacity", "--task", str(task), "--runs-dir", str(runs), *search]
    code = cli.main([*argv, "--password-hash-rounds", str(FAST_HASH_ROUNDS)])
    (root,) = runs.glob("2*")
    return code, root


def _steps_written(out: str, root: Path, judged_seconds: float) -> list[tuple]:
    """Every step's row, a met step within one answer of its rate, why the
    search stopped, the page and a task per step; nothing left running."""
    steps = STEP_ROW.findall(out)
    for offered, achieved, verdict in steps:
        if verdict == "met":  # give or take one answer in the judged half
            assert float(achieved) >= 0.95 * float(offered) - 1 / judged_seconds
    assert "stopped: " in out
    assert (root / "capacity.md").read_text().startswith("## Capacity against")
    assert len(list((root / "capacity-tasks").glob("step-*.json"))) == len(steps)
    assert not run_processes(RunDir(root))
    return steps


def test_a_short_search_reports_its_steps_and_stops_keystone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, root = _search(tmp_path, SHORT)
    out = capsys.readouterr().out
    assert code == 0, out[-3000:]
    found = re.search(r"^sustained: ([\d.]+)/s", out, re.M)
    assert found and float(found[1]) in (4.0, 8.0), out
    steps = _steps_written(out, root, judged_seconds=2)
    assert [float(offered) for offered, _, _ in steps][:1] == [4.0]
    assert 1 <= len(steps) <= 2, out


@pytest.mark.slow
def test_a_search_brackets_the_rate_within_its_precision(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, root = _search(tmp_path, SEARCH)
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
    steps = _steps_written(out, root, judged_seconds=3)
    assert len(steps) >= 4 and "knee: " in out, out
