"""A study's rows and ratios beside the seed's (report.study)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rally_keystone_perf.report.figures import study
from rally_keystone_perf.studies import seed000
from tests.unit.report import runs as r


def _measured(tmp_path: Path) -> dict:
    """eventlet-1w twice as slow as eventlet-4w at concurrency 4."""
    one = r.make_run(
        tmp_path, "one", [r.workload([0.4] * 10, concurrency=4)], r.state()
    )
    four = r.make_run(
        tmp_path, "four", [r.workload([0.2] * 10, concurrency=4)], r.state()
    )
    return study.measured({seed000.ONE: [one], seed000.FOUR: [four]})


def test_our_workloads_by_config_and_level(tmp_path: Path) -> None:
    ours = _measured(tmp_path)
    assert set(ours) == {
        (config, 4, action)
        for config in (seed000.ONE, seed000.FOUR)
        for action in ("", "keystone.create_token")  # the total, each atomic
    }
    one = ours[(seed000.ONE, 4, "")]
    assert one.figures["avg"] == pytest.approx(0.4, abs=0.02)  # + idle time
    assert one.figures["success"] == 1.0 and one.figures["count"] == 10
    assert one.figures["throughput"] == one.throughput
    atomic = ours[(seed000.ONE, 4, "keystone.create_token")]
    assert atomic.figures["avg"] == pytest.approx(0.4, abs=0.02)


def test_the_seeds_rows_at_the_levels_run(tmp_path: Path) -> None:
    rows = study.study_rows(seed000.STUDY, _measured(tmp_path), [4])
    assert [(row.seed.config, row.ours is not None) for row in rows] == [
        (seed000.ONE, True),
        (seed000.FOUR, True),
        (seed000.APACHE, False),  # not measured: no row of ours
    ]


def test_ratios_only_from_this_studys_runs(tmp_path: Path) -> None:
    rows = study.ratio_rows(seed000.STUDY, _measured(tmp_path), [4])
    workers, apache = rows
    assert workers.name == "4 workers vs 1" and workers.seed == pytest.approx(
        0.998 / 0.296
    )
    assert workers.ours == pytest.approx(2.0, rel=0.05)
    assert workers.verdict == "holds, smaller here"
    assert (apache.ours, apache.verdict) == (None, "not measured")


@pytest.mark.parametrize(
    ("seed", "ours", "words", "expected"),
    [
        (3.4, 3.0, "", "holds"),
        (3.4, 1.6, "", "holds, smaller here"),
        (1.5, 3.0, "", "holds, larger here"),
        (3.4, 1.02, "", "not reproduced: no gain here"),
        (None, 1.04, "very close", "holds: close here too"),
        (None, 1.5, "very close", "differs: 1.50x here"),
        (3.4, None, "", "not measured"),
        (1.0, 1.05, "", "holds: no gain here either"),
        (1.0, 1.6, "", "differs: a gain here"),
    ],
)
def test_verdicts(seed, ours, words, expected) -> None:
    assert study.verdict(seed, ours, words) == expected


def test_a_mostly_failing_row_has_no_ratio(tmp_path: Path) -> None:
    """Failures answered fast must not pass for a faster deployment."""
    one = r.make_run(
        tmp_path, "one", [r.workload([0.4] * 10, concurrency=4)], r.state()
    )
    four = r.make_run(
        tmp_path,
        "four",
        [r.workload([0.01] * 10, concurrency=4, errors=(0, 1, 2, 3, 4, 5, 6, 7, 8))],
        r.state(),
    )
    ours = study.measured({seed000.ONE: [one], seed000.FOUR: [four]})
    workers = study.ratio_rows(seed000.STUDY, ours, [4])[0]
    assert workers.ours is None
    assert workers.verdict == "not comparable: eventlet-4w 90% failed"
