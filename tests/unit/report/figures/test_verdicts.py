"""Estimates over rounds, their typed verdicts, and the one formatter."""

from __future__ import annotations

import math

import pytest

from rally_keystone_perf.report.figures import verdicts as v


def test_the_estimate_is_the_geometric_mean_with_a_t_interval() -> None:
    found = v.estimate([1.1, 1.2, 1.15, 1.12])
    logs = [math.log(r) for r in (1.1, 1.2, 1.15, 1.12)]
    assert found.ratio == pytest.approx(math.exp(sum(logs) / 4))
    assert found.low is not None and found.high is not None
    assert found.low < found.ratio < found.high
    # t(0.975, 3) = 3.182: the interval is wider than a normal one
    sd = (sum((x - sum(logs) / 4) ** 2 for x in logs) / 3) ** 0.5
    assert math.log(found.high / found.ratio) == pytest.approx(3.1824 * sd / 2, 1e-3)
    assert found.rounds == 4
    assert found.method == v.ROUNDS_T


@pytest.mark.parametrize(
    ("ratios", "call", "words"),
    [
        ([1.10, 1.12, 1.11, 1.13], v.SLOWER, "B slower by 11% (95% CI +9% to +14%)"),
        ([0.9, 0.91, 0.89, 0.9], v.FASTER, "B faster by 10% (95% CI -11% to -9%)"),
        (
            [1.01, 0.99, 1.0, 1.02, 0.98],
            v.NO_DIFFERENCE,
            "no difference larger than 2% detectable (95% CI -2% to +2%)",
        ),
        (
            [0.5, 1.8, 0.7, 1.6],
            v.NOT_MEASURABLE,
            "not measurable: the rounds disagree (spread 87%)",
        ),
        ([1.3], v.NOT_MEASURABLE, "not measurable: 1 complete round"),
        ([], v.NOT_MEASURABLE, "not measurable: 0 complete rounds"),
    ],
)
def test_each_call_and_its_words(ratios: list[float], call: str, words: str) -> None:
    said = v.judge(v.estimate(ratios))
    assert said.call == call
    assert said.measurable == (call != v.NOT_MEASURABLE)
    assert v.describe(said) == words


def test_no_difference_names_the_largest_it_excludes() -> None:
    said = v.judge(v.estimate([1.01, 0.99, 1.0, 1.02, 0.98]))
    assert said.bound is not None and 0.01 < said.bound < 0.03
    assert said.estimate is not None and said.estimate.rounds == 5


def test_the_subject_is_named_or_left_out() -> None:
    said = v.judge(v.estimate([1.10, 1.12, 1.11, 1.13]))
    assert v.describe(said, subject="29.0.0").startswith("29.0.0 slower by 11%")
    assert v.describe(said, subject="").startswith("slower by 11% (95% CI")


def test_a_narrower_tolerance_makes_the_same_rounds_not_measurable() -> None:
    found = v.estimate([1.01, 0.99, 1.0, 1.02, 0.98])
    assert v.judge(found).call == v.NO_DIFFERENCE
    assert v.judge(found, disagree=0.01).call == v.NOT_MEASURABLE


def test_a_reason_is_said_as_given() -> None:
    said = v.not_measurable("29.0.0 failed in round 2")
    assert not said.measurable and v.describe(said) == "29.0.0 failed in round 2"


def test_a_family_of_figures_judged_together_widens_each_interval() -> None:
    assert v.judged(1) == pytest.approx(0.95)
    assert v.judged(6) == pytest.approx(1 - 0.05 / 6)
    one = v.estimate([1.1, 1.2, 1.15, 1.12])
    six = v.estimate([1.1, 1.2, 1.15, 1.12], v.judged(6))
    assert six.low is not None and one.low is not None and six.low < one.low
