"""Run set-up commands a few at a time, each to its log; stop them all on
the way out.

Instruction counts do not depend on what else the machine runs, so a
count's replays share the cores. An interrupt (Ctrl-C, SIGTERM as
:mod:`rally_keystone_perf.stop_signals` raises it) or any error kills the
ones still running before it propagates: nothing is left behind.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

POLL = 0.2  # seconds between looks at the running commands


@dataclass(frozen=True)
class Command:
    """One command: its argv, the environment added to ours, its log."""

    argv: Sequence[str]
    env: dict[str, str]
    log: Path


def _start(command: Command) -> subprocess.Popen[bytes]:
    with open(command.log, "ab") as log:
        return subprocess.Popen(
            list(command.argv),
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**os.environ, **command.env},
        )


def run_all(commands: Sequence[Command], at_once: int) -> list[int]:
    """Run ``commands``, at most ``at_once`` together; their exit codes in order."""
    codes: dict[int, int] = {}
    running: dict[int, subprocess.Popen[bytes]] = {}
    waiting = list(enumerate(commands))
    try:
        while waiting or running:
            while waiting and len(running) < max(at_once, 1):
                index, command = waiting.pop(0)
                running[index] = _start(command)
            for index, process in list(running.items()):
                if process.poll() is not None:
                    codes[index] = process.returncode
                    del running[index]
            if running:
                time.sleep(POLL)
    finally:
        for process in running.values():
            process.kill()
            process.wait()
    return [codes[index] for index in range(len(commands))]
