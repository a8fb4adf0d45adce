"""Tests for KeystonePerf.boot_server (Nova faked at the client level)."""

from __future__ import annotations

from typing import Any

import pytest
from novaclient import exceptions as nova_exc
from rally import exceptions as rally_exc
from rally.task import scenario as rally_scenario

from rally_keystone_perf.client import atomics
from rally_keystone_perf.plugins.scenarios import compute
from tests.unit.rally_fakes import atomic_names, scenario_context


class FakeServers:
    """A servers manager: a server turns ACTIVE after ``polls`` gets."""

    def __init__(self, polls: int = 2, final: str = "ACTIVE") -> None:
        self.polls = polls
        self.final = final
        self.created: list[dict[str, Any]] = []
        self.deleted: list[str] = []
        self.gets = 0

    def create(self, name: str, image: str, flavor: str, **kwargs: Any) -> Any:
        self.created.append({"name": name, "image": image, "flavor": flavor, **kwargs})
        return FakeServer(self, "srv-1", "BUILD")

    def get(self, server_id: str) -> Any:
        self.gets += 1
        if server_id in self.deleted:
            raise nova_exc.NotFound(404)
        status = self.final if self.gets >= self.polls else "BUILD"
        return FakeServer(self, server_id, status)


class FakeServer:
    def __init__(self, manager: FakeServers, server_id: str, status: str) -> None:
        self.manager = manager
        self.id = server_id
        self.status = status
        self.fault = "no valid host"

    def delete(self) -> None:
        self.manager.deleted.append(self.id)


def _scenario(servers: FakeServers) -> tuple[compute.BootServer, list[Any]]:
    scen = compute.BootServer(scenario_context())
    versions: list[Any] = []

    class Nova:
        pass

    nova = Nova()
    nova.servers = servers  # type: ignore[attr-defined]

    def clients(name: str, version: Any = None) -> Any:
        versions.append((name, version))
        return nova

    scen.clients = clients  # type: ignore[method-assign]
    return scen, versions


def test_registered() -> None:
    cls = rally_scenario.Scenario.get("KeystonePerf.boot_server")
    assert cls is compute.BootServer
    assert cls.get_default_context() == {
        "cleanup@openstack": ["nova"],
        "users@openstack": {},
    }
    assert cls.run.__doc__


def test_boot_until_active_then_delete_until_gone() -> None:
    servers = FakeServers(polls=3)
    scen, versions = _scenario(servers)
    scen.run("IMAGE", "FLAVOR", poll_interval=0.01, timeout=5)
    assert versions == [("nova", compute.MICROVERSION)]
    (created,) = servers.created
    assert (created["image"], created["flavor"], created["nics"]) == (
        "IMAGE",
        "FLAVOR",
        "none",
    )
    assert created["name"].startswith("s_rally_")  # found by Rally's cleanup
    assert servers.deleted == ["srv-1"]
    assert atomic_names(scen) == [atomics.BOOT_SERVER, atomics.DELETE_SERVER]


def test_networks_are_attached_by_id() -> None:
    servers = FakeServers(polls=1)
    scen, _ = _scenario(servers)
    scen.run("I", "F", networks=["net-a", "net-b"], poll_interval=0.01)
    assert servers.created[0]["nics"] == [{"net-id": "net-a"}, {"net-id": "net-b"}]


def test_the_named_network_comes_after_the_ids() -> None:
    servers = FakeServers(polls=1)
    scen, _ = _scenario(servers)
    scen.run("I", "F", networks=["net-a"], network="net-b", poll_interval=0.01)
    assert servers.created[0]["nics"] == [{"net-id": "net-a"}, {"net-id": "net-b"}]
    servers = FakeServers(polls=1)
    scen, _ = _scenario(servers)
    scen.run("I", "F", network="net-c", poll_interval=0.01)
    assert servers.created[0]["nics"] == [{"net-id": "net-c"}]


def test_an_error_status_fails_the_boot() -> None:
    servers = FakeServers(polls=1, final="ERROR")
    scen, _ = _scenario(servers)
    with pytest.raises(rally_exc.GetResourceErrorStatus):
        scen.run("I", "F", poll_interval=0.01)
    assert servers.deleted == []  # left to the cleanup context
    actions = scen.atomic_actions()
    assert actions[0]["name"] == atomics.BOOT_SERVER and actions[0]["failed"]


def test_a_boot_that_never_ends_times_out() -> None:
    servers = FakeServers(polls=10**9)
    scen, _ = _scenario(servers)
    with pytest.raises(rally_exc.TimeoutException):
        scen.run("I", "F", poll_interval=0.01, timeout=0.05)
