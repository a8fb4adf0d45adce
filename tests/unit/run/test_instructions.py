"""An A/B's counts: refused for deployment differences, both sides written."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from rally_keystone_perf.deploy.instructions import count
from rally_keystone_perf.deploy.options import LaunchError, LaunchOptions, resolve
from rally_keystone_perf.layout.counts import COUNTS_FILE
from rally_keystone_perf.run import instructions

WORKLOADS = [{"name": "KeystonePerf.validate_token", "args": {}, "contexts": {}}]


def _sides(**b: Any) -> dict[str, Any]:
    return {
        "a": resolve(LaunchOptions(keystone_build="keystone")),
        "b": resolve(LaunchOptions(keystone_build="/src/keystone", **b)),
    }


@pytest.fixture
def have_valgrind(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(count, "valgrind", lambda: Path("/usr/bin/valgrind"))
    monkeypatch.setattr(instructions.markers, "HEADER", Path(__file__))  # exists


def test_builds_alone_may_differ(have_valgrind: None) -> None:
    assert instructions.differing_options(_sides(build_cache="/c")) is None
    instructions.check_countable(_sides(), WORKLOADS)


def test_a_deployment_difference_is_refused_with_its_options(
    have_valgrind: None,
) -> None:
    with pytest.raises(LaunchError, match="also differ by --mode, --processes"):
        instructions.check_countable(_sides(processes=1, mode="apache"), WORKLOADS)


@pytest.mark.parametrize(
    "setting",
    [
        {"token_provider": "jws"},
        {"password_hash_rounds": 12},
        {"cache": "disabled"},
        {"token_expiration": 600},
    ],
)
def test_settings_inside_keystones_process_may_differ(
    have_valgrind: None, setting: dict[str, Any]
) -> None:
    instructions.check_countable(_sides(**setting), WORKLOADS)


def test_memcached_on_one_side_is_refused(have_valgrind: None) -> None:
    with pytest.raises(LaunchError, match="memcached's work is outside it"):
        instructions.check_countable(_sides(cache="memcached"), WORKLOADS)


def test_a_scenario_without_a_recipe_is_refused(have_valgrind: None) -> None:
    boot = [{"name": "KeystonePerf.boot_server", "args": {}, "contexts": {}}]
    with pytest.raises(LaunchError, match="--instructions: KeystonePerf.boot_server"):
        instructions.check_countable(_sides(), boot)


def test_memcached_on_both_sides_is_refused(have_valgrind: None) -> None:
    sides = {s: resolve(LaunchOptions(cache="memcached")) for s in ("a", "b")}
    with pytest.raises(LaunchError, match="memcached"):
        instructions.check_countable(sides, WORKLOADS)


def test_both_sides_counted_and_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[tuple[str, Any]] = []

    def count_side(
        folder: Path, options: LaunchOptions, specs: Any, plan: Any, echo: Any
    ):
        seen.append((folder.name, options.password_hash_rounds))
        total = 1000 if folder.name == "a" else 1010
        found = count.WorkloadCount(
            0, specs[0]["scenario"], 1, total, [[total]], 1, {"read": 2.0}
        )
        return count.SideCount([found], {})

    monkeypatch.setattr(count, "count_side", count_side)
    sides = {s: resolve(LaunchOptions()) for s in ("a", "b")}
    document = instructions.count_ab(tmp_path, sides, WORKLOADS, lambda m: None)
    assert seen == [("a", 4), ("b", 4)]
    written = json.loads((tmp_path / COUNTS_FILE).read_text())
    assert written == json.loads(json.dumps(document))
    assert written["sides"]["b"]["workloads"][0]["per_request"] == 1010
    assert written["conditions"]["password_hash_rounds"] == 4


def test_a_side_without_a_build_is_counted_as_the_installed_release(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made: list[str | None] = []

    def prepare(deployment: Any, echo: Any) -> Any:
        made.append(deployment.options.keystone_build)
        options = dataclasses.replace(deployment.options, keystone_venv="/venv")
        return dataclasses.replace(deployment, options=options)

    monkeypatch.setattr(instructions.prepare, "prepare", prepare)
    monkeypatch.setattr(instructions.source, "installed_version", lambda: "30.0.0")
    built = resolve(LaunchOptions(keystone_build="/src", keystone_venv="/b"))
    sides = {"a": resolve(LaunchOptions()), "b": built}
    counted = instructions.count_deployments(sides, lambda m: None)
    assert made == ["keystone==30.0.0"]
    assert counted["a"].options.keystone_venv == "/venv" and counted["b"] is built
    plain = {s: resolve(LaunchOptions()) for s in ("a", "b")}
    assert instructions.count_deployments(plain, lambda m: None) == plain


def test_a_release_that_cannot_be_built_asks_for_a_build(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def prepare(deployment: Any, echo: Any) -> Any:
        raise LaunchError("no such version")

    monkeypatch.setattr(instructions.prepare, "prepare", prepare)
    built = resolve(LaunchOptions(keystone_build="/src", keystone_venv="/b"))
    sides = {"a": resolve(LaunchOptions()), "b": built}
    with pytest.raises(LaunchError, match="side A has no --keystone-build"):
        instructions.count_deployments(sides, lambda m: None)


def test_no_compiler_is_refused_before_anything_starts(
    have_valgrind: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(instructions.markers.shutil, "which", lambda name: None)
    with pytest.raises(LaunchError, match="build-essential"):
        instructions.check_countable(_sides(), WORKLOADS)


def test_releases_counted_one_failing_the_others_kept_and_resumed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    counted: list[str] = []
    broken = {"28.0.0"}

    def count_side(folder: Path, options: LaunchOptions, specs: Any, *rest: Any):
        counted.append(folder.name)
        if folder.name in broken:
            raise LaunchError("counting KeystonePerf.validate_token failed (exit 1)")
        found = count.WorkloadCount(
            0, specs[0]["scenario"], 1, 1000, [[1000]], 1, {"read": 64.0}
        )
        return count.SideCount([found], {})

    monkeypatch.setattr(count, "count_side", count_side)
    monkeypatch.setattr(
        instructions, "_build", lambda options: {"spec": options.keystone_build}
    )
    releases = {
        v: resolve(LaunchOptions(keystone_build=f"keystone=={v}"))
        for v in ("27.0.0", "28.0.0", "29.0.0")
    }
    plan = count.CountPlan(layouts=2)
    said: list[str] = []
    found = instructions.count_releases(
        tmp_path, releases, WORKLOADS, said.append, plan
    )
    assert counted == ["27.0.0", "28.0.0", "29.0.0"]
    assert set(found["sides"]) == {"27.0.0", "29.0.0"}
    assert "exit 1" in found["failed"]["28.0.0"]
    assert "28.0.0: instruction count failed" in said
    assert json.loads((tmp_path / COUNTS_FILE).read_text()) == found
    # again, as a stopped releases resumes: only the failed one is counted
    broken.clear()
    counted.clear()
    again = instructions.count_releases(
        tmp_path, releases, WORKLOADS, said.append, plan
    )
    assert counted == ["28.0.0"] and not again["failed"]
    assert set(again["sides"]) == set(releases)
    # another plan counts every release anew
    instructions.count_releases(
        tmp_path, releases, WORKLOADS, said.append, count.CountPlan()
    )
    assert counted == ["28.0.0", "27.0.0", "28.0.0", "29.0.0"]


def test_each_config_counts_its_own_workloads_and_new_settings_anew(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    counted: list[tuple[str, list[str]]] = []

    def count_side(folder: Path, options: LaunchOptions, specs: Any, *rest: Any):
        counted.append((folder.name, [s["scenario"] for s in specs]))
        found = count.WorkloadCount(0, specs[0]["scenario"], 1, 1000, [[1000]], 1, {})
        return count.SideCount([found], {})

    monkeypatch.setattr(count, "count_side", count_side)
    monkeypatch.setattr(instructions, "_build", lambda options: {"spec": None})
    configs = {
        "fernet-sql": resolve(LaunchOptions(token_provider="fernet")),
        "jws-sql": resolve(LaunchOptions(token_provider="jws")),
    }
    validate = {"name": "KeystonePerf.validate_token", "args": {}, "contexts": {}}
    create = {**validate, "name": "KeystonePerf.create_token"}
    workloads = {"fernet-sql": [validate], "jws-sql": [create, validate]}
    plan = count.CountPlan(layouts=2)
    instructions.count_each(tmp_path, configs, workloads, lambda m: None, plan)
    assert counted == [
        ("fernet-sql", ["KeystonePerf.validate_token"]),
        (
            "jws-sql",
            ["KeystonePerf.create_token", "KeystonePerf.validate_token"],
        ),
    ]
    # again with one config's setting changed: only that one is counted
    counted.clear()
    configs["fernet-sql"] = resolve(
        LaunchOptions(token_provider="fernet", password_hash_rounds=5)
    )
    instructions.count_each(tmp_path, configs, workloads, lambda m: None, plan)
    assert [name for name, _ in counted] == ["fernet-sql"]
