"""``--trace`` in a task: the client context every workload of a traced run gets.

The deployment side (:mod:`rally_keystone_perf.deploy.tracing`) records the
run's spec and key; the client side (:mod:`rally_keystone_perf.client.tracing`)
names the context and signs the headers. This module adds the context to the
task Rally runs.
"""

from __future__ import annotations

from rally_keystone_perf.client.tracing import CONTEXT_NAME
from rally_keystone_perf.deploy.tracing import profiler
from rally_keystone_perf.layout.rundir import RunDir


def client_contexts(run: RunDir) -> dict[str, dict[str, object]]:
    """The context every workload of a traced run gets: the client's
    ``keystone_perf_trace`` with the run's key and share ({} untraced)."""
    spec = profiler.run_spec(run)
    if spec is None:
        return {}
    key_file = str(profiler.hmac_key_file(run))
    return {CONTEXT_NAME: {"sample": spec.fraction, "hmac_key_file": key_file}}
