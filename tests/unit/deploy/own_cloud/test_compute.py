"""Tests for rally_keystone_perf.deploy.own_cloud.compute (over requests_mock)."""

from __future__ import annotations

from typing import Any

import pytest

from rally_keystone_perf.deploy.own_cloud import compute
from rally_keystone_perf.deploy.own_cloud.target import CloudTarget, TargetError

V3 = "http://keystone.test:5000/v3"
NOVA, GLANCE, NEUTRON = (
    "http://nova.test:8774/v2.1",
    "http://glance.test:9292",
    "http://neutron.test:9696",
)
TARGET = CloudTarget("mine", V3, "alice", "demo", password="x", region="R1")
CIRROS = {"id": "img-1", "name": "cirros", "visibility": "public"}
TINY = {"id": "f1", "name": "m1.tiny", "vcpus": 1, "ram": 512}
SHARED = {"id": "net-1", "name": "shared-net", "shared": True}


def _catalog(*kinds: str, region: str = "R1") -> list[dict[str, Any]]:
    urls = {"compute": NOVA, "image": GLANCE, "network": NEUTRON}
    return [
        {
            "type": kind,
            "endpoints": [
                {"interface": "internal", "region_id": region, "url": "http://x"},
                {"interface": "public", "region_id": region, "url": urls[kind] + "/"},
            ],
        }
        for kind in kinds
    ]


@pytest.fixture
def cloud(requests_mock) -> Any:
    """A cloud with one public image, flavor and shared network; compute 2.96."""
    requests_mock.post(
        f"{V3}/auth/tokens",
        status_code=201,
        json={"token": {"catalog": _catalog("compute", "image", "network")}},
        headers={"X-Subject-Token": "tok"},
    )
    requests_mock.get(NOVA, json={"version": {"version": "2.96"}})
    requests_mock.get(f"{GLANCE}/v2/images", json={"images": [CIRROS]})
    requests_mock.get(f"{NOVA}/flavors/detail", json={"flavors": [TINY]})
    requests_mock.get(f"{NEUTRON}/v2.0/networks", json={"networks": [SHARED]})
    return requests_mock


def _spec(**args: Any) -> compute.BootSpec:
    return compute.boot_spec("boot.json: KeystonePerf.boot_server", args)


def test_specs_from_the_workload_arguments() -> None:
    spec = _spec(image={"name": "cirros"}, flavor="m1.tiny", networks=["n1"])
    assert spec.image == {"name": "cirros"} and spec.flavor == {"name": "m1.tiny"}
    assert spec.networks == [{"id": "n1"}]
    both = _spec(image="i", flavor="f", networks=["n1"], network={"name": "n2"})
    assert both.networks == [{"id": "n1"}, {"name": "n2"}]
    with pytest.raises(TargetError, match="needs its flavor"):
        _spec(image="i")


def test_what_each_workload_boots_is_said(cloud: Any) -> None:
    spec = _spec(image="cirros", flavor="m1.tiny", network={"name": "shared-net"})
    (line,) = compute.check_boots(TARGET, [spec], users_created=True)
    assert line == (
        "boot.json: KeystonePerf.boot_server: image cirros (img-1), flavor "
        "m1.tiny (1 vCPU, 512 MB), networks: shared-net (net-1)"
    )
    assert cloud.request_history[-1].qs == {"name": ["shared-net"]}
    by_id = _spec(image="cirros", flavor={"id": "f1"})
    (line,) = compute.check_boots(TARGET, [by_id], False)
    assert "flavor m1.tiny (1 vCPU" in line
    assert line.endswith("networks: none (compute API 2.37)")


def test_a_name_the_cloud_does_not_have_is_refused(cloud: Any) -> None:
    with pytest.raises(TargetError, match="flavor 'm1.huge' is not on the cloud"):
        compute.check_boots(TARGET, [_spec(image="cirros", flavor="m1.huge")], True)
    cloud.get(f"{GLANCE}/v2/images", json={"images": []})
    with pytest.raises(TargetError, match="image 'nope' is not on the cloud"):
        compute.check_boots(TARGET, [_spec(image="nope", flavor="m1.tiny")], True)
    cloud.get(f"{GLANCE}/v2/images/img-9", status_code=404)
    with pytest.raises(TargetError, match="image 'img-9' is not on the cloud"):
        compute.check_boots(
            TARGET, [_spec(image={"id": "img-9"}, flavor="m1.tiny")], True
        )


def test_a_name_the_cloud_has_twice_is_refused(cloud: Any) -> None:
    twins = [CIRROS, {**CIRROS, "id": "img-2"}]
    cloud.get(f"{GLANCE}/v2/images", json={"images": twins})
    with pytest.raises(TargetError, match="ambiguous on the cloud: ids img-1, img-2"):
        compute.check_boots(TARGET, [_spec(image="cirros", flavor="m1.tiny")], True)


def test_what_new_projects_cannot_use_is_refused_unless_users_are_given(
    cloud: Any,
) -> None:
    cloud.get(
        f"{GLANCE}/v2/images", json={"images": [{**CIRROS, "visibility": "private"}]}
    )
    cloud.get(
        f"{NEUTRON}/v2.0/networks", json={"networks": [{**SHARED, "shared": False}]}
    )
    spec = _spec(image="cirros", flavor="m1.tiny", network="shared-net")
    with pytest.raises(TargetError) as refused:
        compute.check_boots(TARGET, [spec], users_created=True)
    assert "image 'cirros' is private; network 'shared-net' is not shared" in str(
        refused.value
    )
    assert "--existing-users" in str(refused.value)
    assert compute.check_boots(TARGET, [spec], users_created=False)


def test_an_old_compute_api_is_refused(cloud: Any) -> None:
    cloud.get(NOVA, json={"version": {"version": "2.30"}})
    with pytest.raises(TargetError, match="goes up to 2.30; .* needs 2.37"):
        compute.check_boots(TARGET, [_spec(image="cirros", flavor="m1.tiny")], True)


def test_a_catalog_without_compute_is_refused(requests_mock) -> None:
    requests_mock.post(
        f"{V3}/auth/tokens",
        status_code=201,
        json={"token": {"catalog": _catalog("image", region="R2")}},
        headers={"X-Subject-Token": "tok"},
    )
    with pytest.raises(TargetError, match="no public compute endpoint in region R1"):
        compute.check_boots(TARGET, [_spec(image="cirros", flavor="m1.tiny")], True)
    assert compute.check_boots(TARGET, [], True) == []
