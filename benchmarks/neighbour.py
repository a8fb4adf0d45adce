"""A neighbour that comes and goes: CPU-bound load switched on and off.

What a shared CI runner does to a benchmark: another job takes a core for
a while, then leaves. :class:`Neighbour` runs, while it is entered, one
Python busy loop (``while True: pass``, a core) for a random time, then
nothing for a random time, and so on; each time is drawn uniformly between
``shortest`` and ``longest`` seconds (5 to 30 by default) from a seeded
generator, so the same seed gives the same schedule. It keeps what it did
(:attr:`Neighbour.switches`) and leaves nothing running on exit.

Used by :mod:`benchmarks.ab_calibration` (``--neighbour SEED``).
"""

from __future__ import annotations

import random
import subprocess
import sys
import threading
import time
from types import TracebackType

BUSY = "while True: pass"


class Neighbour:
    """A CPU-bound process, on and off at seeded random intervals."""

    def __init__(self, seed: int, shortest: float = 5.0, longest: float = 30.0):
        self.random = random.Random(seed)
        self.shortest, self.longest = shortest, longest
        self.switches: list[tuple[float, bool]] = []  # (monotonic time, on)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._busy: subprocess.Popen[bytes] | None = None

    def _draw(self) -> float:
        return self.random.uniform(self.shortest, self.longest)

    def _run(self) -> None:
        on = self.random.random() < 0.5
        while not self._stop.is_set():
            self.switches.append((time.monotonic(), on))
            if on:
                self._busy = subprocess.Popen([sys.executable, "-c", BUSY])
            self._stop.wait(self._draw())
            self._quiet()
            on = not on

    def _quiet(self) -> None:
        if self._busy is not None:
            self._busy.kill()
            self._busy.wait()
            self._busy = None

    def on_share(self) -> float:
        """The share of the time so far the neighbour was on."""
        if not self.switches:
            return 0.0
        times = [t for t, _ in self.switches] + [time.monotonic()]
        total = times[-1] - times[0]
        busy = sum(
            end - start
            for (start, on), end in zip(self.switches, times[1:], strict=False)
            if on
        )
        return busy / total if total > 0 else 0.0

    def __enter__(self) -> Neighbour:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._stop.set()
        self._thread.join()
        self._quiet()
