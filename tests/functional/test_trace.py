"""``run --trace``: OSProfiler inside a real Keystone, traces kept in the run.

That a run without ``--trace`` has no profiler, no Redis and no trace ids is
checked on test_cli's run (one Keystone fewer: CI's time).
"""

from __future__ import annotations

import gzip
import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

from rally_keystone_perf import cli, paths
from rally_keystone_perf.client import tracing as client_tracing
from rally_keystone_perf.deploy.options import LaunchOptions, resolve
from rally_keystone_perf.deploy.tracing import profiler, trace_points
from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.layout.tracing import traces_file
from rally_keystone_perf.loadgen.locust import task as locust_task
from rally_keystone_perf.report.readers import access_log, tracing
from rally_keystone_perf.report.readers.rally_json import load_report
from rally_keystone_perf.run import session
from rally_keystone_perf.tasks import tracing as task_tracing
from rally_keystone_perf.tasks.model import TaskFile
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
    with gzip.open(traces_file(run), "rt") as stream:
        return {t["id"]: t["events"] for t in map(json.loads, stream)}


def test_every_sampled_iteration_has_its_trace_in_the_run(tmp_path: Path) -> None:
    run = _run(tmp_path, ["--trace", "sample:0.5"])
    ids = _iteration_trace_ids(run)
    sampled = [i for i in ids if i is not None]
    assert len(sampled) == TIMES // 2  # 0.5 of 12 (within one: exactly here)
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
    key = profiler.hmac_key_file(run).read_text().strip()
    assert key not in (run.conf / "keystone.conf").read_text()
    assert key not in json.dumps(run.state().to_json())
    assert not run_processes(run)  # redis stopped with the run


# keystone.log's records of SQLAlchemy's engine logger (oslo.db's
# connection_debug): time (ms), message
_SQL_RECORD = re.compile(
    r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\.(\d{3}) \d+ INFO "
    r"sqlalchemy\.engine\.Engine \[[^\]]*\] (.*)$"
)
_STATEMENT = re.compile(r"^(SELECT|INSERT|UPDATE|DELETE)\b|^BEGIN$")


def _logged_statements(log: Path) -> list[float]:
    """When Keystone's own log says each SQL statement ran (epoch seconds).

    By time, not by the records' request ids: a request's first statements
    (its token's validation, before Keystone sets the request's context)
    carry the previous request's id.
    """
    found = []
    for line in log.read_text().splitlines():
        match = _SQL_RECORD.match(line)
        if match and _STATEMENT.match(match.group(3).strip()):
            second = time.mktime(time.strptime(match.group(1), "%Y-%m-%d %H:%M:%S"))
            found.append(second + int(match.group(2)) / 1e3)
    return found


def _debug_template(tmp_path: Path) -> Path:
    """The shared keystone.conf template with every statement logged."""
    template = tmp_path / "keystone.conf.tmpl"
    shared = paths.deployments_dir() / "common" / "keystone.conf.tmpl"
    template.write_text(
        shared.read_text() + "\n[database]\n# the test's reference\n"
        "connection_debug = 100\n"
    )
    return template


def _enclosing(
    requests: list[access_log.ServerRequest], span: tracing.Span
) -> access_log.ServerRequest:
    """The access log's request around ``span`` (1 ms of clock slack)."""
    (request,) = [
        r
        for r in requests
        if r.start - 1e-3 <= span.start and span.stop <= r.start + r.server_time + 1e-3
    ]
    return request


def test_breakdowns_add_up_to_server_time_and_count_keystones_sql(
    tmp_path: Path,
) -> None:
    options = LaunchOptions(
        password_hash_rounds=FAST_HASH_ROUNDS,
        trace="sample:1",
        keystone_conf_template=str(_debug_template(tmp_path)),
    )
    task = TaskFile.load(_validate_task(tmp_path / "validate.json"))
    with session.keystone_session(tmp_path / "runs", resolve(options), print) as (
        run,
        rally,
    ):
        contexts = task_tracing.client_contexts(run)
        path = locust_task.task_to_run(task, None, run.root, contexts)
        outcome = rally.start_task(path)
    assert outcome.exit_code == 0 and outcome.report is not None
    (workload,) = load_report(outcome.report)
    source = tracing.trace_source(run.root, run.state())
    assert source is not None
    requests = access_log.read_requests(run.access_log)
    traced_counts, roots = [], []
    for iteration in workload.iterations:
        assert iteration.trace_id is not None
        trace = tracing.spans(source.traces[iteration.trace_id])
        (root,) = [s for s in trace if s.name == "wsgi"]
        server_time = _enclosing(requests, root).server_time
        result = tracing.breakdown(trace)
        assert abs(sum(result.seconds.values()) - server_time) <= 0.1 * server_time
        traced_counts.append(result.sql_count)
        roots.append(root)
    # Keystone's own count of the statements inside each traced request (one
    # at a time: concurrency 1; the log's clock has milliseconds)
    logged = _logged_statements(run.logs / "keystone.log")
    inside = [
        sum(1 for t in logged if root.start - 1e-3 <= t <= root.stop + 1e-3)
        for root in roots
    ]
    assert inside == traced_counts
    assert min(traced_counts) > 0
