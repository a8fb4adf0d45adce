"""An A/B folder read back: its rounds, each side's workloads and server CPU.

The folder is what ``rally-keystone-perf ab`` wrote
(:mod:`rally_keystone_perf.run.ab`): ``ab.json``
(:mod:`rally_keystone_perf.layout.ab_state`) and a run folder per side,
whose ``results/`` hold every round's Rally report and whose resource
samples give the server's CPU per iteration inside each workload's load
window (:func:`rally_keystone_perf.report.figures.ab.workloads`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rally_keystone_perf.layout.ab_state import SIDES, AbState
from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.report.readers import rally_json, resources
from rally_keystone_perf.report.readers.rally_json import ReportError


@dataclass(frozen=True)
class AbRound:
    """One complete round: each side's workloads and their server CPU."""

    round_no: int
    order: str
    workloads: dict[str, list[rally_json.Workload]]  # side -> the task's workloads


@dataclass
class AbRun:
    """An A/B folder: its state and its complete rounds."""

    state: AbState
    rounds: list[AbRound]
    samples: dict[str, list[resources.ResourceSample] | None]  # side -> server's


def _side_samples(state: AbState, side: str) -> list[resources.ResourceSample] | None:
    run = state.sides[side].get("run")
    if not run:
        return None
    return resources.read_if_present(RunDir(Path(run)).logs / "resources.csv")


def load(folder: Path) -> AbRun:
    """Read an A/B folder; ReportError when it is not one or a report is bad."""
    try:
        state = AbState.load(folder)
    except ValueError as exc:
        raise ReportError(str(exc)) from None
    samples = {side: _side_samples(state, side) for side in SIDES}
    rounds = []
    for entry in state.complete_rounds():
        loaded = {s: rally_json.load_report(entry.reports[s]) for s in SIDES}
        names = {s: [w.scenario_name for w in loaded[s]] for s in SIDES}
        if names["a"] != names["b"]:
            raise ReportError(
                f"{folder}: round {entry.round_no}: the sides ran different "
                f"workloads ({', '.join(names['a'])} against "
                f"{', '.join(names['b'])}): not an A/B of one task"
            )
        rounds.append(AbRound(entry.round_no, "".join(entry.order), loaded))
    return AbRun(state, rounds, samples)
