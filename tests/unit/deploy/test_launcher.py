"""Tests for rally_keystone_perf.deploy.launcher (no real Keystone is started)."""

from __future__ import annotations

import configparser
import json
import socket
import stat
import subprocess
import sys
import textwrap
import types
from collections.abc import Iterator
from pathlib import Path
from string import Template
from typing import Any

import pytest

from rally_keystone_perf import paths
from rally_keystone_perf.deploy import launcher, modes, services
from rally_keystone_perf.deploy.launcher import LaunchError, LaunchOptions
from rally_keystone_perf.deploy.rundir import RunDir

FAKE_MANAGE = """\
#!{python}
import json, os, sys
command = sys.argv[3]
with open(os.environ["FAKE_RECORD"], "a") as record:
    record.write(json.dumps({{
        "argv": sys.argv[1:],
        "password": os.environ.get("OS_BOOTSTRAP_PASSWORD"),
    }}) + "\\n")
if command == os.environ.get("FAKE_FAIL_AT"):
    print("CRITICAL keystone [-] Unhandled error: database exploded")
    sys.exit(1)
print(f"{{command}} done")
"""


def _script(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(0o755)
    return path


@pytest.fixture
def bound_port() -> Iterator[int]:
    """A port on 127.0.0.1 that this test is listening on."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(1)
        yield sock.getsockname()[1]


@pytest.fixture
def fake_keystone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """Fake keystone-manage (records its calls) and uwsgi (sleeps) executables."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    record = tmp_path / "manage-calls.jsonl"
    monkeypatch.setenv("FAKE_RECORD", str(record))
    monkeypatch.delenv("FAKE_FAIL_AT", raising=False)
    executables = {
        "keystone-manage": _script(
            bin_dir / "keystone-manage", FAKE_MANAGE.format(python=sys.executable)
        ),
        "uwsgi": _script(bin_dir / "uwsgi", "#!/bin/sh\nexec sleep 30\n"),
    }
    monkeypatch.setattr(launcher, "check_requirements", lambda mode: executables)
    pools: list[tuple[int, int]] = []

    def create_user_pool(run: RunDir, url: str, size: Any, progress: Any) -> float:
        """Write a pool the way deploy/user_pool.py does (it needs a Keystone)."""
        pools.append(size)
        pool = {
            "version": 1,
            "auth_url": url,
            "domain": "Default",
            "password": "POOL-PASSWORD",
            "tenants": [
                {"id": "p", "name": "pool-p", "users": [{"id": "u", "name": "pool-u"}]}
            ],
        }
        run.user_pool.write_text(json.dumps(pool))
        return 0.1

    monkeypatch.setattr(launcher, "create_user_pool", create_user_pool)
    return {**executables, "record": record, "pools": pools}


def _calls(record: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in record.read_text().splitlines()]


# --- executables -----------------------------------------------------------


@pytest.fixture
def no_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty venv bin folder and nothing on PATH."""
    venv_bin = tmp_path / "venv-bin"
    venv_bin.mkdir()
    monkeypatch.setattr(paths, "venv_bin", lambda name: venv_bin / name)
    monkeypatch.setattr(launcher.shutil, "which", lambda name: None)
    return venv_bin


def test_find_executable_missing(no_path: Path) -> None:
    with pytest.raises(LaunchError) as err:
        launcher.find_executable(modes.KEYSTONE_MANAGE)
    assert str(err.value) == (
        "keystone-manage is not installed; install it with: pip install keystone"
    )


def test_check_requirements_names_the_missing_one(no_path: Path) -> None:
    _script(no_path / "keystone-manage", "#!/bin/sh\n")
    with pytest.raises(LaunchError) as err:
        launcher.check_requirements(launcher.requirements(LaunchOptions()))
    assert str(err.value) == (
        "uwsgi is not installed; install it with: pip install uwsgi"
    )


def test_find_executable_prefers_the_venv(
    no_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    exe = _script(no_path / "uwsgi", "#!/bin/sh\n")
    monkeypatch.setattr(launcher.shutil, "which", lambda name: "/usr/bin/uwsgi")
    assert launcher.find_executable(modes.UWSGI) == exe


def test_find_executable_skips_a_non_executable_venv_file(
    no_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (no_path / "uwsgi").write_text("not executable")
    monkeypatch.setattr(launcher.shutil, "which", lambda name: f"/opt/bin/{name}")
    assert launcher.find_executable(modes.UWSGI) == Path("/opt/bin/uwsgi")


def test_find_executable_not_in_venv_uses_path(
    no_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _script(no_path / "tool", "#!/bin/sh\n")
    monkeypatch.setattr(launcher.shutil, "which", lambda name: f"/usr/bin/{name}")
    req = modes.Requirement("tool", "apt install tool", in_venv=False)
    assert launcher.find_executable(req) == Path("/usr/bin/tool")


def test_check_requirements(no_path: Path) -> None:
    manage = _script(no_path / "keystone-manage", "#!/bin/sh\n")
    uwsgi = _script(no_path / "uwsgi", "#!/bin/sh\n")
    assert launcher.check_requirements(launcher.requirements(LaunchOptions())) == {
        "keystone-manage": manage,
        "uwsgi": uwsgi,
    }


# --- ports -----------------------------------------------------------------


def test_port_in_use(bound_port: int) -> None:
    assert launcher.port_is_free("127.0.0.1", bound_port) is False
    with pytest.raises(LaunchError) as err:
        launcher.pick_port("127.0.0.1", bound_port)
    message = str(err.value)
    assert f"port {bound_port} on 127.0.0.1 is in use" in message
    assert "--port" in message


def test_pick_port_returns_a_requested_free_port() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    assert launcher.port_is_free("127.0.0.1", port) is True
    assert launcher.pick_port("127.0.0.1", port) == port


def test_pick_port_chooses_a_free_port() -> None:
    port = launcher.pick_port("127.0.0.1", None)
    assert isinstance(port, int)
    assert 1024 <= port <= 65535
    assert launcher.port_is_free("127.0.0.1", port)


def test_pick_port_does_not_pick_a_bound_port(bound_port: int) -> None:
    assert launcher.pick_port("127.0.0.1", None) != bound_port


@pytest.mark.parametrize(
    ("host", "port"),
    [("192.0.2.1", None), ("192.0.2.1", 5000), ("127.0.0.1", 70000)],
    ids=["unassignable-host", "unassignable-host-port", "port-out-of-range"],
)
def test_pick_port_bad_address_is_a_launch_error(host: str, port: int | None) -> None:
    with pytest.raises(LaunchError):
        launcher.pick_port(host, port)


# --- logs ------------------------------------------------------------------


def test_log_tail(tmp_path: Path) -> None:
    log = tmp_path / "x.log"
    log.write_text("".join(f"line {i}\n" for i in range(1, 31)))
    tail = launcher.log_tail(log)
    assert tail.splitlines() == [f"line {i}" for i in range(6, 31)]
    assert launcher.log_tail(log, 2) == "line 29\nline 30"


def test_log_tail_short_and_binary(tmp_path: Path) -> None:
    log = tmp_path / "x.log"
    log.write_bytes(b"only\n\xff\xfe bad bytes\n")
    assert launcher.log_tail(log) == "only\n\ufffd\ufffd bad bytes"


def test_log_tail_missing(tmp_path: Path) -> None:
    missing = tmp_path / "none.log"
    assert launcher.log_tail(missing) == f"({missing} was not written)"


# --- templates -------------------------------------------------------------


def _render(run: RunDir, **options: Any) -> dict[str, str]:
    opts = LaunchOptions(**options)
    values = launcher.template_values(run, opts, 12345)
    launcher.render_templates(run, modes.get_mode("uwsgi"), values)
    return {
        "keystone.conf": (run.conf / "keystone.conf").read_text(),
        "uwsgi.ini": (run.conf / "uwsgi.ini").read_text(),
    }


def _ini(text: str) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.read_string(text)
    return parser


@pytest.mark.parametrize("mode", sorted(modes.MODES))
def test_templates_use_only_known_values(run: RunDir, mode: str) -> None:
    options = LaunchOptions(mode=mode)
    executables = {r.executable: Path("/x") for r in launcher.requirements(options)}
    found = modes.get_mode(mode)
    for profile in found.profiles:
        values = launcher.template_values(
            run, LaunchOptions(mode=mode, profile=profile), 1, None, executables
        )
        texts = [(paths.deployments_dir() / t).read_text() for t in found.templates]
        texts += [arg for process in found.processes for arg in process.argv]
        for text in texts:
            tmpl = Template(text)
            assert tmpl.is_valid()
            assert set(tmpl.get_identifiers()) <= set(values)


def test_render_uwsgi(run: RunDir) -> None:
    rendered = _render(run, processes=3, threads=5, listen_backlog=77)
    for text in rendered.values():
        assert "$" not in text
    uwsgi = _ini(rendered["uwsgi.ini"])["uwsgi"]
    assert uwsgi["http"] == "127.0.0.1:12345"
    assert uwsgi["processes"] == "3"
    assert uwsgi["threads"] == "5"
    assert uwsgi["listen"] == "77"
    assert uwsgi["module"] == "rally_keystone_perf.deploy.wsgi_app:application"
    assert uwsgi["env"] == f"OS_KEYSTONE_CONFIG_FILES={run.conf / 'keystone.conf'}"
    assert uwsgi["pidfile"] == f"{run.root}/uwsgi.pid"
    assert uwsgi["logger"] == f"file:{run.logs}/uwsgi.log"
    assert uwsgi["req-logger"] == f"file:{run.logs}/access.log"

    conf = _ini(rendered["keystone.conf"])
    assert conf["database"]["connection"] == (
        f"sqlite:///{run.db / 'keystone.sqlite'}?timeout=30"
    )
    assert conf["DEFAULT"]["log_file"] == f"{run.logs}/keystone.log"
    assert "expiration" not in conf["token"]  # Keystone's 3600 s
    assert "provider" not in conf["token"]  # Keystone's fernet
    assert conf["fernet_tokens"]["key_repository"] == str(run.keys / "fernet")
    assert conf["fernet_receipts"]["key_repository"] == str(run.keys / "fernet")
    assert conf["credential"]["key_repository"] == str(run.keys / "credential")
    assert "password_hash_rounds" not in conf["identity"]
    assert "# password_hash_rounds: Keystone's default" in rendered["keystone.conf"]


def test_render_password_hash_rounds_and_expiration(run: RunDir) -> None:
    rendered = _render(
        run, password_hash_rounds=4, token_expiration=600, host="127.0.0.2"
    )
    conf = _ini(rendered["keystone.conf"])
    assert conf["identity"]["password_hash_rounds"] == "4"
    assert conf["token"]["expiration"] == "600"
    assert rendered["keystone.conf"].count("password_hash_rounds") == 1
    assert _ini(rendered["uwsgi.ini"])["uwsgi"]["http"] == "127.0.0.2:12345"


def test_template_values(run: RunDir) -> None:
    values = launcher.template_values(
        run, LaunchOptions(processes=8, threads=2, password_hash_rounds=None), 5001
    )
    assert values["port"] == "5001"
    assert values["processes"] == "8"
    assert values["threads"] == "2"
    assert values["host"] == "127.0.0.1"
    assert values["listen_backlog"] == "100"
    assert values["token_expiration_line"].startswith("# expiration: Keystone's")
    assert values["run_dir"] == str(run.root)
    assert values["keystone_conf"] == str(run.conf / "keystone.conf")
    assert all(isinstance(v, str) for v in values.values())


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
    monkeypatch.setattr(services, "probe", lambda url: next(answers))
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
    monkeypatch.setattr(launcher, "start_processes", lambda *a: started.append(a))
    runs = tmp_path / "runs"
    with pytest.raises(LaunchError) as err:
        launcher.up(runs, LaunchOptions(), progress=lambda m: None)
    run = RunDir((runs / "current").resolve())
    log = run.logs / "keystone-manage.log"
    message = str(err.value)
    assert message.startswith("keystone-manage db_sync failed (exit 1); ")
    assert f"last lines of its logs:\n--- {log}\n" in message
    assert "$ keystone-manage db_sync" in message
    assert "Unhandled error: database exploded" in message
    assert started == []
    assert [c["argv"][2] for c in _calls(fake_keystone["record"])] == ["db_sync"]
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
        launcher.up(runs, LaunchOptions())
    assert not runs.exists()


def test_up_refuses_a_busy_port(
    tmp_path: Path, fake_keystone: dict[str, Path], bound_port: int
) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    with pytest.raises(LaunchError, match="is in use"):
        launcher.up(runs, LaunchOptions(port=bound_port))
    assert list(runs.iterdir()) == []
    assert not fake_keystone["record"].exists()


def test_up_unknown_mode(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown mode 'nginx'"):
        launcher.up(tmp_path, LaunchOptions(mode="nginx"))


def test_up_and_stop(
    tmp_path: Path, fake_keystone: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    procs: list[subprocess.Popen[bytes]] = []
    real_start = launcher.start_processes

    def start(run: RunDir, *args: Any) -> subprocess.Popen[bytes]:
        proc = real_start(run, *args)
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
        run = launcher.up(runs, options, progress=messages.append)
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
        assert messages[-1] == f"Keystone is up at {url}/v3 (healthy after 0.4 s)"

        # keystone-manage: the four steps, password never on the command line
        password = json.loads(run.admin_secret.read_text())["password"]
        assert len(password) >= 24
        calls = _calls(fake_keystone["record"])
        assert [c["argv"][2] for c in calls] == [
            "db_sync",
            "fernet_setup",
            "credential_setup",
            "bootstrap",
        ]
        conf = str(run.conf / "keystone.conf")
        assert all(c["argv"][:2] == ["--config-file", conf] for c in calls)
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
        assert fake_keystone["pools"] == [(1, 1)]
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
    values = launcher.template_values(
        run, LaunchOptions(), 1, None, {"uwsgi": uwsgi, "keystone-manage": uwsgi}
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


# --- settings, backends in the config ------------------------------------------


def test_settings_come_from_the_profile_unless_given(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(launcher, "somaxconn", lambda: 1024)
    apache = modes.get_mode("apache")
    stock = launcher.resolve_settings(apache, LaunchOptions(mode="apache"))
    assert (stock.processes, stock.threads, stock.listen_backlog) == (5, 1, 511)
    assert stock.values["keepalive"] == "On"  # Apache's and Debian's default
    assert stock.values["max_keepalive_requests"] == "100"
    tuned = launcher.resolve_settings(
        apache, LaunchOptions(mode="apache", profile="tuned", processes=7)
    )
    # 38 x 4 but for the explicit --processes; the backlog capped by the kernel
    assert (tuned.processes, tuned.threads, tuned.listen_backlog) == (7, 4, 1024)
    assert tuned.somaxconn == 1024


def test_settings_refuse_what_a_mode_lacks() -> None:
    with pytest.raises(ValueError, match="has no threads setting"):
        launcher.resolve_settings(
            modes.get_mode("eventlet"), LaunchOptions(mode="eventlet", threads=4)
        )
    with pytest.raises(ValueError, match="has no profile 'tuned'"):
        launcher.resolve_settings(
            modes.get_mode("uwsgi"), LaunchOptions(profile="tuned")
        )


def test_requirements_of_backends() -> None:
    names = [
        r.executable
        for r in launcher.requirements(
            LaunchOptions(mode="nginx-uwsgi", cache="memcached", db="mysql")
        )
    ]
    assert names == [
        "keystone-manage",
        "uwsgi",
        "nginx",
        "memcached",
        "mariadbd",
        "mariadb-install-db",
    ]
    with pytest.raises(ValueError, match="unknown cache 'redis'"):
        launcher.requirements(LaunchOptions(cache="redis"))


def test_cache_and_secret_database_config(run: RunDir) -> None:
    memcached = launcher.template_values(
        run, LaunchOptions(cache="memcached"), 1, cache_port=11311
    )
    assert "backend = dogpile.cache.pymemcache" in memcached["cache_config"]
    assert "memcache_servers = 127.0.0.1:11311" in memcached["cache_config"]
    stock = launcher.template_values(run, LaunchOptions(), 1)["cache_config"]
    assert all(line.startswith("#") for line in stock.splitlines())  # the default
    disabled = launcher.template_values(run, LaunchOptions(cache="disabled"), 1)
    assert "enabled = false" in disabled["cache_config"]

    launcher.write_secret_config(run, "mysql+pymysql://k:SECRET@127.0.0.1:1/k")
    secret = run.private / launcher.SECRETS_CONF
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600
    values = launcher.template_values(run, LaunchOptions(db="mysql"), 1)
    assert values["keystone_config_files"] == f"{run.conf / 'keystone.conf'};{secret}"
    launcher.render_templates(run, modes.get_mode("uwsgi"), values)
    rendered = (run.conf / "keystone.conf").read_text()
    assert "SECRET" not in rendered and "sqlite" not in rendered
    assert f"# connection: in {secret}" in rendered
    uwsgi = (run.conf / "uwsgi.ini").read_text()
    assert f"OS_KEYSTONE_CONFIG_FILES={values['keystone_config_files']}" in uwsgi


def test_render_nginx_uwsgi_and_apache(run: RunDir) -> None:
    exes = {"nginx": Path("/usr/sbin/nginx"), "uwsgi": Path("/v/uwsgi")}
    options = LaunchOptions(mode="nginx-uwsgi", profile="tuned")
    values = launcher.template_values(run, options, 8080, None, exes, Path("/tmp/s"))
    launcher.render_templates(run, modes.get_mode("nginx-uwsgi"), values)
    nginx = (run.conf / "nginx.conf").read_text()
    assert "listen 127.0.0.1:8080 backlog=" in nginx
    assert "server unix:/tmp/s/uwsgi.sock;" in nginx
    assert "worker_connections 4096;" in nginx
    assert "$msec $request_method" in nginx  # $$ became $
    assert (run.root / "nginx-tmp").is_dir()
    uwsgi = _ini((run.conf / "uwsgi.ini").read_text())["uwsgi"]
    assert (uwsgi["socket"], uwsgi["processes"], uwsgi["threads"]) == (
        "/tmp/s/uwsgi.sock",
        "38",
        "5",
    )

    apache = LaunchOptions(mode="apache")
    values = launcher.template_values(run, apache, 8081)
    launcher.render_templates(run, modes.get_mode("apache"), values)
    httpd = (run.conf / "httpd.conf").read_text()
    assert "Listen 127.0.0.1:8081" in httpd
    assert "WSGIDaemonProcess keystone-public processes=5 threads=1" in httpd
    assert f'WSGIPythonHome "{sys.prefix}"' in httpd
    assert "%{usec}t %m %U%q %>s %D %P" in httpd
    wsgi = (run.conf / "keystone.wsgi").read_text()
    assert f'"{run.conf / "keystone.conf"}"' in wsgi
    compile(wsgi, "keystone.wsgi", "exec")


def test_effective_options_give_nova_fake_its_database() -> None:
    options = launcher.LaunchOptions(mode="nova-fake")
    assert launcher.effective_options(options).db == "mysql"
    plain = launcher.LaunchOptions(mode="uwsgi")
    assert launcher.effective_options(plain) is plain
    assert {r.executable for r in launcher.requirements(options)} >= {
        "mariadbd",
        "nova-manage",
    }


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
    options = launcher.LaunchOptions(mode=mode, fake_computes=computes)
    with pytest.raises(launcher.LaunchError, match=message):
        launcher.up(tmp_path / "runs", options)
    assert not (tmp_path / "runs").exists()
