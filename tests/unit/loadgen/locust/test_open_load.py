"""Tests for rally_keystone_perf.loadgen.locust.open_load: a worker's arrivals."""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import gevent

from rally_keystone_perf.loadgen import arrivals
from rally_keystone_perf.loadgen.locust import iterations, open_load, protocol
from tests.unit.loadgen.locust.helpers import sleeper_setup

OFFSET = 5.0  # the master's clock minus this worker's


def _open(users: int, **load: Any) -> tuple[protocol.Setup, iterations.Share]:
    setup = sleeper_setup(**load.pop("args", {}))
    setup = dataclasses.replace(setup, users=users, arrivals="constant", **load)
    share = iterations.Share(
        users=users,
        first=1,
        step=1,
        count=None,
        start_at=time.time() + 0.05,
        offset=OFFSET,
        worker=0,
        workers=1,
    )
    return setup, share


def _run_users(load: open_load.OpenLoad) -> None:
    """The scheduler and the worker's users (:class:`.users.IterationUser`'s
    loop) until the share ends."""

    def user() -> None:
        iteration = load.next_iteration()
        while iteration is not None:
            load.run(iteration)
            iteration = load.next_iteration()
        load.user_done()

    greenlets = [gevent.spawn(load.schedule)]
    greenlets += [gevent.spawn(user) for _ in range(load.share.users)]
    gevent.joinall(greenlets, timeout=30, raise_error=True)
    assert load.finished.is_set()


def test_each_worker_takes_its_dealt_share_of_one_schedule() -> None:
    setup, share = _open(2, rate=7.0, times=20, seed=4)
    setup = dataclasses.replace(setup, arrivals="poisson")
    offsets = arrivals.Schedule(7.0, times=20, arrivals="poisson", seed=4).offsets()
    found = [
        open_load.my_arrivals(setup, dataclasses.replace(share, worker=k, workers=3))
        for k in range(3)
    ]
    assert sorted(i for mine in found for i, _ in mine) == list(range(1, 21))
    for mine in found:
        for iteration, intended in mine:
            assert intended == share.start_at + offsets[iteration - 1]
    assert open_load.my_arrivals(setup, dataclasses.replace(share, worker=None)) == []


def test_an_arrival_with_every_user_busy_is_dropped_at_its_time() -> None:
    # one user, an arrival every 0.5 s, each iteration 0.7 s: the 1st runs
    # until 0.7 s, so the 2nd (0.5 s) is dropped, the 3rd (1.0 s) runs
    # until 1.7 s and the 4th (1.5 s) is dropped; 0.2 s of margin each
    shipped: list[list[dict[str, Any]]] = []
    setup, share = _open(1, rate=2.0, times=4, args={"seconds": 0.7})
    load = open_load.OpenLoad(setup, share, shipped.append)
    _run_users(load)
    load.flush()
    records = {r[protocol.ITERATION_KEY]: r for batch in shipped for r in batch}
    assert sorted(records) == [1, 2, 3, 4]
    errors = [records[n]["error"][:1] for n in (1, 2, 3, 4)]
    assert errors == [[], [arrivals.DROPPED], [], [arrivals.DROPPED]]
    assert "1 iterations were in flight" in records[2]["error"][1]
    assert (load.done, load.failed, load.dropped) == (4, 2, 2)
    for n in (1, 2, 3, 4):  # each at its intended start, on the master's clock
        assert records[n]["timestamp"] == share.start_at + (n - 1) / 2.0 + OFFSET


def test_a_record_counts_from_its_intended_start() -> None:
    shipped: list[list[dict[str, Any]]] = []
    setup, share = _open(2, rate=20.0, times=6, args={"seconds": 0.01})
    load = open_load.OpenLoad(setup, share, shipped.append)
    _run_users(load)
    load.flush()
    records = [r for batch in shipped for r in batch]
    assert len(records) == 6 and not [r for r in records if r["error"]]
    for record in records:
        intended = share.start_at + (record[protocol.ITERATION_KEY] - 1) / 20.0
        assert record["timestamp"] == intended + OFFSET
        lag = arrivals.scheduling_lag(record)
        assert lag is not None and lag >= 0
        assert record["duration"] - lag >= 0.01  # the service time: the sleep


def test_a_stop_ends_the_schedule_and_every_user() -> None:
    shipped: list[list[dict[str, Any]]] = []
    setup, share = _open(2, rate=10.0, duration=60.0)
    load = open_load.OpenLoad(setup, share, shipped.append)
    gevent.spawn_later(0.3, setattr, load, "stopping", True)
    began = time.monotonic()
    _run_users(load)
    assert time.monotonic() - began < 2.0
    load.flush()
    assert 2 <= sum(len(batch) for batch in shipped) <= 6  # of 600 due
