"""Tests for rally_keystone_perf.layout.resources."""

from __future__ import annotations

from rally_keystone_perf.layout import resources


def test_a_tier_has_a_csv_of_its_own() -> None:
    assert resources.tier_csv("node2") == "resources-node2.csv"
    assert resources.tier_csv(resources.CLIENT_TIER) == "resources-client.csv"
    assert resources.RESOURCES_CSV not in {
        resources.tier_csv(t)
        for t in (resources.DB_TIER, resources.HAPROXY_TIER, "node1")
    }
