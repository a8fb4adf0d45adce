"""How far a copied server log's clock is from this machine's.

The run's own requests are in both: the client's atomic actions (their
start on this machine's clock) and the server's log lines (the server's
clock, maybe a zone away and with one-second stamps). The offset is the
shift that lines the most of them up: each candidate shift (one of 40 server
times minus one of 40 client times) is scored by how many client starts then have a
server start within ``tolerance``; the best-scoring shifts' median wins.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

from rally_keystone_perf.metrics import median_p95

SAMPLE = 200  # client starts scored, evenly spread
PAIRS = 40  # server and client starts whose differences are the candidates


@dataclass(frozen=True)
class Alignment:
    """The server clock minus this machine's, and how many requests agreed."""

    offset: float  # seconds: server time = client time + offset
    matched: int
    of: int

    def line(self) -> str:
        """``server clock +3600.2 s from this machine's (190 of 200 ...)``."""
        return (
            f"server clock {self.offset:+.1f} s from this machine's "
            f"({self.matched} of {self.of} of the run's requests lined up)"
        )


def _spread(values: Sequence[float], count: int) -> list[float]:
    if len(values) <= count:
        return list(values)
    step = len(values) / count
    return [values[int(i * step)] for i in range(count)]


def _score(
    server: Sequence[float], client: Sequence[float], shift: float, tol: float
) -> int:
    hits = 0
    for start in client:
        at = bisect.bisect_left(server, start + shift - tol)
        if at < len(server) and server[at] <= start + shift + tol:
            hits += 1
    return hits


def align(
    server: Sequence[float], client: Sequence[float], tolerance: float = 1.0
) -> Alignment | None:
    """The offset of ``server`` starts from ``client`` starts; None: no data."""
    server_sorted, client_sorted = sorted(server), sorted(client)
    if not server_sorted or not client_sorted:
        return None
    sample = _spread(client_sorted, SAMPLE)
    shifts = {
        s - c
        for s in _spread(server_sorted, PAIRS)
        for c in _spread(client_sorted, PAIRS)
    }
    scored = [(_score(server_sorted, sample, d, tolerance), d) for d in shifts]
    best = max(score for score, _ in scored)
    winners = [d for score, d in scored if score == best]
    offset = median_p95(winners)[0]
    assert offset is not None
    return Alignment(offset, best, len(sample))
