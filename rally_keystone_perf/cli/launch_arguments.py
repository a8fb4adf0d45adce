"""The launch options: what every command that starts a Keystone is given.

The mode and its parallelism, the backends, a cluster's shape, Keystone's
own settings, the build and ``--trace``; :func:`add_launch_options` adds
them all, ``cli.common.launch_options`` reads them back.
"""

from __future__ import annotations

import argparse

from rally_keystone_perf.cli.arguments import (
    Group,
    checked,
    node_counts,
    pool_choice,
    positive,
)
from rally_keystone_perf.deploy import modes
from rally_keystone_perf.deploy.builds import dated
from rally_keystone_perf.layout import tracing


def add_launch_options(parser: argparse.ArgumentParser, with_mode: bool = True) -> None:
    """The "local Keystone" options of ``up``, ``run`` and ``matrix`` (whose
    ``--modes`` and ``--nodes`` take lists: ``with_mode`` False)."""
    group = parser.add_argument_group("local Keystone")
    _add_server_options(group, with_mode)
    _add_backends(group)
    _add_cluster(group, node_list=not with_mode)
    _add_keystone_settings(group)
    _add_wsgi(group)
    _add_build(parser)
    _add_trace(parser)


def _add_wsgi(group: Group) -> None:
    """``--wsgi``: the application the servers load (deploy/modes.WSGI_APPS)."""
    group.add_argument(
        "--wsgi",
        default=modes.DEFAULT_WSGI,
        choices=tuple(modes.WSGI_APPS),
        help="the application the servers load: suite (Keystone's app in the "
        "suite's wrapper: policy rules loaded before the first request, SQLite "
        "writers in turn, an escaping exception answered 500, --trace's spans) "
        "or stock (keystone.wsgi.api:application, nothing around it; not with "
        "--trace) (default: %(default)s)",
    )


def _add_build(parser: argparse.ArgumentParser) -> None:
    """``--keystone-build`` and ``--build-cache`` (deploy/builds)."""
    group = parser.add_argument_group(
        "Keystone build",
        "run another Keystone than the one installed beside the suite: each "
        "build is installed once into a venv of its own (every other library "
        "at the suite's version, or as of a date: --build-deps) and reused; "
        "an A/B side takes one with --b '--keystone-build SPEC'",
    )
    group.add_argument(
        "--keystone-build",
        default=None,
        metavar="SPEC",
        help="a pip requirement (keystone==29.1.0), a git URL@ref (git+file:///"
        "src/keystone@master) or a checkout's folder (default: the installed one)",
    )
    group.add_argument(
        "--build-deps",
        default="suite",
        type=build_deps_choice,
        metavar="suite|release|YYYY-MM-DD",
        help="the build's other libraries: the suite's versions (suite: only "
        "Keystone differs), or as PyPI had them on its release day or a date",
    )
    group.add_argument(
        "--build-cache",
        default=None,
        metavar="DIR",
        help="folder of the builds' venvs (default: $KEYSTONE_PERF_BUILD_CACHE, "
        "else ~/.cache/rally-keystone-perf/builds)",
    )


build_deps_choice = checked(dated.choice)
trace_choice = checked(lambda text: tracing.parse_spec(text).text)


def _add_trace(parser: argparse.ArgumentParser) -> None:
    """``--trace``: OSProfiler inside Keystone (deploy/tracing.py)."""
    group = parser.add_argument_group(
        "tracing",
        "OSProfiler in every Keystone node (SQL statements included), its "
        "traces in a redis started with the run; the report breaks the "
        "server time of the slowest traced iterations down. Tracing costs "
        "time: off by default",
    )
    group.add_argument(
        "--trace",
        type=trace_choice,
        default=None,
        metavar="slowest:N|sample:P",
        help="slowest:N traces every iteration and breaks down the N slowest "
        "of each workload; sample:P traces a share P (0-1, or N%%) of them, "
        "spread evenly without a period, and breaks down the "
        f"{tracing.DEFAULT_SLOWEST} slowest traced",
    )


def _add_server_options(group: Group, with_mode: bool) -> None:
    """Mode, profile and parallelism."""
    if with_mode:
        group.add_argument(
            "--mode",
            default=modes.DEFAULT_MODE,
            choices=sorted(modes.MODES),
            help="deployment mode (default: %(default)s)",
        )
    group.add_argument(
        "--profile",
        default=modes.DEFAULT_PROFILE,
        choices=sorted({p for m in modes.MODES.values() for p in m.profiles}),
        help="the mode's settings: stock (a fresh install) or tuned (seed 003; "
        "apache and nginx-uwsgi) (default: %(default)s)",
    )
    group.add_argument(
        "--processes",
        type=positive,
        default=None,
        help="server worker processes (default: the profile's; 2 for uwsgi "
        "and eventlet, 5 for apache)",
    )
    group.add_argument(
        "--threads",
        type=positive,
        default=None,
        help="threads per process (default: the profile's, 1 when stock)",
    )
    group.add_argument(
        "--listen-backlog",
        type=positive,
        default=None,
        help="listen queue length (default: the profile's; capped at the "
        "kernel's net.core.somaxconn)",
    )


