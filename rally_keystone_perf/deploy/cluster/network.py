"""The cluster's network: one Linux network namespace per Keystone host.

Each node is a namespace of its own (``ksp<run>n<K>``) with one address in
198.18.0.0/15 (RFC 2544's range for benchmark networks) on a veth pair whose
other end is a port of a bridge in our namespace; the bridge holds the
shared tiers' address (haproxy's backend side, the database). Nothing is
routed off the machine: the bridge has no uplink. Without the privileges to
create namespaces, every node gets a loopback address of its own instead
(127.0.0.11, .12, ...): the same topology without isolation, said in the
output and run.json. ``--db galera``'s members are hosts of their own the
same way (``ksp<run>g<K>``, or 127.0.0.21, .22, ...). :func:`teardown`
removes what :func:`create` recorded.
"""

from __future__ import annotations

import ipaddress
import os
import shutil
import subprocess
from dataclasses import asdict, dataclass, field
from typing import Any

BENCHMARK_NET = ipaddress.IPv4Network("198.18.0.0/15")
LOOPBACK_BASE = 10  # node K's fallback address: 127.0.0.(10 + K)
DB_LOOPBACK_BASE = 20  # database member K's: 127.0.0.(20 + K)
NODE_HOST_INDEX = 10  # node K's address: the subnet's host 10 + K
DB_HOST_INDEX = 30  # database member K's: host 30 + K
MAX_NODES = 8


class NetworkError(Exception):
    """The cluster's network cannot be made; the message says why."""


@dataclass
class Network:
    """What :func:`create` made: the shared address and each node's.

    ``kind`` is ``netns`` or ``loopback``; ``namespaces`` (None for a node
    on loopback) and ``bridge`` name what :func:`teardown` removes.
    """

    kind: str
    shared_address: str
    node_addresses: list[str]
    namespaces: list[str | None] = field(default_factory=list)
    bridge: str | None = None
    reason: str | None = None  # why loopback, when it is the fallback
    # the database's own hosts (--db galera's members), as the nodes'
    db_addresses: list[str] = field(default_factory=list)
    db_namespaces: list[str | None] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The run.json form (``cluster_network``)."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Network:
        """Read :meth:`to_json`'s form back."""
        return cls(**data)

    def exec_prefix(self, node: int) -> list[str]:
        """The argv prefix that runs a command inside node ``node`` (0-based)."""
        namespace = self.namespaces[node] if self.namespaces else None
        return [] if namespace is None else ["ip", "netns", "exec", namespace]

    def db_exec_prefix(self, member: int) -> list[str]:
        """The argv prefix that runs a command on database host ``member``."""
        namespace = self.db_namespaces[member] if self.db_namespaces else None
        return [] if namespace is None else ["ip", "netns", "exec", namespace]


def free_subnet() -> ipaddress.IPv4Network:
    """A /24 of 198.18.0.0/15 no interface of ours has an address in."""
    listing = subprocess.run(
        ["ip", "-o", "-4", "addr", "show"], capture_output=True, text=True
    ).stdout
    used = {
        ipaddress.IPv4Interface(word).network.supernet(new_prefix=24)
        for word in listing.split()
        if word.startswith("198.1") and "/" in word
    }
    for subnet in BENCHMARK_NET.subnets(new_prefix=24):
        if subnet not in used:
            return subnet
    raise NetworkError("every /24 of 198.18.0.0/15 is in use on this machine")


def names(tag: str, nodes: int, kind: str = "n") -> tuple[str, list[str], list[str]]:
    """The bridge, namespace and host-side veth names (15 bytes at most).

    ``kind``: ``n`` for Keystone nodes, ``g`` for database members, ``c``
    for the load generator's hosts (a network of their own: its own tag).
    """
    bridge = f"ksp{tag}br"
    veth = "v" if kind in ("n", "c") else "w"
    namespaces = [f"ksp{tag}{kind}{k + 1}" for k in range(nodes)]
    veths = [f"ksp{tag}{veth}{k + 1}" for k in range(nodes)]
    return bridge, namespaces, veths


def _ip(*args: str) -> None:
    result = subprocess.run(
        ["ip", *args], capture_output=True, text=True, stdin=subprocess.DEVNULL
    )
    if result.returncode != 0:
        raise NetworkError(
            f"ip {' '.join(args)} failed: {result.stderr.strip() or result.returncode}"
        )


