"""Each worker's share of a workload: its users' iteration ids and pace.

``constant`` and ``rps`` have an exact budget of ``times`` iterations: each
worker gets a contiguous block of ids in proportion to the users Locust gave
it (:func:`.plan.split_budget`), so no id is run twice and none is lost.
``constant_for_duration`` has no budget: the workers interleave ids
(worker k of n runs k+1, k+1+n, ...). With a rate, each worker paces its
block at its part of the rate, so all blocks end together.

An open-model workload (``setup.arrivals``) sends each worker with users
its place among them (``worker`` of ``workers``): it computes the whole
schedule and takes its dealt share (:func:`..arrivals.shares`); a worker
without users gets none.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rally_keystone_perf.loadgen.locust import protocol
from rally_keystone_perf.loadgen.locust.plan import split_budget


def worker_shares(setup: protocol.Setup, users: Sequence[int]) -> list[dict[str, Any]]:
    """The go message's share of each worker running ``users[k]`` users."""
    if setup.arrivals is not None:
        return open_shares(users)
    if setup.times is None:
        return [
            {
                "users": count,
                "first": index + 1,
                "step": len(users),
                "count": None,
                "duration": setup.duration,
                "rate": None,
            }
            for index, count in enumerate(users)
        ]
    budgets = split_budget(setup.times, users)
    result = []
    first = 1
    for count, budget in zip(users, budgets, strict=True):
        rate = setup.rate * budget / setup.times if setup.rate else None
        result.append(
            {
                "users": count,
                "first": first,
                "step": 1,
                "count": budget,
                "duration": None,
                "rate": rate,
            }
        )
        first += budget
    return result


def open_shares(users: Sequence[int]) -> list[dict[str, Any]]:
    """Each worker's place among the workers with users (open model)."""
    serving = [k for k, count in enumerate(users) if count > 0]
    return [
        {
            "users": count,
            "first": 1,
            "step": 1,
            "count": None,
            "duration": None,
            "rate": None,
            "worker": serving.index(k) if count > 0 else None,
            "workers": len(serving),
        }
        for k, count in enumerate(users)
    ]
