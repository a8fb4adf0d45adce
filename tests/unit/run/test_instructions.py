"""An A/B's counts: refused for deployment differences, both sides written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rally_keystone_perf.deploy.instructions import count
from rally_keystone_perf.deploy.options import LaunchError, LaunchOptions, resolve
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


def test_builds_alone_may_differ(have_valgrind: None) -> None:
    assert instructions.differing_options(_sides(build_cache="/c")) == []
    instructions.check_countable(_sides(), WORKLOADS)


def test_a_deployment_difference_is_refused_with_its_options(
    have_valgrind: None,
) -> None:
    with pytest.raises(LaunchError, match="also differ by --mode, --processes"):
        instructions.check_countable(_sides(processes=1, mode="apache"), WORKLOADS)


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
        return [count.WorkloadCount(0, specs[0]["scenario"], 1, total, [total], 1)]

    monkeypatch.setattr(count, "count_side", count_side)
    sides = {s: resolve(LaunchOptions()) for s in ("a", "b")}
    document = instructions.count_ab(tmp_path, sides, WORKLOADS, lambda m: None)
    assert seen == [("a", 4), ("b", 4)]
    written = json.loads((tmp_path / instructions.COUNTS_FILE).read_text())
    assert written == json.loads(json.dumps(document))
    assert written["sides"]["b"]["workloads"][0]["per_request"] == 1010
    assert written["conditions"]["password_hash_rounds"] == 4
