"""A bisect's steps: built, counted, kept, resumed; builds faked here."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Any

import pytest

from rally_keystone_perf.deploy.options import LaunchError, LaunchOptions
from rally_keystone_perf.layout.bisect import BISECT_FILE
from rally_keystone_perf.run import bisect, bisect_plan, bisect_search
from tests.unit.run import fake_counts

VALIDATE = {"name": "KeystonePerf.validate_token", "args": {}, "contexts": {}}
CREATE = {"name": "KeystonePerf.create_token", "args": {}, "contexts": {}}


def _plan(
    tmp_path: Path, costs: list[float | None], **more: Any
) -> bisect_plan.BisectPlan:
    steps = [
        bisect_plan.Step(
            f"{n:02d}" + "a" * 38, f"Change {n}", "2026-01-01", ("keystone/x.py",)
        )
        for n in range(len(costs))
    ]
    return bisect_plan.BisectPlan(
        tmp_path / "bisect",
        bisect_plan.COMMITS,
        Path("/src/keystone"),
        steps,
        LaunchOptions(),
        [VALIDATE],
        **more,
    )


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> dict[str, Any]:
    """Builds and counts faked: each commit's instructions from ``costs``
    (None: it does not build)."""
    seen: dict[str, Any] = {"costs": {}, "counted": [], "pins": "suite"}
    monkeypatch.setattr(bisect.venvs, "installed_versions", lambda python: {})
    monkeypatch.setattr(bisect.history, "version_of", lambda repo, sha: "29.0.1")
    monkeypatch.setattr(bisect.history, "export", lambda repo, sha, parent: parent)

    def prepare(deployment: Any, echo: Any) -> Any:
        """A build venv of the commit, its key the commit's and the pins'."""
        sha = Path(deployment.options.keystone_build).name
        seen.setdefault("pbr", []).append(os.environ.get("PBR_VERSION"))
        if seen["costs"][sha] is None:
            raise LaunchError("pip failed\nmore of pip's tail")
        venv = tmp_path / "builds" / f"{sha[:8]}-{seen['pins']}"
        venv.mkdir(parents=True, exist_ok=True)
        info = {"key": f"keystone-{sha[:8]}-{len(seen['pins'])}"}
        (venv / "keystone-build.json").write_text(json.dumps(info))
        options = dataclasses.replace(deployment.options, keystone_venv=str(venv))
        return dataclasses.replace(deployment, options=options)

    def cost(options: Any) -> float:
        return float(seen["costs"][Path(options.keystone_build).name]) * 1e6

    monkeypatch.setattr(bisect.prepare, "prepare", prepare)
    monkeypatch.setattr(
        bisect.count, "count_side", fake_counts.count_side(cost, seen["counted"])
    )
    return seen


def _costs(
    seen: dict[str, Any], plan: bisect_plan.BisectPlan, costs: list[float | None]
) -> None:
    seen["costs"].update({s.id: c for s, c in zip(plan.steps, costs, strict=True)})


def test_the_culprit_is_found_and_every_step_kept(
    tmp_path: Path, built: dict[str, Any]
) -> None:
    costs: list[float | None] = [100.0] * 5 + [103.0] * 3
    plan = _plan(tmp_path, costs)
    _costs(built, plan, costs)
    lines: list[str] = []
    record = bisect.run_bisect(plan, lines.append)
    assert record["conclusion"]["status"] == bisect_search.FOUND
    assert record["conclusion"]["first_past"] == 5
    kept = json.loads((plan.folder / BISECT_FILE).read_text())
    assert kept["order"] == record["order"] and kept["order"][:2] == [0, 7]
    assert any("1.0300 of good" in line and "64 queries" in line for line in lines)
    assert set(built["pbr"]) == {"29.0.1"} and "PBR_VERSION" not in os.environ
    after = json.loads(
        (plan.folder / "profiles" / f"{plan.steps[5].id}.json").read_text()
    )
    assert after == {
        "KeystonePerf.validate_token": {fake_counts.PROVIDER: [1.0, 25.75]}
    }
    assert len(list((plan.folder / "profiles").iterdir())) == len(record["order"])


def test_a_profile_that_cannot_be_read_keeps_the_count(
    tmp_path: Path, built: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    costs: list[float | None] = [100.0, 103.0]
    plan = _plan(tmp_path, costs)
    _costs(built, plan, costs)

    def unreadable(path: Path) -> Any:
        raise ValueError(f"{path.name}: no iteration profiled")

    monkeypatch.setattr(bisect.calls, "per_iteration", unreadable)
    record = bisect.run_bisect(plan, lambda line: None)
    good = record["outcomes"]["0"]
    assert good["workloads"]["KeystonePerf.validate_token"]["instructions"] == 100e6
    assert good["not_profiled"] == {
        "KeystonePerf.validate_token": "profile-0.json: no iteration profiled"
    }
    assert record["conclusion"]["status"] == bisect_search.FOUND


def test_a_commit_that_does_not_build_is_skipped_with_why(
    tmp_path: Path, built: dict[str, Any]
) -> None:
    costs: list[float | None] = [100.0, 100.0, None, 103.0, 103.0]
    plan = _plan(tmp_path, costs)
    _costs(built, plan, costs)
    record = bisect.run_bisect(plan, lambda line: None)
    assert record["outcomes"]["2"] == {
        "skipped": "does not build: pip failed ... more of pip's tail"
    }
    assert record["conclusion"]["status"] == bisect_search.AMONG_SKIPPED


def test_a_stopped_bisect_resumes_without_counting_again(
    tmp_path: Path, built: dict[str, Any]
) -> None:
    costs: list[float | None] = [100.0] * 11 + [102.0] * 5
    plan = _plan(tmp_path, costs, most=3)
    _costs(built, plan, costs)
    first = bisect.run_bisect(plan, lambda line: None)
    assert first["conclusion"]["status"] == bisect_search.UNFINISHED
    again = bisect.run_bisect(dataclasses.replace(plan, most=None), lambda line: None)
    assert again["conclusion"]["first_past"] == 11
    assert len(built["counted"]) == len(set(built["counted"])) == len(again["order"])


def test_a_later_bisect_reuses_the_cached_counts(
    tmp_path: Path, built: dict[str, Any]
) -> None:
    costs: list[float | None] = [100.0] * 3 + [103.0] * 3
    plan = _plan(tmp_path, costs, cache=tmp_path / "cache")
    _costs(built, plan, costs)
    bisect.run_bisect(plan, lambda line: None)
    counted = list(built["counted"])
    other = dataclasses.replace(plan, folder=tmp_path / "other")
    record = bisect.run_bisect(other, lambda line: None)
    assert built["counted"] == counted and record["conclusion"]["first_past"] == 3
    kept = json.loads(
        (other.folder / "profiles" / f"{plan.steps[3].id}.json").read_text()
    )
    assert fake_counts.PROVIDER in kept["KeystonePerf.validate_token"]


def test_a_build_with_other_libraries_is_counted_again(
    tmp_path: Path, built: dict[str, Any]
) -> None:
    costs: list[float | None] = [100.0, 103.0]
    plan = _plan(tmp_path, costs, cache=tmp_path / "cache")
    _costs(built, plan, costs)
    bisect.run_bisect(plan, lambda line: None)
    built["pins"] = "the suite upgraded"  # another build key, same commits
    bisect.run_bisect(plan, lambda line: None, restart=True)
    assert len(built["counted"]) == 4


def test_a_folder_holding_another_bisect_is_refused(
    tmp_path: Path, built: dict[str, Any]
) -> None:
    costs: list[float | None] = [100.0, 103.0]
    plan = _plan(tmp_path, costs)
    _costs(built, plan, costs)
    bisect.run_bisect(plan, lambda line: None)
    with pytest.raises(LaunchError, match="another bisect .*threshold"):
        bisect.start_record(dataclasses.replace(plan, threshold=0.02))
    assert bisect.start_record(plan, restart=True)["outcomes"] == {}


def test_labels_number_a_scenario_the_task_has_twice() -> None:
    specs = bisect_plan.count.workload_specs([VALIDATE, CREATE, VALIDATE])
    assert bisect_plan.labels(specs) == [
        "KeystonePerf.validate_token #1",
        "KeystonePerf.create_token",
        "KeystonePerf.validate_token #2",
    ]


@pytest.mark.parametrize(("steps", "counts"), [(2, 2), (4, 4), (16, 6), (1001, 12)])
def test_the_estimate_counts_good_bad_and_the_halvings(steps: int, counts: int) -> None:
    assert bisect_plan.estimate(steps) == (
        counts,
        counts * bisect_plan.MINUTES_PER_STEP,
    )


def test_a_day_history_changes_the_libraries_date_alone(tmp_path: Path) -> None:
    days = bisect_plan.day_steps("2025-10-02", "2025-10-05", "2025-10-01T12:00:00Z")
    assert [d.id for d in days] == [
        "2025-10-02",
        "2025-10-03",
        "2025-10-04",
        "2025-10-05",
    ]
    plan = dataclasses.replace(
        _plan(tmp_path, [None] * 4),
        history=bisect_plan.DAYS,
        repo=None,
        steps=days,
        options=LaunchOptions(keystone_build="keystone==28.0.0"),
    )
    options = bisect_plan.step_options(plan, "2025-10-03")
    assert (options.keystone_build, options.build_deps) == (
        "keystone==28.0.0",
        "2025-10-03",
    )


@pytest.mark.parametrize(
    ("first", "last", "said"),
    [
        ("2025-10-01", "2025-10-05", "uploaded to PyPI on 2025-10-01"),
        ("2025-10-05", "2025-10-02", "is not after"),
        ("2025-13-01", "2025-10-02", "give YYYY-MM-DD"),
    ],
)
def test_bad_day_ranges_are_refused(first: str, last: str, said: str) -> None:
    with pytest.raises(LaunchError, match=said):
        bisect_plan.day_steps(first, last, "2025-10-01T12:00:00Z")
