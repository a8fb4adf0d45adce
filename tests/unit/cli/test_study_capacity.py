"""``study --capacity``: the plan checked first, the searches on fake sides."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from rally_keystone_perf import cli, paths
from rally_keystone_perf.cli import study_capacity, study_commands
from rally_keystone_perf.report.figures import capacity_curve, capacity_step
from rally_keystone_perf.run import capacity, capacity_turns
from rally_keystone_perf.studies import seed001, seed003
from tests.unit.run import fake_sides

CAPACITY = {
    "apache-stock": 13.0,
    "nginx-stock": 21.0,
    "apache-1n": 3.0,
    "apache-2n": 5.0,
}


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Fake sides; each step judged as a server of ``CAPACITY[config]``/s
    (its config: the side's folder; its rate: the step's task file)."""
    monkeypatch.setattr(capacity.machine_probe, "probe", lambda: 0.2)
    found = fake_sides.install(monkeypatch)

    def curve_row(number: int, report: Path, objective: Any) -> Any:
        if not report.is_file():  # the step just run: its report written
            task = found["tasks"][-1]
            step = json.loads(task.read_text())["subtasks"][0]["workloads"][0]
            rate = step["runner"]["keystone_perf_arrival_rate"]["rate"]
            report.parent.mkdir(parents=True, exist_ok=True)
            report.write_text(json.dumps([task.parents[2].name, rate]))
        config, rate = json.loads(report.read_text())
        misses = () if rate <= CAPACITY[config] else ("p95<500ms: 900 ms",)
        figures = capacity_step.StepFigures(
            rate, rate, 50, 0, 0, (0.05, 0.1, 0.2), misses, False
        )
        return capacity_curve.CurveRow(number, figures, (), "Keystone CPU")

    monkeypatch.setattr(capacity_curve, "curve_row", curve_row)
    return found


def _args(**more: Any) -> argparse.Namespace:
    parser = cli.build_parser()
    args = parser.parse_args(["study", "003", "--capacity"])
    vars(args).update(more)
    return args


def _run(study: Any, tmp_path: Path) -> tuple[Any, list[int], list[str]]:
    args = _args()
    plan = study_capacity.prepare(args, study, paths.tasks_dir(), tmp_path)
    assert plan is not None
    lines: list[str] = []
    options = study_commands._options_of(args)
    part, codes = study_capacity.run_capacity(plan, study, options, lines.append, False)
    return part, codes, lines


def test_a_study_in_rounds_searches_every_config_in_turns(
    seen: dict[str, Any], tmp_path: Path
) -> None:
    study = seed003.STUDY.narrowed(["apache-stock", "nginx-stock"])
    part, codes, lines = _run(study, tmp_path)
    assert codes == []
    rows = {row.config: row for row in part.rows}
    for label in ("apache-stock", "nginx-stock"):
        assert rows[label].sustained <= CAPACITY[label] < rows[label].above  # type: ignore[operator]
    assert set(seen["stopped"]) == {"apache-stock", "nginx-stock"}
    assert seen["sampled_idle"] == [False, False]  # both up at once
    steps = [line.split(":")[0] for line in lines if "capacity step" in line]
    assert steps[:4] == ["apache-stock", "nginx-stock", "nginx-stock", "apache-stock"]
    assert part.unit == "project lists" and "in turns" in part.measured_in
    assert (tmp_path / "capacity" / "capacity-nginx-stock.html").is_file()
    (ratio,) = part.ratios
    assert ratio.name == "nginx+uwsgi vs Apache, stock"


def test_a_study_of_clusters_searches_one_config_after_the_other(
    seen: dict[str, Any], tmp_path: Path
) -> None:
    study = seed001.STUDY.narrowed(["apache-1n", "apache-2n"])
    part, codes, lines = _run(study, tmp_path)
    assert codes == []
    assert [row.seed_rate for row in part.rows] == [57.0, 105.0]
    steps = [line.split(":")[0] for line in lines if "capacity step" in line]
    first = steps.count("apache-1n")
    assert steps == ["apache-1n"] * first + ["apache-2n"] * (len(steps) - first)
    assert seen["stopped"] == ["apache-1n", "apache-2n"]  # one at a time


def test_an_interrupt_keeps_the_steps_and_the_same_command_goes_on(
    seen: dict[str, Any], tmp_path: Path
) -> None:
    study = seed003.STUDY.narrowed(["apache-stock", "nginx-stock"])
    seen["interrupt_at"] = 3
    part, codes, _ = _run(study, tmp_path)
    assert codes == [130]
    assert [row.steps for row in part.rows] == [1, 1]  # the two steps done
    recorded = json.loads(
        (tmp_path / "capacity" / capacity_turns.STATE_FILE).read_text()
    )
    assert [s["label"] for s in recorded["steps"]] == ["apache-stock", "nginx-stock"]
    seen["interrupt_at"] = None
    part, codes, _ = _run(study, tmp_path)
    assert codes == [] and all(row.sustained for row in part.rows)


def test_a_config_meeting_no_rate_exits_2(seen: dict[str, Any], tmp_path: Path) -> None:
    CAPACITY["apache-1n"] = 0.5  # below the first rate (1/s)
    try:
        study = seed001.STUDY.narrowed(["apache-1n"])
        part, codes, _ = _run(study, tmp_path)
    finally:
        CAPACITY["apache-1n"] = 3.0
    assert codes == [2] and part.rows[0].sustained is None


def test_a_study_without_capacity_rows_is_refused(
    capsys: pytest.CaptureFixture,
) -> None:
    assert cli.main(["study", "000", "--capacity"]) == 1
    assert "study 000 has no capacity rows" in capsys.readouterr().err


def test_configs_without_capacity_rows_are_refused(
    capsys: pytest.CaptureFixture,
) -> None:
    assert cli.main(["study", "001", "--configs", "fernet-sql", "--capacity"]) == 1
    assert "none of the configs chosen has a capacity row" in capsys.readouterr().err


def test_each_config_searches_its_modes_task_file(tmp_path: Path) -> None:
    plan = study_capacity.prepare(_args(), seed003.STUDY, paths.tasks_dir(), tmp_path)
    assert plan is not None
    assert plan.tasks["nginx-stock"].path.parent.name == "nginx-uwsgi"
    assert plan.tasks["apache-tuned"].path.name == "list-projects-c10-quick.json"
    assert {p.workload["name"] for p in plan.steps.values()} == {
        "KeystonePerf.list_projects"
    }
    assert plan.record["slo"] == "p95<500ms,success>=99.9%"
