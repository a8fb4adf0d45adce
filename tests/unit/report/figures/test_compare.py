"""Tests for rally_keystone_perf.report.figures.compare (verdicts, matching, series)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rally_keystone_perf import metrics
from rally_keystone_perf.report.figures import compare as c
from rally_keystone_perf.report.figures import stats
from rally_keystone_perf.report.figures import verdicts as v
from rally_keystone_perf.report.readers.rally_json import Workload, load_report
from tests.unit.report import factory as f
from tests.unit.report import runs as r


def _load(tmp_path: Path, name: str, *workloads: dict) -> list[Workload]:
    """Export workloads (one subtask each) with Rally's exporter, load them."""
    path = f.write_report(tmp_path / f"{name}.json", [f.task([[w] for w in workloads])])
    return load_report(path)


def _result(comparison: c.Comparison, action: str, run: int = 1) -> c.RunResult:
    """One run's result for ``action`` of the only group."""
    (group,) = comparison.groups
    found = next(a for a in group.actions if a.action == action)
    return found.results[run]


# --- verdicts ------------------------------------------------------------------


def test_same_distribution_is_not_significant(tmp_path: Path) -> None:
    # 100 seeded trials, both sides drawn from the same distribution; one
    # workload per trial, told apart by concurrency so compare pairs them
    trials = range(1, 101)
    base = _load(
        tmp_path, "a", *(r.workload(r.gauss(2 * t, 0.5), concurrency=t) for t in trials)
    )
    other = _load(
        tmp_path,
        "b",
        *(r.workload(r.gauss(2 * t + 1, 0.5), concurrency=t) for t in trials),
    )
    comparison = c.compare([("a", base), ("b", other)])
    assert len(comparison.groups) == 100
    verdicts = [
        action.results[1].verdict
        for group in comparison.groups
        for action in group.actions
        if action.action == metrics.TOTAL
    ]
    assert set(verdicts) <= {v.NOT_SIGNIFICANT, v.FASTER, v.SLOWER}
    assert verdicts.count(v.NOT_SIGNIFICANT) >= 90


def test_clearly_slower_and_faster(tmp_path: Path) -> None:
    fast = _load(tmp_path, "fast", r.workload(r.gauss(1, 0.5)))
    slow = _load(tmp_path, "slow", r.workload(r.gauss(2, 1.0)))
    slower = c.compare([("fast", fast), ("slow", slow)])
    for action in (r.ACTION, metrics.TOTAL):
        result = _result(slower, action)
        assert result.verdict == v.SLOWER
        assert result.p_value is not None and result.p_value < 1e-6
        assert result.ratio == pytest.approx(2.0, rel=0.1)
        assert result.count == 50
    assert _result(slower, r.ACTION, run=0).verdict == c.BASELINE
    faster = c.compare([("slow", slow), ("fast", fast)])
    assert _result(faster, r.ACTION).verdict == v.FASTER
    # a strict enough alpha turns the same data into "not significant"
    strict = c.compare([("fast", fast), ("slow", slow)], alpha=1e-30)
    assert _result(strict, r.ACTION).verdict == v.NOT_SIGNIFICANT


def test_ratio_median_and_p95(tmp_path: Path) -> None:
    base = _load(tmp_path, "a", r.workload([0.1, 0.2, 0.3, 0.4, 0.5]))
    other = _load(tmp_path, "b", r.workload([0.2, 0.4, 0.6, 0.8, 1.0]))
    comparison = c.compare([("a", base), ("b", other)])
    baseline = _result(comparison, r.ACTION, run=0)
    result = _result(comparison, r.ACTION)
    assert baseline.median == pytest.approx(0.3)
    assert baseline.ratio == pytest.approx(1.0)
    assert baseline.p_value is None
    assert result.median == pytest.approx(0.6)
    assert result.p95 == pytest.approx(0.96)  # Rally's interpolated percentile
    assert result.ratio == pytest.approx(2.0)
    # the exact test with 5 vs 5 samples, 2 pairs out of order
    assert result.verdict == v.NOT_SIGNIFICANT
    assert 0.05 < result.p_value < 0.2
    total = _result(comparison, metrics.TOTAL)
    assert total.median == pytest.approx(0.61)  # iteration.duration
    assert total.ratio == pytest.approx(0.61 / 0.31)


