"""An A/B folder read back and computed: rounds, workloads, server CPU."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from rally_keystone_perf.layout.ab_state import SIDES, AbState
from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.layout.state_files import DONE, Round
from rally_keystone_perf.report import api
from rally_keystone_perf.report.figures import ab as figures
from rally_keystone_perf.report.figures import verdicts
from rally_keystone_perf.report.readers import ab_folder
from rally_keystone_perf.report.readers.rally_json import ReportError
from rally_keystone_perf.run import ab
from tests.unit.report import factory as f
from tests.unit.report import runs as r

VALIDATE = "KeystonePerf.validate_token"


def _report(path: Path, seed: int, mean: float) -> str:
    workloads = [
        r.workload(r.gauss(seed, mean, 20)),
        r.workload(r.gauss(seed + 100, mean / 3, 20), name=VALIDATE, position=1),
    ]
    return str(f.write_report(path, [f.task([workloads])]))


def make_ab(folder: Path, rounds: int = 6, slowdown: float = 1.2) -> Path:
    """An A/B folder whose B is ``slowdown`` times as slow, CPU samples too."""
    state = AbState(
        folder=folder,
        task="tasks/gate-tokens.json",
        sides={s: {"options": {"processes": 2 if s == "a" else 1}} for s in SIDES},
        rounds_planned=rounds,
        status=DONE,
    )
    for side in SIDES:
        run = RunDir(folder / side / "run")
        run.create()
        state.sides[side]["run"] = str(run.root)
        rate = 1.0 if side == "a" else slowdown  # CPU seconds a second
        rows = [f"{t},{(t - 900) * rate:.3f},1000,2" for t in range(900, 1200)]
        lines = ["timestamp,cpu_seconds,rss_bytes,processes", *rows]
        (run.logs / "resources.csv").write_text("\n".join(lines) + "\n")
    for n in range(1, rounds + 1):
        entry = Round(n, ab.round_order(n))
        for side in SIDES:
            mean = 1.0 * (slowdown if side == "b" else 1.0) * (1 + n / 20)  # drift
            results = RunDir(Path(state.sides[side]["run"])).results
            entry.reports[side] = _report(results / f"r{n}.json", n, mean)
        state.rounds.append(entry)
    state.save()
    return folder


def test_rounds_pair_up_per_workload(tmp_path: Path) -> None:
    found = ab_folder.load(make_ab(tmp_path / "ab"))
    assert [x.round_no for x in found.rounds] == [1, 2, 3, 4, 5, 6]
    workloads = figures.workloads(found)
    assert [w.scenario for w in workloads] == [r.SCENARIO, VALIDATE]
    median = workloads[0].estimate(figures.MEDIAN)
    assert median.ratio == pytest.approx(1.2, abs=0.05)
    assert verdicts.describe(verdicts.judge(median)).startswith("B slower by ")
    cpu = workloads[0].pairs[0]
    assert cpu.a.server_cpu is not None and cpu.b.server_cpu is not None
    # 1.2 times the CPU a second, over a longer window (slower iterations)
    assert cpu.b.server_cpu / cpu.a.server_cpu > 1.2


def test_the_page_in_every_format(tmp_path: Path) -> None:
    folder = make_ab(tmp_path / "ab")
    for fmt in ("table", "markdown", "json"):
        out = io.StringIO()
        api.write_ab(folder, out, fmt)
        assert "B slower by" in out.getvalue(), fmt
    text = io.StringIO()
    api.write_ab(folder, text, "table")
    assert "6 of 6 rounds complete (done)" in text.getvalue()
    assert "A: processes 2" in text.getvalue()


def test_sides_that_ran_different_tasks_are_refused(tmp_path: Path) -> None:
    folder = make_ab(tmp_path / "ab", rounds=2)
    state = AbState.load(folder)
    one = [r.workload(r.gauss(1, 1.0, 20))]
    state.rounds[1].reports["b"] = str(
        f.write_report(tmp_path / "other.json", [f.task([one])])
    )
    state.save()
    with pytest.raises(ReportError, match="round 2: the sides ran different workloads"):
        ab_folder.load(folder)
