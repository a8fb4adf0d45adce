"""A traced iteration's spans as a waterfall: an inline SVG, no script.

Time runs left to right from the iteration's first span; each nesting
level of spans is a lane (Keystone's ``wsgi`` span on top, the policy
check under it, its SQL under that), each span a bar coloured by its
category (:data:`~rally_keystone_perf.report.readers.tracing.CATEGORIES`). A
request's spans run one after the other, so the bars of a lane do not
overlap. Hovering a bar shows its name, duration, node and what it did
(the SQL statement, the cache's outcome, the request).
"""

from __future__ import annotations

import collections
from collections.abc import Sequence

from rally_keystone_perf.report.readers.tracing import (
    SPAN_CATEGORY,
    Span,
    TracedIteration,
)
from rally_keystone_perf.report.writers.html.charts import (
    MARGINS,
    Line,
    legend,
    nice_axis,
    svg_head,
    tick_text,
)
from rally_keystone_perf.report.writers.html.kit import esc

CATEGORY_COLORS = {
    "sql": "#1f6fb4",
    "cache": "#2e7d32",
    "policy": "#e07b00",
    "password": "#6a3d9a",
    "token": "#c62828",
    "rest": "#9aa5b1",
}
CATEGORY_LABELS = {
    "sql": "SQL",
    "cache": "cache",
    "policy": "policy",
    "password": "hashing",
    "token": "token",
    "rest": "Keystone (wsgi, other)",
}
WIDTH = 760
LANE = 18  # pixels per nesting level
MAX_SPANS = 3000  # bars drawn per waterfall; more are left out, said so
TITLE_CHARS = 300


def depths(spans: Sequence[Span]) -> dict[str, int]:
    """Each span's nesting level: 0 for a root (its parent not a span)."""
    parent = {s.id: s.parent for s in spans}
    found: dict[str, int] = {}
    for span in spans:
        chain: list[str] = []
        current = span.id
        while current in parent and current not in found and len(chain) <= len(spans):
            chain.append(current)
            current = parent[current]
        level = found.get(current, -1)
        for item in reversed(chain):
            level += 1
            found[item] = level
    return found


def _what(span: Span) -> str:
    """What the span did, from its info."""
    info = span.info
    if "db" in info:
        return " ".join(str(info["db"].get("statement", "")).split())
    if "cache" in info:
        return f"cache get: {info['cache'].get('outcome', '?')}"
    request = info.get("request")
    if isinstance(request, dict):
        return f"{request.get('method', '')} {request.get('path', '')}"
    return ""


def _bar_title(span: Span) -> str:
    host = f" on {span.host}" if span.host else ""
    text = f"{span.name}: {span.duration * 1000:.2f} ms{host}. {_what(span)}"
    return text if len(text) <= TITLE_CHARS else text[: TITLE_CHARS - 3] + "..."


def _bars(spans: Sequence[Span], start: float, scale: float) -> list[str]:
    """One rect per span (at least half a pixel wide), lane by depth."""
    level = depths(spans)
    bars = []
    for span in spans:
        x = MARGINS[0] + (span.start - start) * 1000 * scale
        width = max(span.duration * 1000 * scale, 0.5)
        y = MARGINS[2] + level[span.id] * LANE
        color = CATEGORY_COLORS[SPAN_CATEGORY.get(span.name, "rest")]
        bars.append(
            f'<rect x="{x:.2f}" y="{y}" width="{width:.2f}" height="{LANE - 3}" '
            f'fill="{color}"><title>{esc(_bar_title(span))}</title></rect>'
        )
    return bars


def _lane_labels(spans: Sequence[Span]) -> list[str]:
    """Each lane's most frequent span name (``+`` when it holds others)."""
    level = depths(spans)
    names: dict[int, collections.Counter[str]] = collections.defaultdict(
        collections.Counter
    )
    for span in spans:
        names[level[span.id]][span.name] += 1
    labels = []
    for lane, counts in sorted(names.items()):
        text = counts.most_common(1)[0][0] + ("+" if len(counts) > 1 else "")
        y = MARGINS[2] + lane * LANE + LANE - 6
        labels.append(
            f'<text x="{MARGINS[0] - 6}" y="{y}" text-anchor="end">{esc(text)}</text>'
        )
    return labels


def _time_axis(bottom: int, high: float, ticks: Sequence[float]) -> list[str]:
    """The x axis in ms with its ticks and title."""
    plot_w = WIDTH - MARGINS[0] - MARGINS[1]
    parts = [f'<path class="axis" d="M{MARGINS[0]} {bottom}H{MARGINS[0] + plot_w}"/>']
    for tick in ticks:
        x = MARGINS[0] + tick / high * plot_w
        parts.append(
            f'<path class="axis" d="M{x:.1f} {bottom}v5"/>'
            f'<text x="{x:.1f}" y="{bottom + 18}" text-anchor="middle">'
            f"{esc(tick_text(tick))}</text>"
        )
    parts.append(
        f'<text x="{MARGINS[0] + plot_w / 2:.1f}" y="{bottom + 36}" '
        'text-anchor="middle">ms since the iteration\'s first span</text>'
    )
    return parts


def waterfall(item: TracedIteration) -> str:
    """Iteration ``item``'s spans as an SVG (empty without spans)."""
    if not item.spans:
        return ""
    shown = sorted(item.spans, key=lambda s: s.start)[:MAX_SPANS]
    start = shown[0].start
    end = max(s.stop for s in shown)
    _, high, ticks = nice_axis(0.0, max((end - start) * 1000, 0.001))
    scale = (WIDTH - MARGINS[0] - MARGINS[1]) / high
    lanes = max(depths(shown).values()) + 1
    bottom = MARGINS[2] + lanes * LANE + 4
    height = bottom + MARGINS[3]
    left_out = len(item.spans) - len(shown)
    more = f", the first {MAX_SPANS} of {len(item.spans)} spans" if left_out else ""
    title = (
        f"iteration #{item.number}: {item.duration * 1000:.1f} ms on the client, "
        f"{item.breakdown.server * 1000:.1f} ms in Keystone{more}"
    )
    keys = [
        Line(CATEGORY_LABELS[c], (), color, scatter=True)
        for c, color in CATEGORY_COLORS.items()
    ]
    parts = [
        *svg_head(title, WIDTH, height, "plot waterfall"),
        *legend(keys),
        *_lane_labels(shown),
        *_bars(shown, start, scale),
        *_time_axis(bottom, high, ticks),
        "</svg>",
    ]
    return "\n".join(parts)
