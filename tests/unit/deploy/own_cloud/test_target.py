"""Tests for rally_keystone_perf.deploy.own_cloud.target."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rally_keystone_perf.deploy.own_cloud import target
from rally_keystone_perf.deploy.own_cloud.target import TargetError

OS_VARS = (
    "OS_CLOUD",
    "OS_AUTH_URL",
    "OS_AUTH_TYPE",
    "OS_USERNAME",
    "OS_USER_ID",
    "OS_PASSWORD",
    "OS_PROJECT_NAME",
    "OS_PROJECT_ID",
    "OS_TENANT_NAME",
    "OS_USER_DOMAIN_NAME",
    "OS_USER_DOMAIN_ID",
    "OS_PROJECT_DOMAIN_NAME",
    "OS_PROJECT_DOMAIN_ID",
    "OS_DOMAIN_NAME",
    "OS_DOMAIN_ID",
    "OS_REGION_NAME",
    "OS_INTERFACE",
    "OS_CACERT",
    "OS_INSECURE",
    "OS_CLIENT_CONFIG_FILE",
    "OS_CLIENT_SECURE_FILE",
)

CLOUDS = """
clouds:
  mine:
    auth:
      auth_url: https://keystone.test:5000/v3/
      username: alice
      project_name: demo
      user_domain_name: Users
      project_domain_name: Projects
    region_name: RegionTwo
    interface: internal
    cacert: /etc/ca.pem
    verify: false
"""
SECURE = """
clouds:
  mine:
    auth:
      password: s3cret
