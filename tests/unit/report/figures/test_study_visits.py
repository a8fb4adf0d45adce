"""A study measured A-B-A: ratios of the visits' means, the drift beside them."""

from __future__ import annotations

import pytest

from rally_keystone_perf.report.figures import study_visits
from rally_keystone_perf.report.figures.study import Measured
from rally_keystone_perf.studies import seed001

LEVEL = seed001.RATE_LEVEL
TOKENS = seed001.TOKENS


def _rate(config: str, per_second: float) -> Measured:
    figures = {"avg": 8 / per_second, "success": 1.0, "count": 40.0}
    return Measured(
        config, LEVEL, {**figures, "throughput": per_second}, per_second, 8, None
    )


def _visits(*passes: dict[str, float]) -> list[dict]:
    """Each visit's token rates by config (seed 001's rate configs)."""
    return [
        {(label, LEVEL, TOKENS): _rate(label, rate) for label, rate in found.items()}
        for found in passes
    ]


def _row(rows: list, name: str):  # type: ignore[no-untyped-def]
    return next(row for row in rows if row.name == name)


def test_a_ratio_of_the_visits_means_with_the_larger_drift_beside_it() -> None:
    # A B A: 2 nodes 100/s then 80/s (the machine slowed 25%), 1 node 50/s once
    visits = _visits({"apache-1n": 50.0, "apache-2n": 100.0}, {"apache-2n": 80.0})
    rows = study_visits.ratio_rows(seed001.STUDY, visits, [LEVEL])
    two = _row(rows, "2 nodes vs 1, token_authenticate")
    assert two.ours == pytest.approx(90 / 50)
    assert two.drift == pytest.approx(0.25)
    assert two.low is None and two.rounds is None
    # the seed's 105/57 = 1.84x; 1.8x within 25%, and 1.44x..2.25x too
    assert two.verdict == "holds"


def test_a_drift_that_could_change_the_verdict_leaves_it_undecided() -> None:
    visits = _visits(
        {"apache-1n": 50.0, "apache-2n": 60.0}, {"apache-1n": 40.0, "apache-2n": 60.0}
    )
    two = _row(
        study_visits.ratio_rows(seed001.STUDY, visits, [LEVEL]),
        "2 nodes vs 1, token_authenticate",
    )
    assert two.ours == pytest.approx(60 / 45)
    assert two.drift == pytest.approx(0.25)  # 1n: 50 then 40
    assert two.verdict.startswith("undecided: the drift allows")
    assert "not reproduced" in two.verdict and "holds" in two.verdict


def test_configs_measured_once_say_so() -> None:
    visits = _visits({"apache-1n": 50.0, "apache-2n": 100.0})
    two = _row(
        study_visits.ratio_rows(seed001.STUDY, visits, [LEVEL]),
        "2 nodes vs 1, token_authenticate",
    )
    assert two.drift is None
    assert two.verdict == "holds (one visit each: no drift measured)"


def test_a_ratio_not_measured_keeps_its_verdict() -> None:
    rows = study_visits.ratio_rows(seed001.STUDY, _visits({"apache-1n": 50.0}), [LEVEL])
    two = _row(rows, "2 nodes vs 1, token_authenticate")
    assert (two.ours, two.drift, two.verdict) == (None, None, "not measured")


def test_the_drift_verdict_of_the_seeds_words() -> None:
    assert study_visits.drift_verdict(None, 1.02, 0.03, "very close") == (
        "holds: close here too"
    )
    assert study_visits.drift_verdict(None, 1.05, 0.1, "very close") == (
        "undecided: the drift allows differs and holds"
    )
