"""Start a cluster: N Keystone nodes behind haproxy, as kolla-ansible wires it.

The shared tiers first (the database, and slapd for ``--identity ldap``) on
the bridge's address; Keystone is initialised once (db_sync, keys,
bootstrap, the user pool) from the run's own keystone.conf, as kolla-ansible
bootstraps on its first host; the keys are then copied to every node, as
operators distribute fernet keys; each node gets its own folder
(``nodes/<node>/``: conf, keys, the secrets file), its logs
(``logs/<node>/``), its memcached with ``--cache memcached`` (every node's
listed in every keystone.conf) and its Keystone processes, inside its
namespace. haproxy, last, listens on the run's address: Rally talks to it.
"""

from __future__ import annotations

import dataclasses
import secrets
import shutil
import subprocess
from pathlib import Path

from rally_keystone_perf.deploy import logtail, preflight, probes, services
from rally_keystone_perf.deploy.backends import galera, memcached, startup
from rally_keystone_perf.deploy.cluster import cgroups, haproxy, network
from rally_keystone_perf.deploy.keystone import config, init
from rally_keystone_perf.deploy.keystone.processes import start_processes, wait_healthy
from rally_keystone_perf.deploy.options import Deployment, LaunchError, Progress
from rally_keystone_perf.deploy.tracing import profiler
from rally_keystone_perf.layout import names
from rally_keystone_perf.layout.rundir import RunDir

MEMCACHED_PORT = 11211  # kolla-ansible's, on every node


def make_network(
    run: RunDir, nodes: int, progress: Progress, db_members: int = 0
) -> network.Network:
    """Namespaces when this machine allows them, else loopback addresses;
    ``db_members``: the database's own hosts (``--db galera``)."""
    refused = network.can_create_namespaces()
    if refused is None:
        tag = secrets.token_hex(2)
        try:
            net = network.create(tag, network.free_subnet(), nodes, db_members)
        except network.NetworkError as exc:
            raise LaunchError(f"cannot make the cluster's network: {exc}") from None
        progress(
            f"cluster network: {nodes} namespaces on bridge {net.bridge} "
            f"({net.shared_address}), nodes {', '.join(net.node_addresses)}"
        )
    else:
        net = network.loopback(nodes, f"no network namespaces: {refused}", db_members)
        progress(
            f"cluster network: {net.reason}; each node on a loopback address "
            f"instead ({', '.join(net.node_addresses)})"
        )
    return net


def node_ports(net: network.Network, host_port: int) -> list[int]:
    """Each node's Keystone port: 5000 in its namespace, else a free one."""
    if net.kind == "netns":
        return [host_port] * len(net.node_addresses)
    return [preflight.pick_port(a, None) for a in net.node_addresses]


def prepare_and_start(
    starting: startup.Starting, url: str, port: int, password: str
) -> float:
    """Shared tiers, Keystone's init, the nodes, haproxy; seconds until healthy."""
    run, deployment, progress = starting.run, starting.deployment, starting.progress
    executables, sockets = starting.executables, starting.sockets
    options, mode = deployment.options, deployment.mode
    db_hosts = galera.MEMBERS if options.db == "galera" else 0
    net = make_network(run, options.nodes, progress, db_hosts)
    ports = node_ports(net, haproxy.NODE_PORT)
    run.write_state(
        cluster={
            "network": net.to_json(),
            "ports": ports,
            "balance": options.lb_balance,
        }
    )
    shared = dataclasses.replace(
        deployment, options=dataclasses.replace(options, host=net.shared_address)
    )
    if db_hosts:  # Galera behind its haproxy; keystone_backends starts no database
        url_with_password = galera.start(
            run, net, executables, sockets, deployment.backend_timeout, progress
        )
        config.write_secret_config(run, url_with_password)
    started = startup.start(
        dataclasses.replace(starting, deployment=shared),
        password,
        net.node_addresses,
    )
    values = config.template_values(
        run, deployment, port, executables, sockets, None, *started[1:]
    )
    config.render_templates(run, mode, values, options.keystone_conf_template)
    progress(
        "initialising Keystone once (db_sync, keys, bootstrap, user pool), as on "
        "a first host"
    )
    init.init_keystone(
        run,
        executables["keystone-manage"],
        f"{url}/v3",
        password,
        None,
        options.token_provider,
        pool=deployment,
        progress=progress,
    )
    caches = _start_memcacheds(run, deployment, net, executables)
    tiers = started._replace(cache_servers=caches)
    for index in range(options.nodes):
        where = (index, ports[index])
        _start_node(run, deployment, net, where, executables, sockets, tiers)
        progress(f"{names.node_name(index)} is up at {net.node_addresses[index]}")
    members = [f"{a}:{p}" for a, p in zip(net.node_addresses, ports, strict=True)]
    return _start_haproxy(run, deployment, members, (url, port), executables, sockets)


