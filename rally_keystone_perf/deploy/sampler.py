"""Sample the server's process tree (CPU, memory) during a run (no Rally imports).

:class:`ResourceSampler` runs a daemon thread that, every ``interval``
seconds, reads the server process and all its descendants with psutil and
appends one row to ``<run>/logs/resources.csv``::

    timestamp,cpu_seconds,rss_bytes,processes
    1718000000.123456,12.34,215748608,3

``timestamp`` is seconds since the epoch (the clock of Rally's iterations and
of the access log), ``cpu_seconds`` the user+system CPU time the tree has
consumed so far (cumulative: a process that exits keeps counting with its
last value), ``rss_bytes`` the tree's total resident memory now and
``processes`` how many processes were read.
"""

from __future__ import annotations

import csv
import threading
import time
from pathlib import Path
from typing import Any

import psutil

from rally_keystone_perf.deploy.rundir import RunDir

RESOURCES_CSV = "resources.csv"  # in the run's logs/ folder
FIELDS = ("timestamp", "cpu_seconds", "rss_bytes", "processes")
DEFAULT_INTERVAL = 0.5


class ResourceSampler:
    """Samples process ``pid`` and its children (recursively) into ``out_csv``.

    ``start()`` and ``stop()`` may be called any number of times; the thread
    never raises (processes that vanish or deny access are skipped) and ends
    by itself when ``pid`` is gone. Also a context manager.
    """

    def __init__(
        self, pid: int, out_csv: Path, interval: float = DEFAULT_INTERVAL
    ) -> None:
        self.pid = pid
        self.out_csv = Path(out_csv)
        self.interval = interval
        self.rows = 0  # rows written so far
        self.error: str | None = None  # why sampling ended early, if it did
        self._last: dict[tuple[int, float], float] = {}  # (pid, created) -> cpu s
        self._finished = 0.0  # CPU seconds of processes that have exited
        self._root: psutil.Process | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def __enter__(self) -> ResourceSampler:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        """True while the sampling thread is alive."""
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> ResourceSampler:
        """Start sampling (once; later calls do nothing)."""
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._loop, name=f"resource-sampler-{self.pid}", daemon=True
                )
                self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Take a last sample and wait for the thread to end (idempotent).

        Before :meth:`start` there is nothing to stop (and start still works).
        """
        with self._lock:
            thread = self._thread
        if thread is None:
            return
        self._stop.set()
        if thread is not threading.current_thread():
            thread.join(timeout)

    def _loop(self) -> None:
        try:
            with open(self.out_csv, "a", newline="") as stream:
                writer = csv.writer(stream, lineterminator="\n")
                if stream.tell() == 0:
                    writer.writerow(FIELDS)
                    stream.flush()
                while True:
                    row = self.sample()
                    if row is None:
                        break
                    writer.writerow(row)
                    stream.flush()
                    self.rows += 1
                    if self._stop.wait(self.interval):
                        row = self.sample()  # the state at stop
                        if row is not None:
                            writer.writerow(row)
                            self.rows += 1
                        break
        except Exception as exc:  # never raise from the thread
            self.error = f"{type(exc).__name__}: {exc}"

    def sample(self) -> tuple[float, float, int, int] | None:
        """One row (timestamp, cpu s, rss bytes, processes); None when pid is gone.

        Called by the thread; callable directly (without starting it) too.
        """
        try:
            if self._root is None:
                self._root = psutil.Process(self.pid)
            root = self._root
            if not root.is_running() or root.status() == psutil.STATUS_ZOMBIE:
                self.error = f"process {self.pid} has exited"
                return None
            tree = [root, *root.children(recursive=True)]
        except psutil.Error as exc:
            self.error = f"process {self.pid}: {type(exc).__name__}"
            return None
        now = time.time()
        seen: set[tuple[int, float]] = set()
        rss = 0
        count = 0
        for proc in tree:
            read = _read(proc)
            if read is None:
                continue
            key, cpu, proc_rss = read
            seen.add(key)
            self._last[key] = max(cpu, self._last.get(key, 0.0))
            rss += proc_rss
            count += 1
        listed = {proc.pid for proc in tree}
        for key in [k for k in self._last if k not in seen and k[0] not in listed]:
            # exited: its CPU keeps counting with its last cumulative value
            self._finished += self._last.pop(key)
        if not count:
            self.error = f"process {self.pid} could not be read"
            return None
        cpu_total = self._finished + sum(self._last.values())
        return round(now, 6), round(cpu_total, 3), rss, count


def _read(proc: Any) -> tuple[tuple[int, float], float, int] | None:
    """``((pid, create time), user+system CPU s, RSS bytes)``; None if unreadable."""
    try:
        with proc.oneshot():
            times = proc.cpu_times()
            return (
                (proc.pid, proc.create_time()),
                float(times.user + times.system),
                int(proc.memory_info().rss),
            )
    except psutil.Error:  # NoSuchProcess, ZombieProcess, AccessDenied
        return None


def start_for_run(
    run: RunDir, interval: float = DEFAULT_INTERVAL
) -> ResourceSampler | None:
    """Start sampling the run's server into ``<run>/logs/resources.csv``.

    None when the run records no server pid.
    """
    pid = run.state().server_pid
    if not pid:
        return None
    return ResourceSampler(int(pid), run.logs / RESOURCES_CSV, interval).start()
