from __future__ import annotations

import time
from typing import Any

import pytest

from rally_keystone_perf.loadgen.locust import iterations, protocol
from tests.unit.loadgen.locust.helpers import sleeper_setup as _setup


def _share(**fields: Any) -> iterations.Share:
    base: dict[str, Any] = {
        "users": 2,
        "first": 11,
        "step": 1,
        "count": 3,
        "start_at": time.time(),
        "offset": 5.0,
    }
    return iterations.Share(**{**base, **fields})


def test_a_share_hands_out_its_ids_once_then_none() -> None:
    load = iterations.WorkerLoad(_setup(), _share(), lambda batch: None)
    assert [load.next_iteration() for _ in range(5)] == [11, 12, 13, None, None]


def test_a_stopped_share_hands_out_no_more() -> None:
    load = iterations.WorkerLoad(_setup(), _share(count=None), lambda batch: None)
    assert load.next_iteration() == 11
    load.stopping = True
    assert load.next_iteration() is None


def test_a_duration_ends_the_share_at_its_deadline() -> None:
    share = _share(count=None, step=3, deadline=time.time() + 0.2)
    load = iterations.WorkerLoad(_setup(), share, lambda batch: None)
    assert [load.next_iteration(), load.next_iteration()] == [11, 14]
    time.sleep(0.25)
    assert load.next_iteration() is None


def test_a_rate_paces_the_starts() -> None:
    share = _share(count=3, rate=20.0, start_at=time.time())
    load = iterations.WorkerLoad(_setup(), share, lambda batch: None)
    began = time.monotonic()
    for _ in range(3):
        load.next_iteration()
    assert time.monotonic() - began >= 0.09  # the 3rd starts 2/20 s in


def test_the_go_message_sets_clocks_on_the_masters() -> None:
    go = {
        "users": 3,
        "first": 1,
        "step": 1,
        "count": 9,
        "start_at": 1000.5,
        "master_now": 1000.0,
        "duration": None,
        "rate": None,
    }
    share = iterations.Share.from_go(go, received_at=990.0)
    assert share.offset == 10.0 and share.start_at == 990.5
    assert share.deadline is None and share.users == 3


def test_records_are_rallys_with_the_id_and_the_masters_clock() -> None:
    shipped: list[list[dict[str, Any]]] = []
    load = iterations.WorkerLoad(_setup(fail=True), _share(), shipped.append)
    before = time.time()
    load.run(12)
    load.user_done()
    assert not load.finished.is_set()  # one user is still running
    load.user_done()
    assert load.finished.is_set()
    (record,) = shipped[0]
    assert record[protocol.ITERATION_KEY] == 12
    assert record["error"][0] == "RuntimeError"
    assert "iteration 12 failed" in record["error"][1]
    assert before + 5.0 <= record["timestamp"] <= time.time() + 5.0
    assert (load.done, load.failed) == (1, 1)


def test_an_iteration_over_the_timeout_is_a_failed_record() -> None:
    shipped: list[list[dict[str, Any]]] = []
    load = iterations.WorkerLoad(
        _setup(timeout=0.1, seconds=5), _share(), shipped.append
    )
    began = time.monotonic()
    load.run(11)
    load.flush()
    assert time.monotonic() - began < 1.0
    (record,) = shipped[0]
    assert record["error"][:2] == [
        "IterationTimeout",
        "iteration 11 ran over the runner's timeout (0.1 s)",
    ]
    assert 0.1 <= record["duration"] < 1.0
    assert (load.done, load.failed) == (1, 1)


def test_a_worker_without_users_is_finished_at_once() -> None:
    load = iterations.WorkerLoad(_setup(), _share(users=0, count=0), lambda b: None)
    assert load.finished.is_set()


def test_a_ca_bundle_missing_on_this_host_is_named(tmp_path) -> None:
    bundle = tmp_path / "ca.pem"
    bundle.write_text("-----BEGIN CERTIFICATE-----\n")
    here = {"credential": {"https_cacert": str(bundle)}}
    iterations.check_ca_bundles({"admin": here, "users": [here]})
    iterations.check_ca_bundles({"users": [{"credential": {"https_cacert": None}}]})
    elsewhere = {"credential": {"https_cacert": "/nowhere/ca.pem"}}
    with pytest.raises(FileNotFoundError, match="/nowhere/ca.pem .cacert"):
        iterations.check_ca_bundles({"admin": None, "users": [here, elsewhere]})