def _start_memcacheds(
    run: RunDir,
    deployment: Deployment,
    net: network.Network,
    executables: dict[str, Path],
) -> list[str] | None:
    """memcached on every node for ``--cache memcached``; ``host:port`` each."""
    if deployment.options.cache != "memcached":
        return None
    servers = []
    for index, address in enumerate(net.node_addresses):
        port = MEMCACHED_PORT
        if net.kind != "netns":
            port = preflight.pick_port(address, None)
        memcached.start_memcached(
            run,
            executables["memcached"],
            address,
            port,
            deployment.backend_timeout,
            name=f"{names.node_name(index)}-memcached",
            prefix=_node_prefix(run, net, index),
        )
        servers.append(f"{address}:{port}")
    return servers


def _node_prefix(run: RunDir, net: network.Network, index: int) -> list[str]:
    """Run a command on node ``index``: in its cgroup, then its namespace."""
    return [
        *cgroups.host_prefix(run, names.node_name(index)),
        *net.exec_prefix(index),
    ]


def _start_node(
    run: RunDir,
    deployment: Deployment,
    net: network.Network,
    where: tuple[int, int],
    executables: dict[str, Path],
    sockets: Path,
    tiers: startup.Started,
) -> subprocess.Popen[bytes]:
    """One node's folder, keys, config and processes; wait until it answers."""
    index, port = where
    node = names.node_name(index)
    address = net.node_addresses[index]
    node_run = RunDir(run.root / "nodes" / node)
    node_run.create()
    # the keys made once, copied to every node as operators distribute them
    shutil.copytree(run.keys, node_run.keys, dirs_exist_ok=True)
    secret = run.private / config.SECRETS_CONF
    if secret.exists():
        shutil.copy2(secret, node_run.private / config.SECRETS_CONF)
    node_sockets = sockets / node
    node_sockets.mkdir(mode=0o755)
    (run.logs / node).mkdir()
    traced = tiers._replace(trace_url=profiler.node_url(tiers.trace_url, node))
    values = config.template_values(
        node_run, deployment, port, executables, node_sockets, *traced
    )
    values |= {"host": address, "log_dir": str(run.logs / node)}
    options = deployment.options
    config.render_templates(
        node_run, deployment.mode, values, options.keystone_conf_template
    )
    if deployment.runs_as is not None:  # apache: its daemons drop root
        preflight.check_run_folder(
            deployment, node_run.conf / "keystone.conf", run.root
        )
        init.grant_server_user(node_run, deployment.runs_as, run.logs / node)
    timeout = deployment.start_timeout
    proc = start_processes(
        run, deployment.mode, values, timeout, node, _node_prefix(run, net, index)
    )
    wait_healthy(f"http://{address}:{port}/v3", proc, run, timeout)
    return proc


def _start_haproxy(
    run: RunDir,
    deployment: Deployment,
    members: list[str],
    front: tuple[str, int],
    executables: dict[str, Path],
    sockets: Path,
) -> float:
    """haproxy on the run's address in front of every node; seconds to healthy."""
    url, port = front
    options = deployment.options
    config_file = haproxy.render(
        run.root,
        run.conf / "haproxy.cfg",
        (options.host, port),
        members,
        sockets / "haproxy.sock",
        options.lb_balance,
    )
    proc = services.start(
        run, "haproxy", haproxy.argv(executables["haproxy"], config_file)
    )
    run.write_state(status="starting")
    try:
        return probes.wait_until(
            lambda: probes.probe(f"{url}/v3") == 200,
            proc,
            "haproxy",
            deployment.start_timeout,
            lambda: logtail.named_tail(run.logs / "haproxy-stdout.log"),
            not_ready=f"Keystone did not answer GET {url}/v3 through haproxy",
        )
    except services.ServiceError as exc:
        raise LaunchError(str(exc)) from None
