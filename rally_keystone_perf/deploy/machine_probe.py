"""How fast the machine itself was, around a run's load.

This machine's speed drifts by tens of percent over minutes. Two runs that
differ may differ because the code did or because the machine did; so every
run records, in run.json's ``machine``:

``probe_before`` / ``probe_after``
    seconds a fixed CPU-bound loop (:data:`LOOP`, the same every time, in a
    fresh interpreter of its own) took just before the load and just after
    it: the best of :data:`REPEAT` tries, so a single preemption does not
    count. The same machine in the same state gives the same figure; a
    busier or slower one a larger figure.
``steal_seconds`` / ``steal_share``
    CPU time the hypervisor gave to other guests while the run's load ran
    (``steal`` in /proc/stat), and its share of the CPUs' time then: a
    virtual machine's neighbours, which no process of the run can see.

``compare`` and ``gate`` of two runs print both runs' figures and say when
their machines differed by more than
:data:`rally_keystone_perf.report.figures.machine.SAME_MACHINE` (5%).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

LOOP_COUNT = 1_000_000
LOOP = (
    "import time\n"
    "start = time.perf_counter()\n"
    "total = 0\n"
    f"for i in range({LOOP_COUNT}):\n"
    "    total += i * i % 7\n"
    "print(time.perf_counter() - start)\n"
)
REPEAT = 3
# what a probe that could not be taken raises (its interpreter, its output)
PROBE_ERRORS = (OSError, ValueError, subprocess.SubprocessError)
PROC_STAT = Path("/proc/stat")
STEAL_FIELD = 8  # user nice system idle iowait irq softirq steal


def probe(repeat: int = REPEAT) -> float:
    """Seconds the fixed loop takes here now: the best of ``repeat`` tries."""
    best = float("inf")
    for _ in range(repeat):
        done = subprocess.run(
            [sys.executable, "-I", "-c", LOOP],
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
        )
        best = min(best, float(done.stdout.strip()))
    return best


def steal_ticks(stat: Path = PROC_STAT) -> int | None:
    """The machine's stolen CPU time so far, in clock ticks (None off Linux)."""
    try:
        fields = stat.read_text().splitlines()[0].split()
    except (OSError, IndexError):
        return None
    if fields[0] != "cpu" or len(fields) <= STEAL_FIELD:
        return None
    return int(fields[STEAL_FIELD])


@dataclass
class MachineWatch:
    """The probe and the steal counter at the start of a load."""

    probe_before: float
    steal_before: int | None
    started: float

    @classmethod
    def start(cls) -> MachineWatch:
        return cls(probe(), steal_ticks(), time.monotonic())

    def finish(self) -> dict[str, float | None]:
        """run.json's ``machine``: both probes and the steal during the load."""
        elapsed = time.monotonic() - self.started
        after = steal_ticks()
        steal = None
        share = None
        if self.steal_before is not None and after is not None:
            steal = (after - self.steal_before) / os.sysconf("SC_CLK_TCK")
            cpus = os.cpu_count() or 1
            share = steal / (elapsed * cpus) if elapsed > 0 else None
        return {
            "probe_before": self.probe_before,
            "probe_after": probe(),
            "steal_seconds": steal,
            "steal_share": share,
            "loop": LOOP_COUNT,
        }
