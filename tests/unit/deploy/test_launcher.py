"""Tests for rally_keystone_perf.deploy.launcher (no real Keystone is started)."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
import textwrap
import types
from pathlib import Path
from typing import Any

import pytest

from rally_keystone_perf.deploy import launcher, modes, preflight, probes, services
from rally_keystone_perf.deploy.builds import venvs
from rally_keystone_perf.deploy.keystone import config, init
from rally_keystone_perf.deploy.options import (
    LaunchError,
    LaunchOptions,
    resolve,
)
from rally_keystone_perf.layout.rundir import RunDir
from tests.unit.deploy.helpers import _script, stand_in_keystone

# Keystone's keystone.cmd.cli as the batch of keystone-manage steps runs
# it: each command recorded, FAKE_FAIL_AT's failing
FAKE_CLI = """\
import json, os, sys
from oslo_config import cfg
command_opt = cfg.SubCommandOpt("command")
def main(argv=None, developer_config_file=None):
    command = argv[5]  # keystone-manage, the run's and the batch's config files
    with open(os.environ["FAKE_RECORD"], "a") as record:
        record.write(json.dumps({
            "argv": argv[1:],
            "password": os.environ.get("OS_BOOTSTRAP_PASSWORD"),
            "build": os.environ.get("FAKE_BUILD") == "1",
        }) + "\\n")
    if command == os.environ.get("FAKE_FAIL_AT"):
        print("CRITICAL keystone [-] Unhandled error: database exploded")
        sys.exit(1)
    print(f"{command} done")
"""


# deploy/user_pool.py's main as the batch's module step runs it: the pool
# written where --out says, with its seconds; the size recorded
FAKE_POOL = """\
import json, os
def main(argv):
    size = argv[argv.index("--size") + 1]
    with open(os.environ["FAKE_POOLS"], "a") as record:
        record.write(json.dumps([int(n) for n in size.split("x")]) + "\\n")
    pool = {
        "version": 1, "auth_url": argv[argv.index("--auth-url") + 1],
        "domain": "Default", "password": "POOL-PASSWORD", "seconds": 0.1,
        "tenants": [
            {"id": "p", "name": "pool-p", "users": [{"id": "u", "name": "pool-u"}]}
        ],
    }
    fd = os.open(argv[argv.index("--out") + 1], os.O_WRONLY | os.O_CREAT, 0o600)
    with os.fdopen(fd, "w") as out:
        json.dump(pool, out)
    return 0
"""


@pytest.fixture
def fake_keystone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """Fake keystone-manage (records its calls) and uwsgi (sleeps) executables."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    record = tmp_path / "manage-calls.jsonl"
    monkeypatch.setenv("FAKE_RECORD", str(record))
    monkeypatch.delenv("FAKE_FAIL_AT", raising=False)
    executables = {
        "keystone-manage": stand_in_keystone(bin_dir, FAKE_CLI, monkeypatch),
        "uwsgi": _script(bin_dir / "uwsgi", "#!/bin/sh\nexec sleep 30\n"),
    }
    monkeypatch.setattr(preflight, "check_requirements", lambda mode: executables)
    # the pool's module as the batch's last step (deploy/user_pool.py needs
    # a Keystone): it writes a pool and records the size it was asked for
    (bin_dir / "stand-in" / "fake_pool.py").write_text(FAKE_POOL)
    monkeypatch.setattr(init, "POOL_MODULE", "fake_pool")
    pools = tmp_path / "pools.jsonl"
    monkeypatch.setenv("FAKE_POOLS", str(pools))
    return {**executables, "record": record, "pools": pools}


def _pools(record: Path) -> list[tuple[int, int]]:
    """The sizes the stand-in pool was asked for, in order."""
    return [tuple(json.loads(line)) for line in record.read_text().splitlines()]


def _calls(record: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in record.read_text().splitlines()]


# --- health checks -----------------------------------------------------------


def test_wait_healthy_server_exited(run: RunDir) -> None:
    (run.logs / "uwsgi.log").write_text("starting\nbind(): Address in use\n")
    (run.logs / "keystone.log").write_text("")  # empty logs are not shown
    proc = subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])
    proc.wait()
    with pytest.raises(LaunchError) as err:
        launcher.wait_healthy("http://127.0.0.1:1/v3", proc, run, timeout=30)
    message = str(err.value)
    assert "the server exited with code 3 while starting" in message
    assert f"--- {run.logs / 'uwsgi.log'}\nstarting\nbind(): Address in use" in message
    assert "keystone.log" not in message


