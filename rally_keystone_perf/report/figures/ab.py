"""A/B figures: two sides measured in rounds taken in turns, judged by round.

A round runs every workload of the task once on each side, the sides in a
counterbalanced order (:func:`rally_keystone_perf.run.ab.round_order`). Each
round and side gives one figure per measure (:data:`MEASURES`): the median
of the iterations' total duration, the throughput, the server's CPU per
iteration. The machine's speed drifts over minutes, and the iterations of
one round share that round's machine; so the unit of evidence is the
round, never the iteration: pooling iterations would make a test's p-value
measure the machine.

Per round the **cost ratio** B/A (for throughput A/B, so that above 1
always means B is slower). The estimate is the geometric mean of the
rounds' ratios and its interval a Student t-interval on their logarithms
(n - 1 degrees of freedom): a ratio's logarithm is symmetric around no
change, and a round's drift that slows both sides alike cancels in it.
The verdict (:func:`.verdicts.judge`, in words by
:func:`.verdicts.describe`):

``B slower by 12% (95% CI 8% to 16%)`` / ``B faster by ...``
    the interval lies wholly above (below) no change;
``no difference larger than 4% detectable``
    the interval holds no change and is narrower than
    :data:`.verdicts.DISAGREE`
    either way: a difference, if any, is smaller than its wider end;
``not measurable: the rounds disagree (spread 31%)``
    the interval reaches past :data:`.verdicts.DISAGREE`: the rounds vary too much
    for this many of them to say anything (spread: the rounds' ratios'
    geometric standard deviation, in percent);
``not measurable: 1 complete round``
    fewer than 2 rounds.

Several workloads and measures judged together (a gate) keep their
family-wise error rate at ``alpha`` by Bonferroni: each interval at
confidence ``1 - alpha / m`` for ``m`` judged figures
(:func:`.verdicts.judged`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rally_keystone_perf import metrics
from rally_keystone_perf.report.figures import stats, windows
from rally_keystone_perf.report.figures.instructions import InstructionRow
from rally_keystone_perf.report.figures.verdicts import CONFIDENCE, Estimate, estimate
from rally_keystone_perf.report.readers import resources
from rally_keystone_perf.report.readers.ab_folder import AbRun
from rally_keystone_perf.report.readers.rally_json import Workload

Samples = Sequence[resources.ResourceSample]

MEDIAN, THROUGHPUT, SERVER_CPU = "median", "throughput", "server CPU"
MEASURES = (MEDIAN, THROUGHPUT, SERVER_CPU)
HIGHER_IS_BETTER = {THROUGHPUT}


@dataclass(frozen=True)
class SideRound:
    """One side's figures in one round of one workload."""

    median: float | None  # seconds, the total's
    p95: float | None  # printed, never judged: a few dozen iterations
    throughput: float | None  # iterations per second
    server_cpu: float | None  # server CPU seconds per iteration
    iterations: int
    failures: int
    sla_passed: bool = True

    def value(self, measure: str) -> float | None:
        return {
            MEDIAN: self.median,
            THROUGHPUT: self.throughput,
            SERVER_CPU: self.server_cpu,
        }[measure]


@dataclass(frozen=True)
class RoundPair:
    """Both sides of one workload in one round."""

    round_no: int
    order: str  # "ab" or "ba"
    a: SideRound
    b: SideRound

    def cost_ratio(self, measure: str) -> float | None:
        """B over A (A over B for throughput): above 1, B is slower."""
        a, b = self.a.value(measure), self.b.value(measure)
        if not a or not b or a <= 0 or b <= 0:
            return None
        return a / b if measure in HIGHER_IS_BETTER else b / a


def side_round(workload: Workload, server_cpu: float | None) -> SideRound:
    """A side's figures of one workload run (one round)."""
    durations = stats.action_samples(workload)[metrics.TOTAL]
    median, p95 = metrics.median_p95(durations)
    return SideRound(
        median=median,
        p95=p95,
        throughput=stats.throughput(workload),
        server_cpu=server_cpu,
        iterations=len(workload.iterations),
        failures=sum(1 for i in workload.iterations if i.error),
        sla_passed=workload.pass_sla,
    )


