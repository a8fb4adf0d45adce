"""A traced run's files: ``--trace``'s spec and where its traces are kept.

run.json's ``options.trace`` records the spec as ``--trace`` took it
(:func:`parse_spec` reads it back into a :class:`TraceSpec`); a traced run's
traces, copied out of its redis before redis stops
(:mod:`rally_keystone_perf.deploy.tracing.trace_store`), are one JSON line
each (``{"id", "events"}``) in :func:`traces_file`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rally_keystone_perf.layout.rundir import RunDir

TRACES_DIR = "traces"
TRACES_FILE = "traces.jsonl.gz"
DEFAULT_SLOWEST = 5  # sample:P reports this many slowest traced iterations


@dataclass(frozen=True)
class TraceSpec:
    """What ``--trace`` asked for: which iterations carry a trace, which to show.

    ``slowest:N`` traces every iteration and the report breaks down the N
    slowest of each workload; ``sample:P`` traces a fraction P of them
    (spread evenly without a period over the iterations) and shows the 5 slowest traced.
    """

    fraction: float  # of the iterations whose requests carry trace headers
    slowest: int  # traced iterations the report breaks down, per workload

    @property
    def text(self) -> str:
        """The spec as ``--trace`` takes it."""
        if self.fraction == 1.0:
            return f"slowest:{self.slowest}"
        return f"sample:{self.fraction:g}"


def parse_spec(text: str) -> TraceSpec:
    """``slowest:N`` (N >= 1) or ``sample:P`` (0 < P <= 1, or a percentage).

    :raises ValueError: anything else, saying what is expected.
    """
    kind, _, value = text.partition(":")
    if kind == "slowest" and value.isdigit() and int(value) >= 1:
        return TraceSpec(1.0, int(value))
    if kind == "sample":
        fraction = _fraction(value)
        if fraction is not None and 0 < fraction <= 1:
            return TraceSpec(fraction, DEFAULT_SLOWEST)
        raise ValueError(f"sample:P takes 0 < P <= 1 (or 1%-100%), got {text!r}")
    raise ValueError(
        f"expected slowest:N or sample:P (e.g. slowest:5, sample:0.1), got {text!r}"
    )


def _fraction(value: str) -> float | None:
    try:
        return float(value[:-1]) / 100 if value.endswith("%") else float(value)
    except ValueError:
        return None


def traces_file(run: RunDir) -> Path:
    """Where a run's collected traces are."""
    return run.root / TRACES_DIR / TRACES_FILE
