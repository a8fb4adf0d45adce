"""Estimates and verdicts: what every comparison in rounds concludes.

An A/B (:mod:`.ab`), the releases (:mod:`.releases`), a study's ratios
(:mod:`.study_rounds`) and the A/B's gate (:mod:`.ab_gate`) each take a
ratio per round and judge the rounds together; ``compare``
(:func:`.compare.mann_whitney`) and the two-run gate (:mod:`.gate`) test
two samples of durations instead, their estimate a ratio of medians with
its p-value and no interval. They share:

:class:`Estimate`
    the geometric mean of the rounds' ratios, its Student t-interval on
    their logarithms (n - 1 degrees of freedom) at a confidence level, the
    number of rounds, their spread, and the method's name;
:class:`Verdict`
    one of :data:`SLOWER`, :data:`FASTER`, :data:`NO_DIFFERENCE` (no
    difference larger than its ``bound``) or :data:`NOT_MEASURABLE` (its
    ``reason``), made by :func:`judge` from an estimate;
:func:`describe`
    the one formatter of a verdict, for every page and format.

A program reads a verdict's ``call``, never its words.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

CONFIDENCE = 0.95
DISAGREE = 0.25  # an interval reaching 25% past no change says nothing
ROUNDS_T = "geometric mean of the rounds' ratios, t-interval on their logarithms"
SLOWER, FASTER = "slower", "faster"
NO_DIFFERENCE, NOT_MEASURABLE = "no difference", "not measurable"
NOT_SIGNIFICANT = "not significant"  # a test's no difference, in words
COUNTED = "instruction counts: the ratio, its layouts' spread"
# a count's difference is called past the larger of the layouts' spread and
# this: a change that adds nothing can move a count a few tenths of a percent
# by moving the process's memory (doc/source/user/instruction-counts.rst)
LEAST_COUNTED = 0.01


@dataclass(frozen=True)
class Estimate:
    """A cost ratio over rounds (above 1: the second side costs more)."""

    ratio: float | None  # geometric mean of the rounds' ratios
    low: float | None
    high: float | None
    rounds: int  # rounds; for a test of samples, the smaller side's samples
    spread: float | None  # geometric standard deviation - 1
    confidence: float
    method: str = ROUNDS_T
    p_value: float | None = None  # a test's, when one was made

    @property
    def regression(self) -> float | None:
        """The estimated slowdown: 0.12 for 12% slower."""
        return None if self.ratio is None else self.ratio - 1

    @property
    def has_interval(self) -> bool:
        return self.ratio is not None and self.low is not None and self.high is not None


@dataclass(frozen=True)
class Verdict:
    """What an estimate says: its ``call`` and what it rests on."""

    call: str  # SLOWER, FASTER, NO_DIFFERENCE or NOT_MEASURABLE
    estimate: Estimate | None = None
    bound: float | None = None  # NO_DIFFERENCE: none larger than this share
    # (None: a test that did not show a difference)
    reason: str = ""  # NOT_MEASURABLE: why, as said to the reader

    @property
    def measurable(self) -> bool:
        return self.call != NOT_MEASURABLE


def estimate(ratios: Sequence[float], confidence: float = CONFIDENCE) -> Estimate:
    """The geometric mean of ``ratios`` and its t-interval at ``confidence``."""
    logs = [math.log(r) for r in ratios if r > 0]
    n = len(logs)
    if n < 2:
        ratio = math.exp(logs[0]) if logs else None
        return Estimate(ratio, None, None, n, None, confidence)
    from scipy import stats as scipy_stats  # costly: 1.5 s to import

    mean, sd = statistics.fmean(logs), statistics.stdev(logs)
    half = scipy_stats.t.ppf(0.5 + confidence / 2, n - 1) * sd / math.sqrt(n)
    return Estimate(
        ratio=math.exp(mean),
        low=math.exp(mean - half),
        high=math.exp(mean + half),
        rounds=n,
        spread=math.exp(sd) - 1,
        confidence=confidence,
    )


def counted(ratio: float, spread: float) -> Verdict:
    """A count's verdict: the ratio as it is (counts do not drift), slower or
    faster only past the larger of ``spread`` (the layouts') and
    :data:`LEAST_COUNTED`."""
    margin = max(spread, LEAST_COUNTED)
    found = Estimate(ratio, ratio - margin, ratio + margin, 1, spread, 1.0, COUNTED)
    return judge(found)


def judged(figures: int, alpha: float = 1 - CONFIDENCE) -> float:
    """The confidence of each of ``figures`` intervals judged together
    (Bonferroni: the family-wise error rate stays at ``alpha``)."""
    return 1 - alpha / max(1, figures)


def not_measurable(reason: str, found: Estimate | None = None) -> Verdict:
    """A verdict that cannot be made, ``reason`` as the reader sees it."""
    return Verdict(NOT_MEASURABLE, found, reason=reason)


def judge(found: Estimate, disagree: float = DISAGREE) -> Verdict:
    """Slower or faster when the interval lies wholly on one side of no
    change; no difference larger than its wider end when it holds no
    change within ``disagree``; else not measurable (the rounds disagree,
    or fewer than 2)."""
    if not found.has_interval:
        plural = "" if found.rounds == 1 else "s"
        return not_measurable(
            f"not measurable: {found.rounds} complete round{plural}", found
        )
    assert found.low is not None and found.high is not None
    if found.low > 1:
        return Verdict(SLOWER, found)
    if found.high < 1:
        return Verdict(FASTER, found)
    widest = max(found.high - 1, 1 - found.low)
    if widest > disagree:
        spread = found.spread or 0.0
        return not_measurable(
            f"not measurable: the rounds disagree (spread {spread:.0%})", found
        )
    return Verdict(NO_DIFFERENCE, found, bound=widest)


def ratio_of(value: float | None, base: float | None) -> float | None:
    """``value / base`` when both exist and ``base`` is positive."""
    if value is None or base is None or base <= 0:
        return None
    return value / base


def change(ratio: float) -> str:
    """``+8%`` or ``-3%``: a ratio as a change."""
    return f"{(ratio - 1) * 100:+.0f}%".replace("+-", "-")


def describe(verdict: Verdict, subject: str = "B") -> str:
    """The verdict in words: ``B slower by 12% (95% CI +8% to +16%)``,
    ``no difference larger than 4% detectable (...)`` or its reason;
    ``subject`` names what is slower or faster ("" for none). A test's
    verdict (no interval) is its call alone: ``slower``, ``faster``, ``not
    significant``."""
    found = verdict.estimate
    if verdict.call == NOT_MEASURABLE or found is None:
        return verdict.reason
    if found.low is None or found.high is None:
        said = NOT_SIGNIFICANT if verdict.call == NO_DIFFERENCE else verdict.call
        return f"{subject} {said}" if subject else said
    assert found.ratio is not None and found.low is not None
    assert found.high is not None
    if found.method == COUNTED:
        return _counted_words(verdict, found, f"{subject} " if subject else "")
    level = f"{found.confidence * 100:.4g}% CI"
    interval = f"({level} {change(found.low)} to {change(found.high)})"
    who = f"{subject} " if subject else ""
    if verdict.call == SLOWER:
        return f"{who}slower by {found.ratio - 1:.0%} {interval}"
    if verdict.call == FASTER:
        return f"{who}faster by {1 - found.ratio:.0%} {interval}"
    return f"no difference larger than {verdict.bound:.0%} detectable {interval}"


def _counted_words(verdict: Verdict, found: Estimate, who: str) -> str:
    """A count's verdict: ``costs 2.1% more instructions (layouts within
    0.4%)``, or no difference larger than its margin."""
    assert found.ratio is not None
    layouts = f"(layouts within {found.spread or 0:.1%})"
    if verdict.call == SLOWER:
        return f"{who}costs {found.ratio - 1:.1%} more instructions {layouts}"
    if verdict.call == FASTER:
        return f"{who}costs {1 - found.ratio:.1%} fewer instructions {layouts}"
    margin = max(found.spread or 0, LEAST_COUNTED)
    return f"no difference in instructions larger than {margin:.1%} {layouts}"
