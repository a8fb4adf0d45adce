"""Seed 001's backends on a real Keystone: LDAP identity and PostgreSQL."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from rally_keystone_perf import cli
from rally_keystone_perf.deploy import launcher
from rally_keystone_perf.deploy.backends import ldap, postgresql
from rally_keystone_perf.deploy.options import LaunchError, LaunchOptions, resolve
from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.report.readers.rally_json import load_report
from tests.functional.conftest import (
    FAST_HASH_ROUNDS,
    admin_client,
    cli_options,
    require_mode,
    run_processes,
    write_task,
)

pytestmark = pytest.mark.functional

POOL = {"tenants": 2, "users_per_tenant": 3}


def _token_task(path: Path) -> Path:
    """create_token and validate_token, 10 each, on the run's user pool."""
    workloads = []
    for name, extra in (
        ("KeystonePerf.create_token", {}),
        ("KeystonePerf.validate_token", {"keystone_perf_tokens": {}}),
    ):
        workloads.append(
            {
                "scenario": {name: {}},
                "runner": {"constant": {"times": 10, "concurrency": 2}},
                "contexts": {"keystone_perf_users": POOL, **extra},
                "sla": {"failure_rate": {"max": 0}},
            }
        )
    return write_task(path, workloads)


def _run(tmp_path: Path, backend: list[str], runs: Path) -> tuple[int, RunDir]:
    """``run --keep-running`` of the token task on ``backend``; its run folder."""
    require_mode(cli_options(backend))
    task = _token_task(tmp_path / "tokens.json")
    before = {p.name for p in runs.glob("2*")}
    argv = ["run", "--task", str(task), *backend, "--keep-running"]
    argv += ["--password-hash-rounds", str(FAST_HASH_ROUNDS), "--runs-dir", str(runs)]
    code = cli.main(argv)
    (root,) = [p for p in runs.glob("2*") if p.name not in before]
    return code, RunDir(root)


def _all_succeeded(run: RunDir) -> None:
    (report,) = run.results.glob("tokens-*.json")
    workloads = load_report(report)
    assert len(workloads) == 2
    for workload in workloads:
        assert len(workload.iterations) == 10
        assert not [it for it in workload.iterations if it.error]


def _ldap_entries(run: RunDir) -> list[str]:
    """The DNs under ou=Users, read by ldapsearch as slapd's admin DN."""
    admin = json.loads((run.private / "ldap.json").read_text())
    secret = run.private / "ldapsearch.pw"
    secret.write_text(admin["password"])
    secret.chmod(0o600)
    found = subprocess.run(
        ["ldapsearch", "-x", "-LLL", "-H", f"ldap://127.0.0.1:{run.state().ldap_port}"]
        + ["-D", admin["dn"], "-y", str(secret), "-b", ldap.USERS_OU, "-s", "one"]
        + ["dn"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [line for line in found.splitlines() if line.startswith("dn: ")]


def test_ldap_identity_issues_and_validates_tokens(tmp_path: Path, capsys) -> None:
    code, run = _run(tmp_path, ["--identity", "ldap"], tmp_path / "runs")
    out = capsys.readouterr().out
    try:
        assert code == 0  # failure_rate max 0 held in both workloads
        _all_succeeded(run)
        assert run.state().options["identity"] == "ldap"
        assert re.search(r"\bidentity\s+ldap\b", out)  # the config line (may wrap)
        # the pool's users and the admin are in slapd, and only there
        pool = json.loads(run.user_pool.read_text())
        ids = {u["id"] for t in pool["tenants"] for u in t["users"]}
        entries = _ldap_entries(run)
        assert len(entries) == len(ids) + 1  # the pool and Keystone's admin
        assert {f"dn: cn={i},{ldap.USERS_OU}" for i in ids} < set(entries)
        identity, token = admin_client(run)
        user = identity.session.request(
            f"{identity.url}/users/{sorted(ids)[0]}",
            "GET",
            headers={"X-Auth-Token": token},
        ).json()["user"]
        assert user["id"] == sorted(ids)[0] and user["domain_id"] == "default"
        # read-only: Keystone itself refuses to write a user
        created = identity.session.request(
            f"{identity.url}/users",
            "POST",
            json={"user": {"name": "w", "password": "w"}},
            headers={"X-Auth-Token": token},
            raise_exc=False,
        )
        assert created.status_code == 403
    finally:
        launcher.stop(run)
    assert not run_processes(run), "server processes were left running"


def test_postgresql_issues_and_validates_tokens(tmp_path: Path, runs_dir: Path) -> None:
    """In a runs folder PostgreSQL's user can reach (pytest's is 0700)."""
    code, run = _run(tmp_path, ["--db", "postgresql"], runs_dir)
    try:
        assert code == 0
        _all_succeeded(run)
        assert run.state().options["db"] == "postgresql"
        secrets_conf = (run.private / "keystone-secrets.conf").read_text()
        assert "connection = postgresql+psycopg2://keystone:" in secrets_conf
        password = json.loads((run.private / "db.json").read_text())["password"]
        for path in [*run.conf.iterdir(), *run.logs.iterdir(), run.state_file]:
            assert password not in path.read_text(errors="replace"), path
        assert any("postgres" in " ".join(p.cmdline()) for p in run_processes(run))
    finally:
        launcher.stop(run)
    assert not run_processes(run), "server processes were left running"


def _failed_start(runs: Path, options: LaunchOptions) -> str:
    """``launcher.up`` refused: its message; nothing of the run still runs."""
    with pytest.raises(LaunchError) as err:
        launcher.up(runs, resolve(options))
    (root,) = runs.glob("2*")
    run = RunDir(root)
    assert run.state().status == "failed"
    assert not run_processes(run), "server processes were left running"
    return str(err.value)


def test_slapd_that_cannot_start_shows_its_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    options = LaunchOptions(identity="ldap")
    require_mode(options)
    real = ldap.render_config

    def broken(run: RunDir) -> Path:
        conf = real(run)
        conf.write_text(conf.read_text() + "bogus directive\n")
        return conf

    monkeypatch.setattr(ldap, "render_config", broken)
    message = _failed_start(tmp_path / "runs", options)
    assert message.startswith("slapadd failed (exit 1); last lines of its log:")
    assert "unknown directive <bogus>" in message


def test_postgres_that_cannot_start_shows_its_log(
    runs_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    options = LaunchOptions(db="postgresql")
    require_mode(options)
    monkeypatch.setattr(postgresql, "MAX_CONNECTIONS", "many")
    message = _failed_start(runs_dir / "broken-postgres", options)
    assert message.startswith("postgres exited with code 1 while starting")
    assert 'invalid value for parameter "max_connections": "many"' in message