"""


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """clouds.yaml and secure.yaml in tmp_path, and no other config or OS_*."""
    from openstack.config import loader

    for name in OS_VARS:
        monkeypatch.delenv(name, raising=False)
    for files in ("CONFIG_FILES", "SECURE_FILES", "VENDOR_FILES"):
        monkeypatch.setattr(loader, files, [])  # not the user's own files
    clouds, secure = tmp_path / "clouds.yaml", tmp_path / "secure.yaml"
    clouds.write_text(CLOUDS)
    secure.write_text(SECURE)
    monkeypatch.setenv("OS_CLIENT_CONFIG_FILE", str(clouds))
    monkeypatch.setenv("OS_CLIENT_SECURE_FILE", str(secure))
    return clouds


def _cloud(config: Path, auth: dict, **settings: object) -> None:
    """Make clouds.yaml hold one cloud, 'other', of ``auth`` and ``settings``."""
    config.write_text(json.dumps({"clouds": {"other": {"auth": auth, **settings}}}))


PASSWORD_AUTH = {
    "auth_url": "https://keystone.test:5000",
    "username": "bob",
    "password": "pw",
    "project_name": "demo",
}


def test_a_password_cloud_with_its_secure_password(config: Path) -> None:
    cloud = target.load_target("mine")
    assert cloud == target.CloudTarget(
        cloud="mine",
        auth_url="https://keystone.test:5000/v3",
        username="alice",
        project_name="demo",
        user_domain_name="Users",
        project_domain_name="Projects",
        region="RegionTwo",
        interface="internal",
        verify=False,
        cacert="/etc/ca.pem",
        password="s3cret",
    )


def test_the_password_is_in_no_repr_nor_public_record(config: Path) -> None:
    cloud = target.load_target("mine")
    assert "s3cret" not in repr(cloud)
    assert "s3cret" not in json.dumps(cloud.public())
    assert cloud.credential()["password"] == "s3cret"


def test_the_envvars_cloud_is_the_os_environment(
    config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OS_AUTH_URL", "http://env.test:5000/v3")
    monkeypatch.setenv("OS_USERNAME", "eve")
    monkeypatch.setenv("OS_PASSWORD", "env-pw")
    monkeypatch.setenv("OS_PROJECT_NAME", "envproj")
    monkeypatch.setenv("OS_REGION_NAME", "R1")
    cloud = target.load_target(target.ENV_CLOUD)
    assert (cloud.cloud, cloud.auth_url, cloud.username) == (
        "envvars",
        "http://env.test:5000/v3",
        "eve",
    )
    assert (cloud.password, cloud.project_name, cloud.region) == (
        "env-pw",
        "envproj",
        "R1",
    )
    assert (cloud.user_domain_name, cloud.verify, cloud.cacert) == (
        "Default",
        True,
        None,
    )


def test_an_unknown_cloud(config: Path) -> None:
    with pytest.raises(TargetError, match="cloud 'nowhere'"):
        target.load_target("nowhere")


def test_a_clouds_yaml_that_does_not_parse_is_named(config: Path) -> None:
    config.write_text("clouds:\n  mine: [unclosed\n")
    with pytest.raises(TargetError, match="Skipping config file") as caught:
        target.load_target("mine")
    assert str(config) in str(caught.value)


def test_an_application_credential_is_refused(config: Path) -> None:
    auth = {
        "auth_url": "https://keystone.test:5000",
        "application_credential_id": "abc",
        "application_credential_secret": "shh",
    }
    _cloud(config, auth, auth_type="v3applicationcredential")
    with pytest.raises(TargetError, match="password authentication only"):
        target.load_target("other")


def test_the_default_domain_id_is_the_default_domain(config: Path) -> None:
    ids = {"user_domain_id": "default", "project_domain_id": "default"}
    _cloud(config, {**PASSWORD_AUTH, **ids})
    cloud = target.load_target("other")
    assert (cloud.user_domain_name, cloud.project_domain_name) == (
        "Default",
        "Default",
    )


def test_another_domain_id_is_refused(config: Path) -> None:
    _cloud(config, {**PASSWORD_AUTH, "user_domain_id": "1234abcd"})
    with pytest.raises(TargetError, match="user_domain by id '1234abcd'"):
        target.load_target("other")


def test_a_cloud_without_a_password(config: Path) -> None:
    auth = {k: v for k, v in PASSWORD_AUTH.items() if k != "password"}
    _cloud(config, auth)
    with pytest.raises(TargetError, match="has no auth password"):
        target.load_target("other")


# --- load_users --------------------------------------------------------------

USERS = [
    {"username": "u1", "password": "p1", "project_name": "p"},
    {
        "username": "u2",
        "password": "p2",
        "project_name": "q",
        "user_domain_name": "D",
        "project_domain_name": "E",
    },
]


def test_load_users_from_a_list(tmp_path: Path) -> None:
    path = tmp_path / "users.json"
    path.write_text(json.dumps(USERS))
    assert target.load_users(path) == [
        {
            "username": "u1",
            "password": "p1",
            "project_name": "p",
            "user_domain_name": "Default",
            "project_domain_name": "Default",
        },
        USERS[1],
    ]


def test_load_users_from_rallys_existing_spec(tmp_path: Path) -> None:
    path = tmp_path / "users.yaml"
    path.write_text(json.dumps({"openstack": {"users": USERS[1:]}}))
    assert target.load_users(path) == USERS[1:]


def test_load_users_with_a_password_missing(tmp_path: Path) -> None:
    path = tmp_path / "users.json"
    path.write_text(json.dumps([USERS[1], {"username": "u", "project_name": "p"}]))
    with pytest.raises(TargetError, match="user 2 has no password"):
        target.load_users(path)


def test_load_users_of_no_file(tmp_path: Path) -> None:
    with pytest.raises(TargetError, match="cannot read the existing users"):
        target.load_users(tmp_path / "absent.json")


def test_the_old_interface_spelling_is_rallys(config: Path) -> None:
    _cloud(config, PASSWORD_AUTH, interface="internalURL")
    assert target.load_target("other").interface == "internal"


def test_load_users_of_a_spec_without_a_users_list(tmp_path: Path) -> None:
    path = tmp_path / "users.json"
    path.write_text(json.dumps({"openstack": ["x"]}))
    with pytest.raises(TargetError, match="no list of users"):
        target.load_users(path)