def test_wait_healthy_no_logs(run: RunDir) -> None:
    proc = subprocess.Popen([sys.executable, "-c", "raise SystemExit(1)"])
    proc.wait()
    with pytest.raises(LaunchError) as err:
        launcher.wait_healthy("http://127.0.0.1:1/v3", proc, run, timeout=30)
    assert str(err.value).endswith("(no log was written)")


def test_wait_healthy_timeout(run: RunDir) -> None:
    proc = types.SimpleNamespace(poll=lambda: None)
    with pytest.raises(LaunchError) as err:
        launcher.wait_healthy("http://h:1/v3", proc, run, timeout=0)  # type: ignore[arg-type]
    assert "Keystone did not answer GET http://h:1/v3 within 0 s" in str(err.value)


def test_wait_healthy_ok(run: RunDir, monkeypatch: pytest.MonkeyPatch) -> None:
    answers = iter([None, 200])
    monkeypatch.setattr(probes, "probe", lambda url: next(answers))
    monkeypatch.setattr(launcher.time, "sleep", lambda s: None)
    proc = types.SimpleNamespace(poll=lambda: None)
    waited = launcher.wait_healthy("http://h:1/v3", proc, run, timeout=30)  # type: ignore[arg-type]
    assert 0 <= waited < 30


# --- stop / is_running -------------------------------------------------------


def test_stop_without_server(run: RunDir) -> None:
    run.write_state(status="failed")
    before = run.read_state()
    assert launcher.stop(run) is False
    assert run.read_state() == before
    assert launcher.is_running(run) is False


def test_stop_a_dead_server(run: RunDir) -> None:
    proc = subprocess.Popen(["true"], start_new_session=True)
    proc.wait()
    run.write_state(status="running", server_pid=proc.pid)
    assert launcher.is_running(run) is False
    assert launcher.stop(run) is False
    state = run.read_state()
    assert state["status"] == "stopped"
    assert state["server_pid"] is None


# --- up ----------------------------------------------------------------------


