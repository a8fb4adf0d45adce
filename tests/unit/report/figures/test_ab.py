"""A/B figures: cost ratios per round, their estimate and the verdict."""

from __future__ import annotations

import math
import random

import pytest

from rally_keystone_perf.report.figures import ab


def _side(median: float, throughput: float = 10.0, cpu: float = 0.1) -> ab.SideRound:
    return ab.SideRound(median, median * 1.2, throughput, cpu, 20, 0)


def _pair(n: int, a: float, b: float) -> ab.RoundPair:
    return ab.RoundPair(n, "ab", _side(a, 1 / a, a / 2), _side(b, 1 / b, b / 2))


def test_above_one_means_b_is_slower_for_every_measure() -> None:
    pair = _pair(1, 1.0, 1.25)
    assert pair.cost_ratio(ab.MEDIAN) == pytest.approx(1.25)
    assert pair.cost_ratio(ab.THROUGHPUT) == pytest.approx(1.25)  # A/B
    assert pair.cost_ratio(ab.SERVER_CPU) == pytest.approx(1.25)
    missing = ab.RoundPair(
        1, "ab", _side(1.0), ab.SideRound(None, None, 0.0, None, 0, 5)
    )
    assert missing.cost_ratio(ab.MEDIAN) is None
    assert missing.cost_ratio(ab.THROUGHPUT) is None


def test_the_estimate_is_the_geometric_mean_with_a_t_interval() -> None:
    found = ab.estimate([1.1, 1.2, 1.15, 1.12])
    logs = [math.log(r) for r in (1.1, 1.2, 1.15, 1.12)]
    assert found.ratio == pytest.approx(math.exp(sum(logs) / 4))
    assert found.low is not None and found.high is not None
    assert found.low < found.ratio < found.high
    # t(0.975, 3) = 3.182: the interval is wider than a normal one
    sd = (sum((x - sum(logs) / 4) ** 2 for x in logs) / 3) ** 0.5
    assert math.log(found.high / found.ratio) == pytest.approx(3.1824 * sd / 2, 1e-3)
    assert found.rounds == 4


def test_verdicts() -> None:
    slower = ab.verdict(ab.estimate([1.10, 1.12, 1.11, 1.13]))
    assert slower == "B slower by 11% (95% CI +9% to +14%)"
    assert ab.verdict(ab.estimate([0.9, 0.91, 0.89, 0.9])).startswith("B faster by 10%")
    same = ab.verdict(ab.estimate([1.01, 0.99, 1.0, 1.02, 0.98]))
    assert same.startswith("no difference larger than ") and "detectable" in same
    wild = ab.verdict(ab.estimate([0.5, 1.8, 0.7, 1.6]))
    assert wild.startswith("not measurable: the rounds disagree (spread ")
    assert ab.verdict(ab.estimate([1.3])) == "not measurable: 1 complete round"
    assert ab.verdict(ab.estimate([])) == "not measurable: 0 complete rounds"


def test_a_drift_shared_by_both_sides_cancels() -> None:
    """The machine slows down over the rounds; B is 10% slower throughout."""
    rng = random.Random(4)
    pairs = []
    for n in range(1, 9):
        machine = 1 + n * 0.08  # +8% a round: a 64% drift over the A/B
        a = machine * rng.gauss(1, 0.01)
        pairs.append(_pair(n, a, a * 1.1 * rng.gauss(1, 0.01)))
    found = ab.measure_estimate(pairs, ab.MEDIAN)
    assert found.ratio == pytest.approx(1.1, abs=0.02)
    assert found.low is not None and found.low > 1.05


def test_a_family_of_figures_judged_together_widens_each_interval() -> None:
    assert ab.judged(1) == pytest.approx(0.95)
    assert ab.judged(6) == pytest.approx(1 - 0.05 / 6)
    one = ab.estimate([1.1, 1.2, 1.15, 1.12])
    six = ab.estimate([1.1, 1.2, 1.15, 1.12], ab.judged(6))
    assert six.low is not None and one.low is not None and six.low < one.low
