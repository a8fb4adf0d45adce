"""``--db galera``: a 3-member MariaDB Galera cluster, as kolla-ansible runs one.

Debian's mariadbd with Debian's galera-4 provider, one member per database
host (its own namespace on the cluster's bridge, or its own loopback
address), its datadir in ``db/galeraK/`` and its log in ``logs/galeraK.log``.
The first member bootstraps the cluster (``--wsrep-new-cluster``, once: its
record in run.json is the joining command, so a fault's restart rejoins),
the others join it one at a time and receive the data by state transfer
(SST). Keystone reaches the cluster through haproxy
(:func:`..cluster.haproxy.render_database`): one active member, the others
backups, as kolla-ansible's haproxy does for MariaDB.

Every option that differs from MariaDB's default is in :func:`wsrep_args`
(or :func:`.mariadb.mariadb_argv`) with the reason.
"""

from __future__ import annotations

import os
import pwd
import secrets
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from rally_keystone_perf.deploy import logtail, preflight, probes, services
from rally_keystone_perf.deploy.backends import mariadb
from rally_keystone_perf.deploy.cluster import cgroups, haproxy
from rally_keystone_perf.deploy.cluster.network import Network
from rally_keystone_perf.layout.names import member_name
from rally_keystone_perf.layout.rundir import RunDir, write_private_json

MEMBERS = 3  # kolla-ansible's smallest Galera cluster: a quorum survives one loss
CLUSTER_NAME = "openstack"  # kolla-ansible's database_cluster_name
# MariaDB's and kolla-ansible's ports, inside each member's namespace
PORTS = {"mysql": 3306, "wsrep": 4567, "ist": 4568, "sst": 4444}
SYNCED = "Synced"
HAPROXY_SERVICE = "haproxy-galera"  # the database's own load balancer


class GaleraError(services.ServiceError):
    """The Galera cluster did not form; the message says why and shows logs."""


@dataclass(frozen=True)
class Member:
    """One Galera member: its name, address, ports and how to run on its host."""

    name: str  # galera1 ...: its service, cgroup and log name
    address: str
    ports: dict[str, int]
    prefix: tuple[str, ...]  # its cgroup, then its namespace

    def socket(self, sockets: Path) -> Path:
        """Its unix socket (the launcher's own admin connection)."""
        return sockets / f"{self.name}.sock"


def members(run: RunDir, net: Network) -> list[Member]:
    """Every member of ``net``'s database hosts, with the ports it listens on."""
    found = []
    for index, address in enumerate(net.db_addresses):
        name = member_name(index)
        if net.kind == "netns":
            ports = dict(PORTS)
        else:  # loopback addresses share the port space with everything else
            ports = {key: preflight.pick_port(address, None) for key in PORTS}
        prefix = [*cgroups.host_prefix(run, name), *net.db_exec_prefix(index)]
        found.append(Member(name, address, ports, tuple(prefix)))
    return found


def wsrep_args(member: Member, peers: Sequence[Member], provider: Path) -> list[str]:
    """mariadbd's Galera options for ``member`` of ``peers`` (kolla-ansible's
    galera.cnf, ``ansible/roles/mariadb/templates/galera.cnf.j2``)."""
    address = member.address
    ports = member.ports
    cluster = ",".join(f"{p.address}:{p.ports['wsrep']}" for p in peers)
    return [
        "--wsrep-on=ON",
        f"--wsrep-provider={provider}",
        f"--wsrep-cluster-name={CLUSTER_NAME}",
        f"--wsrep-cluster-address=gcomm://{cluster}",
        f"--wsrep-node-name={member.name}",
        f"--wsrep-node-address={address}:{ports['wsrep']}",
        f"--wsrep-provider-options=gmcast.listen_addr=tcp://{address}:"
        f"{ports['wsrep']};ist.recv_addr={address}:{ports['ist']}",
        f"--wsrep-sst-receive-address={address}:{ports['sst']}",
        # rsync: MariaDB's default SST method (kolla-ansible uses mariabackup,
        # which needs an SST user); the transfer happens once, at start, on an
        # empty database, outside any measurement
        "--wsrep-sst-method=rsync",
        # kolla-ansible's 4 appliers (default 1)
        "--wsrep-slave-threads=4",
        # Galera requires row-based replication (default: MIXED) and
        # interleaved auto-increment locks (default: 1), as galera.cnf sets
        "--binlog-format=ROW",
        "--innodb-autoinc-lock-mode=2",
        # kolla-ansible's galera.cnf (MariaDB's Galera guide): durability comes
        # from the other members, not from a flush at every commit (default 1)
        "--innodb-flush-log-at-trx-commit=0",
        # kolla-ansible also turns the binary log on (log_bin, for its
        # backups); left off, MariaDB's default: a backup's cost, not Galera's
    ]


def member_argv(
    run: RunDir,
    member: Member,
    peers: Sequence[Member],
    executables: dict[str, Path],
    sockets: Path,
) -> list[str]:
    """The whole command of ``member``: cgroup, namespace, mariadbd, Galera."""
    base = mariadb.mariadb_argv(
        executables["mariadbd"],
        run.db / member.name,
        member.socket(sockets),
        member.address,
        member.ports["mysql"],
        run.logs / f"{member.name}.log",
    )
    provider = executables["libgalera_smm.so"]
    return [*member.prefix, *base, *wsrep_args(member, peers, provider)]


