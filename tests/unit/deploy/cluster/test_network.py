"""Tests for deploy.cluster.network (nothing is created)."""

from __future__ import annotations

import ipaddress

import pytest

from rally_keystone_perf.deploy.cluster import network


def test_names_fit_linux_interface_names() -> None:
    bridge, namespaces, veths = network.names("a1b2", 8)
    assert bridge == "kspa1b2br"
    assert namespaces[0] == "kspa1b2n1" and veths[-1] == "kspa1b2v8"
    assert all(len(name) <= 15 for name in [bridge, *namespaces, *veths])


def test_loopback_fallback_gives_each_node_its_own_address() -> None:
    net = network.loopback(3, "no network namespaces: Operation not permitted")
    assert net.kind == "loopback" and net.shared_address == "127.0.0.1"
    assert net.node_addresses == ["127.0.0.11", "127.0.0.12", "127.0.0.13"]
    assert net.exec_prefix(1) == []
    assert network.Network.from_json(net.to_json()) == net


def test_galera_members_are_hosts_of_their_own() -> None:
    bridge, namespaces, veths = network.names("a1b2", 3, "g")
    assert namespaces == ["kspa1b2g1", "kspa1b2g2", "kspa1b2g3"]
    assert veths[0] == "kspa1b2w1"  # not a node's veth name
    net = network.loopback(2, "no namespaces", db_members=3)
    assert net.db_addresses == ["127.0.0.21", "127.0.0.22", "127.0.0.23"]
    assert net.db_exec_prefix(2) == []
    assert network.Network.from_json(net.to_json()) == net
    old = {k: v for k, v in net.to_json().items() if not k.startswith("db_")}
    assert network.Network.from_json(old).db_addresses == []  # an older run.json
    inside = network.Network(
        "netns", "198.18.4.1", [], [], None, None, ["198.18.4.31"], ["kspab12g1"]
    )
    assert inside.db_exec_prefix(0) == ["ip", "netns", "exec", "kspab12g1"]


def test_a_node_in_a_namespace_runs_through_ip_netns_exec() -> None:
    net = network.Network(
        "netns", "198.18.4.1", ["198.18.4.11"], ["kspab12n1"], "kspab12br"
    )
    assert net.exec_prefix(0) == ["ip", "netns", "exec", "kspab12n1"]


def test_free_subnet_skips_the_ones_in_use(monkeypatch: pytest.MonkeyPatch) -> None:
    class Listing:
        stdout = "3: kspx inet 198.18.0.1/24 brd 198.18.0.255 scope global kspx\n"

    monkeypatch.setattr(network.subprocess, "run", lambda *a, **k: Listing())
    subnet = network.free_subnet()
    assert subnet == ipaddress.IPv4Network("198.18.1.0/24")
    assert subnet.subnet_of(network.BENCHMARK_NET)


def test_create_refuses_a_cluster_size_out_of_range() -> None:
    with pytest.raises(network.NetworkError, match="1 to 8 nodes, not 9"):
        network.create("ab12", ipaddress.IPv4Network("198.18.9.0/24"), 9)
