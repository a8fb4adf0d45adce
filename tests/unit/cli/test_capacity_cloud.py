"""Tests for rally_keystone_perf.cli.capacity_cloud: the search's bound."""

from __future__ import annotations

import argparse

from rally_keystone_perf.cli import capacity_cloud
from rally_keystone_perf.run.capacity_search import Limits


def test_the_bound_names_the_ramp_the_ceiling_and_the_most_iterations() -> None:
    limits = Limits(start=5, max_rate=30, growth=2, max_steps=6)
    head, total = capacity_cloud.bound_lines(limits, 10)
    assert head == (
        "capacity search: steps of 10 s, the ramp at 5, 10, 20, 30 a second, "
        "never above 30 a second (--max-rate)"
    )
    assert total == "  at most 6 steps: at most 1,250 iterations in all"


def test_the_local_search_keeps_its_default_ceiling() -> None:
    local = argparse.Namespace(max_rate=None, os_cloud=None)
    assert capacity_cloud.max_rate(local) == Limits().max_rate
    given = argparse.Namespace(max_rate=40.0, os_cloud="mine")
    assert capacity_cloud.max_rate(given) == 40.0
