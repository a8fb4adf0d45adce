"""Tests for rally_keystone_perf.run.own_cloud (the run folder of --os-cloud)."""

from __future__ import annotations

import json
import stat
from pathlib import Path

from rally_keystone_perf.deploy.own_cloud.probe import Probe
from rally_keystone_perf.deploy.own_cloud.target import CloudTarget
from rally_keystone_perf.run import own_cloud
from rally_keystone_perf.tasks.own_cloud import Plan, WorkloadPlan

TARGET = CloudTarget(
    cloud="mine",
    auth_url="https://keystone.test:5000",
    username="alice",
    project_name="demo",
    region="RegionTwo",
    interface="internal",
    verify=False,
    cacert="/etc/ca.pem",
    password="ALICE-PW",
)
FOUND = Probe("https://keystone.test:5000/v3", "v3.14", ("admin",), "u-1", "p-1")
GIVEN = [
    {
        "username": "u1",
        "password": "U1-PW",
        "project_name": "p",
        "user_domain_name": "Default",
        "project_domain_name": "Default",
    }
]


def plan(existing_users: int) -> Plan:
    work = WorkloadPlan("t.json", "KeystonePerf.list_projects", "2 iterations", 1)
    return Plan([work], existing_users, "somewhere")


def test_env_spec_is_rallys_existing_openstack_spec() -> None:
    spec = own_cloud.env_spec(TARGET, FOUND, GIVEN)["openstack"]
    assert spec == {
        "auth_url": "https://keystone.test:5000/v3",
        "region_name": "RegionTwo",
        "endpoint_type": "internal",
        "https_insecure": True,
        "https_cacert": "/etc/ca.pem",
        "admin": TARGET.credential(),
        "users": GIVEN,
    }


def test_env_spec_is_valid_for_rally_openstack() -> None:
    import jsonschema
    from rally_openstack.environment.platforms import existing

    spec = own_cloud.env_spec(TARGET, FOUND, GIVEN)["openstack"]
    jsonschema.validate(spec, existing.OpenStack.CONFIG_SCHEMA)


def test_env_spec_without_users_cacert_or_region() -> None:
    plain = CloudTarget("c", "http://k:5000", "bob", "demo", password="pw")
    spec = own_cloud.env_spec(plain, FOUND, [])["openstack"]
    assert "users" not in spec and "https_cacert" not in spec
    assert (spec["region_name"], spec["https_insecure"]) == ("", False)


def test_spec_users_are_those_given_first() -> None:
    assert own_cloud.spec_users(TARGET, plan(1), GIVEN) == GIVEN


def test_spec_users_are_the_clouds_own_when_the_plan_says_so() -> None:
    assert own_cloud.spec_users(TARGET, plan(1), []) == [TARGET.credential()]


def test_spec_users_are_none_when_rally_creates_them() -> None:
    assert own_cloud.spec_users(TARGET, plan(0), []) == []


def test_prepare_run_records_the_target_without_its_password(tmp_path: Path) -> None:
    run = own_cloud.prepare_run(tmp_path / "runs", TARGET, FOUND, plan(1))
    assert run.root.name.endswith("-external")
    state = run.read_state()
    assert state["status"] == "running"
    assert state["target"]["cloud"] == "mine"
    assert state["target"]["api_version"] == "v3.14"
    assert state["target"]["plan"] == plan(1).lines()
    assert "ALICE-PW" not in run.state_file.read_text()


def test_prepare_run_keeps_the_passwords_private(tmp_path: Path) -> None:
    run = own_cloud.prepare_run(tmp_path / "runs", TARGET, FOUND, plan(0), GIVEN)
    assert stat.S_IMODE(run.target_secret.stat().st_mode) == 0o600
    assert json.loads(run.target_secret.read_text()) == {
        "passwords": ["ALICE-PW", "U1-PW"]
    }
    assert run.state().secrets() == ["ALICE-PW", "U1-PW"]


def test_prepare_run_writes_the_env_spec(tmp_path: Path) -> None:
    run = own_cloud.prepare_run(tmp_path / "runs", TARGET, FOUND, plan(1))
    spec = json.loads(run.env_spec.read_text())
    assert spec == own_cloud.env_spec(TARGET, FOUND, [TARGET.credential()])
    assert stat.S_IMODE(run.env_spec.stat().st_mode) == 0o600


def test_the_sweep_names_the_existing_users_of_the_env_spec(tmp_path: Path) -> None:
    given = own_cloud.prepare_run(tmp_path / "a", TARGET, FOUND, plan(0), GIVEN)
    assert own_cloud.existing_usernames(given) == ["u1"]
    own = own_cloud.prepare_run(tmp_path / "b", TARGET, FOUND, plan(1))
    assert own_cloud.existing_usernames(own) == ["alice"]
    created = own_cloud.prepare_run(tmp_path / "c", TARGET, FOUND, plan(0))
    assert own_cloud.existing_usernames(created) == []
    created.env_spec.unlink()
    assert own_cloud.existing_usernames(created) == []
