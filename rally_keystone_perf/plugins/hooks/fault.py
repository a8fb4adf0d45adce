"""The ``keystone_perf_fault`` hook: a node fault from inside a Rally task."""

from __future__ import annotations

import os
from pathlib import Path

from rally import consts
from rally.task import hook

from rally_keystone_perf.deploy import faults
from rally_keystone_perf.layout.rundir import RunDir


@hook.configure(name="keystone_perf_fault")
class KeystonePerfFault(hook.HookAction):
    """Kills, stops, restarts or freezes a Keystone node or the database.

    Written the way Rally's ``sys_call`` hook is: triggered by the ``event``
    trigger at a second or an iteration of the workload, it acts on the run
    rally-keystone-perf started (named by ``KEYSTONE_PERF_RUN``, which its
    ``run`` command sets). ``target`` is ``node1`` .. ``node8`` (every
    process of that host, its memcached included), ``database`` (every
    member with ``--db galera``) or one Galera member, ``galera1`` ..
    ``galera3``;
    ``action`` is ``kill`` (SIGKILL), ``stop`` (SIGTERM, then SIGKILL),
    ``start`` (start what is down again and wait until it answers),
    ``restart``, ``freeze``/``thaw`` (SIGSTOP/SIGCONT) or ``kill-worker``
    (one worker of the node's server). What was done, and when, is the
    hook's output in the report, and a line of the run's
    ``logs/faults.jsonl``.
    """

    CONFIG_SCHEMA = {
        "type": "object",
        "$schema": consts.JSON_SCHEMA,
        "properties": {
            "action": {"enum": list(faults.ACTIONS)},
            "target": {"type": "string", "pattern": faults.TARGET.pattern},
            "timeout": {"type": "number", "minimum": 1, "maximum": 600},
        },
        "required": ["action", "target"],
        "additionalProperties": False,
    }

    def run(self) -> None:
        """Apply the fault; a failure is the hook's error, not the task's."""
        folder = os.environ.get(faults.RUN_ENV)
        if not folder:
            self.set_error(
                "FaultError",
                f"keystone_perf_fault acts on a run of rally-keystone-perf, and "
                f"{faults.RUN_ENV} is not set",
                "start the task with: rally-keystone-perf run --task FILE",
            )
            return
        action, target = self.config["action"], self.config["target"]
        try:
            fault = faults.apply(
                RunDir(Path(folder)), action, target, self.config.get("timeout", 60)
            )
        except faults.FaultError as exc:
            self.set_error("FaultError", str(exc), "")
            return
        if fault.error is not None:
            self.set_error("FaultError", fault.error, "\n".join(fault.done))
        self.add_output(
            complete={
                "title": f"Fault: {action} {target}",
                "chart_plugin": "TextArea",
                "description": f"keystone_perf_fault {action} {target}",
                "data": fault.done or ["(nothing done)"],
            }
        )
