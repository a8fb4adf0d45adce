"""Tests for rally_keystone_perf.report.figures.study_capacity."""

from __future__ import annotations

from rally_keystone_perf.report.figures import capacity_curve, capacity_step, slo
from rally_keystone_perf.report.figures import study_capacity as figures
from rally_keystone_perf.studies import seed001, seed003

SLO = slo.parse_slo("p95<500ms")


def _curve(
    sustained: float | None, above: float | None, probes=(0.2, 0.25)
) -> capacity_curve.Curve:
    rows = []
    for number, (rate, probe) in enumerate(zip((5.0, 10.0), probes, strict=True), 1):
        step = capacity_step.StepFigures(
            rate, rate, 50, 0, 0, (0.05, 0.1, 0.2), (), False
        )
        rows.append(
            capacity_curve.CurveRow(number, step, (), "Keystone CPU", probe=probe)
        )
    return capacity_curve.Curve(SLO, rows, sustained, above, "the bracket", "rule")


def test_a_row_holds_the_bracket_knee_steps_and_probes() -> None:
    row = figures.capacity_row("apache-stock", _curve(10.0, 11.0), None)
    assert (row.sustained, row.above, row.knee) == (10.0, 11.0, 10.0)
    assert row.steps == 2 and row.probes == (0.2, 0.25)
    assert row.bottleneck == "Keystone CPU"
    nothing = figures.capacity_row("x", _curve(None, 5.0, (None, None)), 3.0)
    assert nothing.probes is None and nothing.seed_rate == 3.0


def test_rows_follow_the_studys_order_with_the_seeds_rates() -> None:
    curves = {"apache-2n": _curve(8.0, 9.0), "apache-1n": _curve(4.0, 4.5)}
    rows = figures.capacity_rows(seed001.STUDY, curves)
    assert [r.config for r in rows] == ["apache-1n", "apache-2n"]
    assert [r.seed_rate for r in rows] == [57.0, 105.0]


def test_a_ratio_ranges_over_what_the_brackets_allow() -> None:
    curves = {"apache-1n": _curve(4.0, 4.4), "apache-2n": _curve(8.0, 8.8)}
    rows = figures.capacity_rows(seed001.STUDY, curves)
    (ratio,) = figures.capacity_ratios(seed001.STUDY, rows)
    assert ratio.name == "2 nodes vs 1, token_authenticate"  # once, not per action
    assert ratio.ours == 2.0 and ratio.seed == 105 / 57
    assert (round(ratio.low, 3), round(ratio.high, 3)) == (1.818, 2.2)  # type: ignore[arg-type]
    assert "2.00x" not in ratio.verdict  # the verdict's words, not the figure


def test_a_range_across_a_verdicts_threshold_is_undecided() -> None:
    curves = {"nginx-stock": _curve(10.0, 12.0), "apache-stock": _curve(10.0, 12.0)}
    rows = figures.capacity_rows(seed003.STUDY, curves)
    (ratio,) = figures.capacity_ratios(seed003.STUDY, rows)
    assert ratio.seed is None and ratio.seed_words == "very close"
    assert (round(ratio.low, 3), ratio.high) == (0.833, 1.2)  # type: ignore[arg-type]
    assert ratio.verdict.startswith("undecided: the bracket allows")


def test_a_config_that_met_no_rate_has_no_ratio_figure() -> None:
    curves = {"nginx-stock": _curve(None, 5.0), "apache-stock": _curve(10.0, 11.0)}
    rows = figures.capacity_rows(seed003.STUDY, curves)
    (ratio,) = figures.capacity_ratios(seed003.STUDY, rows)
    assert ratio.ours is None and ratio.verdict == "not measured: no rate met"