def test_up_fails_when_keystone_manage_fails(
    tmp_path: Path, fake_keystone: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_FAIL_AT", "db_sync")
    started: list[Any] = []
    monkeypatch.setattr(launcher, "start_processes", lambda *a, **k: started.append(a))
    runs = tmp_path / "runs"
    with pytest.raises(LaunchError) as err:
        launcher.up(runs, resolve(LaunchOptions()), progress=lambda m: None)
    run = RunDir((runs / "current").resolve())
    log = run.logs / "keystone-manage.log"
    message = str(err.value)
    assert message.startswith("keystone-manage db_sync failed (exit 1); ")
    assert f"last lines of its logs:\n--- {log}\n" in message
    assert "$ keystone-manage db_sync" in message
    assert "Unhandled error: database exploded" in message
    assert started == []
    assert [c["argv"][4] for c in _calls(fake_keystone["record"])] == ["db_sync"]
    state = run.read_state()
    assert state["status"] == "failed"
    assert "server_pid" not in state
    assert (run.conf / "keystone.conf").is_file()  # rendered before the failure
    assert stat.S_IMODE(run.admin_secret.stat().st_mode) == 0o600
    assert not run.env_spec.exists()


def test_up_checks_requirements_before_creating_anything(
    tmp_path: Path, no_path: Path
) -> None:
    runs = tmp_path / "runs"
    with pytest.raises(LaunchError, match="keystone-manage is not installed"):
        launcher.up(runs, resolve(LaunchOptions()))
    assert not runs.exists()


def test_up_refuses_a_busy_port(
    tmp_path: Path, fake_keystone: dict[str, Path], bound_port: int
) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    with pytest.raises(LaunchError, match="is in use"):
        launcher.up(runs, resolve(LaunchOptions(port=bound_port)))
    assert list(runs.iterdir()) == []
    assert not fake_keystone["record"].exists()


def test_up_unknown_mode(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown mode 'nginx'"):
        launcher.up(tmp_path, resolve(LaunchOptions(mode="nginx")))


def test_up_and_stop(
    tmp_path: Path, fake_keystone: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    procs: list[subprocess.Popen[bytes]] = []
    real_start = launcher.start_processes

    def start(run: RunDir, *args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
        proc = real_start(run, *args, **kwargs)
        procs.append(proc)
        return proc

    health: list[tuple[str, float]] = []

    def healthy(url: str, proc: Any, run: RunDir, timeout: float) -> float:
        health.append((url, timeout))
        return 0.4321

    monkeypatch.setattr(launcher, "start_processes", start)
    monkeypatch.setattr(launcher, "wait_healthy", healthy)
    messages: list[str] = []
    runs = tmp_path / "runs"
    options = LaunchOptions(processes=3, threads=2, start_timeout=9.0)
    try:
        run = launcher.up(runs, resolve(options), progress=messages.append)
        state = run.read_state()
        url = state["url"]
        port = state["options"]["port"]
        assert url == f"http://127.0.0.1:{port}"
        assert state["auth_url"] == f"{url}/v3"
        assert state["status"] == "running"
        assert state["started_in"] == 0.432
        assert state["mode"] == "uwsgi"
        assert state["options"]["processes"] == 3
        assert state["server_pid"] == procs[0].pid
        assert state["services"] == {"uwsgi": procs[0].pid}
        assert health == [(f"{url}/v3", 9.0)]
        assert run.root.parent == runs.resolve()
        assert (runs / "current").resolve() == run.root
        assert messages[-2] == f"Keystone is up at {url}/v3 (healthy after 0.4 s)"
        # the whole start's time, its preparation apart from Keystone's start
        assert messages[-1].startswith("ready in ") and messages[-1].endswith(
            "s preparing (checks, backends, configuration, keystone-manage, "
            "user pool, services beside Keystone) and 0.4 s until Keystone answered"
        )
        assert state["ready_in"] >= 0

        # keystone-manage: the four steps, password never on the command line
        password = json.loads(run.admin_secret.read_text())["password"]
        assert len(password) >= 24
        calls = _calls(fake_keystone["record"])
        assert [c["argv"][4] for c in calls] == [
            "db_sync",
            "fernet_setup",
            "credential_setup",
            "bootstrap",
        ]
        conf = str(run.conf / "keystone.conf")
        # the batch's in-process cache after the run's config (deploy/keystone/init)
        batch = ["--config-file", str(run.conf / init.PREPARE_CONF)]
        assert all(c["argv"][:4] == ["--config-file", conf, *batch] for c in calls)
        assert "dogpile.cache.memory" in (run.conf / init.PREPARE_CONF).read_text()
        assert all(password not in " ".join(c["argv"]) for c in calls)
        assert calls[3]["password"] == password
        assert "--keystone-user" in calls[1]["argv"]
        bootstrap = calls[3]["argv"]
        assert bootstrap[bootstrap.index("--bootstrap-public-url") + 1] == f"{url}/v3"
        assert password not in (run.logs / "keystone-manage.log").read_text()

        spec = json.loads(run.env_spec.read_text())
        assert stat.S_IMODE(run.env_spec.stat().st_mode) == 0o600
        assert spec["openstack"]["auth_url"] == f"{url}/v3"
        assert spec["openstack"]["admin"] == {
            "username": "admin",
            "password": password,
            "project_name": "admin",
            "user_domain_name": "Default",
            "project_domain_name": "Default",
        }
        # always a pool of at least one user: the env's existing user, which
        # Rally's default users context takes instead of creating one
        assert _pools(fake_keystone["pools"]) == [(1, 1)]
        assert run.state().user_pool == {
            "projects": 1,
            "users_per_project": 1,
            "seconds": 0.1,
        }
        assert spec["openstack"]["users"] == [
            {
                "username": "pool-u",
                "password": "POOL-PASSWORD",
                "project_name": "pool-p",
                "user_domain_name": "Default",
                "project_domain_name": "Default",
            }
        ]
        assert password not in run.state_file.read_text()

        assert launcher.is_running(run) is True
        assert launcher.stop(run, timeout=10) is True
        assert launcher.is_running(run) is False
        state = run.read_state()
        assert state["status"] == "stopped"
        assert state["server_pid"] is None
        assert state["services"] == {}
        assert not Path(state["sockets_dir"]).exists()
        assert launcher.stop(run) is False
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait(timeout=10)


def test_start_processes_runs_uwsgi_with_the_rendered_ini(
    tmp_path: Path, run: RunDir
) -> None:
    uwsgi = _script(
        tmp_path / "uwsgi",
        textwrap.dedent(
            f"""\
            #!{sys.executable}
            import os, sys
            print("args:", " ".join(sys.argv[1:]))
            print("cwd:", os.getcwd())
            print("own session:", os.getsid(0) == os.getpid())
            print("stdin:", repr(sys.stdin.read()))
            """
        ),
    )
    values = config.template_values(
        run, resolve(LaunchOptions()), 1, {"uwsgi": uwsgi, "keystone-manage": uwsgi}
    )
    proc = launcher.start_processes(run, modes.get_mode("uwsgi"), values, 10)
    assert proc.wait(timeout=10) == 0
    out = (run.logs / "uwsgi-stdout.log").read_text()
    assert f"args: --ini {run.conf / 'uwsgi.ini'}\n" in out
    assert f"cwd: {run.root}\n" in out
    assert "own session: True\n" in out
    assert "stdin: ''\n" in out
    state = run.read_state()
    assert state["server_pid"] == proc.pid
    assert state["services"] == {"uwsgi": proc.pid}


@pytest.mark.parametrize(
    ("mode", "computes", "message"),
    [
        ("uwsgi", 2, "--fake-computes is for nova-fake"),
        ("nova-fake", 0, "fake computes: 1 to 16, got 0"),
        ("nova-fake", 17, "fake computes: 1 to 16, got 17"),
    ],
)
def test_up_refuses_bad_fake_computes_before_starting(
    tmp_path: Path, mode: str, computes: int, message: str
) -> None:
    options = LaunchOptions(mode=mode, fake_computes=computes)
    with pytest.raises(LaunchError, match=message):
        launcher.up(tmp_path / "runs", resolve(options))
    assert not (tmp_path / "runs").exists()


def test_up_with_a_keystone_build(
    tmp_path: Path, fake_keystone: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A build's keystone-manage, venv and suite-code path reach every part."""
    venv = tmp_path / "builds" / "keystone-29.1.0-k"
    (venv / "bin").mkdir(parents=True)
    # the build's Python: ours, telling the stand-in it is the build's, with
    # the stand-in Keystone (and pool) as a build's venv has its own
    stand_in = fake_keystone["keystone-manage"].parent / "stand-in"
    python = _script(
        venv / "bin" / "python",
        f'#!/bin/sh\nFAKE_BUILD=1 PYTHONPATH="$PYTHONPATH:{stand_in}" '
        f'exec {sys.executable} "$@"\n',
    )
    manage = _script(venv / "bin" / "keystone-manage", f"#!{python}\n")
    info = {"spec": "keystone==29.1.0", "kind": "pip", "version": "29.1.0"}
    (venv / venvs.BUILD_INFO).write_text(json.dumps(info | {"venv": str(venv)}))
    envs: list[dict[str, str] | None] = []
    real_start = services.start

    def start(run: RunDir, name: str, argv: Any, env: Any = None, **kw: Any) -> Any:
        envs.append(env)
        return real_start(run, name, argv, env, **kw)

    monkeypatch.setattr(services, "start", start)
    monkeypatch.setattr(launcher, "wait_healthy", lambda *a: 0.1)
    options = LaunchOptions(keystone_build="keystone==29.1.0", keystone_venv=str(venv))
    run = launcher.up(tmp_path / "runs", resolve(options))
    try:
        state = run.read_state()
        assert state["keystone_build"]["version"] == "29.1.0"
        assert state["versions"]["keystone"] == "29.1.0"
        suite = run.root / "suite-code"
        assert (suite / "rally_keystone_perf" / "deploy").is_dir()
        ini = (run.conf / "uwsgi.ini").read_text()
        assert f"\nhome = {venv}\npythonpath = {suite}\n" in ini.replace(
            "; and the suite's WSGI wrapper beside it (only that package)\n", ""
        )
        assert envs[-1] is not None and envs[-1]["PYTHONPATH"] == str(suite)
        calls = _calls(fake_keystone["record"])
        assert len(calls) == 4 and all(c["build"] for c in calls), manage
    finally:
        launcher.stop(run)
