"""The search for the highest arrival rate that meets an SLO.

Pure: the search is handed ``measure(rate)``, which runs one open-model step
at that offered rate and judges it
(:class:`rally_keystone_perf.layout.capacity.Step`); it never starts a
server itself, so a simulated server tests it. :func:`searcher` is the same
search as a generator (it yields a rate, is sent its step), for searches
that take their steps in turns.

The rule, printed with the result (:func:`rule_text`):

1. **Ramp.** From ``start``, each step ``growth`` times the last, until a
   step misses the SLO, its achieved rate falls short of the offered rate
   by more than :data:`~rally_keystone_perf.layout.capacity.SHORTFALL` (and
   more than one answer in the judged window:
   :attr:`~rally_keystone_perf.layout.capacity.Step.resolution`), the
   generator itself fell behind, or ``max_rate`` is passed.
2. **Narrow.** The ramp's highest rate met is measured again, ``repeats``
   times in all, and kept as the low end only if most of its steps meet
   the SLO (else the ramp's rate below it is). Between the low end and the
   lowest rate missed, the geometric middle is measured ``repeats`` times;
   it is met when most of its steps meet the SLO (one noisy step does not
   decide), and the bracket halves. The search stops when the bracket is narrower than
   ``precision`` (relative), or ``max_steps`` were taken.

The sustained rate is the bracket's low end; the high end is its
uncertainty. A generator that fell behind while Keystone kept up, its
servers' CPU not busy, stops the search: the rates above are the
generator's limit, not Keystone's, and the result says so. Behind a step
Keystone did not keep up with, or one where a server tier's CPU was busy
(``server_busy``), the lag is the CPU the servers took from the generator
on a shared machine: that step is missed, and the search goes on.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field

from rally_keystone_perf.layout.capacity import SHORTFALL, Step


@dataclass(frozen=True)
class Limits:
    """Where the search starts and how far and how finely it goes."""

    start: float = 5.0
    max_rate: float = 2000.0
    growth: float = 2.0
    precision: float = 0.03
    repeats: int = 3
    max_steps: int = 30

    def __post_init__(self) -> None:
        if not 0 < self.start <= self.max_rate:
            raise ValueError("the start rate must be above 0 and at most max_rate")
        if self.growth <= 1 or not 0 < self.precision < 1 or self.repeats < 1:
            raise ValueError("growth above 1, precision in (0, 1), repeats >= 1")


@dataclass
class Outcome:
    """What the search found; ``steps`` in the order taken."""

    sustained: float | None = None  # the highest rate met; None: none was
    above: float | None = None  # the lowest rate missed; None: none was
    steps: list[Step] = field(default_factory=list)
    stopped: str = ""  # why the search ended, in words

    @property
    def generator_limited(self) -> bool:
        return any(s.generator_bound for s in self.steps)


def partial(steps: Sequence[Step], why: str) -> Outcome:
    """The outcome of a search cut short after ``steps``: the highest rate
    met and the lowest missed so far."""
    met = [s.offered for s in steps if s.sustained]
    missed = [s.offered for s in steps if not s.sustained]
    return Outcome(
        sustained=max(met) if met else None,
        above=min(missed) if missed else None,
        steps=list(steps),
        stopped=why,
    )


def rule_text(limits: Limits) -> str:
    """The stopping rule in one sentence, as the result prints it."""
    return (
        f"ramp from {limits.start:g}/s by x{limits.growth:g} up to "
        f"{limits.max_rate:g}/s until a step misses; then halve the bracket, "
        f"its low end and each middle rate measured {_times(limits.repeats)}, "
        f"until it is narrower than {limits.precision:.0%} or "
        f"{limits.max_steps} steps; a step is met when it meets the SLO at "
        f"{1 - SHORTFALL:.0%} of its offered rate or more (give or take one "
        "answer in its judged half)"
    )


def _times(count: int) -> str:
    return "once" if count == 1 else f"{count} times (most decide)"


Steps = Generator[float, Step, Outcome]  # yields a rate, is sent its Step


def search(measure: Callable[[float], Step], limits: Limits) -> Outcome:
    """Ramp, then narrow; the outcome with every step taken."""
    steps = searcher(limits)
    try:
        rate = next(steps)
        while True:
            rate = steps.send(measure(rate))
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]


def searcher(limits: Limits) -> Steps:
    """The search as a generator: it yields the rate of its next step and is
    sent that step's :class:`~rally_keystone_perf.layout.capacity.Step`; its
    return value is the outcome. Several searches can so take their steps in
    turns (a study's configs, all up at once), or replay the steps of a
    search resumed."""
    outcome = Outcome()
    if not (yield from _ramp(limits, outcome)):
        return outcome
    if not (yield from _confirm(limits, outcome)):
        return outcome
    assert outcome.sustained is not None and outcome.above is not None
    while outcome.above / outcome.sustained - 1 > limits.precision:
        if len(outcome.steps) + limits.repeats > limits.max_steps:
            outcome.stopped = f"{limits.max_steps} steps taken"
            return outcome
        middle = math.sqrt(outcome.sustained * outcome.above)
        taken = yield from _repeated(middle, limits.repeats, outcome)
        if any(s.generator_bound for s in taken):
            outcome.stopped = _generator(middle)
            return outcome
        if sum(s.sustained for s in taken) * 2 > len(taken):
            outcome.sustained = middle
        else:
            outcome.above = middle
    outcome.stopped = f"the bracket is narrower than {limits.precision:.0%}"
    return outcome


def _repeated(
    rate: float, count: int, outcome: Outcome
) -> Generator[float, Step, list[Step]]:
    """``count`` steps at ``rate``, added to the outcome; those steps."""
    taken = []
    for _ in range(count):
        taken.append((yield rate))
    outcome.steps += taken
    return taken


def _confirm(limits: Limits, outcome: Outcome) -> Generator[float, Step, bool]:
    """Measure the ramp's highest rate met ``repeats`` times in all, as the
    middle rates are: one fast minute must not make the bracket's low end.
    Not met by most: it becomes the high end, the ramp's rate below it the
    low one. Whether to narrow."""
    rate = outcome.sustained
    assert rate is not None
    taken = yield from _repeated(rate, limits.repeats - 1, outcome)
    if any(s.generator_bound for s in taken):
        outcome.stopped = _generator(rate)
        return False
    if (1 + sum(s.sustained for s in taken)) * 2 > limits.repeats:
        return True
    below = [s.offered for s in outcome.steps if s.sustained and s.offered < rate]
    outcome.above, outcome.sustained = rate, max(below) if below else None
    if outcome.sustained is None:
        outcome.stopped = (
            f"no tested rate met the SLO (from {rate:g}/s, measured again)"
        )
        return False
    return True


def ramp_rates(limits: Limits) -> list[float]:
    """The ramp's rates: from the start by ``growth``, the last the ceiling."""
    rates = [limits.start]
    while rates[-1] < limits.max_rate:
        rates.append(min(rates[-1] * limits.growth, limits.max_rate))
    return rates


def most_iterations(limits: Limits, seconds: float) -> int:
    """The most iterations a search may start: its ramp, then every other
    step it may take at the ceiling (a bound, for ``--os-cloud``'s plan)."""
    ramp = ramp_rates(limits)[: limits.max_steps]
    rest = (limits.max_steps - len(ramp)) * limits.max_rate
    return math.ceil((sum(ramp) + rest) * seconds)


def _ramp(limits: Limits, outcome: Outcome) -> Generator[float, Step, bool]:
    """Grow the rate until a step is not sustained; whether to narrow."""
    for rate in ramp_rates(limits):
        step = yield rate
        outcome.steps.append(step)
        if step.generator_bound:
            outcome.stopped = _generator(rate)
            return False
        if not step.sustained:
            outcome.above = rate
            if outcome.sustained is None:
                outcome.stopped = f"no tested rate met the SLO (from {rate:g}/s)"
                return False
            return True
        outcome.sustained = rate
        if len(outcome.steps) >= limits.max_steps:
            outcome.stopped = f"{limits.max_steps} steps taken"
            return False
    outcome.stopped = f"every rate met the SLO up to the ceiling, {limits.max_rate:g}/s"
    return False


def _generator(rate: float) -> str:
    return (
        f"the load generator fell behind at {rate:.1f}/s while Keystone kept "
        "up: the rates above are its limit, not Keystone's"
    )
