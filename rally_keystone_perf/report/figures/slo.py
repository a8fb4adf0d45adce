"""A service-level objective, as ``capacity --slo`` takes it, and its verdict.

The text is a comma-separated list of clauses::

    p95<100ms,p99<=1s,success>=99.9%

- ``pNN<TIME`` or ``pNN<=TIME``: that percentile of the response time
  (open model: from each iteration's intended start) below the bound;
  ``NN`` from 1 to 99.99; ``TIME`` a number with ``ms`` or ``s``.
- ``success>=PCT%`` (or ``>``): the share of iterations that succeeded;
  a dropped iteration (``max_in_flight`` were in flight) is a failure.

At least one clause; each kind of clause at most once per percentile. A
clause that does not parse is named in the error. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rally_keystone_perf import metrics

_LATENCY = re.compile(
    r"p(?P<q>\d{1,2}(?:\.\d{1,2})?)(?P<op><=?)(?P<v>\d+(?:\.\d+)?)(?P<unit>ms|s)"
)
_SUCCESS = re.compile(r"success(?P<op>>=?)(?P<v>\d+(?:\.\d+)?)%")


class SloError(ValueError):
    """An SLO text that does not parse; the message names the clause."""


@dataclass(frozen=True)
class LatencyBound:
    """A percentile of the response time kept below a bound."""

    quantile: float  # 0.95 for p95
    seconds: float
    inclusive: bool = False  # <= instead of <

    def text(self) -> str:
        op = "<=" if self.inclusive else "<"
        return f"p{self.quantile * 100:g}{op}{self.seconds * 1000:g}ms"


@dataclass(frozen=True)
class SuccessBound:
    """The share of iterations that succeeded kept at or above a floor."""

    share: float  # 0.999 for 99.9%
    inclusive: bool = True  # >= instead of >

    def text(self) -> str:
        op = ">=" if self.inclusive else ">"
        return f"success{op}{self.share * 100:g}%"


@dataclass(frozen=True)
class Slo:
    """The clauses of one objective."""

    latency: tuple[LatencyBound, ...]
    success: SuccessBound | None

    def text(self) -> str:
        parts = [b.text() for b in self.latency]
        if self.success is not None:
            parts.append(self.success.text())
        return ",".join(parts)


def parse_slo(text: str) -> Slo:
    """The objective of ``text``.

    :raises SloError: naming the clause that does not parse, or repeats one.
    """
    latency: list[LatencyBound] = []
    success: SuccessBound | None = None
    clauses = [c.strip().replace(" ", "") for c in text.split(",")]
    if not any(clauses):
        raise SloError("an empty SLO: give at least one clause, e.g. p95<100ms")
    for clause in clauses:
        if found := _LATENCY.fullmatch(clause):
            bound = _latency(clause, found)
            if any(b.quantile == bound.quantile for b in latency):
                raise SloError(f"{clause!r}: p{found['q']} is bounded twice")
            latency.append(bound)
        elif found := _SUCCESS.fullmatch(clause):
            if success is not None:
                raise SloError(f"{clause!r}: success is bounded twice")
            share = round(float(found["v"]) / 100, 6)
            if not 0 < share <= 1:
                raise SloError(f"{clause!r}: a success share above 0% up to 100%")
            success = SuccessBound(share, inclusive=found["op"] == ">=")
        else:
            raise SloError(
                f"{clause!r} does not parse: expected pNN<TIME (ms or s) or "
                "success>=PCT%, e.g. p95<100ms,success>=99.9%"
            )
    return Slo(tuple(latency), success)


def _latency(clause: str, found: re.Match[str]) -> LatencyBound:
    quantile = round(float(found["q"]) / 100, 6)
    if not 0 < quantile < 1:
        raise SloError(f"{clause!r}: a percentile between p1 and p99.99")
    value = float(found["v"]) / (1000 if found["unit"] == "ms" else 1)
    if value <= 0:
        raise SloError(f"{clause!r}: a time bound above 0")
    return LatencyBound(quantile, value, inclusive=found["op"] == "<=")


def misses(slo: Slo, response: Sequence[float], failed: int) -> list[str]:
    """What of ``slo`` the iterations missed (empty: it is met).

    ``response``: the response times of the iterations that succeeded;
    ``failed``: the others (errors and drops).
    """
    found = []
    total = len(response) + failed
    ordered = sorted(response)
    for bound in slo.latency:
        value = metrics.percentile(ordered, bound.quantile) if ordered else None
        if (
            value is None
            or value > bound.seconds
            or (value == bound.seconds and not bound.inclusive)
        ):
            shown = "none succeeded" if value is None else f"{value * 1000:.1f} ms"
            found.append(f"{bound.text()}: {shown}")
    if slo.success is not None and total:
        share = len(response) / total
        floor = slo.success.share
        if share < floor or (share == floor and not slo.success.inclusive):
            found.append(f"{slo.success.text()}: {share:.2%}")
    return found
