"""haproxy in front of the cluster's Keystone nodes, as kolla-ansible runs it.

Debian's haproxy, started by the launcher in the foreground (``-db``) with
``conf/haproxy.cfg`` (from ``deployments/cluster/haproxy.cfg.tmpl``), its
log (``option httplog``: the backend server and haproxy's timers per
request) in ``logs/haproxy-stdout.log`` and its stats socket in the run's
sockets folder. The report reads one line of that log with
:func:`rally_keystone_perf.report.readers.haproxy_log.parse_log_line`.
"""

from __future__ import annotations

import resource
from pathlib import Path
from string import Template

from rally_keystone_perf import paths
from rally_keystone_perf.layout.names import node_name

TEMPLATE = "cluster/haproxy.cfg.tmpl"
DATABASE_TEMPLATE = "cluster/haproxy-galera.cfg.tmpl"
# kolla-ansible's check of a Galera member (external_haproxy_members)
DATABASE_CHECK = "check inter 2000 rise 2 fall 5"
KOLLA_MAXCONN = 40000  # kolla-ansible's global maxconn
BALANCES = ("roundrobin", "leastconn")
DEFAULT_BALANCE = "roundrobin"
NODE_PORT = 5000  # Keystone's port on every node, as in kolla-ansible
# check every second, out after 2 failures, back in after 2 successes
HEALTH_CHECK = "check inter 1s fall 2 rise 2"


def server_lines(members: list[str]) -> str:
    """One ``server`` line per node (``address:port`` each)."""
    return "\n".join(
        f"    server {node_name(k)} {member} {HEALTH_CHECK}"
        for k, member in enumerate(members)
    )


def render(
    run_dir: Path,
    target: Path,
    bind: tuple[str, int],
    members: list[str],
    stats_socket: Path,
    balance: str = DEFAULT_BALANCE,
) -> Path:
    """Write haproxy.cfg for ``members`` behind ``bind``; return its path."""
    if balance not in BALANCES:
        raise ValueError(f"unknown balance {balance!r} ({', '.join(BALANCES)})")
    servers = server_lines(members)
    return _write(TEMPLATE, target, (run_dir, stats_socket), bind, servers, balance)


def _write(
    template_name: str,
    target: Path,
    places: tuple[Path, Path],
    bind: tuple[str, int],
    servers: str,
    balance: str = DEFAULT_BALANCE,
) -> Path:
    """Render ``template_name`` into ``target``; ``places``: the run folder
    and the stats socket."""
    template = Template((paths.deployments_dir() / template_name).read_text())
    target.write_text(
        template.substitute(
            run_dir=str(places[0]),
            host=bind[0],
            port=str(bind[1]),
            balance=balance,
            stats_socket=str(places[1]),
            servers=servers,
            global_maxconn=str(global_maxconn()),
        )
    )
    return target


def render_database(
    run_dir: Path,
    target: Path,
    bind: tuple[str, int],
    members: list[tuple[str, str]],
    stats_socket: Path,
) -> Path:
    """Write the database's haproxy config: ``members`` (name, address:port)
    behind ``bind``, the first active, the others backups; return its path."""
    lines = [
        f"    server {name} {member} {DATABASE_CHECK}" + (" backup" if k else "")
        for k, (name, member) in enumerate(members)
    ]
    places = (run_dir, stats_socket)
    return _write(DATABASE_TEMPLATE, target, places, bind, "\n".join(lines))


def global_maxconn() -> int:
    """kolla-ansible's 40000, capped by the hard open-file limit haproxy gets."""
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard == resource.RLIM_INFINITY:
        return KOLLA_MAXCONN
    return max(100, min(KOLLA_MAXCONN, (hard - 100) // 2))


def argv(haproxy: Path, config: Path) -> list[str]:
    """haproxy in the foreground (``-db``), as kolla-ansible's haproxy_run.sh."""
    return [str(haproxy), "-W", "-db", "-f", str(config)]
