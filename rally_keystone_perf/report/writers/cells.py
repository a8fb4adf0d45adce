"""How a table's values are written in the text formats: one place.

A column (:class:`rally_keystone_perf.report.blocks.model.Column`) names
one of :data:`FORMATS`; :func:`cell` writes a value with it. Text is
written as it is, whatever the column's format.
"""

from __future__ import annotations

from collections.abc import Callable

from rally_keystone_perf.report.writers.common import format_number, format_success

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


def _interval(value: object) -> str:
    """A ``(low, high)`` ratio interval: ``0.84-1.18x``."""
    if not isinstance(value, tuple) or len(value) != 2 or None in value:
        return MISSING
    low, high = (number(end) for end in value)
    return f"{low:.2f}-{high:.2f}x"


FORMATS: dict[str, Callable[[object], str]] = {
    "plain": lambda v: MISSING if v is None else str(v),
    "seconds": lambda v: format_number(number(v)),
    "success": lambda v: format_success(number(v)),
    "count": lambda v: str(int(number(v) or 0)),
    "rate": _or_missing(lambda v: f"{v:.1f}"),
    "ratio": _or_missing(lambda v: f"{v:.2f}x"),
    "percent": _or_missing(lambda v: f"{v:.0%}"),
    "interval": _interval,
}


def cell(fmt: str, value: object) -> str:
    """``value`` written in format ``fmt``; text as it is.

    :raises KeyError: no such format.
    """
    if isinstance(value, str):
        return value
    return FORMATS[fmt](value)
