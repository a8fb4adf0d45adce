"""Tests for rally_keystone_perf.deploy.backends.ldap (nothing is started)."""

from __future__ import annotations

import base64
import hashlib
import re
import stat
from pathlib import Path

from rally_keystone_perf import paths
from rally_keystone_perf.deploy.backends import ldap
from rally_keystone_perf.layout.rundir import RunDir


def _check_ssha(stored: str, password: str) -> bool:
    raw = base64.b64decode(stored.removeprefix("{SSHA}"))
    digest, salt = raw[:20], raw[20:]
    return hashlib.sha1(password.encode() + salt).digest() == digest


def test_ssha_is_salted_sha1_as_slapd_checks_it() -> None:
    first, second = ldap.ssha("secret"), ldap.ssha("secret")
    assert first.startswith("{SSHA}") and first != second  # a salt each
    assert _check_ssha(first, "secret") and _check_ssha(second, "secret")
    assert not _check_ssha(first, "Secret")


def test_plan_pool_gives_every_user_an_id_and_one_password() -> None:
    plan = ldap.plan_pool(3, 2)
    users = [u for tenant in plan["tenants"] for u in tenant]
    assert [len(t) for t in plan["tenants"]] == [2, 2, 2]
    assert len({u["id"] for u in users}) == 6 and len({u["name"] for u in users}) == 6
    assert all(u["name"].startswith(f"ksp_pool_{plan['run_id']}_p") for u in users)
    assert len(plan["password"]) >= 24


def test_directory_ldif_holds_the_ous_the_admin_and_every_pool_user() -> None:
    plan = ldap.plan_pool(2, 2)
    text = ldap.directory_ldif("admin", "admin-pw", plan)
    entries = [e for e in text.split("\n\n") if e.strip()]
    dns = [e.splitlines()[0] for e in entries]
    assert dns[:3] == [
        f"dn: {ldap.SUFFIX}",
        f"dn: {ldap.USERS_OU}",
        f"dn: {ldap.GROUPS_OU}",
    ]
    users = [e for e in entries if "objectClass: inetOrgPerson" in e]
    assert len(users) == 5  # the admin and four pool users
    assert "sn: admin" in users[0]
    first = plan["tenants"][0][0]
    assert f"dn: cn={first['id']},{ldap.USERS_OU}\n" in text
    assert f"sn: {first['name']}\n" in text
    hashes = re.findall(r"userPassword: (\S+)", text)
    assert _check_ssha(hashes[0], "admin-pw")
    assert all(_check_ssha(h, plan["password"]) for h in hashes[1:])
    assert plan["password"] not in text and "admin-pw" not in text


def test_render_config_keeps_the_root_password_private(tmp_path: Path) -> None:
    run = RunDir(tmp_path / "run")
    run.create()
    conf = ldap.render_config(run)
    text = conf.read_text()
    assert conf == run.conf / "slapd.conf"
    assert f'suffix "{ldap.SUFFIX}"' in text
    assert f"directory {run.db / 'ldap'}" in text
    assert "rootpw {" not in text
    included = run.private / "slapd-root.conf"
    assert f"include {included}" in text
    assert stat.S_IMODE(included.stat().st_mode) == 0o600
    assert stat.S_IMODE((run.private / "ldap.json").stat().st_mode) == 0o600
    assert "rootpw {SSHA}" in included.read_text()
    (run.private / "admin.json").write_text('{"password": "a"}')
    assert run.state().secrets()[-1] in (run.private / "ldap.json").read_text()


def test_every_slapd_directive_says_why() -> None:
    """Each block of directives in the template is headed by a comment."""
    template = paths.deployments_dir() / ldap.TEMPLATE
    blocks = template.read_text().split("\n\n")
    for block in blocks:
        lines = [line for line in block.splitlines() if line.strip()]
        for index, line in enumerate(lines):
            if not line.startswith("#") and line != "database mdb":
                assert any(prior.startswith("#") for prior in lines[:index]), line
