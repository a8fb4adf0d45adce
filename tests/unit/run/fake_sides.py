"""Sides of rounds stood in for: a Keystone session that starts nothing and
a Rally runner that hands back a report path per task (or an interrupt)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rally_keystone_perf.deploy.options import LaunchError
from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.run import rally_runner, rounds


class FakeRunner:
    """Rally's runner stood in for: a report path per task, or an interrupt."""

    def __init__(self, run: RunDir, seen: dict[str, Any]) -> None:
        self.run, self.seen = run, seen

    def start_task(self, task: Path, tags: list[str]) -> rally_runner.TaskOutcome:
        log = self.seen["log"]
        log.append(" ".join(tags))
        self.seen.setdefault("tasks", []).append(task)
        report = self.run.results / f"{len(log)}.json"
        interrupted = len(log) == self.seen["interrupt_at"]
        code = rally_runner.EXIT_INTERRUPTED if interrupted else 0
        return rally_runner.TaskOutcome(task, "uuid", code, report, interrupted)


def install(monkeypatch: Any) -> dict[str, Any]:
    """Every side's Keystone session faked; what they saw: ``log`` (each
    task's tags), ``stopped`` (the sides' folders, as they stop) and
    ``interrupt_at`` (the task, counted from 1, that is interrupted); a
    side named in ``fail_start`` does not start (LaunchError)."""
    seen: dict[str, Any] = {"log": [], "stopped": [], "interrupt_at": None}
    seen["sampled_idle"] = []  # each side's sample_idle

    @contextlib.contextmanager
    def session(
        runs: Path, deployment: Any, echo: Any, sample_idle: bool = True
    ) -> Iterator[tuple]:
        seen["sampled_idle"].append(sample_idle)
        if runs.name in seen.get("fail_start", ()):
            raise LaunchError(f"{runs.name} did not start; last lines of its log")
        run = RunDir(runs / "run")
        run.create()
        try:
            yield run, FakeRunner(run, seen)
        finally:
            seen["stopped"].append(runs.name)

    monkeypatch.setattr(rounds.session, "keystone_session", session)
    return seen
