"""Numbers in sentences and cells: rounded like Rally's tables.

Numbers are rounded like Rally's ``Table._round`` (``round(x, 3)``, ``n/a``
when there is no value) and success like ``MainStatsTable`` (``"%.1f%%"``).
"""

from __future__ import annotations

NA = "n/a"  # Rally's cell for no value
INDENT = "  "  # a child row's or a wrapped line's indent in the terminal report


def format_number(value: float | None) -> str:
    """Format a duration the way Rally's ``Table._round`` rounds it."""
    return "n/a" if value is None else str(round(value, 3))


def format_ms(seconds: float | None, digits: int = 1, missing: str = "-") -> str:
    """Seconds as milliseconds with ``digits`` decimals, ``missing`` for None."""
    return missing if seconds is None else f"{seconds * 1000:.{digits}f}"


def format_success(value: float | None) -> str:
    """Format a success fraction like ``MainStatsTable`` (e.g. ``100.0%``)."""
    return "n/a" if value is None else "%.1f%%" % (value * 100)


def format_p(value: float | None) -> str:
    """A p-value with 3 significant digits; empty when no test was made."""
    return "" if value is None else f"{value:.3g}"
