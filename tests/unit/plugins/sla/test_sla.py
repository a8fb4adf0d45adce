"""Table-driven tests of the percentile and throughput SLAs."""

from __future__ import annotations

import random

import jsonschema
import pytest
from rally.task import sla

from rally_keystone_perf.plugins.sla.percentile import MaxDurationPercentile
from rally_keystone_perf.plugins.sla.throughput import MinThroughput
from rally_keystone_perf.report.figures import stats
from rally_keystone_perf.report.readers import rally_json
from tests.unit.report import factory as f

ACTION = "keystone.create_token"


def _iterations(durations: list[float], error_every: int = 0) -> list[dict]:
    out = []
    for i, d in enumerate(durations):
        failed = bool(error_every) and i % error_every == 0
        out.append(
            f.iteration(
                timestamp=100.0 + i,
                duration=d + 0.01,
                atomics=[f.atomic(ACTION, 100.0 + i, 100.0 + i + d)],
                error=("Unauthorized", "no") if failed else None,
            )
        )
    return out


@pytest.mark.parametrize(
    ("config", "durations", "passes"),
    [
        ({ACTION: {"95": 0.5}}, [0.1] * 19 + [0.4], True),
        ({ACTION: {"95": 0.5}}, [0.1] * 10 + [0.9] * 10, False),
        ({ACTION: {"50": 0.2, "99": 1.0}}, [0.1] * 10 + [0.9] * 2, True),
        ({ACTION: {"50": 0.2, "99": 0.5}}, [0.1] * 10 + [0.9] * 2, False),
        ({"total": {"90": 0.12}}, [0.1] * 20, True),
        ({"total": {"90": 0.1}}, [0.1] * 20, False),  # total = atomic + 0.01
        ({"keystone.missing": {"95": 1.0}}, [0.1] * 5, True),  # n/a is not a failure
        ({ACTION: {"100": 0.3}}, [0.1, 0.2, 0.31], False),
    ],
)
def test_percentile_criterion(config: dict, durations: list, passes: bool) -> None:
    criterion = MaxDurationPercentile(config)
    results = [criterion.add_iteration(it) for it in _iterations(durations)]
    assert results[-1] is passes
    assert criterion.result()["success"] is passes
    assert ("Passed" if passes else "Failed") in criterion.details()


def test_percentile_agrees_with_the_report(tmp_path) -> None:
    rng = random.Random(7)
    durations = [rng.uniform(0.05, 1.5) for _ in range(200)]
    iterations = _iterations(durations, error_every=9)
    report = f.write_report(tmp_path / "r.json", [f.task([[f.workload(iterations)]])])
    (workload,) = rally_json.load_report(report)
    rows = {row.name: row for row in stats.main_stats(workload) if row.depth == 0}
    criterion = MaxDurationPercentile({ACTION: {"90": 9, "95": 9}, "total": {"95": 9}})
    for it in iterations:
        criterion.add_iteration(it)
    assert criterion.observed(ACTION, 90) == rows[ACTION].p90
    assert criterion.observed(ACTION, 95) == rows[ACTION].p95
    assert criterion.observed("total", 95) == rows["total"].p95


@pytest.mark.parametrize(
    "cls_config",
    [
        (MaxDurationPercentile, {ACTION: {"95": 0.3}, "total": {"50": 0.2}}),
        (MinThroughput, {"iterations_per_second": 0.9}),
    ],
)
def test_merge_equals_one_pass(cls_config: tuple) -> None:
    cls, config = cls_config
    rng = random.Random(3)
    iterations = _iterations([rng.uniform(0.05, 0.5) for _ in range(60)], 7)
    whole = cls(config)
    for it in iterations:
        whole.add_iteration(it)
    left, right = cls(config), cls(config)
    for it in iterations[:25]:
        left.add_iteration(it)
    for it in iterations[25:]:
        right.add_iteration(it)
    assert left.merge(right) is whole.success
    assert left.details() == whole.details()


@pytest.mark.parametrize(
    ("minimum", "error_every", "passes"),
    [
        (1.0, 0, True),  # 20 successes over 19.11 s: 1.047/s
        (1.1, 0, False),
        (0.8, 5, True),  # 16 successes: 0.837/s
        (0.9, 5, False),
    ],
)
def test_min_throughput(minimum: float, error_every: int, passes: bool) -> None:
    criterion = MinThroughput({"iterations_per_second": minimum})
    iterations = _iterations([0.1] * 20, error_every)
    for it in iterations:
        criterion.add_iteration(it)
    window = (100.0 + 19 + 0.11) - 100.0
    succeeded = sum(1 for it in iterations if not it["error"])
    assert criterion.throughput() == pytest.approx(succeeded / window)
    assert criterion.success is (succeeded / window >= minimum)
    assert criterion.success is passes


@pytest.mark.parametrize(
    ("name", "config"),
    [
        ("max_duration_percentile", {}),
        ("max_duration_percentile", {ACTION: {}}),
        ("max_duration_percentile", {ACTION: {"p95": 1}}),
        ("max_duration_percentile", {ACTION: {"101": 1}}),
        ("max_duration_percentile", {ACTION: {"95": -1}}),
        ("min_throughput", {}),
        ("min_throughput", {"iterations_per_second": -1}),
        ("min_throughput", {"iterations_per_second": 1, "x": 1}),
    ],
)
def test_bad_config_is_rejected(name: str, config: dict) -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(config, sla.SLA.get(name).CONFIG_SCHEMA)


@pytest.mark.parametrize(
    ("name", "config"),
    [
        ("max_duration_percentile", {ACTION: {"95": 0.5}, "total": {"99.9": 2}}),
        ("min_throughput", {"iterations_per_second": 2.5}),
    ],
)
def test_good_config_is_accepted(name: str, config: dict) -> None:
    jsonschema.validate(config, sla.SLA.get(name).CONFIG_SCHEMA)
