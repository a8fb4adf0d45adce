"""A/B figures: cost ratios per round, their estimate and the verdict."""

from __future__ import annotations

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


def test_a_cloud_side_shows_its_target_and_the_other_its_options() -> None:
    texts = ab.side_texts(
        {
            "a": {"target": "https://k.example:5000/v3 (external)", "api": "3.14"},
            "b": {"mode": "uwsgi", "processes": 2, "keystone_build": None},
        }
    )
    assert texts["a"] == "api 3.14, target https://k.example:5000/v3 (external)"
    assert texts["b"] == "mode uwsgi, processes 2"
    assert texts["both"] == ""


def test_sides_differing_by_one_option_show_it_even_when_unset() -> None:
    texts = ab.side_texts({"a": {"keystone_build": None}, "b": {"keystone_build": "x"}})
    assert texts == {"a": "keystone_build None", "b": "keystone_build x", "both": ""}
