from __future__ import annotations

import dataclasses

import pytest

from rally_keystone_perf.loadgen.locust import protocol, shares


def _setup(**load: object) -> protocol.Setup:
    base = protocol.Setup(
        scenario="KeystonePerf.list_projects",
        module="m",
        qualname="C",
        args={},
        context={},
        users=5,
    )
    return dataclasses.replace(base, **load)  # type: ignore[arg-type]


@pytest.mark.parametrize("users", [[2, 2], [3, 1, 1], [5, 0], [1]])
def test_a_budget_is_split_into_contiguous_blocks_of_unique_ids(
    users: list[int],
) -> None:
    plan = shares.worker_shares(_setup(times=203), users)
    ids = [
        share["first"] + n * share["step"]
        for share in plan
        for n in range(share["count"])
    ]
    assert sorted(ids) == list(range(1, 204))  # none lost, none doubled
    assert [s["users"] for s in plan] == users
    assert all(s["count"] == 0 for s in plan if s["users"] == 0)


def test_a_duration_interleaves_the_ids_and_has_no_count() -> None:
    plan = shares.worker_shares(_setup(duration=30.0), [2, 3])
    assert [(s["first"], s["step"], s["count"]) for s in plan] == [
        (1, 2, None),
        (2, 2, None),
    ]
    assert all(s["duration"] == 30.0 for s in plan)


def test_a_rate_is_shared_so_that_every_block_ends_together() -> None:
    plan = shares.worker_shares(_setup(times=100, rate=10.0), [3, 1])
    assert [s["count"] for s in plan] == [75, 25]
    assert [s["count"] / s["rate"] for s in plan] == [10.0, 10.0]


def test_an_open_model_share_is_a_place_among_the_workers_with_users() -> None:
    plan = shares.worker_shares(
        _setup(rate=10.0, times=50, arrivals="poisson"), [2, 0, 3]
    )
    assert [(s["users"], s["worker"], s["workers"]) for s in plan] == [
        (2, 0, 2),
        (0, None, 2),
        (3, 1, 2),
    ]
    assert all(s["rate"] is None and s["count"] is None for s in plan)
