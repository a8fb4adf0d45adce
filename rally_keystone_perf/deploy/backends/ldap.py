"""Keystone's LDAP identity (``--identity ldap``): a local OpenLDAP slapd.

Debian's ``slapd`` runs as the run's child with its configuration
(``conf/slapd.conf``, from ``deployments/common/slapd.conf.tmpl``) and its
database (``db/ldap``) in the run folder, on a loopback port; the system's
slapd is never touched. Keystone reads it through its LDAP identity driver,
read-only as Keystone has been since Mitaka: users live in ``ou=Users``
(groups in ``ou=Groups``), projects and role assignments stay in SQL.

Nothing is written to LDAP through Keystone: the directory is loaded before
slapd starts, in one ``slapadd`` of an LDIF holding the admin user and the
whole user pool (6144 users in well under a second), each with a salted SHA
``userPassword`` as ``ldappasswd`` stores it on a stock slapd. The pool's
projects and role assignments are then made in SQL by :mod:`..user_pool`.
The LDIF, the slapd admin DN's password and the users' password stay in
``private/``.
"""

from __future__ import annotations

import base64
import hashlib
import os
import secrets
import subprocess
import uuid
from pathlib import Path
from string import Template
from typing import Any

from rally_keystone_perf import paths
from rally_keystone_perf.deploy import logtail, probes, services, user_pool
from rally_keystone_perf.layout.rundir import (
    RunDir,
    write_private_json,
    write_private_text,
)

SUFFIX = "dc=openstack,dc=org"  # the suffix of Keystone's LDAP docs
USERS_OU = f"ou=Users,{SUFFIX}"
GROUPS_OU = f"ou=Groups,{SUFFIX}"
ROOT_DN = f"cn=admin,{SUFFIX}"  # Debian's admin DN, under our suffix
TEMPLATE = "common/slapd.conf.tmpl"


def ssha(password: str) -> str:
    """``{SSHA}`` of ``password`` with a random salt, as slapd stores one."""
    salt = os.urandom(8)
    digest = hashlib.sha1(password.encode() + salt).digest()
    return "{SSHA}" + base64.b64encode(digest + salt).decode()


def plan_pool(tenants: int, users_per_tenant: int) -> dict[str, Any]:
    """The pool's users, made here: ids, names, their one password.

    The ids are what Keystone's LDAP driver shows as user ids (the ``cn``,
    kept as is for the default domain); the names are its ``sn``.
    """
    plan = user_pool.plan_users(tenants, users_per_tenant)
    for users in plan["tenants"]:
        for user in users:
            user["id"] = uuid.uuid4().hex
    return plan


def _entry(dn: str, attributes: list[tuple[str, str]]) -> str:
    return "\n".join([f"dn: {dn}", *(f"{k}: {v}" for k, v in attributes)]) + "\n"


def user_entry(user_id: str, name: str, password: str) -> str:
    """An ``inetOrgPerson`` as Keystone's defaults read it (id cn, name sn)."""
    return _entry(
        f"cn={user_id},{USERS_OU}",
        [
            ("objectClass", "inetOrgPerson"),
            ("cn", user_id),
            ("sn", name),
            ("userPassword", ssha(password)),
        ],
    )


def directory_ldif(admin: str, admin_password: str, pool: dict[str, Any]) -> str:
    """The whole directory: suffix, the two OUs, Keystone's admin, the pool."""
    entries = [
        _entry(
            SUFFIX,
            [
                ("objectClass", "dcObject"),
                ("objectClass", "organization"),
                ("o", "openstack"),
                ("dc", "openstack"),
            ],
        ),
        _entry(USERS_OU, [("objectClass", "organizationalUnit"), ("ou", "Users")]),
        _entry(GROUPS_OU, [("objectClass", "organizationalUnit"), ("ou", "Groups")]),
        user_entry(uuid.uuid4().hex, admin, admin_password),
    ]
    for users in pool["tenants"]:
        # one hash per user, as each would have its own: SHA-1, microseconds
        entries += [user_entry(u["id"], u["name"], pool["password"]) for u in users]
    return "\n".join(entries)


def render_config(run: RunDir) -> Path:
    """``conf/slapd.conf`` and its private ``rootdn``/``rootpw`` include."""
    root_conf = run.private / "slapd-root.conf"
    password = secrets.token_urlsafe(24)
    write_private_json(run.private / "ldap.json", {"dn": ROOT_DN, "password": password})
    write_private_text(root_conf, f'rootdn "{ROOT_DN}"\nrootpw {ssha(password)}\n')
    values = {
        "run_dir": str(run.root),
        "ldap_suffix": SUFFIX,
        "ldap_dir": str(directory(run)),
        "ldap_root_conf": str(root_conf),
    }
    text = Template((paths.deployments_dir() / TEMPLATE).read_text()).substitute(values)
    target = run.conf / "slapd.conf"
    target.write_text(text)
    return target


def directory(run: RunDir) -> Path:
    """slapd's database folder in the run."""
    return run.db / "ldap"


def pool_plan_file(run: RunDir) -> Path:
    """The planned pool (ids, names, password) the user pool completes."""
    return run.private / "ldap-pool.json"


def start_slapd(
    run: RunDir,
    exes: dict[str, Path],
    url: str,
    admin: tuple[str, str],
    pool_size: tuple[int, int],
    timeout: float,
) -> subprocess.Popen[bytes]:
    """Load the directory with ``slapadd``, then start slapd serving ``url``.

    ``admin``: Keystone's admin user and password (bootstrap finds it in
    LDAP); ``pool_size``: the user pool's projects x users, written to
    :func:`pool_plan_file` for :mod:`..user_pool`.
    """
    conf = render_config(run)
    directory(run).mkdir(mode=0o700)
    pool = plan_pool(*pool_size)
    write_private_json(pool_plan_file(run), pool)
    ldif = run.private / "directory.ldif"
    write_private_text(ldif, directory_ldif(*admin, pool))
    log = run.logs / "slapadd.log"
    load = [str(exes["slapadd"]), "-q", "-f", str(conf), "-l", str(ldif)]
    code = services.run_logged(load, log, stdin=subprocess.DEVNULL)
    if code != 0:
        raise services.ServiceError(
            f"slapadd failed (exit {code}); last lines of its log:\n"
            f"{logtail.named_tail(log)}"
        )
    # -d none: in the foreground (stopped with the run), printing only what
    # slapd logs at every level (its errors: a bad config, a busy port), not
    # a line per operation
    argv = [str(exes["slapd"]), "-f", str(conf), "-h", f"{url}/", "-d", "none"]
    proc = services.start(run, "slapd", argv)
    host, port = url.removeprefix("ldap://").rsplit(":", 1)
    probes.wait_until(
        lambda: probes.port_open(host, int(port)),
        proc,
        "slapd",
        timeout,
        lambda: logtail.named_tail(run.logs / "slapd-stdout.log"),
    )
    return proc
