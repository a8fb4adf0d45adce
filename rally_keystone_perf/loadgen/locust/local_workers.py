"""The worker processes a master starts on this machine.

Each runs ``python -m rally_keystone_perf.loadgen.locust.worker`` with its own log
file in the run folder's ``logs/``, dies with the master (the kernel's
parent-death signal, asked for through ``KSP_DIE_WITH_PARENT``) and is
stopped, then killed, when the master ends. A worker that exits before the
end is named by :meth:`LocalWorkers.exited`.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

DIE_WITH_PARENT_ENV = "KSP_DIE_WITH_PARENT"
WORKER_MODULE = "rally_keystone_perf.loadgen.locust.worker"
STOP_GRACE = 5.0  # seconds between SIGTERM and SIGKILL


def worker_argv(master: str) -> list[str]:
    """The command that runs a worker of the master at ``master`` (HOST:PORT)."""
    return [sys.executable, "-m", WORKER_MODULE, "--master", master]


@dataclass
class LocalWorker:
    """One worker process: its name in the output, its process, its log."""

    name: str
    process: subprocess.Popen[bytes]
    log: Path | None


class LocalWorkers:
    """The master's own worker processes."""

    def __init__(self) -> None:
        self.started: list[LocalWorker] = []

    def start(
        self, count: int, master: str, logs: Path | None, namespace: str | None = None
    ) -> None:
        """Start ``count`` workers of ``master``, each logging to ``logs``;
        inside network namespace ``namespace`` when given (a host of its own:
        ``ip netns exec`` executes the worker, which stays our child)."""
        env = {**os.environ, DIE_WITH_PARENT_ENV: "1"}
        prefix = ["ip", "netns", "exec", namespace] if namespace else []
        for index in range(len(self.started), len(self.started) + count):
            log = logs / f"locust-worker{index + 1}.log" if logs else None
            with open(log or os.devnull, "ab") as out:
                process = subprocess.Popen(
                    [*prefix, *worker_argv(master)],
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    env=env,
                )
            where = f"{namespace}, " if namespace else ""
            name = f"worker{index + 1} ({where}pid {process.pid})"
            self.started.append(LocalWorker(name, process, log))

    def by_pid(self, pid: int) -> LocalWorker | None:
        """The worker whose process is ``pid``."""
        return next((w for w in self.started if w.process.pid == pid), None)

    def exited(self) -> list[LocalWorker]:
        """The workers whose process has ended."""
        return [w for w in self.started if w.process.poll() is not None]

    def stop(self) -> None:
        """SIGTERM every worker still running, then SIGKILL after a grace."""
        running = [w for w in self.started if w.process.poll() is None]
        for worker in running:
            worker.process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE
        for worker in running:
            try:
                worker.process.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                worker.process.kill()
                worker.process.wait()
