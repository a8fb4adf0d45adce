from __future__ import annotations

from rally_keystone_perf.report.readers.load_engine import engine_label, split_runner


def test_a_locust_workload_shows_the_tasks_runner_and_the_engine_apart() -> None:
    runner = {
        "runner_type": "constant",
        "runner": {"times": 200, "concurrency": 4},
        "workers": 2,
        "expect_workers": 0,
    }
    kind, config, engine = split_runner("keystone_perf_locust", runner)
    assert (kind, config) == ("constant", {"times": 200, "concurrency": 4})
    assert engine == {"name": "locust", "workers": 2, "expect_workers": 0}


def test_rallys_own_runners_have_no_engine() -> None:
    assert split_runner("constant", {"times": 1}) == ("constant", {"times": 1}, {})


def test_a_locust_runner_without_its_tasks_runner_stays_as_written() -> None:
    assert split_runner("keystone_perf_locust", {"workers": 1}) == (
        "keystone_perf_locust",
        {"workers": 1},
        {},
    )


def test_the_engine_label_counts_every_kind_of_worker() -> None:
    assert engine_label({}) == "rally"
    assert engine_label({"name": "locust", "workers": 2}) == "locust, 2 workers"
    hosts = {"name": "locust", "workers": 0, "worker_hosts": ["a", "b"]}
    assert engine_label(hosts | {"expect_workers": 3}) == "locust, 5 workers"