def status(member: Member, sockets: Path, mariadbd: Path) -> dict[str, str]:
    """The member's ``wsrep_%`` status ({} while it does not answer)."""
    result = subprocess.run(
        [
            str(mariadb.mariadb_client(mariadbd)),
            "--no-defaults",
            f"--socket={member.socket(sockets)}",
            "-u",
            mariadb.os_user(),
            "-N",
            "-B",
            "-e",
            "SHOW GLOBAL STATUS LIKE 'wsrep_%'",
        ],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    if result.returncode != 0:
        return {}
    pairs = (line.split("\t", 1) for line in result.stdout.splitlines())
    return {pair[0]: pair[1] for pair in pairs if len(pair) == 2}


def start_cluster(
    run: RunDir,
    net: Network,
    executables: dict[str, Path],
    sockets: Path,
    timeout: float,
) -> list[Member]:
    """Bootstrap the first member, join the others one by one; wait until
    every member says Synced in a cluster of all of them.

    :raises GaleraError: a member did not start or join in ``timeout`` s.
    """
    found = members(run, net)
    _install_datadir(run, found[0], executables)
    for index, member in enumerate(found):
        argv = member_argv(run, member, found, executables, sockets)
        if index == 0:  # once; run.json keeps the joining command
            proc = services.start(run, member.name, [*argv, "--wsrep-new-cluster"])
            services.record_argv(run, member.name, argv)
        else:
            _joiner_datadir(run.db / member.name)
            proc = services.start(run, member.name, argv)
        _wait_synced(run, member, proc, (sockets, executables["mariadbd"]), timeout)
        size = status(member, sockets, executables["mariadbd"]).get(
            "wsrep_cluster_size"
        )
        if size != str(index + 1):
            raise GaleraError(
                f"{member.name} is Synced in a cluster of {size} members, "
                f"not {index + 1}; its log:\n"
                + logtail.named_tail(run.logs / f"{member.name}.log")
            )
    return found


def _joiner_datadir(datadir: Path) -> None:
    """An empty datadir the state transfer fills (:func:`give_to_sst`)."""
    datadir.mkdir(mode=0o700)
    give_to_sst(datadir)


def give_to_sst(datadir: Path) -> None:
    """As root, ``datadir`` and all in it owned by ``nobody``: rsync's daemon
    (the joiner's side of the rsync SST), started by root, switches to
    ``nobody`` and must write there; mariadbd, as root, uses what it wrote.
    (A deployment runs mariadbd as ``mysql``, and its rsync stays ``mysql``.)
    """
    if os.geteuid() != 0:
        return
    nobody = pwd.getpwnam("nobody")
    for folder, _, files in os.walk(datadir):
        os.chown(folder, nobody.pw_uid, nobody.pw_gid)
        for name in files:
            os.chown(os.path.join(folder, name), nobody.pw_uid, nobody.pw_gid)


def _install_datadir(run: RunDir, first: Member, executables: dict[str, Path]) -> None:
    """The first member's system tables; the others get them by SST."""
    mariadb.install_datadir(
        executables["mariadb-install-db"], run.db / first.name, run.logs
    )


def _wait_synced(
    run: RunDir,
    member: Member,
    proc: subprocess.Popen[bytes],
    admin: tuple[Path, Path],
    timeout: float,
) -> None:
    sockets, mariadbd = admin
    log = run.logs / f"{member.name}.log"
    try:
        probes.wait_until(
            lambda: (
                status(member, sockets, mariadbd).get("wsrep_local_state_comment")
                == SYNCED
            ),
            proc,
            member.name,
            timeout,
            lambda: logtail.named_tail(log),
            not_ready=f"{member.name} did not reach {SYNCED}",
        )
    except services.ServiceError as exc:
        raise GaleraError(str(exc)) from None


def start(
    run: RunDir,
    net: Network,
    executables: dict[str, Path],
    sockets: Path,
    timeout: float,
    progress: Callable[[str], None],
) -> str:
    """The cluster, Keystone's database and user on it, its haproxy on the
    shared address; Keystone's SQLAlchemy URL (holds the password: the
    caller keeps it in private files only)."""
    progress(
        f"starting a {len(net.db_addresses)}-member Galera cluster on "
        f"{', '.join(net.db_addresses)} (the first bootstraps, the others join)"
    )
    found = start_cluster(run, net, executables, sockets, timeout)
    password = secrets.token_urlsafe(24)
    write_private_json(
        run.private / "db.json", {"user": mariadb.DB_USER, "password": password}
    )
    mariadb.create_databases(  # replicated to every member
        executables["mariadbd"],
        found[0].socket(sockets),
        net.shared_address,  # haproxy's side of the bridge: where clients come from
        [mariadb.DB_NAME],
        mariadb.DB_USER,
        password,
        net.node_addresses,
    )
    host = net.shared_address
    port = preflight.pick_port(host, None)
    config_file = haproxy.render_database(
        run.root,
        run.conf / "haproxy-galera.cfg",
        (host, port),
        [(m.name, f"{m.address}:{m.ports['mysql']}") for m in found],
        sockets / "haproxy-galera.sock",
    )
    proc = services.start(
        run, HAPROXY_SERVICE, haproxy.argv(executables["haproxy"], config_file)
    )
    probes.wait_until(
        lambda: probes.port_open(host, port),
        proc,
        HAPROXY_SERVICE,
        timeout,
        lambda: logtail.named_tail(run.logs / f"{HAPROXY_SERVICE}-stdout.log"),
    )
    cluster = dict(run.state().cluster or {})
    cluster["galera"] = [
        {"name": m.name, "address": m.address, "ports": m.ports} for m in found
    ]
    run.write_state(db_port=port, cluster=cluster)
    progress(
        f"Galera is Synced on {len(found)} members, behind haproxy at {host}:{port}"
    )
    return (
        f"mysql+pymysql://{mariadb.DB_USER}:{password}@{host}:{port}/"
        f"{mariadb.DB_NAME}?charset=utf8"
    )
