"""Tests for rally_keystone_perf.deploy.keystone.init (a fake keystone-manage)."""

from __future__ import annotations

import os
import pwd
import stat
from pathlib import Path

import pytest

from rally_keystone_perf.deploy.keystone import config, init
from rally_keystone_perf.deploy.options import LaunchError
from rally_keystone_perf.deploy.rundir import RunDir
from tests.unit.deploy.helpers import _script

# keystone-manage create_jws_keypair writes both files where it runs
FAKE_MANAGE = """#!/bin/sh
echo "args: $*"
case "$*" in *create_jws_keypair*) ;; *) exit 0 ;; esac
printf 'PRIVATE' > private.pem
printf 'PUBLIC' > public.pem
"""


def test_jws_keys_go_to_their_repositories(run: RunDir, tmp_path: Path) -> None:
    manage = _script(tmp_path / "keystone-manage", FAKE_MANAGE)
    init.create_jws_keys(run, manage, ["--keystone-user", "u"])
    keys = config.jws_keys(run)
    private = keys / "private" / "private.pem"
    assert private.read_text() == "PRIVATE"
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    assert stat.S_IMODE((keys / "private").stat().st_mode) == 0o700
    assert (keys / "public" / "public.pem").read_text() == "PUBLIC"
    assert sorted(p.name for p in keys.iterdir()) == ["private", "public"]
    log = (run.logs / "keystone-manage.log").read_text()
    assert "$ keystone-manage create_jws_keypair" in log
    assert f"--config-file {run.conf / 'keystone.conf'}" in log
    assert "create_jws_keypair --keystone-user u" in log


def test_a_failed_keypair_names_its_log(run: RunDir, tmp_path: Path) -> None:
    manage = _script(tmp_path / "keystone-manage", "#!/bin/sh\necho no key\nexit 3\n")
    with pytest.raises(LaunchError, match="create_jws_keypair failed \\(exit 3\\)"):
        init.create_jws_keys(run, manage, [])


def test_jws_config_points_at_the_run_folder(run: RunDir) -> None:
    assert config.jwt_tokens_section("fernet", run) == ""
    section = config.jwt_tokens_section("jws", run)
    assert f"jws_public_key_repository = {run.keys / 'jws' / 'public'}" in section
    assert f"jws_private_key_repository = {run.keys / 'jws' / 'private'}" in section
    assert config.token_provider_line("jws").endswith("\nprovider = jws")
    assert config.token_provider_line("fernet").startswith("#")


@pytest.mark.skipif(os.geteuid() != 0, reason="chown to www-data needs root")
def test_a_node_s_own_log_folder_goes_to_the_server_user(
    run: RunDir, tmp_path: Path
) -> None:
    node_logs = tmp_path / "logs" / "node1"
    node_logs.mkdir(parents=True)
    (node_logs / "keystone.log").touch()
    init.grant_server_user(run, "www-data", node_logs)
    www = pwd.getpwnam("www-data").pw_uid
    assert node_logs.stat().st_uid == www
    assert (node_logs / "keystone.log").stat().st_uid == www
    assert run.keys.stat().st_uid == www
    assert run.logs.stat().st_uid == 0  # the run's own logs stay ours