def measure_estimate(
    pairs: Sequence[RoundPair], measure: str, confidence: float = CONFIDENCE
) -> Estimate:
    """The estimate of one measure over a workload's rounds."""
    ratios = [r for p in pairs if (r := p.cost_ratio(measure)) is not None]
    return estimate(ratios, confidence)


@dataclass
class AbWorkload:
    """One workload of the task (by its position) over the complete rounds."""

    position: int
    scenario: str  # its label: the name, then its arguments if any
    runner: str
    pairs: list[RoundPair] = field(default_factory=list)

    @property
    def label(self) -> str:
        return f"{self.scenario} ({self.runner})"

    def estimate(self, measure: str, confidence: float = CONFIDENCE) -> Estimate:
        return measure_estimate(self.pairs, measure, confidence)


def _runner_text(workload: Workload) -> str:
    shown = {k: v for k, v in workload.runner.items() if k != "type"}
    args = ", ".join(f"{k} {v}" for k, v in sorted(shown.items()))
    return f"{workload.runner_type}, {args}" if args else workload.runner_type


def _server_cpu(samples: Samples | None, workload: Workload) -> float | None:
    """The server's CPU seconds per iteration inside the workload's window."""
    if not samples or not workload.iterations:
        return None
    start, end = windows.load_window(workload)
    usage = resources.resource_usage(samples, start, end, len(workload.iterations))
    return None if usage is None else usage.cpu_per_iteration


def workloads(found: AbRun) -> list[AbWorkload]:
    """The task's workloads, each with its rounds' pairs of figures."""
    result: dict[int, AbWorkload] = {}
    for entry in found.rounds:
        a_side, b_side = entry.workloads["a"], entry.workloads["b"]
        for position, (a, b) in enumerate(zip(a_side, b_side, strict=True)):
            workload = result.setdefault(
                position, AbWorkload(position, a.scenario_label, _runner_text(a))
            )
            workload.pairs.append(
                RoundPair(
                    entry.round_no,
                    entry.order,
                    side_round(a, _server_cpu(found.samples["a"], a)),
                    side_round(b, _server_cpu(found.samples["b"], b)),
                )
            )
    return [result[k] for k in sorted(result)]


@dataclass(frozen=True)
class AbPage:
    """What an A/B page shows (:mod:`rally_keystone_perf.report.blocks.ab`)."""

    folder: str
    task: str
    status: str
    rounds_planned: int
    sides: dict[str, str]  # side -> its options, as one line
    workloads: Sequence[AbWorkload]
    confidence: float = CONFIDENCE
    # --instructions: counts by workload position, and what they cover
    instructions: Mapping[int, InstructionRow] = field(default_factory=dict)
    counted: Mapping[str, Any] = field(default_factory=dict)
    not_counted: Mapping[int, str] = field(default_factory=dict)  # why, by position

    def counted_alone(self) -> list[InstructionRow]:
        """The counted workloads no complete round timed (``--rounds 0``)."""
        timed = {w.position for w in self.workloads}
        return [r for pos, r in sorted(self.instructions.items()) if pos not in timed]


def side_texts(options: dict[str, dict[str, Any]]) -> dict[str, str]:
    """Each side's launch options that differ from the other's, on one line;
    the options both share under ``"both"``."""
    a, b = options.get("a", {}), options.get("b", {})
    keys = sorted(set(a) | set(b))
    differ = [k for k in keys if a.get(k) != b.get(k)]
    texts = {
        side: ", ".join(f"{k} {values[k]}" for k in differ if _said(k, values, other))
        or "as the other"
        for side, values, other in (("a", a, b), ("b", b, a))
    }
    shown = [k for k in keys if k not in differ and a.get(k) not in (None, False)]
    texts["both"] = ", ".join(f"{k} {a[k]}" for k in shown)
    return texts


def _said(key: str, values: dict[str, Any], other: dict[str, Any]) -> bool:
    """Whether a differing option is shown for a side: a cloud side records
    its target alone, so the other side's unset options are not news."""
    if key not in values:
        return False
    return key in other or values[key] not in (None, False)
