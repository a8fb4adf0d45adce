"""Tests for rally_keystone_perf.layout.rundir."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from rally_keystone_perf.layout import rundir
from rally_keystone_perf.layout.rundir import RunDir, new_run_dir, write_private_json


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def loose_umask():
    """A permissive umask, so 0700/0600 come from the code, not the umask."""
    old = os.umask(0o002)
    yield
    os.umask(old)


def test_layout(tmp_path: Path) -> None:
    run = RunDir(tmp_path / "r")
    assert run.conf == tmp_path / "r" / "conf"
    assert run.logs == tmp_path / "r" / "logs"
    assert run.keys == tmp_path / "r" / "keys"
    assert run.private == tmp_path / "r" / "private"
    assert run.results == tmp_path / "r" / "results"
    assert run.db == tmp_path / "r" / "db"
    assert run.state_file == tmp_path / "r" / "run.json"
    assert run.access_log == tmp_path / "r" / "logs" / "access.log"
    assert run.admin_secret == tmp_path / "r" / "private" / "admin.json"
    assert run.env_spec == tmp_path / "r" / "private" / "rally-env.json"
    assert run.target_secret == tmp_path / "r" / "private" / "target.json"


def test_create_makes_private_folders(tmp_path: Path, loose_umask) -> None:
    run = RunDir(tmp_path / "a" / "b")
    run.create()
    for path in (run.conf, run.logs, run.results, run.db, run.keys, run.private):
        assert path.is_dir()
    assert _mode(run.keys) == 0o700
    assert _mode(run.private) == 0o700
    assert _mode(run.conf) == 0o775  # not private: only umask applies


def test_create_is_idempotent_and_tightens(tmp_path: Path) -> None:
    run = RunDir(tmp_path / "r")
    run.create()
    os.chmod(run.private, 0o755)
    (run.conf / "keep").write_text("x")
    run.create()
    assert _mode(run.private) == 0o700
    assert (run.conf / "keep").read_text() == "x"


def test_write_private_json(tmp_path: Path, loose_umask) -> None:
    path = tmp_path / "secret.json"
    write_private_json(path, {"password": "pw", "n": 1})
    assert _mode(path) == 0o600
    assert json.loads(path.read_text()) == {"password": "pw", "n": 1}
    assert path.read_text().endswith("}\n")


def test_write_private_json_truncates(tmp_path: Path) -> None:
    path = tmp_path / "secret.json"
    write_private_json(path, {"long": "x" * 100})
    write_private_json(path, {"a": 1})
    assert json.loads(path.read_text()) == {"a": 1}


def test_write_private_json_tightens_an_existing_file(tmp_path: Path) -> None:
    path = tmp_path / "secret.json"
    path.write_text("{}")
    os.chmod(path, 0o644)
    write_private_json(path, {"password": "pw"})
    assert _mode(path) == 0o600


def test_state_starts_empty(tmp_path: Path) -> None:
    run = RunDir(tmp_path)
    assert run.read_state() == {}


def test_write_state_merges(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = iter([100.0, 200.0])
    monkeypatch.setattr(rundir.time, "time", lambda: next(clock))
    run = RunDir(tmp_path)
    first = run.write_state(status="preparing", mode="uwsgi", options={"a": 1})
    assert first == {
        "status": "preparing",
        "mode": "uwsgi",
        "options": {"a": 1},
        "updated_at": 100.0,
    }
    second = run.write_state(status="running", server_pid=42)
    assert second == {
        "status": "running",
        "mode": "uwsgi",
        "options": {"a": 1},
        "server_pid": 42,
        "updated_at": 200.0,
    }
    assert run.read_state() == second
    assert not run.state_file.with_suffix(".tmp").exists()


def test_new_run_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rundir.time, "strftime", lambda fmt: "20240102-030405")
    runs = tmp_path / "runs"
    first = new_run_dir(runs, "uwsgi")
    second = new_run_dir(runs, "uwsgi")
    third = new_run_dir(runs, "uwsgi")
    assert first.root == (runs / "20240102-030405-uwsgi").resolve()
    assert second.root == (runs / "20240102-030405-uwsgi-2").resolve()
    assert third.root == (runs / "20240102-030405-uwsgi-3").resolve()
    for run in (first, second, third):
        assert run.private.is_dir() and run.keys.is_dir()
    current = runs / "current"
    assert current.is_symlink()
    assert os.readlink(current) == "20240102-030405-uwsgi-3"  # relative
    assert current.resolve() == third.root
    assert not (runs / ".current.tmp").exists()


def test_new_run_dir_replaces_a_dangling_current(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "current").symlink_to("gone")
    (runs / ".current.tmp").symlink_to("stale")
    run = new_run_dir(runs, "uwsgi")
    assert (runs / "current").resolve() == run.root
    assert run.root.name.endswith("-uwsgi")


def test_new_run_dir_relative_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    run = new_run_dir(Path("runs"), "uwsgi")
    assert run.root.is_absolute()
    assert run.root.parent == tmp_path / "runs"
    assert (tmp_path / "runs" / "current").resolve() == run.root


def test_private_umask(tmp_path: Path) -> None:
    from rally_keystone_perf.layout.rundir import private_umask

    with private_umask():
        (tmp_path / "secret").write_text("x")
    (tmp_path / "open").write_text("x")
    assert (tmp_path / "secret").stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "open").stat().st_mode & 0o077 != 0  # umask restored


def test_run_state_round_trips_an_old_file_and_keeps_unknown_keys(
    tmp_path: Path,
) -> None:
    run = RunDir(tmp_path)
    old = {"mode": "uwsgi", "server_pid": None, "some_later_key": [1, 2]}
    run.state_file.write_text(json.dumps(old))
    state = run.state()
    assert state.mode == "uwsgi" and state.server_pid is None
    assert state.to_json() == old  # only the keys written, unknown ones kept
    assert "created_at" not in run.write_state(status="running")
    assert run.read_state()["some_later_key"] == [1, 2]


def test_run_state_refuses_an_unknown_key(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="run.json has no key 'statu'"):
        RunDir(tmp_path).write_state(statu="running")


def test_run_state_secrets_know_every_private_format(run: RunDir) -> None:
    write_private_json(run.admin_secret, {"username": "admin", "password": "A"})
    assert run.state().secrets() == ["A"]
    plan = {"service_password": "S", "db_password": "D", "rabbit_password": "R"}
    write_private_json(run.stack_plan, plan)
    write_private_json(run.user_pool, {"password": "P"})
    assert run.state().secrets() == ["A", "S", "D", "R", "P"]
    write_private_json(run.private / "db.json", {"user": "k", "password": "B"})
    write_private_json(run.private / "ldap.json", {"dn": "cn=a", "password": "L"})
    assert run.state().secrets() == ["A", "S", "D", "R", "P", "B", "L"]


def test_run_state_secrets_of_an_os_cloud_run(run: RunDir) -> None:
    write_private_json(run.target_secret, {"passwords": ["T", "U1", "U2"]})
    assert not run.admin_secret.exists()
    assert run.state().secrets() == ["T", "U1", "U2"]


def test_run_state_secrets_of_a_run_without_private_files(run: RunDir) -> None:
    assert run.state().secrets() == []


def test_the_layout_names_every_folder_a_run_has(tmp_path: Path) -> None:
    from rally_keystone_perf.deploy.nova import config as nova_config
    from rally_keystone_perf.layout.tracing import TRACES_DIR
    from rally_keystone_perf.loadgen.locust import protocol, task

    documented = {path.rstrip("/") for path, _ in rundir.LAYOUT}
    run = new_run_dir(tmp_path, "uwsgi")
    made = {p.relative_to(run.root).as_posix() for p in run.root.iterdir()}
    assert made <= documented
    assert "runs/current" in documented and (tmp_path / "current").is_symlink()
    elsewhere = {
        TRACES_DIR,
        task.LOCUST_FOLDER,
        f"results/{protocol.ENGINE_DIR}",
        "nodes",  # deploy/cluster/startup.py: nodes/<node>/
        nova_config.state_dir(run).relative_to(run.root).as_posix(),
        run.state_file.name,
    }
    assert elsewhere <= documented
