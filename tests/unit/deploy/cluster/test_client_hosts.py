from __future__ import annotations

import pytest

from rally_keystone_perf.deploy.cluster import client_hosts, network
from rally_keystone_perf.deploy.options import LaunchError


def test_no_worker_hosts_asks_nothing_of_the_machine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(network, "can_create_namespaces", lambda: pytest.fail("asked"))
    client_hosts.check(0)


def test_worker_hosts_without_namespaces_are_refused_with_what_to_do(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(
        network, "can_create_namespaces", lambda: "Operation not permitted"
    )
    with pytest.raises(LaunchError, match="Operation not permitted.*--workers N"):
        client_hosts.check(2)


def test_too_many_worker_hosts_are_refused() -> None:
    with pytest.raises(LaunchError, match="1 to 8 hosts, not 9"):
        client_hosts.check(9)


def test_worker_hosts_namespaces_have_their_own_names() -> None:
    bridge, namespaces, veths = network.names("ab12", 2, client_hosts.KIND)
    assert namespaces == ["kspab12c1", "kspab12c2"]
    assert veths == ["kspab12v1", "kspab12v2"] and bridge == "kspab12br"
