"""Tests for deploy.cluster.launch's choices (nothing is started)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rally_keystone_perf.deploy.cluster import network, startup
from rally_keystone_perf.deploy.options import LaunchError
from rally_keystone_perf.layout.rundir import RunDir


def test_without_namespaces_nodes_get_loopback_addresses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        network, "can_create_namespaces", lambda: "Operation not permitted"
    )
    said: list[str] = []
    net = startup.make_network(RunDir(tmp_path), 2, said.append)
    assert net.kind == "loopback"
    assert net.reason == "no network namespaces: Operation not permitted"
    assert said == [
        "cluster network: no network namespaces: Operation not permitted; each "
        "node on a loopback address instead (127.0.0.11, 127.0.0.12)"
    ]
    ports = startup.node_ports(net, 5000)  # free ports: loopback is shared
    assert len(ports) == 2 and all(p > 0 for p in ports)


def test_in_namespaces_every_node_listens_on_5000() -> None:
    net = network.Network("netns", "198.18.0.1", ["198.18.0.11", "198.18.0.12"])
    assert startup.node_ports(net, 5000) == [5000, 5000]


def test_a_network_that_cannot_be_made_is_a_launch_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(tag: str, subnet: object, nodes: int, db: int) -> network.Network:
        raise network.NetworkError("ip link add kspx type bridge failed: no bridge")

    monkeypatch.setattr(network, "can_create_namespaces", lambda: None)
    monkeypatch.setattr(network, "free_subnet", lambda: None)
    monkeypatch.setattr(network, "create", refuse)
    with pytest.raises(LaunchError) as err:
        startup.make_network(RunDir(tmp_path), 2, lambda _: None)
    assert str(err.value) == (
        "cannot make the cluster's network: ip link add kspx type bridge "
        "failed: no bridge"
    )
