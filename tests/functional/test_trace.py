"""``run --trace``: OSProfiler inside a real Keystone, traces kept in the run."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from rally_keystone_perf import cli
from rally_keystone_perf.deploy import trace_store, tracing
from rally_keystone_perf.deploy.keystone import trace_points
from rally_keystone_perf.deploy.rundir import RunDir
from rally_keystone_perf.plugins import tracing as client_tracing
from tests.functional.conftest import FAST_HASH_ROUNDS, run_processes, write_task

pytestmark = pytest.mark.functional

TIMES = 12


def _validate_task(path: Path) -> Path:
    return write_task(
        path,
        [
            {
                "scenario": {"KeystonePerf.validate_token": {}},
                "runner": {"constant": {"times": TIMES, "concurrency": 1}},
                "contexts": {
                    "users": {"tenants": 1, "users_per_tenant": 1},
                    "keystone_perf_tokens": {},
                },
                "sla": {"failure_rate": {"max": 0}},
            }
        ],
    )


def _run(tmp_path: Path, extra: list[str]) -> RunDir:
    runs = tmp_path / "runs"
    task = _validate_task(tmp_path / "validate.json")
    argv = ["run", "--task", str(task), "--runs-dir", str(runs)]
    argv += ["--password-hash-rounds", str(FAST_HASH_ROUNDS), *extra]
    assert cli.main(argv) == 0
    (root,) = [p for p in runs.iterdir() if p.is_dir() and not p.is_symlink()]
    return RunDir(root)


def _iteration_trace_ids(run: RunDir) -> list[str | None]:
    (report,) = run.results.glob("validate-*.json")
    (task,) = json.loads(report.read_text())["tasks"]
    (workload,) = task["subtasks"][0]["workloads"]
    found: list[str | None] = []
    for iteration in workload["data"]:
        outputs = iteration["output"]["complete"]
        ids = [
            o["data"]["trace_id"]
            for o in outputs
            if o["title"] == client_tracing.OUTPUT_TITLE
        ]
        found.append(ids[0] if ids else None)
    return found


def _traces(run: RunDir) -> dict[str, list[dict[str, Any]]]:
    with gzip.open(trace_store.traces_file(run), "rt") as stream:
        return {t["id"]: t["events"] for t in map(json.loads, stream)}


def test_every_sampled_iteration_has_its_trace_in_the_run(tmp_path: Path) -> None:
    run = _run(tmp_path, ["--trace", "sample:0.5"])
    ids = _iteration_trace_ids(run)
    sampled = [i for i in ids if i is not None]
    assert len(sampled) == TIMES // 2  # spread evenly: every other iteration
    traces = _traces(run)
    for trace_id in sampled:
        names = [e["name"] for e in traces[trace_id]]
        assert names[0] == "wsgi-start" and names[-1] == "wsgi-stop"
        assert "db-start" in names  # trace_sqlalchemy
        assert f"{trace_points.TOKEN}-start" in names  # the suite's spans
        assert f"{trace_points.POLICY}-start" in names
        assert all(
            "params" not in e.get("info", {}).get("db", {}) for e in traces[trace_id]
        )
    key = tracing.hmac_key_file(run).read_text().strip()
    assert key not in (run.conf / "keystone.conf").read_text()
    assert key not in json.dumps(run.state().to_json())
    assert not run_processes(run)  # redis stopped with the run


def test_without_trace_no_redis_no_profiler(tmp_path: Path) -> None:
    run = _run(tmp_path, [])
    assert _iteration_trace_ids(run) == [None] * TIMES
    assert "[profiler]" not in (run.conf / "keystone.conf").read_text()
    assert run.state().trace_backend is None
    assert not (run.root / trace_store.TRACES_DIR).exists()
    assert not tracing.hmac_key_file(run).exists()
    assert not (run.logs / f"{tracing.REDIS_SERVICE}-stdout.log").exists()
    assert "OSProfiler is enabled" not in (run.logs / "keystone.log").read_text()
