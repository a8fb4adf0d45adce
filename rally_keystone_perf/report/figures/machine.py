"""Whether two runs' machines were as fast as each other (run.json's
``machine``, :mod:`rally_keystone_perf.deploy.machine_probe`)."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any

from rally_keystone_perf.report.figures.run_labels import Run

SAME_MACHINE = 0.05  # probes further apart than 5%: the machines differed
STEAL_NOTED = 0.05  # a hypervisor taking 5% of the CPUs is worth a line


def machine_of(run: Run) -> dict[str, Any] | None:
    """The ``machine`` figures of the run folder of ``run``'s first report."""
    return next((state.machine for state in run.states if state.machine), None)


def _probe(machine: dict[str, Any]) -> float | None:
    values = [machine.get(k) for k in ("probe_before", "probe_after")]
    found = [float(v) for v in values if isinstance(v, int | float) and v > 0]
    return statistics.fmean(found) if found else None


def _line(run: Run, machine: dict[str, Any]) -> str:
    before, after = machine.get("probe_before"), machine.get("probe_after")
    text = f"machine of {run.label}: speed probe"
    text += f" {before * 1000:.0f} ms before" if before else ""
    text += f", {after * 1000:.0f} ms after its load" if after else ""
    share = machine.get("steal_share")
    if isinstance(share, int | float):
        text += f"; CPU stolen by the hypervisor {share:.1%}"
    return text


def machine_lines(runs: Sequence[Run]) -> list[str]:
    """Each run's probe and steal, and a warning where the machines differed."""
    found = [(run, m) for run in runs if (m := machine_of(run)) is not None]
    lines = [_line(run, m) for run, m in found] + _differences(found)
    for run, machine in found:
        share = machine.get("steal_share")
        if isinstance(share, int | float) and share > STEAL_NOTED:
            lines.append(
                f"warning: the hypervisor took {share:.0%} of the CPUs during "
                f"{run.label}'s load"
            )
    return lines


def _differences(found: Sequence[tuple[Run, dict[str, Any]]]) -> list[str]:
    """A warning per run whose probe differs from the first run's by > 5%."""
    if len(found) < 2:
        return []
    lines = []
    (base, base_machine), *others = found
    base_probe = _probe(base_machine)
    for run, machine in others:
        probe = _probe(machine)
        if base_probe and probe and abs(probe / base_probe - 1) > SAME_MACHINE:
            way = "slower" if probe > base_probe else "faster"
            lines.append(
                f"warning: the machine itself was {abs(probe / base_probe - 1):.0%} "
                f"{way} for {run.label} than for {base.label} (its speed probe): "
                "a difference between these runs may be the machine's, not "
                "Keystone's; measure both in rounds taken in turns "
                "(rally-keystone-perf ab)"
            )
    return lines
