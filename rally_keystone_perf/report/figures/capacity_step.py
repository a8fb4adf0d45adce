"""One capacity step judged: its steady half against the SLO.

A step is one open-model workload (``keystone_perf_arrival_rate``) at one
offered rate for ``duration`` seconds. Its first half lets the queues fill
or drain; only its second half is judged (the steady-state rule the search
prints):

- the iterations whose intended start falls in the second half: the
  response times of those that succeeded against the SLO's percentiles,
  the others (errors, drops) against its success floor;
- the achieved rate: the successful answers that came back within the
  second half, per second. A server that cannot keep up answers fewer
  than offered even while every request eventually succeeds, and the
  search does not call such a step sustained
  (:data:`rally_keystone_perf.layout.capacity.SHORTFALL`, give or take one
  answer: the count's grain in the window,
  :attr:`rally_keystone_perf.layout.capacity.Step.resolution`);
- the generator's lag (:mod:`.open_model`): when it fell behind, the step
  measures the generator, and the search stops.
"""

from __future__ import annotations

from dataclasses import dataclass

from rally_keystone_perf import metrics
from rally_keystone_perf.layout.capacity import Step
from rally_keystone_perf.loadgen import arrivals
from rally_keystone_perf.report.figures import open_model, slo
from rally_keystone_perf.report.readers.rally_json import Iteration, Workload

STEADY_FROM = 0.5  # the share of a step before its judged part


@dataclass(frozen=True)
class StepFigures:
    """A step's judged half (times in seconds, rates a second)."""

    offered: float
    achieved: float
    judged: int  # iterations due in the judged half
    failed: int  # of them: errors and drops
    dropped: int
    response: tuple[float | None, ...]  # p50, p95, p99 of those that succeeded
    misses: tuple[str, ...]
    generator_limited: bool
    window: float = 0.0  # seconds judged (0: none)

    def step(self, server_busy: bool = False) -> Step:
        """The search's view of it (``server_busy``: a server tier's CPU
        was busy in it, :mod:`.capacity_curve`)."""
        return Step(
            self.offered,
            self.achieved,
            self.misses,
            self.generator_limited,
            server_busy,
            resolution=1 / self.window if self.window > 0 else 0.0,
        )


def judge(workload: Workload, objective: slo.Slo) -> StepFigures:
    """The figures of one step's workload and its verdict against ``objective``.

    :raises ValueError: the workload is not an arrival-rate step of a duration.
    """
    runner = workload.runner
    if workload.runner_type != arrivals.RUNNER or "duration" not in runner:
        raise ValueError("a capacity step is an arrival-rate workload of a duration")
    offered, duration = float(runner["rate"]), float(runner["duration"])
    iterations = workload.iterations
    if not iterations:
        return StepFigures(offered, 0.0, 0, 0, 0, (None,) * 3, ("no iteration",), False)
    start = min(i.timestamp for i in iterations)  # the schedule's first arrival
    steady, end = start + STEADY_FROM * duration, start + duration
    judged = [i for i in iterations if i.timestamp >= steady]
    succeeded = [i for i in judged if not i.error]
    answered = [i for i in iterations if not i.error and steady <= _end(i) <= end]
    summary = open_model.summary(judged, offered, runner.get("max_in_flight"))
    response = sorted(i.duration for i in succeeded)
    failed = len(judged) - len(succeeded)
    return StepFigures(
        offered=offered,
        achieved=len(answered) / (end - steady),
        judged=len(judged),
        failed=failed,
        dropped=summary.dropped,
        response=tuple(metrics.percentile(response, q) for q in open_model.QUANTILES),
        misses=tuple(slo.misses(objective, response, failed)),
        generator_limited=summary.generator_limited,
        window=end - steady,
    )


def _end(iteration: Iteration) -> float:
    return iteration.timestamp + iteration.duration
