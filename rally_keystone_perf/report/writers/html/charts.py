"""Inline SVG plots: lines with markers, or dots, on round-numbered axes."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from rally_keystone_perf.metrics import finite
from rally_keystone_perf.report.writers.html.kit import esc

COLORS = ("#1f6fb4", "#e07b00", "#c62828", "#2e7d32", "#6a3d9a")
# the plot area's margins: left, right, top, bottom (pixels)
MARGINS = (64, 20, 48, 46)


@dataclass(frozen=True)
class Line:
    """One data series of a plot: a line with markers, or dots only."""

    label: str
    points: Sequence[tuple[float, float]]
    color: str
    scatter: bool = False
    markers: bool = True  # a marker (and its value) at each point of a line


def _plottable(points: Iterable[tuple[Any, Any]]) -> list[tuple[float, float]]:
    """The points whose coordinates are both finite numbers, as floats."""
    kept = []
    for x, y in points:
        try:
            if math.isfinite(x) and math.isfinite(y):
                kept.append((float(x), float(y)))
        except TypeError:  # None (Rally's n/a) or not a number
            continue
    return kept


def _step(span: float, count: int = 5) -> float:
    """A 1-2-2.5-5 tick step giving about ``count`` ticks over ``span``."""
    raw = span / count
    power = 10 ** math.floor(math.log10(raw))
    for factor in (1.0, 2.0, 2.5, 5.0):
        if raw <= factor * power:
            return factor * power
    return 10 * power


def tick_text(value: float) -> str:
    """A tick label without floating-point noise."""
    return f"{round(value, 9):.6g}"


def nice_axis(low: float, high: float) -> tuple[float, float, list[float]]:
    """A nice domain covering ``low..high`` and its ticks."""
    if high <= low:
        pad = abs(high) * 0.5 or 1.0
        low, high = low - pad if low < 0 else low, high + pad
    step = _step(high - low)
    low = math.floor(low / step + 1e-9) * step
    high = math.ceil(high / step - 1e-9) * step
    count = round((high - low) / step)
    return low, high, [low + i * step for i in range(count + 1)]


def _x_domain(
    xs: Sequence[float], x_ticks: Sequence[float] | None, x_min: float | None
) -> tuple[float, float, list[float]]:
    """The x axis' ends and ticks: at ``x_ticks``, else round numbers."""
    if x_ticks:
        ticks = sorted({float(t) for t in x_ticks if finite(t)})
        x_low, x_high = min(ticks), max(ticks)
        pad = (x_high - x_low) * 0.04 or 1.0  # markers off the axes
        return x_low - pad, x_high + pad, ticks
    start = min(xs) if x_min is None else min(x_min, min(xs))
    return nice_axis(start, max(xs))


@dataclass(frozen=True)
class _Frame:
    """Where the plot area lies in the picture and the data range it shows."""

    width: int
    height: int
    x_low: float
    x_high: float
    y_high: float

    @property
    def plot_w(self) -> float:
        return self.width - MARGINS[0] - MARGINS[1]

    @property
    def plot_h(self) -> float:
        return self.height - MARGINS[2] - MARGINS[3]

    def px(self, x: float) -> float:
        return MARGINS[0] + (x - self.x_low) / (self.x_high - self.x_low) * self.plot_w

    def py(self, y: float) -> float:
        return MARGINS[2] + self.plot_h - y / self.y_high * self.plot_h


def legend(data: Sequence[Line]) -> list[str]:
    """The legend on one line under the title."""
    parts = []
    lx = float(MARGINS[0])
    for line in data:
        if line.scatter:
            mark = (
                f'<path d="M{lx + 7:.1f} 34h0" stroke="{line.color}" '
                'stroke-width="7" stroke-linecap="round"/>'
            )
        else:
            mark = (
                f'<path d="M{lx:.1f} 34h16" stroke="{line.color}" stroke-width="2.5"/>'
            )
        parts.append(mark)
        parts.append(f'<text x="{lx + 20:.1f}" y="38">{esc(line.label)}</text>')
        lx += 34 + 7 * len(line.label)
    return parts


def _axes(
    frame: _Frame, y_ticks: Sequence[float], x_ticks: Sequence[float]
) -> list[str]:
    """Grid lines with the y ticks, the x ticks and the two axes."""
    left, upper = MARGINS[0], MARGINS[2]
    bottom = upper + frame.plot_h
    parts = []
    for tick in y_ticks:
        y = frame.py(tick)
        parts.append(
            f'<path class="grid" d="M{left} {y:.1f}H{left + frame.plot_w}"/>'
            f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">'
            f"{esc(tick_text(tick))}</text>"
        )
    last_label = -math.inf
    for tick in sorted(x_ticks):
        x = frame.px(tick)
        parts.append(f'<path class="axis" d="M{x:.1f} {bottom}v5"/>')
        if x - last_label >= 26:
            parts.append(
                f'<text x="{x:.1f}" y="{bottom + 18}" text-anchor="middle">'
                f"{esc(tick_text(tick))}</text>"
            )
            last_label = x
    parts.append(
        f'<path class="axis" d="M{left} {upper}V{bottom}H{left + frame.plot_w}" '
        'fill="none"/>'
    )
    return parts


def _labels(frame: _Frame, x_label: str, y_label: str) -> list[str]:
    """The axes' titles."""
    left, upper = MARGINS[0], MARGINS[2]
    return [
        f'<text x="{left + frame.plot_w / 2:.1f}" y="{frame.height - 8}" '
        f'text-anchor="middle">{esc(x_label)}</text>',
        f'<text transform="translate(16 {upper + frame.plot_h / 2:.1f}) rotate(-90)" '
        f'text-anchor="middle">{esc(y_label)}</text>',
    ]