def _add_backends(group: Group) -> None:
    """Cache, database and identity backend."""
    group.add_argument(
        "--cache",
        default=modes.DEFAULT_CACHE,
        choices=list(modes.CACHES),
        help="Keystone's shared cache: none (Keystone's default: oslo.cache on "
        "with its null backend, request-local memoization only; the report's "
        "cache column says request-local), memcached (a local memcached as "
        "oslo.cache's backend) or disabled ([cache] enabled = false: the "
        "request-local cache off too, several times slower; a configuration nobody "
        "deploys, flagged in the report) (default: %(default)s)",
    )
    group.add_argument(
        "--db",
        default="sqlite",
        choices=sorted(modes.DATABASES),
        help="Keystone's database: sqlite (a file in the run folder), mysql "
        "(a local MariaDB; always for nova-fake), galera (3 MariaDB Galera "
        "members, each a host of its own, behind haproxy with one active: "
        "kolla-ansible's cluster; uwsgi, nginx-uwsgi and apache modes) or "
        "postgresql "
        "(a local PostgreSQL, as seed 001 ran) (default: %(default)s)",
    )
    group.add_argument(
        "--identity",
        default=modes.DEFAULT_IDENTITY,
        choices=list(modes.IDENTITIES),
        help="where the default domain's users live: sql (Keystone's default) "
        "or ldap (a local OpenLDAP slapd holding the user pool, read through "
        "Keystone's read-only LDAP driver; projects and roles stay in SQL; "
        "scenarios that create users are refused) (default: %(default)s)",
    )


def _add_cluster(group: Group, node_list: bool) -> None:
    """Nodes behind haproxy (a list of node counts for the matrix)."""
    group.add_argument(
        "--nodes",
        type=node_counts if node_list else int,
        default=[1] if node_list else 1,
        metavar="N,..." if node_list else "N",
        help=(
            "node counts to run every task file at, comma-separated (e.g. "
            "1,2,3,4: seed 001's table); each as run --nodes "
            if node_list
            else ""
        )
        + "Keystone hosts (1-8): more than one run the mode on every node, "
        "each in its own network namespace on 198.18.0.0/15 (loopback "
        "addresses when namespaces are refused), behind haproxy as "
        "kolla-ansible wires them, sharing one database (MariaDB unless "
        "--db postgresql or galera); uwsgi, nginx-uwsgi and apache "
        "(default: %(default)s)",
    )
    group.add_argument(
        "--lb-balance",
        default="roundrobin",
        choices=["roundrobin", "leastconn"],
        help="haproxy's balance in front of the nodes (default: %(default)s, "
        "kolla-ansible's)",
    )
    group.add_argument(
        "--node-cpus",
        type=float,
        default=None,
        metavar="C",
        help="CPU quota of each Keystone host (its servers and memcached), in "
        "CPUs, e.g. 0.25: a cgroup per node (v2 cpu.max or v1 "
        "cpu.cfs_quota_us), so throughput against nodes stops growing where "
        "a tier saturates, as on separate hosts; needs root (default: none)",
    )
    group.add_argument(
        "--db-cpus",
        type=float,
        default=None,
        metavar="C",
        help="CPU quota of the database server (--db mysql, postgresql or galera), in "
        "CPUs, as --node-cpus (default: none)",
    )


def _add_keystone_settings(group: Group) -> None:
    """Address, password hashing, tokens, the user pool, Nova, start timeout."""
    group.add_argument(
        "--host",
        default="127.0.0.1",
        help="loopback address to listen on (default: %(default)s)",
    )
    group.add_argument(
        "--port", type=int, default=None, help="port (default: a free one)"
    )
    group.add_argument(
        "--password-hash-rounds",
        type=positive,
        default=None,
        help="keystone.conf [identity] password_hash_rounds "
        "(default: Keystone's own); sets the CPU cost of every password check",
    )
    group.add_argument(
        "--token-expiration",
        type=positive,
        default=modes.DEFAULT_TOKEN_EXPIRATION,
        help="[token] expiration in seconds (default: %(default)s)",
    )
    group.add_argument(
        "--token-provider",
        default=modes.DEFAULT_TOKEN_PROVIDER,
        choices=modes.TOKEN_PROVIDERS,
        help="[token] provider: fernet (Keystone's default: encrypted tokens) or "
        "jws (signed, not encrypted: the successor of the PKI tokens seed 001 "
        "measured; its key pair made with keystone-manage create_jws_keypair) "
        "(default: %(default)s)",
    )
    group.add_argument(
        "--user-pool",
        type=pool_choice,
        default="auto",
        metavar="TxU|auto|none",
        help="pre-create T projects x U users (e.g. 12x512) in seconds through "
        "Keystone's own managers, for the keystone_perf_users context; auto: "
        "as large as the tasks' largest keystone_perf_users context, if any "
        "(default: %(default)s)",
    )
    group.add_argument(
        "--fake-computes",
        type=positive,
        default=1,
        metavar="N",
        help="nova-fake mode: fake compute hosts, one nova-compute each "
        "(default: %(default)s)",
    )
    group.add_argument(
        "--start-timeout",
        type=float,
        default=None,
        help="seconds to wait for Keystone to answer (default: 60 plus 3 per "
        "server process)",
    )
