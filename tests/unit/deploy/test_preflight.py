"""Tests for rally_keystone_perf.deploy.preflight (nothing is started)."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from rally_keystone_perf.deploy import modes, preflight
from rally_keystone_perf.deploy.options import (
    LaunchError,
    LaunchOptions,
    resolve,
)
from tests.unit.deploy.helpers import _script

# --- executables -----------------------------------------------------------


def test_find_executable_missing(no_path: Path) -> None:
    with pytest.raises(LaunchError) as err:
        preflight.find_executable(modes.KEYSTONE_MANAGE)
    assert str(err.value) == (
        "keystone-manage is not installed; install it with: "
        "pip install 'rally-keystone-perf[local]'"
    )


def test_check_requirements_names_the_missing_one(no_path: Path) -> None:
    _script(no_path / "keystone-manage", "#!/bin/sh\n")
    with pytest.raises(LaunchError) as err:
        preflight.check_requirements(preflight.requirements(resolve(LaunchOptions())))
    assert str(err.value) == (
        "uwsgi is not installed; install it with: "
        "pip install 'rally-keystone-perf[local]'"
    )


def test_find_executable_prefers_the_venv(
    no_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    exe = _script(no_path / "uwsgi", "#!/bin/sh\n")
    monkeypatch.setattr(preflight.shutil, "which", lambda name: "/usr/bin/uwsgi")
    assert preflight.find_executable(modes.UWSGI) == exe


def test_find_executable_skips_a_non_executable_venv_file(
    no_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (no_path / "uwsgi").write_text("not executable")
    monkeypatch.setattr(preflight.shutil, "which", lambda name: f"/opt/bin/{name}")
    assert preflight.find_executable(modes.UWSGI) == Path("/opt/bin/uwsgi")


def test_find_executable_not_in_venv_uses_path(
    no_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _script(no_path / "tool", "#!/bin/sh\n")
    monkeypatch.setattr(preflight.shutil, "which", lambda name: f"/usr/bin/{name}")
    req = modes.Requirement("tool", "apt install tool", in_venv=False)
    assert preflight.find_executable(req) == Path("/usr/bin/tool")


def test_check_requirements(no_path: Path) -> None:
    manage = _script(no_path / "keystone-manage", "#!/bin/sh\n")
    uwsgi = _script(no_path / "uwsgi", "#!/bin/sh\n")
    assert preflight.check_requirements(
        preflight.requirements(resolve(LaunchOptions()))
    ) == {
        "keystone-manage": manage,
        "uwsgi": uwsgi,
    }


# --- ports -----------------------------------------------------------------


def test_port_in_use(bound_port: int) -> None:
    assert preflight.port_is_free("127.0.0.1", bound_port) is False
    with pytest.raises(LaunchError) as err:
        preflight.pick_port("127.0.0.1", bound_port)
    message = str(err.value)
    assert f"port {bound_port} on 127.0.0.1 is in use" in message
    assert "--port" in message


def test_pick_port_returns_a_requested_free_port() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    assert preflight.port_is_free("127.0.0.1", port) is True
    assert preflight.pick_port("127.0.0.1", port) == port


def test_pick_port_chooses_a_free_port() -> None:
    port = preflight.pick_port("127.0.0.1", None)
    assert isinstance(port, int)
    assert 1024 <= port <= 65535
    assert preflight.port_is_free("127.0.0.1", port)


def test_pick_port_does_not_pick_a_bound_port(bound_port: int) -> None:
    assert preflight.pick_port("127.0.0.1", None) != bound_port


@pytest.mark.parametrize(
    ("host", "port"),
    [("192.0.2.1", None), ("192.0.2.1", 5000), ("127.0.0.1", 70000)],
    ids=["unassignable-host", "unassignable-host-port", "port-out-of-range"],
)
def test_pick_port_bad_address_is_a_launch_error(host: str, port: int | None) -> None:
    with pytest.raises(LaunchError):
        preflight.pick_port(host, port)


def test_requirements_of_backends() -> None:
    names = [
        r.executable
        for r in preflight.requirements(
            resolve(LaunchOptions(mode="nginx-uwsgi", cache="memcached", db="mysql"))
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
        preflight.requirements(resolve(LaunchOptions(cache="redis")))


def test_requirements_of_seed_001s_backends() -> None:
    options = LaunchOptions(db="postgresql", identity="ldap")
    names = [r.executable for r in preflight.requirements(resolve(options))]
    assert names[-4:] == ["postgres", "initdb", "slapd", "slapadd"]
    with pytest.raises(ValueError, match="unknown identity 'ad'"):
        preflight.requirements(resolve(LaunchOptions(identity="ad")))


def test_postgres_is_found_in_its_versioned_folder(
    no_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(preflight.shutil, "which", lambda name, path=None: None)
    for version in ("13", "15"):
        (tmp_path / "pg" / version / "bin").mkdir(parents=True)
        _script(tmp_path / "pg" / version / "bin" / "postgres", "#!/bin/sh\n")
    req = modes.Requirement(
        "postgres", "apt", in_venv=False, search_globs=(str(tmp_path / "pg/*/bin"),)
    )
    assert preflight.find_executable(req) == tmp_path / "pg/15/bin/postgres"


def test_a_missing_driver_module_names_its_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(preflight.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(LaunchError) as err:
        preflight.check_modules(resolve(LaunchOptions(identity="ldap")))
    assert str(err.value) == (
        "ldap needs the Python module ldap, which is not installed; install it "
        "with: pip install 'rally-keystone-perf[ldap]'"
    )
    with pytest.raises(LaunchError, match=r"rally-keystone-perf\[postgresql\]"):
        preflight.check_modules(resolve(LaunchOptions(db="postgresql")))
    preflight.check_modules(resolve(LaunchOptions()))  # sqlite and sql need nothing
    with pytest.raises(LaunchError) as err:
        preflight.check_choice_modules("locust")
    assert str(err.value) == (
        "locust needs the Python module locust, which is not installed; install "
        "it with: pip install 'rally-keystone-perf[locust]'"
    )


def test_postgres_user_must_reach_the_runs_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(preflight.postgresql, "server_user", lambda: "postgres")
    monkeypatch.setattr(preflight.pwd, "getpwnam", lambda name: object())
    closed = tmp_path / "closed"
    monkeypatch.setattr(preflight, "first_closed_folder", lambda path, user: closed)
    with pytest.raises(LaunchError) as err:
        preflight.check_backend_users(LaunchOptions(db="postgresql"), tmp_path / "r")
    assert f"setfacl -m u:postgres:x {closed}" in str(err.value)
    preflight.check_backend_users(LaunchOptions(db="mysql"), tmp_path / "r")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (LaunchOptions(nodes=0), "--nodes 0: a cluster has 1 to 8 nodes"),
        (LaunchOptions(nodes=9), "--nodes 9: a cluster has 1 to 8 nodes"),
        (
            LaunchOptions(nodes=2, mode="eventlet"),
            "--nodes 2: mode eventlet has no cluster (cluster modes: uwsgi, "
            "nginx-uwsgi, apache)",
        ),
        (
            LaunchOptions(db_cpus=0.5),
            "--db-cpus: --db sqlite has no database server to hold to a quota "
            "(use --db mysql, galera or postgresql)",
        ),
        (
            LaunchOptions(node_cpus=0.001),
            "--node-cpus 0.001: a quota is 0.01 to "
            f"{os.cpu_count()} CPUs (this machine's count)",
        ),
    ],
)
def test_check_cluster_refuses_what_it_cannot_build(
    options: LaunchOptions, message: str
) -> None:
    with pytest.raises(LaunchError) as err:
        preflight.check_cluster(resolve(options))
    assert str(err.value) == message


def test_a_cluster_needs_haproxy_and_shares_one_mariadb() -> None:
    deployment = resolve(LaunchOptions(nodes=2))
    assert deployment.options.db == "mysql"  # not a SQLite file per node
    names = [r.executable for r in preflight.requirements(resolve(deployment.options))]
    assert names[-2:] == ["haproxy", "ip"] and "mariadbd" in names
    preflight.check_cluster(deployment)
    assert resolve(LaunchOptions()).options.db == "sqlite"


def test_cpu_quotas_need_a_cgroup_folder_we_may_write(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(
        preflight.cgroups, "hierarchy", lambda: ("v1", tmp_path / "cpu")
    )
    monkeypatch.setattr(preflight.os, "access", lambda path, mode: False)
    with pytest.raises(LaunchError, match="cannot create cgroups in .*run as root"):
        preflight.check_cpu_quotas(LaunchOptions(node_cpus=0.25))
    preflight.check_cpu_quotas(LaunchOptions())  # no quota: nothing to check
