"""``gate``'s choice of what an A/B is judged on (``--gate-on``)."""

from __future__ import annotations

import pytest

from rally_keystone_perf import cli
from rally_keystone_perf.cli import report_commands
from rally_keystone_perf.report.figures.instructions import CountLimits


def _on(*argv: str) -> tuple[list[str], CountLimits]:
    return report_commands.gated_on(cli.build_parser().parse_args(["gate", "X", *argv]))


def test_the_median_alone_by_default_and_a_count_when_its_threshold_is_given() -> None:
    assert _on() == (["median"], CountLimits())
    assert _on("--max-statement-increase", "0") == (
        ["median", "statements"],
        CountLimits(None, 0),
    )


def test_a_count_named_without_a_threshold_gets_the_default() -> None:
    on, limits = _on("--gate-on", "cpu,instructions,statements")
    assert on == ["cpu", "instructions", "statements"]
    assert limits == CountLimits(0.01, 0)
    on, limits = _on("--gate-on", "median,cpu", "--max-instruction-increase", "2%")
    assert on == ["median", "cpu", "instructions"] and limits.instructions == 0.02


def test_an_unknown_measure_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        _on("--gate-on", "median,p99")
    assert "unknown p99; choose from median, cpu" in capsys.readouterr().err


def test_two_runs_are_gated_on_their_medians_alone(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["gate", "a.json", "--baseline", "b.json", "--gate-on", "cpu"]
    assert cli.main(argv) == 1
    assert "--gate-on judges an A/B folder" in capsys.readouterr().err
