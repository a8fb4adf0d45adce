"""A Keystone for one process: its folder, config, database, keys and users.

The folder is a :class:`RunDir` (``conf/keystone.conf``, ``db/``, ``keys/``,
``private/``), prepared as the launcher prepares a run's, through the same
steps (:mod:`..keystone.config`, :mod:`..keystone.init`), but no server is
started: the replay loads Keystone itself. The database is SQLite (the
process's own); what the count cannot hold in one process is refused
(:func:`count_options`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import secrets
import shutil
import sqlite3
from pathlib import Path
from string import Template

from rally_keystone_perf import paths
from rally_keystone_perf.deploy import options as launch_options
from rally_keystone_perf.deploy import preflight
from rally_keystone_perf.deploy.builds import runtime
from rally_keystone_perf.deploy.keystone import config, init
from rally_keystone_perf.deploy.modes import DEFAULT_WSGI, KEYSTONE_MANAGE
from rally_keystone_perf.deploy.options import Deployment, LaunchError, LaunchOptions
from rally_keystone_perf.layout.rundir import RunDir, write_private_json

Progress = init.Progress
AUTH_URL = "http://127.0.0.1:5000/v3"  # the catalog's; never connected to
DEFAULT_HASH_ROUNDS = 4  # bcrypt's least: ~10 s a token at 12 under valgrind
DATABASE = "keystone.sqlite"
PREPARED = "prepared.sqlite"  # the database as prepared, before any replay


def count_options(options: LaunchOptions) -> LaunchOptions:
    """The options of the in-process Keystone a count runs.

    SQLite in the process, one node, no tracing; bcrypt at 4 rounds unless
    the options say otherwise (at Keystone's 12 a password token costs about
    10 s under valgrind, the hash's C code nearly all of it).

    :raises LaunchError: what one process cannot hold (memcached, LDAP), or
        ``--wsgi stock`` (the replay loads the suite's wrapper).
    """
    if options.cache == "memcached":
        raise LaunchError(
            "instruction counts run Keystone in one process: memcached's work "
            "is outside it (count with --cache none)"
        )
    if options.wsgi != DEFAULT_WSGI:
        raise LaunchError(
            "instruction counts replay requests through the suite's WSGI "
            f"wrapper (deploy/wsgi_app.py): --wsgi {options.wsgi} is not counted"
        )
    if options.identity != "sql":
        raise LaunchError(
            f"instruction counts run Keystone in one process: an {options.identity} "
            "identity backend's work is outside it"
        )
    return dataclasses.replace(
        options,
        db="sqlite",
        nodes=1,
        node_cpus=None,
        db_cpus=None,
        client_hosts=0,
        trace=None,
        port=None,
        password_hash_rounds=options.password_hash_rounds or DEFAULT_HASH_ROUNDS,
    )


def _keystone_conf(run: RunDir, deployment: Deployment) -> None:
    """Render keystone.conf alone, from the template every mode uses."""
    values = config.template_values(run, deployment, 5000)
    template = deployment.options.keystone_conf_template
    source = (
        Path(template)
        if template
        else paths.deployments_dir() / "common" / "keystone.conf.tmpl"
    )
    (run.conf / "keystone.conf").write_text(
        Template(source.read_text()).substitute(values)
    )


def prepare_site(
    folder: Path, options: LaunchOptions, size: tuple[int, int], progress: Progress
) -> RunDir:
    """Make ``folder`` a stopped Keystone whose user pool has ``size``
    (projects, users per project) and return it. ``options`` are already a count's
    (:func:`count_options`), their build prepared."""
    options = dataclasses.replace(options, user_pool=size)
    deployment = launch_options.resolve(options)
    run = RunDir(folder.resolve())
    run.create()
    runtime.link_suite_code(run, options)
    _keystone_conf(run, deployment)
    manage = runtime.executable(
        options, "keystone-manage", preflight.find_executable(KEYSTONE_MANAGE)
    )
    password = secrets.token_urlsafe(24)
    write_private_json(
        run.admin_secret, {"username": init.ADMIN_USER, "password": password}
    )
    progress(f"preparing an in-process Keystone in {run.root}")
    init.init_keystone(
        run,
        manage,
        AUTH_URL,
        password,
        None,
        options.token_provider,
        pool=deployment,
        progress=progress,
    )
    keep_prepared(run)
    return run


def keep_prepared(run: RunDir) -> None:
    """Keep the database as prepared (its write-ahead log folded in), for
    :func:`replay_config` to copy."""
    database = run.db / DATABASE
    with contextlib.closing(sqlite3.connect(database)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    shutil.copyfile(database, run.db / PREPARED)


def replay_config(run: RunDir, name: str) -> Path:
    """A config file giving one replay its own copy of the prepared database.

    Every replay then starts from the same database, and replays running
    together write nothing into each other's: what an earlier replay wrote
    (a first login of the day, revocation events) would otherwise sit in
    SQLite's write-ahead log, which every later read searches (measured:
    validations 1.1% dearer after a create_token replay on one database).
    Later config files override earlier ones (oslo.config).
    """
    database = run.db / f"{name}.sqlite"
    for suffix in ("-wal", "-shm"):
        Path(f"{database}{suffix}").unlink(missing_ok=True)
    shutil.copyfile(run.db / PREPARED, database)
    path = run.conf / f"{name}.conf"
    path.write_text(
        "# one replay's copy of the prepared database (instruction counts)\n"
        f"[database]\nconnection = sqlite:///{database}?timeout=30\n"
    )
    return path
