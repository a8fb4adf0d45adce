"""Tests for rally_keystone_perf.deploy.keystone.init (a stand-in Keystone)."""

from __future__ import annotations

import os
import pwd
import re
import stat
import sys
from pathlib import Path

import pytest

from rally_keystone_perf.deploy.keystone import config, init
from rally_keystone_perf.deploy.options import (
    Deployment,
    LaunchError,
    LaunchOptions,
    resolve,
)
from rally_keystone_perf.layout.rundir import RunDir
from tests.unit.deploy.helpers import _script, stand_in_keystone

# a stand-in for Keystone's keystone.cmd package, first on PYTHONPATH: each
# command prints its arguments and the password it was given; "fail" exits 3;
# create_jws_keypair writes both files where it runs, as Keystone's does
FAKE_CLI = """
import os, sys
from oslo_config import cfg
command_opt = cfg.SubCommandOpt("command")
def main(argv=None, developer_config_file=None):
    cfg.CONF.register_cli_opt(command_opt)
    password = os.environ.get("OS_BOOTSTRAP_PASSWORD")
    print("args:", " ".join(argv[1:]), "password:", password)
    if "fail" in argv:
        sys.exit(3)
    if "boom" in argv:
        raise RuntimeError("the database is gone")
    if "missing" in argv:
        raise SystemExit("/keys does not exist")
    needed = os.environ.get("FAKE_BOOTSTRAP_NEEDS")  # the JWS provider's key
    if "bootstrap" in argv and needed and not os.path.exists(needed):
        raise SystemExit(needed + " does not exist")
    if "create_jws_keypair" in argv:
        open("private.pem", "w").write("PRIVATE")
        open("public.pem", "w").write("PUBLIC")
"""


@pytest.fixture
def manage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A keystone-manage whose Python imports the stand-in Keystone."""
    return stand_in_keystone(tmp_path, FAKE_CLI, monkeypatch)


def test_init_runs_every_step_in_one_process(
    run: RunDir, manage: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two for JWS tokens: bootstrap loads the provider, which needs its keys
    in their repositories."""
    private = config.jws_keys(run) / "private" / "private.pem"
    monkeypatch.setenv("FAKE_BOOTSTRAP_NEEDS", str(private))
    init.init_keystone(run, manage, "http://k/v3", "pw-1", None, "jws")
    log = (run.logs / "keystone-manage.log").read_text()
    names = re.findall(r"^\$ keystone-manage (\S+)$", log, re.M)
    assert names == [
        "db_sync",
        "fernet_setup",
        "credential_setup",
        "create_jws_keypair",
        "bootstrap",
    ]
    config_file = f"--config-file {run.conf / 'keystone.conf'}"
    assert log.count(config_file) == 5
    assert "create_jws_keypair --keystone-user" in log
    assert "--bootstrap-public-url http://k/v3" in log
    given = re.findall(r"^args: (.*) password: (\S+)$", log, re.M)
    assert [password for _, password in given] == ["None"] * 4 + ["pw-1"]
    assert "pw-1" not in given[-1][0]  # the environment, not argv
    keys = config.jws_keys(run)
    assert private.read_text() == "PRIVATE"
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    assert stat.S_IMODE((keys / "private").stat().st_mode) == 0o700
    assert (keys / "public" / "public.pem").read_text() == "PUBLIC"
    assert sorted(p.name for p in keys.iterdir()) == ["private", "public"]


@pytest.mark.parametrize(
    ("step", "shown"),
    [
        ("fail", "exit 3"),
        ("boom", "the database is gone"),
        ("missing", "/keys does not exist"),
    ],
)
def test_a_failed_step_stops_the_batch_and_names_itself(
    run: RunDir, manage: Path, step: str, shown: str
) -> None:
    steps = [{"argv": ["db_sync"]}, {"argv": [step]}, {"argv": ["bootstrap"]}]
    with pytest.raises(LaunchError) as caught:
        init.run_manage_batch(run, manage, steps)
    assert str(caught.value).startswith(f"keystone-manage {step} failed (exit")
    assert shown in str(caught.value)
    log = (run.logs / "keystone-manage.log").read_text()
    assert "$ keystone-manage bootstrap" not in log  # nothing after the failure


def test_the_interpreter_is_the_scripts_own(tmp_path: Path) -> None:
    venv_script = _script(tmp_path / "a", "#!/opt/venv/bin/python3\nimport x\n")
    assert init.interpreter(venv_script) == Path("/opt/venv/bin/python3")
    env_script = _script(tmp_path / "b", "#!/usr/bin/env python3\n")
    assert init.interpreter(env_script) == Path(sys.executable)
    # uv's scripts: a /bin/sh trampoline to the venv's python beside them
    venv = tmp_path / "venv" / "bin"
    venv.mkdir(parents=True)
    python = _script(venv / "python", "#!/bin/sh\n")
    trampoline = "#!/bin/sh\n'''exec' " + f'{python} "$0" "$@"\n'
    assert init.interpreter(_script(venv / "keystone-manage", trampoline)) == python


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


# deploy/user_pool.py's main as the batch's module step runs it: it says
# whether Keystone's commands ran in its process, writes a pool, or fails
FAKE_POOL = """\
import json, os, sys
def main(argv):
    print("keystone imported:", "keystone.cmd.cli" in sys.modules)
    print("pool args:", " ".join(argv))
    if os.environ.get("FAKE_POOL_FAIL"):
        raise SystemExit(2)
    with open(argv[argv.index("--out") + 1], "w") as out:
        json.dump({"seconds": 0.5, "tenants": []}, out)
    return 0
"""


@pytest.fixture
def pool(manage: Path, monkeypatch: pytest.MonkeyPatch) -> Deployment:
    """The stand-in pool module as the batch's last step; a 2x3 pool."""
    (manage.parent / "stand-in" / "fake_pool.py").write_text(FAKE_POOL)
    monkeypatch.setattr(init, "POOL_MODULE", "fake_pool")
    return resolve(LaunchOptions(user_pool=(2, 3)))


def test_the_pool_is_made_in_the_batch_after_bootstrap(
    run: RunDir, manage: Path, pool: Deployment
) -> None:
    said: list[str] = []
    init.init_keystone(
        run, manage, "http://k/v3", "pw-1", pool=pool, progress=said.append
    )
    log = (run.logs / "keystone-manage.log").read_text()
    steps = re.findall(r"^\$ (.*)$", log, re.M)
    assert steps[-2:] == ["keystone-manage bootstrap", "creating the user pool"]
    assert "keystone imported: True" in log  # one process: Keystone imported once
    args = re.search(r"^pool args: (.*)$", log, re.M)
    assert (
        args and f"--size 2x3 --auth-url http://k/v3 --out {run.user_pool}" in args[1]
    )
    assert f"--config-file {run.conf / init.PREPARE_CONF}" in args[1]
    assert run.state().user_pool == {
        "projects": 2,
        "users_per_project": 3,
        "seconds": 0.5,
    }
    assert said[-1] == "user pool ready: 6 users in 0.5 s"


def test_a_pool_that_fails_names_itself(
    run: RunDir, manage: Path, pool: Deployment, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_POOL_FAIL", "1")
    with pytest.raises(LaunchError) as err:
        init.init_keystone(run, manage, "http://k/v3", "pw-1", pool=pool)
    assert str(err.value).startswith("creating the user pool failed (exit 2); ")
    assert run.state().user_pool is None