def test_too_few_samples(tmp_path: Path) -> None:
    base = _load(tmp_path, "a", r.workload([0.1] * 4))
    other = _load(tmp_path, "b", r.workload([9.0] * 50))
    result = _result(c.compare([("a", base), ("b", other)]), r.ACTION)
    assert result.verdict == c.TOO_FEW
    assert result.p_value is None
    assert result.ratio == pytest.approx(90.0)


def test_the_test_gives_a_typed_verdict() -> None:
    few = c.mann_whitney([1.0] * 4, [2.0] * 10)
    assert few.call == v.NOT_MEASURABLE and few.reason == c.TOO_FEW
    assert few.estimate is not None and few.estimate.p_value is None
    same = c.mann_whitney([1.0] * 10, [1.0] * 10)
    assert same.call == v.NO_DIFFERENCE and v.describe(same, "") == v.NOT_SIGNIFICANT
    found = c.mann_whitney([1.0, 1.1, 1.2, 1.3, 1.4], [2.0, 2.1, 2.2, 2.3, 2.4])
    assert found.call == v.SLOWER and v.describe(found, "") == "slower"
    assert found.estimate is not None
    assert found.estimate.ratio == pytest.approx(2.2 / 1.2)
    assert found.estimate.rounds == 5 and found.estimate.method == c.MANN_WHITNEY
    # exact: 2 of C(10, 5) orderings
    assert found.estimate.p_value == pytest.approx(2 / 252)


def test_only_successful_samples(tmp_path: Path) -> None:
    durations = [0.1] * 10
    base = _load(tmp_path, "a", r.workload(durations))
    other = _load(tmp_path, "b", r.workload([5.0] + durations[1:], errors=[0]))
    comparison = c.compare([("a", base), ("b", other)])
    action = _result(comparison, r.ACTION)
    total = _result(comparison, metrics.TOTAL)
    assert (action.count, action.median) == (9, pytest.approx(0.1))
    # the total is Rally's (report.stats): every iteration, failed ones included
    assert (total.count, total.median) == (10, pytest.approx(0.11))


# --- matching -------------------------------------------------------------------


def test_matching_by_scenario_and_concurrency(tmp_path: Path) -> None:
    base = _load(
        tmp_path,
        "a",
        r.workload([0.1] * 5, concurrency=1, name="KeystonePerf.list_projects"),
        r.workload([0.1] * 5, concurrency=2),
        r.workload([0.1] * 5, concurrency=4),
    )
    other = _load(
        tmp_path,
        "b",
        r.workload([0.3] * 5, concurrency=4),  # other order
        r.workload([0.2] * 5, concurrency=2),
        r.workload([0.2] * 5, concurrency=8),  # not in the baseline
    )
    comparison = c.compare([("a", base), ("b", other)])
    keys = [(g.scenario, g.concurrency) for g in comparison.groups]
    assert keys == [
        ("KeystonePerf.list_projects", 1),
        (r.SCENARIO, 2),
        (r.SCENARIO, 4),
        (r.SCENARIO, 8),
    ]
    medians = {
        (g.concurrency, a.action): [x.median for x in a.results]
        for g in comparison.groups
        for a in g.actions
    }
    assert medians[(2, r.ACTION)] == [pytest.approx(0.1), pytest.approx(0.2)]
    assert medians[(4, r.ACTION)] == [pytest.approx(0.1), pytest.approx(0.3)]
    missing = comparison.groups[0].actions[0].results[1]
    assert (missing.verdict, missing.count, missing.median) == (c.MISSING, 0, None)
    no_base = comparison.groups[3].actions[0].results
    assert [x.verdict for x in no_base] == [c.MISSING, c.NO_BASELINE]


def _serial(durations: list[float]) -> dict:
    """A workload of Rally's serial runner (seed 001's sequential tests)."""
    times = {"times": len(durations)}
    return f.workload(
        r.timed(durations), name=r.SCENARIO, runner_type="serial", runner=times
    )