def loopback(nodes: int, reason: str, db_members: int = 0) -> Network:
    """The fallback: node K on 127.0.0.(10 + K), database member K on
    127.0.0.(20 + K), the shared tiers on 127.0.0.1."""
    return Network(
        kind="loopback",
        shared_address="127.0.0.1",
        node_addresses=[f"127.0.0.{LOOPBACK_BASE + k + 1}" for k in range(nodes)],
        namespaces=[None] * nodes,
        reason=reason,
        db_addresses=[f"127.0.0.{DB_LOOPBACK_BASE + k + 1}" for k in range(db_members)],
        db_namespaces=[None] * db_members,
    )


def create(
    tag: str,
    subnet: ipaddress.IPv4Network,
    nodes: int,
    db_members: int = 0,
    node_kind: str = "n",
) -> Network:
    """A bridge with the shared address, a namespace and a veth per node and
    per database member (``node_kind`` ``c``: the load generator's hosts).

    :raises NetworkError: what failed (what was made before it is removed).
    """
    if not 1 <= nodes <= MAX_NODES:
        raise NetworkError(f"a cluster has 1 to {MAX_NODES} nodes, not {nodes}")
    hosts = list(subnet.hosts())
    bridge = names(tag, nodes)[0]
    network = Network(
        kind="netns",
        shared_address=str(hosts[0]),
        node_addresses=[str(hosts[NODE_HOST_INDEX + k]) for k in range(nodes)],
        namespaces=[],
        bridge=None,
        db_addresses=[str(hosts[DB_HOST_INDEX + k]) for k in range(db_members)],
    )
    try:
        _ip("link", "add", bridge, "type", "bridge")
        network.bridge = bridge
        shared = f"{network.shared_address}/{subnet.prefixlen}"
        _ip("addr", "add", shared, "dev", bridge)
        _ip("link", "set", bridge, "up")
        _add_hosts(
            network, names(tag, nodes, node_kind), network.node_addresses, subnet
        )
        _add_hosts(
            network, names(tag, db_members, "g"), network.db_addresses, subnet, True
        )
    except NetworkError:
        teardown(network)
        raise
    return network


def _add_hosts(
    network: Network,
    named: tuple[str, list[str], list[str]],
    addresses: list[str],
    subnet: ipaddress.IPv4Network,
    database: bool = False,
) -> None:
    """A namespace per address on the bridge, recorded as it is made."""
    bridge, namespaces, veths = named
    made = network.db_namespaces if database else network.namespaces
    for namespace, veth, address in zip(namespaces, veths, addresses, strict=True):
        _add_node(namespace, veth, bridge, f"{address}/{subnet.prefixlen}")
        made.append(namespace)


def _add_node(namespace: str, veth: str, bridge: str, address: str) -> None:
    """A namespace with loopback up and ``eth0`` (``address``) on the bridge."""
    _ip("netns", "add", namespace)
    _ip("link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", namespace)
    _ip("link", "set", veth, "master", bridge)
    _ip("link", "set", veth, "up")
    inside = ("-n", namespace)
    _ip(*inside, "addr", "add", address, "dev", "eth0")
    _ip(*inside, "link", "set", "eth0", "up")
    _ip(*inside, "link", "set", "lo", "up")


def teardown(network: Network) -> None:
    """Remove the namespaces (their veths go with them) and the bridge.

    Best effort and idempotent: what is already gone is skipped.
    """
    for namespace in [*(network.namespaces or []), *(network.db_namespaces or [])]:
        if namespace is not None:
            subprocess.run(["ip", "netns", "del", namespace], capture_output=True)
    if network.bridge is not None:
        subprocess.run(["ip", "link", "del", network.bridge], capture_output=True)


def can_create_namespaces() -> str | None:
    """None when namespaces can be made here, else why not (for the fallback)."""
    if shutil.which("ip") is None and not os.path.exists("/usr/sbin/ip"):
        return "the ip command (Debian's iproute2) is not installed"
    probe = f"ksp-probe-{os.getpid()}"
    result = subprocess.run(
        ["ip", "netns", "add", probe], capture_output=True, text=True
    )
    if result.returncode != 0:
        return result.stderr.strip() or "ip netns add failed"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return None
