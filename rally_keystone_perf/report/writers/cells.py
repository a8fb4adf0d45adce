"""How a table's values are written in the text formats: one place.

A column (:class:`rally_keystone_perf.report.blocks.model.Column`) names
one of :data:`FORMATS`; :func:`cell` writes a value with it (a
:class:`rally_keystone_perf.report.blocks.model.Value` with its own). Text
is written as it is, whatever the column's format.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable

from rally_keystone_perf.report.blocks.model import Value
from rally_keystone_perf.report.blocks.numbers import (
    format_ms,
    format_number,
    format_p,
    format_success,
)

MISSING = "-"


def number(value: object) -> float | None:
    """A cell's value as a number (None: none).

    :raises TypeError: neither a number nor None.
    """
    if value is None or isinstance(value, int | float):
        return None if value is None else float(value)
    raise TypeError(f"not a number: {value!r}")


def _or_missing(write: Callable[[float], str]) -> Callable[[object], str]:
    """``write`` for a number, :data:`MISSING` for None."""

    def written(value: object) -> str:
        found = number(value)
        return MISSING if found is None else write(found)

    return written


def _utc(timestamp: float) -> str:
    """A moment as ``2026-11-24 11:28:36`` (UTC)."""
    moment = datetime.datetime.fromtimestamp(timestamp, datetime.UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S")


def _reached(rate: object, asked: object) -> str:
    """The rate reached of the one asked: ``9.87 of 10``."""
    found, wanted = number(rate), number(asked)
    if found is None:
        return MISSING
    return f"{found:.2f}" + ("" if wanted is None else f" of {wanted:g}")


def _pair(write: Callable[[float, float], str]) -> Callable[[object], str]:
    """``write`` for a ``(low, high)`` pair, :data:`MISSING` for any other."""

    def written(value: object) -> str:
        if not isinstance(value, tuple) or len(value) != 2 or None in value:
            return MISSING
        low, high = (number(end) for end in value)
        assert low is not None and high is not None
        return write(low, high)

    return written


FORMATS: dict[str, Callable[[object], str]] = {
    "plain": lambda v: MISSING if v is None else str(v),
    # an int stays one: 1000, not 1000.0 (a count among seconds)
    "seconds": lambda v: format_number(v if isinstance(v, int) else number(v)),
    "success": lambda v: format_success(number(v)),
    "count": lambda v: str(int(number(v) or 0)),
    "rate": _or_missing(lambda v: f"{v:.1f}"),
    "ratio": _or_missing(lambda v: f"{v:.2f}x"),
    "percent": _or_missing(lambda v: f"{v:.0%}"),
    "fixed1": _or_missing(lambda v: f"{v:.1f}"),
    "fixed2": _or_missing(lambda v: f"{v:.2f}"),
    "fixed3": _or_missing(lambda v: f"{v:.3f}"),
    "general": _or_missing(lambda v: f"{v:g}"),
    "per second": _or_missing(lambda v: f"{v:.1f}/s"),
    "per second2": _or_missing(lambda v: f"{v:.2f}/s"),
    "utc": _or_missing(_utc),
    "ms": lambda v: format_ms(number(v)),
    "millions": _or_missing(lambda v: f"{v / 1e6:.3f}M"),
    "p": lambda v: format_p(number(v)),
    # a change: in percent (one or two decimals), in percentage points, as is
    "change": _or_missing(lambda v: f"{v * 100:+.1f}%"),
    "change2": _or_missing(lambda v: f"{v * 100:+.2f}%"),
    "points": _or_missing(lambda v: f"{v * 100:+.1f} pt"),
    "difference": _or_missing(lambda v: f"{v:+g}"),
    # (low, high) pairs: a ratio interval, an estimate's, seconds
    "interval": _pair(lambda low, high: f"{low:.2f}-{high:.2f}x"),
    "range": _pair(lambda low, high: f"{low:.3f} - {high:.3f}"),
    "reached": lambda v: _reached(*v) if isinstance(v, tuple) else MISSING,
    "span": _pair(lambda lo, hi: f"{lo:.3f}" if lo == hi else f"{lo:.3f}-{hi:.3f}"),
}


def cell(fmt: str, value: object, missing: str | None = None) -> str:
    """``value`` written in format ``fmt``; text as it is; None as
    ``missing`` when given.

    :raises KeyError: no such format.
    """
    if isinstance(value, str):
        return value
    if isinstance(value, Value):
        return cell(value.fmt, value.value, missing)
    if value is None and missing is not None:
        return missing
    return FORMATS[fmt](value)