def test_a_serial_runner_is_concurrency_1(tmp_path: Path) -> None:
    base = _load(tmp_path, "a", _serial([0.1] * 5))
    other = _load(tmp_path, "b", _serial([0.2] * 5))
    (group,) = c.compare([("a", base), ("b", other)]).groups
    assert (group.scenario, group.concurrency, group.notes) == (r.SCENARIO, 1, [])
    assert group.actions[0].results[1].ratio == pytest.approx(2.0)
    # beside the same scenario at concurrency 8: a latency-vs-concurrency series
    rows = c.series(
        [("x", base), ("x", _load(tmp_path, "c", r.workload([0.3] * 5, 8)))]
    )
    assert [row.concurrency for row in rows] == [1, 8]


def test_repeated_workloads_match_in_order(tmp_path: Path) -> None:
    base = _load(tmp_path, "a", r.workload([0.1] * 5), r.workload([0.5] * 5))
    other = _load(tmp_path, "b", r.workload([0.2] * 5), r.workload([1.0] * 5))
    comparison = c.compare([("a", base), ("b", other)])
    assert [g.occurrence for g in comparison.groups] == [0, 1]
    ratios = [g.actions[0].results[1].ratio for g in comparison.groups]
    assert ratios == [pytest.approx(2.0), pytest.approx(2.0)]


def test_actions_are_main_stats_top_level_rows(tmp_path: Path) -> None:
    a = f.atomic
    atomics = [
        a("keystone.create_user", 0.0, 0.1, children=[a("inner", 0.0, 0.05)]),
        a("keystone.list_projects", 0.1, 0.2),
        a("keystone.list_projects", 0.2, 0.4),
    ]
    data = [f.iteration(float(i), 0.5, 0.0, atomics) for i in range(6)]
    data.append(f.iteration(9.0, 0.5, 0.0, [], error=("E", "outside atomics")))
    failed = [a("keystone.delete_user", 0.0, 0.1, failed=True)]
    data.append(f.iteration(10.0, 0.5, 0.0, failed, ("E", "in an atomic")))
    after = [a("keystone.create_user", 0.0, 0.2)]  # failed after its atomic
    data.append(f.iteration(11.0, 0.5, 0.0, after, ("E", "after the atomic")))
    (workload,) = _load(tmp_path, "a", f.workload(data))
    samples = stats.action_samples(workload)
    rows = stats.main_stats(workload)
    assert stats.NO_NAME_ACTION in [row.name for row in rows]
    top = [
        row.name for row in rows if row.depth == 0 and row.name != stats.NO_NAME_ACTION
    ]
    assert (
        list(samples)
        == top
        == [
            "keystone.create_user",
            "keystone.list_projects (x2)",
            "keystone.delete_user",
            "total",
        ]
    )
    assert samples["keystone.list_projects (x2)"] == [pytest.approx(0.3)] * 6
    assert samples["keystone.delete_user"] == []  # it failed
    # the atomic succeeded before its iteration failed: it is a sample
    assert samples["keystone.create_user"] == [pytest.approx(0.1)] * 6 + [0.2]
    assert samples["total"] == [0.5] * 9  # failed iterations count in the total
    comparison = c.compare([("a", [workload]), ("b", [workload])])
    names = [x.action for x in comparison.groups[0].actions]
    assert names == top
    deleted = comparison.groups[0].actions[2].results[1]
    assert (deleted.verdict, deleted.count) == (c.TOO_FEW, 0)


