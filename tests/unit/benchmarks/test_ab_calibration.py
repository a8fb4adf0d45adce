"""The calibration benchmark's schedule and its slowed Keystone's patch."""

from __future__ import annotations

from pathlib import Path

import keystone.api.auth

from benchmarks import ab_calibration


def test_schedule_takes_the_kinds_in_turns() -> None:
    order = ab_calibration.schedule(aa=3, ten=2, twenty=1)
    assert order == ["A/A", "+10%", "+20%", "A/A", "+10%", "A/A"]
    assert len(ab_calibration.schedule(10, 10, 5)) == 25


def test_the_extra_cost_runs_once_in_token_validation_only() -> None:
    text = Path(keystone.api.auth.__file__).read_text()
    patched = ab_calibration.patched(text, 1234)
    assert patched.count(ab_calibration.CALL) == 1
    handler = patched.index(ab_calibration.HANDLER)
    call = patched.index(ab_calibration.CALL)
    next_class = patched.find("\nclass ", handler + 1)
    assert handler < call < next_class  # inside AuthTokenResource
    assert "def _calibration_extra_cost(iterations=1234):" in patched
    namespace: dict[str, object] = {}
    exec(ab_calibration.FUNCTION.format(iterations=10), namespace)  # noqa: S102
    assert namespace["_calibration_extra_cost"]() == sum(i * i for i in range(10))  # type: ignore[operator]


def test_each_gate_counts_its_failures_and_refusals() -> None:
    entries = [
        {"gate_failed": True, "gates": {"median": "ERROR", "median,cpu": "PASS"}},
        {"gate_failed": False, "gates": {"median": "PASS", "median,cpu": "FAIL"}},
    ]
    assert ab_calibration._not_passed(entries, "median") == "0+1 of 2"
    assert ab_calibration._not_passed(entries, "median,cpu") == "1+0 of 2"
    assert ab_calibration._not_passed(entries, "cpu") == "-"  # not gated so
    older = [{"gate_failed": True}, {"gate_failed": False}]
    assert ab_calibration._not_passed(older, "median") == "1+0 of 2"
