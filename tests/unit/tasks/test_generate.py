"""Tests for rally_keystone_perf.tasks.generate (the generated task files)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from rally_keystone_perf import cli, paths
from rally_keystone_perf.deploy import modes
from rally_keystone_perf.tasks import generate

# 4 modes x 2 sizes x (3 + 1 + 19 + 3 + 2 + 3 + 4 + 2 + 1) plans' levels
GENERATED_FILES = 304
READS = (
    "KeystonePerf.list_role_assignments",
    "KeystonePerf.list_auth_projects",
    "KeystonePerf.get_catalog",
)
LOGINS = (
    "KeystonePerf.authenticate_application_credential",
    "KeystonePerf.validate_token",
)
SEED_001_SERIAL = (
    "KeystonePerf.create_delete_user",
    "KeystonePerf.create_token",
    "KeystonePerf.validate_token",
)
SEED_001_THROUGHPUT = (
    "KeystonePerf.create_token",
    "KeystonePerf.list_revocation_events",
)


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
        for name in SEED_001_SERIAL:
            assert (mode, name, 1, size) in found
        for name in SEED_001_THROUGHPUT:
            assert (mode, name, 8, size) in found
        for name in (*READS, *LOGINS, "KeystonePerf.mix"):
            assert (mode, name, 4, size) in found
    per_mode = 3 + 1 + len(levels) + len(SEED_001_SERIAL) + len(SEED_001_THROUGHPUT)
    per_mode += len(READS) + len(LOGINS)  # validate_token's three variants: one
    per_mode += 1  # the mix (create_token's scopes: its c4's)
    assert len(found) == len(modes.KEYSTONE_MODES) * 2 * per_mode
    assert len(generate.generated()) == GENERATED_FILES


def test_file_names_are_unique_and_name_their_level() -> None:
    paths_ = [spec.path for spec, _ in generate.specs()]
    assert len(set(paths_)) == len(paths_)
    names = {path.name for path in paths_ if path.parent.name == "uwsgi"}
    assert {
        "create-token-c4-quick.json",
        "create-token-serial-full.json",
        "create-delete-user-serial-quick.json",
        "validate-token-serial-full.json",
        "create-token-throughput-c8-quick.json",
        "list-revocation-events-throughput-c8-full.json",
    } <= names


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


def _workload(document: dict) -> dict:
    (subtask,) = document["subtasks"]
    (workload,) = subtask["workloads"]
    return workload


def _task(relative: str) -> dict:
    return json.loads((paths.tasks_dir() / relative).read_text())


@pytest.mark.parametrize(
    ("name", "size", "times"),
    [
        ("create-delete-user", "full", 100),
        ("create-token", "full", 100),
        ("validate-token", "full", 100),
        ("create-token", "quick", 20),
        ("validate-token", "quick", 20),
    ],
)
def test_seed_001_sequential_files(name: str, size: str, times: int) -> None:
    document = _task(f"apache/{name}-serial-{size}.json")
    workload = _workload(document)
    assert workload["runner"] == {"serial": {"times": times}}
    assert document["tags"] == [
        name,
        "concurrency:1",
        f"size:{size}",
        "mode:apache",
        "seed:001",
    ]
    assert document["description"].startswith(f"Size: {size}.")
    assert "Rally's serial runner" in document["description"]
    assert document["title"].endswith(f" serial (apache, {size})")
    assert workload["sla"] == {"failure_rate": {"max": 0}}


def test_seed_001_sequential_contexts() -> None:
    users = _workload(_task("uwsgi/create-delete-user-serial-full.json"))
    assert users["contexts"] == {"users": {"tenants": 1, "users_per_tenant": 1}}
    pooled = {"tenants": 1, "users_per_tenant": 4}
    tokens = _workload(_task("uwsgi/create-token-serial-full.json"))
    assert tokens["contexts"] == {"keystone_perf_users": pooled}
    for size, times in (("full", 100), ("quick", 20)):
        validate = _workload(_task(f"uwsgi/validate-token-serial-{size}.json"))
        per_user = validate["contexts"]["keystone_perf_tokens"]["tokens_per_user"]
        assert validate["contexts"]["keystone_perf_users"] == pooled
        # every iteration validates a token not validated before, as the seed did
        assert per_user * pooled["users_per_tenant"] == times


def test_seed_001_user_creation_says_it_needs_sql() -> None:
    for spec, plan in generate.specs():
        description = generate.task_document(spec, plan)["description"]
        needs_sql = spec.seed == "001" and spec.slug == "create-delete-user"
        assert ("--identity ldap" in description) == needs_sql
        assert ("read-only" in description) == needs_sql


@pytest.mark.parametrize(("size", "duration"), [("full", 20), ("quick", 5)])
def test_seed_001_throughput_files(size: str, duration: int) -> None:
    runner = {"constant_for_duration": {"duration": duration, "concurrency": 8}}
    tokens = _task(f"nginx-uwsgi/create-token-throughput-c8-{size}.json")
    assert _workload(tokens)["runner"] == runner
    assert "keystone_perf_users" in _workload(tokens)["contexts"]
    assert tokens["tags"] == [
        "create-token",
        "concurrency:8",
        f"size:{size}",
        "mode:nginx-uwsgi",
        "seed:001",
    ]
    events = _task(f"nginx-uwsgi/list-revocation-events-throughput-c8-{size}.json")
    workload = _workload(events)
    assert workload["scenario"] == {"KeystonePerf.list_revocation_events": {}}
    assert workload["runner"] == runner
    wanted = 100 if size == "full" else 20
    assert workload["contexts"] == {"keystone_perf_revocations": {"events": wanted}}
    assert "seed:001" in events["tags"]
    assert (
        events["title"]
        == f"KeystonePerf.list_revocation_events c8 (nginx-uwsgi, {size})"
    )


def test_every_seed_001_file_is_tagged_and_valid() -> None:
    from rally_keystone_perf.tasks.check import validate_task

    found = [spec for spec, _ in generate.specs() if spec.seed == "001"]
    assert len(found) == len(modes.KEYSTONE_MODES) * 2 * 5
    for spec in found:
        path = paths.tasks_dir() / spec.path
        tags = json.loads(path.read_text())["tags"]
        assert "seed:001" in tags and f"mode:{spec.mode}" in tags
        assert validate_task(path) == 1


@pytest.mark.parametrize(
    ("slug", "args", "context"),
    [
        ("authenticate-application-credential", {}, None),
        (
            "validate-app-credential-token",
            {"token_kind": "application_credential"},
            "keystone_perf_app_credentials",
        ),
        (
            "validate-token-service",
            {"validator": "service"},
            "keystone_perf_service_user",
        ),
        (
            "validate-token-service-allow-expired",
            {"validator": "service", "allow_expired": True},
            "keystone_perf_service_user",
        ),
        ("create-token-domain-scope", {"scope": "domain"}, None),
        ("create-token-system-scope", {"scope": "system"}, None),
    ],
)
def test_the_variants_carry_their_arguments_and_contexts(
    slug: str, args: dict, context: str | None
) -> None:
    path = paths.tasks_dir() / "uwsgi" / f"{slug}-c4-quick.json"
    (subtask,) = json.loads(path.read_text())["subtasks"]
    (workload,) = subtask["workloads"]
    assert list(workload["scenario"].values()) == [args]
    assert workload["contexts"]["keystone_perf_users"] == {
        "tenants": 2,
        "users_per_tenant": 2,
    }
    if context:
        assert workload["contexts"][context] == {}


@pytest.mark.parametrize("scope", ["domain", "system"])
def test_a_scope_task_grants_the_role_its_scope_needs(scope: str) -> None:
    path = paths.tasks_dir() / "apache" / f"create-token-{scope}-scope-c4-full.json"
    (subtask,) = json.loads(path.read_text())["subtasks"]
    (workload,) = subtask["workloads"]
    assert workload["contexts"]["keystone_perf_scope_roles"] == {"scopes": [scope]}
    from rally_keystone_perf.tasks.check import validate_task  # costly: rally

    assert validate_task(path) == 1


def test_the_mix_is_validation_heavy_and_carries_its_contexts() -> None:
    from rally_keystone_perf.tasks.check import validate_task  # costly: rally

    for mode in modes.KEYSTONE_MODES:
        path = paths.tasks_dir() / mode / "mix-c4-quick.json"
        (subtask,) = json.loads(path.read_text())["subtasks"]
        (workload,) = subtask["workloads"]
        args = workload["scenario"]["KeystonePerf.mix"]
        weights = args["weights"]
        assert max(weights, key=weights.get) == "validate_token"
        assert sum(weights.values()) == 100 and args["seed"] == 0
        assert workload["contexts"]["keystone_perf_app_credentials"] == {}
        assert validate_task(path) == 1
