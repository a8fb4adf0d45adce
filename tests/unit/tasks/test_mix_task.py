"""A KeystonePerf.mix task from weights and a rate."""

from __future__ import annotations

from pathlib import Path

from rally_keystone_perf.tasks import mix_task


def test_the_task_is_one_open_model_workload_rally_reads() -> None:
    task = mix_task.mix_task(
        {"validate_token": 6, "create_token": 1},
        2.34567,
        60.0,
        {"keystone_perf_app_credentials": {}},
        "from a log",
    )
    loaded = mix_task.checked(Path("mix.json"), task)
    (workload,) = loaded.workloads()  # Rally's own form of it
    assert workload["name"] == "KeystonePerf.mix"
    assert workload["args"] == {
        "weights": {"validate_token": 6, "create_token": 1},
        "seed": 0,
    }
    assert workload["runner_type"] == mix_task.RUNNER
    assert workload["runner"] == {"rate": 2.346, "duration": 60.0, "max_in_flight": 200}
    assert set(workload["contexts"]) == {
        "keystone_perf_users",
        "keystone_perf_app_credentials",
    }