@pytest.mark.parametrize(
    ("labels", "alpha", "message"),
    [
        (["a"], 0.05, "at least two runs"),
        (["a", "a"], 0.05, "unique"),
        (["a", "b"], 1.0, "alpha"),
        (["a", "b"], 0.0, "alpha"),
    ],
)
def test_compare_rejects(labels: list[str], alpha: float, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        c.compare([(label, []) for label in labels], alpha=alpha)


# --- series ----------------------------------------------------------------------


def test_series_sorted_by_concurrency(tmp_path: Path) -> None:
    first = _load(
        tmp_path,
        "a",
        r.workload([0.4] * 5, concurrency=8),
        r.workload([0.1] * 5, concurrency=1),
        r.workload([0.2] * 5, concurrency=1, name="KeystonePerf.list_projects"),
    )
    second = _load(tmp_path, "b", r.workload([0.2] * 5, concurrency=4))
    single = _load(tmp_path, "c", r.workload([0.3] * 5, concurrency=2))
    rows = c.series(
        [("uwsgi p2xt1", first), ("uwsgi p2xt1", second), ("uwsgi p4xt1", single)]
    )
    assert [(x.config, x.scenario, x.concurrency) for x in rows] == [
        ("uwsgi p2xt1", r.SCENARIO, 1),
        ("uwsgi p2xt1", r.SCENARIO, 4),
        ("uwsgi p2xt1", r.SCENARIO, 8),
    ]
    assert [x.median for x in rows] == [
        pytest.approx(0.11),
        pytest.approx(0.21),
        pytest.approx(0.41),
    ]
    workload = first[1]
    total = stats.total_row(stats.main_stats(workload))
    assert rows[0] == c.SeriesRow(
        config="uwsgi p2xt1",
        scenario=r.SCENARIO,
        concurrency=1,
        median=total.median,
        p90=total.p90,
        p95=total.p95,
        throughput=stats.throughput(workload),
        success=1.0,
        count=5,
    )


def test_series_needs_two_levels(tmp_path: Path) -> None:
    base = _load(tmp_path, "a", r.workload([0.1] * 5, concurrency=2))
    assert c.series([("x", base), ("y", base)]) == []
    no_conc = _load(tmp_path, "b", r.workload([0.1] * 5, concurrency=None))
    rows = c.series([("x", base), ("x", no_conc)])
    assert [row.concurrency for row in rows] == [2, None]  # None sorts last


# --- achieved concurrency ------------------------------------------------------

MISMATCH = "not comparable: concurrency 2 vs 4"


def _lanes(tmp_path: Path, base_slots: int, other_slots: int) -> list:
    """Runs "a" and "b" at concurrency 4 whose runners reached the slots."""
    base = r.workload(r.gauss(1, 0.5), concurrency=4, slots=base_slots)
    other = r.workload(r.gauss(2, 1.0), concurrency=4, slots=other_slots)
    return [("a", _load(tmp_path, "a", base)), ("b", _load(tmp_path, "b", other))]


def test_a_run_that_reached_another_concurrency_is_not_compared(
    tmp_path: Path,
) -> None:
    comparison = c.compare(_lanes(tmp_path, 4, 2))
    (group,) = comparison.groups
    for action in group.actions:
        base, other = action.results
        assert base.verdict == c.BASELINE
        assert (other.verdict, other.ratio, other.p_value) == (MISMATCH, None, None)
        assert other.median is not None  # its own figures are still shown
    assert [load.peak for load in group.loads] == [4, 2]
    assert group.notes == [
        "b: not comparable: concurrency 2 vs 4 (this run vs the baseline): not "
        "compared (--allow-concurrency-mismatch compares it)"
    ]
    table = r.write_compare((comparison, [], []), "table")
    assert MISMATCH in table and group.notes[0] in table
    document = json.loads(r.write_compare((comparison, [], []), "json"))
    (found,) = document["comparisons"]
    assert found["notes"] == group.notes
    assert [a["peak_concurrency"] for a in found["achieved"]] == [4, 2]


def test_allow_concurrency_mismatch_compares_and_notes_it(tmp_path: Path) -> None:
    comparison = c.compare(_lanes(tmp_path, 4, 2), allow_concurrency_mismatch=True)
    (group,) = comparison.groups
    assert _result(comparison, "total").verdict == v.SLOWER
    assert group.notes[0].endswith("compared anyway (--allow-concurrency-mismatch)")
    markdown = r.write_compare((comparison, [], []), "markdown")
    assert f"**{group.notes[0]}**" in markdown


def test_the_same_concurrency_reached_has_no_note(tmp_path: Path) -> None:
    comparison = c.compare(_lanes(tmp_path, 4, 4))
    assert comparison.groups[0].notes == []
    assert _result(comparison, "total").verdict == v.SLOWER
