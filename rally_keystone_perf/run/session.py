"""A local Keystone with Rally ready to run tasks against it, for one block.

``run`` and ``matrix`` both start Keystone (and its backends), sample the
server's CPU and memory, prepare Rally's private database and environment,
and on the way out (normal end, error or Ctrl-C) stop every process.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from rally_keystone_perf import stop_signals
from rally_keystone_perf.deploy import launcher, machine_probe, orphans, sampler
from rally_keystone_perf.deploy.options import Deployment
from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.run import rally_runner

Echo = Callable[[str], None]


def run_redactor(run: RunDir) -> rally_runner.Redactor:
    """Hides the run's generated passwords: admin, user pool, Nova's stack."""
    return rally_runner.Redactor(run.state().secrets())


def _has_stack(run: RunDir) -> bool:
    """True when the run started services beside Keystone (nova-fake)."""
    return run.stack_plan.is_file()


def record_machine(run: RunDir, watch: machine_probe.MachineWatch, echo: Echo) -> None:
    """The machine's speed after the load into run.json; a failure (or a
    second Ctrl-C) skips it, never the servers' stop that follows."""
    try:
        run.write_state(machine=watch.finish())
    except (KeyboardInterrupt, *machine_probe.PROBE_ERRORS) as exc:
        echo(f"machine probe skipped: {type(exc).__name__} {exc}")


@contextlib.contextmanager
def keystone_session(
    runs_dir: Path,
    deployment: Deployment,
    echo: Echo,
    keep_running: bool = False,
    sample_idle: bool = True,
) -> Iterator[tuple[RunDir, rally_runner.RallyRunner]]:
    """Start Keystone in a new run folder and yield it with a prepared Rally.

    Keystone is stopped when the block ends, unless ``keep_running``.
    Without ``sample_idle`` its CPU and memory are sampled during Rally's
    tasks only (a Keystone idle while others are measured).
    """
    stop_signals.install()  # SIGTERM and SIGHUP stop the session as Ctrl-C does
    runs_dir.mkdir(parents=True, exist_ok=True)
    run = launcher.up(runs_dir, deployment, progress=echo)
    resources = watch = None
    try:
        # the server's CPU and memory
        resources = sampler.start_for_run(run, paused=not sample_idle)
        runner = rally_runner.RallyRunner(run, run_redactor(run), echo)
        if resources is not None and not sample_idle:
            runner.around_task = resources.sampling
        echo("preparing Rally (database and environment in the run folder)")
        began = time.monotonic()
        runner.prepare()
        echo(f"Rally ready in {time.monotonic() - began:.1f} s")
        watch = machine_probe.MachineWatch.start()
        yield run, runner
    finally:
        if watch is not None:
            record_machine(run, watch, echo)
        if resources is not None:
            resources.stop()
        if keep_running:
            orphans.detach(run)
            echo(f"Keystone keeps running: rally-keystone-perf down --run {run.root}")
        else:
            echo("stopping Keystone" + (" and its services" if _has_stack(run) else ""))
            launcher.stop(run)
            echo("stopped Keystone")
