"""Tests for rally_keystone_perf.tasks.generate (the generated task files)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from rally_keystone_perf import cli, paths
from rally_keystone_perf.deploy import modes
from rally_keystone_perf.tasks import generate


def test_checked_in_files_are_what_the_generator_produces() -> None:
    assert generate.check(paths.tasks_dir()) == []


def test_every_mode_scenario_level_and_size() -> None:
    found = {(c.mode, c.scenario, c.concurrency, c.size) for c, _ in generate.specs()}
    levels = [*range(10, 101, 10), *range(200, 1001, 100)]
    for mode in modes.KEYSTONE_MODES:
        for size in ("quick", "full"):
            for level in (4, 16, 32):
                assert (mode, "KeystonePerf.create_token", level, size) in found
            assert (mode, "KeystonePerf.create_delete_user", 10, size) in found
            for level in levels:
                assert (mode, "KeystonePerf.list_projects", level, size) in found
    assert len(found) == len(modes.KEYSTONE_MODES) * 2 * (3 + 1 + len(levels))


def test_seed_sizes_and_tags() -> None:
    tasks = paths.tasks_dir()
    full = json.loads((tasks / "apache/create-token-c16-full.json").read_text())
    workload = full["subtasks"][0]["workloads"][0]
    assert workload["runner"] == {"constant": {"times": 10000, "concurrency": 16}}
    assert workload["contexts"]["keystone_perf_users"] == {
        "tenants": 12,
        "users_per_tenant": 512,
    }
    assert full["tags"] == [
        "create-token",
        "concurrency:16",
        "size:full",
        "mode:apache",
        "seed:000",
    ]
    assert full["description"].startswith("Size: full.")
    assert workload["sla"] == {"failure_rate": {"max": 0}}
    users = json.loads((tasks / "uwsgi/create-delete-user-c10-full.json").read_text())
    runner = users["subtasks"][0]["workloads"][0]["runner"]
    assert runner == {"constant": {"times": 100, "concurrency": 10}}
    siege = json.loads((tasks / "nginx-uwsgi/list-projects-c700-full.json").read_text())
    runner = siege["subtasks"][0]["workloads"][0]["runner"]
    assert runner == {"constant_for_duration": {"duration": 120, "concurrency": 700}}
    quick = json.loads((tasks / "eventlet/list-projects-c700-quick.json").read_text())
    assert "size:quick" in quick["tags"]
    assert quick["description"].startswith("Size: quick.")


def test_check_finds_edits_missing_and_stale_files(tmp_path: Path, capsys) -> None:
    tasks = tmp_path / "tasks"
    shutil.copytree(paths.tasks_dir(), tasks)
    edited = tasks / "uwsgi/create-token-c4-quick.json"
    edited.write_text(edited.read_text().replace('"times": 100', '"times": 101'))
    (tasks / "apache/create-token-c4-full.json").unlink()
    (tasks / "eventlet/old.json").write_text("{}")
    problems = generate.check(tasks)
    assert problems == [
        f"{tasks}/apache/create-token-c4-full.json: missing",
        f"{edited}: differs from the generator's output",
        f"{tasks}/eventlet/old.json: not generated (stale?)",
    ] or sorted(problems) == sorted(
        [
            f"{tasks}/apache/create-token-c4-full.json: missing",
            f"{edited}: differs from the generator's output",
            f"{tasks}/eventlet/old.json: not generated (stale?)",
        ]
    )
    assert cli.main(["tasks", "--tasks-dir", str(tasks)]) == 1
    assert "rally-keystone-perf tasks --write" in capsys.readouterr().err
    assert cli.main(["tasks", "--write", "--tasks-dir", str(tasks)]) == 0
    assert generate.check(tasks) == []
    assert not (tasks / "eventlet/old.json").exists()