def _dots(frame: _Frame, line: Line) -> str:
    """Dots on a half-pixel grid, each drawn once.

    Thousands of iterations make a path of the distinct positions only.
    """
    x_scale = 2 * frame.plot_w / (frame.x_high - frame.x_low)
    y_scale = 2 * frame.plot_h / frame.y_high
    x0 = 2 * MARGINS[0] - frame.x_low * x_scale
    y0 = 2 * (MARGINS[2] + frame.plot_h)
    grid = dict.fromkeys(
        (round(x0 + x * x_scale), round(y0 - y * y_scale)) for x, y in line.points
    )
    dots = "".join(f"M{x / 2:g} {y / 2:g}h0" for x, y in grid)
    return (
        f'<path d="{dots}" stroke="{line.color}" stroke-width="4.5" '
        'stroke-linecap="round" stroke-opacity="0.75" fill="none"/>'
    )


def _polyline(frame: _Frame, line: Line) -> list[str]:
    """A line through the points, with a marker (and its value) at each."""
    coords = [(frame.px(x), frame.py(y)) for x, y in line.points]
    polyline = " ".join(f"{x:.1f},{y:.1f}" for x, y in coords)
    parts = [
        f'<polyline points="{polyline}" fill="none" stroke="{line.color}" '
        'stroke-width="2.5"/>'
    ]
    if not line.markers:
        return parts
    for (x, y), (vx, vy) in zip(coords, line.points, strict=True):
        parts.append(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3.5" fill="{line.color}">'
            f"<title>{esc(line.label)}: {esc(tick_text(vx))}, "
            f"{esc(tick_text(vy))}</title></circle>"
        )
    return parts


def chart(
    title: str,
    x_label: str,
    y_label: str,
    lines: Sequence[Line],
    *,
    x_ticks: Sequence[float] | None = None,
    x_min: float | None = None,
    y_max: float | None = None,
    width: int = 560,
    height: int = 320,
) -> str:
    """An inline SVG plot of ``lines``; empty when there is no finite point.

    ``x_ticks`` puts the x ticks at those values (the concurrency levels);
    otherwise ticks are round numbers, from ``x_min`` when given. The y axis
    starts at 0 and ends at ``y_max`` or a round number above the data.
    """
    data = [
        Line(
            line.label, _plottable(line.points), line.color, line.scatter, line.markers
        )
        for line in lines
    ]
    points = [point for line in data for point in line.points]
    if not points:
        return ""
    x_low, x_high, ticks = _x_domain([x for x, _ in points], x_ticks, x_min)
    if y_max is not None:
        y_high, y_ticks = y_max, nice_axis(0.0, y_max)[2]
    else:
        top = max(y for _, y in points)
        _, y_high, y_ticks = nice_axis(0.0, top if top > 0 else 1.0)
    frame = _Frame(width, height, x_low, x_high, y_high)
    parts = [
        *svg_head(title, width, height),
        *legend(data),
        *_axes(frame, y_ticks, ticks),
        *_labels(frame, x_label, y_label),
    ]
    for line in data:
        if line.points:
            parts += [_dots(frame, line)] if line.scatter else _polyline(frame, line)
    parts.append("</svg>")
    return "\n".join(parts)


def svg_head(title: str, width: int, height: int, kind: str = "plot") -> list[str]:
    """An SVG drawing's opening: its size, its title as a tooltip and on top."""
    return [
        f'<svg class="{kind}" role="img" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}">',
        f"<title>{esc(title)}</title>",
        f'<text class="title" x="{MARGINS[0]}" y="18">{esc(title)}</text>',
    ]


def histogram_chart(
    title: str,
    x_label: str,
    edges: Sequence[float],
    stacks: Sequence[tuple[str, Sequence[int], str]],
    width: int = 560,
    height: int = 320,
) -> str:
    """Bars between ``edges``, each bin's ``stacks`` (label, counts, color)
    stacked from 0; empty when nothing was counted."""
    totals = [sum(counts[i] for _, counts, _ in stacks) for i in range(len(edges) - 1)]
    if not totals or max(totals) == 0:
        return ""
    x_low, x_high, x_ticks = nice_axis(edges[0], edges[-1])
    _, y_high, y_ticks = nice_axis(0.0, float(max(totals)))
    frame = _Frame(width, height, x_low, x_high, y_high)
    shown = [Line(label, [], color) for label, counts, color in stacks if any(counts)]
    parts = [
        *svg_head(title, width, height),
        *legend(shown),
        *_axes(frame, y_ticks, x_ticks),
        *_labels(frame, x_label, "count"),
    ]
    parts += _bars(frame, edges, stacks)
    parts.append("</svg>")
    return "\n".join(parts)


def _bars(
    frame: _Frame,
    edges: Sequence[float],
    stacks: Sequence[tuple[str, Sequence[int], str]],
) -> list[str]:
    """Each bin's stacked bars, each with its count as a tooltip."""
    parts = []
    for i, (low, high) in enumerate(zip(edges, edges[1:], strict=False)):
        base = 0
        x, right = frame.px(low), frame.px(high)
        for label, counts, color in stacks:
            if not counts[i]:
                continue
            top, bottom = frame.py(base + counts[i]), frame.py(base)
            parts.append(
                f'<rect x="{x:.1f}" y="{top:.1f}" '
                f'width="{max(right - x - 1, 1):.1f}" height="{bottom - top:.1f}" '
                f'fill="{color}"><title>{esc(label)}: {counts[i]} from '
                f"{esc(tick_text(low))} to {esc(tick_text(high))}</title></rect>"
            )
            base += counts[i]
    return parts
