"""A study in rounds: ratios with their interval and the drift beside them."""

from __future__ import annotations

from pathlib import Path

import pytest

from rally_keystone_perf.report.figures import study_rounds
from rally_keystone_perf.report.figures.study import Measured
from rally_keystone_perf.report.figures.verdicts import Estimate
from rally_keystone_perf.studies import seed000, seed003
from tests.unit.report import runs as r


def _row(config: str, avg: float, success: float = 1.0, level: int = 4) -> Measured:
    figures = {"avg": avg, "p95": avg * 1.5, "success": success, "count": 10.0}
    return Measured(config, level, {**figures, "throughput": 4 / avg}, 4 / avg, 4, None)


def _rounds(*pairs: tuple[float, float]) -> list[dict]:
    """Rounds of (eventlet-1w avg, eventlet-4w avg) at concurrency 4."""
    return [
        {
            (seed000.ONE, 4, ""): _row(seed000.ONE, one),
            (seed000.FOUR, 4, ""): _row(seed000.FOUR, four),
        }
        for one, four in pairs
    ]


def test_a_ratio_per_round_and_its_interval_over_them() -> None:
    # the machine slowed both alike by 50% in round 2: the ratio stays 3x
    per_round = _rounds((0.9, 0.3), (1.35, 0.45), (0.93, 0.31))
    workers, apache = study_rounds.ratio_rows(seed000.STUDY, per_round, [4])
    assert workers.ours == pytest.approx(3.0) and workers.rounds == 3
    assert workers.low == pytest.approx(3.0) and workers.high == pytest.approx(3.0)
    assert workers.drift == pytest.approx(0.5)  # 1.35 / 0.9 - 1
    assert workers.verdict == "holds"  # the seed's 3.37x within 25%
    assert (apache.ours, apache.verdict) == (None, "not measured")


def test_rounds_that_disagree_leave_the_verdict_undecided() -> None:
    per_round = _rounds((0.3, 0.3), (0.9, 0.3), (0.45, 0.3))
    [workers, _] = study_rounds.ratio_rows(seed000.STUDY, per_round, [4])
    assert workers.low is not None and workers.low < 1.1 < 3.0 < workers.high
    assert workers.verdict.startswith("undecided: the interval allows")
    assert "holds" in workers.verdict and "not reproduced" in workers.verdict


def test_one_round_gives_a_ratio_without_an_interval() -> None:
    [workers, _] = study_rounds.ratio_rows(seed000.STUDY, _rounds((0.9, 0.3)), [4])
    assert workers.ours == pytest.approx(3.0) and workers.low is None
    assert workers.verdict == "holds (1 round: no interval)"
    assert workers.drift is None


def test_a_mostly_failing_config_has_no_ratio() -> None:
    per_round = _rounds((0.9, 0.3), (0.9, 0.3))
    per_round[1][(seed000.FOUR, 4, "")] = _row(seed000.FOUR, 0.01, success=0.2)
    [workers, _] = study_rounds.ratio_rows(seed000.STUDY, per_round, [4])
    assert workers.ours is None
    assert workers.verdict == "not comparable: eventlet-4w 80% failed"


def test_words_of_the_seed_judged_on_the_interval() -> None:
    close = Estimate(1.02, 0.97, 1.06, 3, 0.02, 0.95)
    assert study_rounds.interval_verdict(None, close, "very close") == (
        "holds: close here too"
    )
    wide = Estimate(1.05, 0.9, 1.3, 3, 0.1, 0.95)
    assert study_rounds.interval_verdict(None, wide, "very close") == (
        "undecided: the interval allows differs and holds"
    )


def test_a_row_is_the_mean_of_its_rounds() -> None:
    ours = study_rounds.combined(_rounds((0.9, 0.3), (1.1, 0.5)))
    one = ours[(seed000.ONE, 4, "")]
    assert one.figures["avg"] == pytest.approx(1.0)
    assert one.figures["count"] == 20  # their sum
    assert one.throughput == pytest.approx((4 / 0.9 + 4 / 1.1) / 2)


def test_the_rounds_reports_read_per_round(tmp_path: Path) -> None:
    reports = []
    for n, (one, four) in enumerate([(0.4, 0.2), (0.6, 0.3)]):
        runs = {}
        for label, avg in ((seed000.ONE, one), (seed000.FOUR, four)):
            workloads = [r.workload([avg] * 10, concurrency=4)]
            runs[label] = r.make_run(tmp_path, f"{label}-{n}", workloads, r.state())
        reports.append(runs)
    per_round = study_rounds.measured_rounds(reports)
    assert [found[(seed000.ONE, 4, "")].figures["avg"] for found in per_round] == [
        pytest.approx(0.4, abs=0.02),
        pytest.approx(0.6, abs=0.02),
    ]
    [workers, _] = study_rounds.ratio_rows(seed000.STUDY, per_round, [4])
    assert workers.ours == pytest.approx(2.0, rel=0.05)


def test_a_level_the_seed_did_not_compare_has_no_row() -> None:
    assert study_rounds.ratio_rows(seed003.STUDY, _rounds((0.9, 0.3)), [4]) == []


def test_an_interval_straddling_the_seeds_words_is_undecided() -> None:
    # 0.52-1.20x: both ends "differ" from "very close", 1.0 inside holds
    wide = Estimate(0.79, 0.52, 1.20, 3, 0.2, 0.95)
    assert study_rounds.interval_verdict(None, wide, "very close") == (
        "undecided: the interval allows differs and holds"
    )
    # around a seed figure: every ratio of 2.0-5.0x holds the seed's 3.37x
    around = Estimate(2.2, 2.0, 5.0, 3, 0.2, 0.95)
    assert study_rounds.interval_verdict(3.37, around, "") == "holds, smaller here"
