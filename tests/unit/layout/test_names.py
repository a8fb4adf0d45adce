"""Tests for rally_keystone_perf.layout.names."""

from __future__ import annotations

from rally_keystone_perf.layout import names


def test_names_are_one_based() -> None:
    assert [names.node_name(k) for k in range(3)] == ["node1", "node2", "node3"]
    assert names.member_name(0) == "galera1"


def test_number_of_a_node_or_a_member() -> None:
    assert names.number("node12", names.NODE) == 12
    assert names.number("galera3", names.GALERA_MEMBER) == 3
    for other in ("node0", "node", "node2-uwsgi", "galera2", "<NOSRV>"):
        assert names.number(other, names.NODE) is None, other


def test_a_node_s_services_carry_its_name() -> None:
    match = names.NODE_SERVICE.fullmatch("node2-memcached")
    assert match is not None and match[1] == "node2"
    assert names.NODE_SERVICE.fullmatch("haproxy-galera") is None
