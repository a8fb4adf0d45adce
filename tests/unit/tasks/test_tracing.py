"""Tests for rally_keystone_perf.tasks.tracing: the trace context of a run."""

from __future__ import annotations

from pathlib import Path

from rally_keystone_perf.client.tracing import CONTEXT_NAME
from rally_keystone_perf.deploy.tracing import profiler
from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.tasks import tracing


def test_client_contexts_follow_the_runs_trace(tmp_path: Path) -> None:
    run = RunDir(tmp_path / "run")
    run.create()
    run.write_state(options={"trace": None})
    assert tracing.client_contexts(run) == {}
    run.write_state(options={"trace": "sample:0.5"})
    assert tracing.client_contexts(run) == {
        CONTEXT_NAME: {"sample": 0.5, "hmac_key_file": str(profiler.hmac_key_file(run))}
    }
