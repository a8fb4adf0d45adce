"""The suite's library versions a build is pinned to."""

from __future__ import annotations

from importlib import metadata

from rally_keystone_perf.deploy.builds import pins


def test_constraints_pin_everything_but_keystone_and_the_suite() -> None:
    lines = pins.constraints().splitlines()
    names = {line.split("==")[0] for line in lines}
    assert "keystone" not in names and "rally-keystone-perf" not in names
    assert f"oslo-config=={metadata.version('oslo.config')}" in lines


def test_server_libraries_at_the_suite_versions() -> None:
    wanted = pins.server_requirements()
    assert f"eventlet=={metadata.version('eventlet')}" in wanted
    assert all("==" in line for line in wanted)


def test_digest_is_stable() -> None:
    assert pins.digest() == pins.digest() and len(pins.digest()) == 64
