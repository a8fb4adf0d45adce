"""Tests for rally_keystone_perf.report.blocks.capacity: the capacity page."""

from __future__ import annotations

import io

from rally_keystone_perf.report.blocks import capacity
from rally_keystone_perf.report.figures import capacity_curve, capacity_step, slo
from rally_keystone_perf.report.writers import registry

SLO = slo.parse_slo("p95<100ms")


def _row(number: int, rate: float, p95: float, misses: tuple[str, ...] = ()):
    figures = capacity_step.StepFigures(
        rate, rate, 100, 0, 0, (p95 / 2, p95, p95 * 1.5), misses, False
    )
    tiers = (("Keystone", 1.62), ("client", 0.1))
    return capacity_curve.CurveRow(
        number, figures, tiers, "Keystone CPU 81% of 2 cores", probe=0.21
    )


def _written(write) -> str:
    """Three steps, 20/s sustained, written by ``write``."""
    rows = [_row(1, 10, 0.03), _row(2, 20, 0.05), _row(3, 40, 0.2, ("p95",))]
    curve = capacity_curve.Curve(SLO, rows, 20.0, 40.0, "the bracket", "the rule")
    out = io.StringIO()
    write(curve, out)
    return out.getvalue()


def test_the_table_and_the_conclusion() -> None:
    text = _written(registry.CAPACITY["table"])
    assert text.startswith("capacity against p95<100ms (each step's second half)\n")
    assert "| Keystone 1.62, client 0.10 |" in text and "| missed " in text
    assert "| probe s | step |" in text and "|   0.210 |    3 |" in text
    assert "sustained: 20.0/s under p95<100ms (not at 40.0/s" in text
    assert "knee: 20.0/s" in text
    assert "bottleneck at 20.0/s: Keystone CPU 81% of 2 cores" in text
    assert text.endswith("search: the rule\nstopped: the bracket\n")


def test_the_sustained_rate_is_said_against_the_task_s_own() -> None:
    rows = [_row(1, 10, 0.03)]
    mixed = capacity_curve.Curve(SLO, rows, 10.0, 20.0, "x", "r", task_rate=4.35)
    assert capacity.conclusion(mixed)[1] == (
        "the task's own rate: 4.35/s; sustained is 2.3x it"
    )
    plain = capacity_curve.Curve(SLO, rows, 10.0, 20.0, "x", "r")
    assert not any("own rate" in line for line in capacity.conclusion(plain))


def test_none_met_and_all_met_are_said() -> None:
    none = capacity_curve.Curve(SLO, [_row(1, 5, 0.3, ("p95",))], None, 5.0, "x", "r")
    assert (
        capacity.conclusion(none)[0]
        == "sustained: none of the rates tried met p95<100ms"
    )
    every = capacity_curve.Curve(SLO, [_row(1, 5, 0.01)], 5.0, None, "x", "r")
    assert capacity.conclusion(every)[0] == "sustained: 5.0/s, every rate tried met it"
    markdown = io.StringIO()
    registry.CAPACITY["markdown"](every, markdown)
    assert markdown.getvalue().startswith("## Capacity against p95<100ms\n\n|")


def test_the_page_plots_response_rates_and_cpu_with_the_slo_bound() -> None:
    page = _written(registry.CAPACITY["html"])
    assert page.startswith("<!DOCTYPE html>")
    assert page.count("<svg") == 3
    for title in ("response time vs offered rate", "achieved vs offered rate"):
        assert f"<title>{title}</title>" in page
    assert "SLO p95&lt;100ms" in page and "busy cores" in page
    assert "<caption>each step, by offered rate</caption>" in page
    assert "sustained: 20.0/s under p95&lt;100ms" in page


def test_a_page_without_cpu_samples_has_no_cpu_plot() -> None:
    figures = capacity_step.StepFigures(5, 5, 10, 0, 0, (0.01,) * 3, (), False)
    rows = [capacity_curve.CurveRow(1, figures, (), None)]
    curve = capacity_curve.Curve(SLO, rows, 5.0, None, "x", "r")
    out = io.StringIO()
    registry.CAPACITY["html"](curve, out)
    assert out.getvalue().count("<svg") == 2
