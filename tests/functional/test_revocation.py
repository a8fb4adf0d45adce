"""Revocation events on a real Keystone: the context fills the table."""

from __future__ import annotations

from pathlib import Path

import pytest

from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.report.readers import rally_json
from rally_keystone_perf.run import rally_runner
from tests.functional.conftest import admin_client, write_task

pytestmark = pytest.mark.functional

EVENTS = 30


def _token_events(keystone: RunDir) -> int:
    """Revocation events of single tokens (not of deleted users or projects)."""
    identity, token = admin_client(keystone)
    events = identity.list_revocation_events(token)
    return len([e for e in events if "audit_id" in e or "audit_chain_id" in e])


def test_the_context_adds_n_revocation_events(
    keystone: RunDir, rally: rally_runner.RallyRunner, tmp_path: Path
) -> None:
    before = _token_events(keystone)
    task = write_task(
        tmp_path / "revocations.json",
        [
            {
                "scenario": {"KeystonePerf.list_revocation_events": {}},
                "runner": {"constant": {"times": 6, "concurrency": 2}},
                "contexts": {
                    "users": {"tenants": 1, "users_per_tenant": 1},
                    # its writers in parallel, on the session's SQLite too
                    "keystone_perf_revocations": {"events": EVENTS},
                },
                "sla": {"failure_rate": {"max": 0}},
            }
        ],
    )
    outcome = rally.start_task(task)
    assert outcome.exit_code == 0 and outcome.report is not None
    (workload,) = rally_json.load_report(outcome.report)
    assert not [it for it in workload.iterations if it.error]
    timings = {t.name: t for t in workload.context_timings}
    assert timings["keystone_perf_revocations@openstack"].setup is not None
    # Rally's users context deleting its user and project adds two more
    assert _token_events(keystone) == before + EVENTS
