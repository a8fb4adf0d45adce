"""An A/B in every format: the sides, the rounds, the estimates and verdicts.

Per workload the rounds (their order, each side's median, p95, throughput
and server CPU per iteration, the round's cost ratio B/A of the median),
then per measure the estimate over the rounds with its interval and the
verdict (:mod:`rally_keystone_perf.report.figures.ab`).
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from rally_keystone_perf.report.figures import ab, verdicts
from rally_keystone_perf.report.figures.instructions import InstructionRow
from rally_keystone_perf.report.writers import common

WIDTH = 120
ROUND_HEADER = (
    "round",
    "order",
    "A median(s)",
    "B median(s)",
    "median B/A",
    "A p95(s)",
    "B p95(s)",
    "A iter/s",
    "B iter/s",
    "A CPU/iter(ms)",
    "B CPU/iter(ms)",
    "failed A/B",
)
ESTIMATE_HEADER = ("measure", "B cost / A", "interval", "rounds", "verdict")
LEFT = ("order", "measure", "interval", "verdict")
NOTE = (
    "rounds taken in turns (AB BA BA AB ...); each round's figures are its "
    "iterations' median, p95, throughput and the server's CPU per iteration "
    "(CPU/iter); "
    "the estimate is the geometric mean of the rounds' cost ratios (B over A; "
    "A over B for throughput: above 1, B is slower) with a Student t interval "
    "on their logarithms; p95 is shown, not judged"
)


@dataclass(frozen=True)
class AbPage:
    """What an A/B document shows."""

    folder: str
    task: str
    status: str
    rounds_planned: int
    sides: dict[str, str]  # side -> its options, as one line
    workloads: Sequence[ab.AbWorkload]
    confidence: float = verdicts.CONFIDENCE
    # --instructions: counts by workload position, and what they cover
    instructions: Mapping[int, InstructionRow] = field(default_factory=dict)
    counted: Mapping[str, Any] = field(default_factory=dict)


def side_texts(options: dict[str, dict[str, Any]]) -> dict[str, str]:
    """Each side's launch options that differ from the other's, on one line;
    the options both share under ``"both"``."""
    a, b = options.get("a", {}), options.get("b", {})
    keys = sorted(set(a) | set(b))
    differ = [k for k in keys if a.get(k) != b.get(k)]
    texts = {
        side: ", ".join(f"{k} {values[k]}" for k in differ if _said(k, values, other))
        or "as the other"
        for side, values, other in (("a", a, b), ("b", b, a))
    }
    shown = [k for k in keys if k not in differ and a.get(k) not in (None, False)]
    texts["both"] = ", ".join(f"{k} {a[k]}" for k in shown)
    return texts


def _said(key: str, values: dict[str, Any], other: dict[str, Any]) -> bool:
    """Whether a differing option is shown for a side: a cloud side records
    its target alone, so the other side's unset options are not news."""
    if key not in values:
        return False
    return key in other or values[key] not in (None, False)


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def round_rows(workload: ab.AbWorkload) -> list[list[str]]:
    """A row per round of ``workload``."""
    return [
        [
            str(p.round_no),
            p.order.upper(),
            common.format_number(p.a.median),
            common.format_number(p.b.median),
            "-" if (r := p.cost_ratio(ab.MEDIAN)) is None else f"{r:.3f}",
            common.format_number(p.a.p95),
            common.format_number(p.b.p95),
            _rate(p.a.throughput),
            _rate(p.b.throughput),
            common.format_ms(p.a.server_cpu),
            common.format_ms(p.b.server_cpu),
            f"{p.a.failures}/{p.b.failures}",
        ]
        for p in workload.pairs
    ]


def _interval(found: verdicts.Estimate) -> str:
    if found.low is None or found.high is None:
        return "-"
    return f"{found.low:.3f} - {found.high:.3f}"


def estimate_rows(workload: ab.AbWorkload, confidence: float) -> list[list[str]]:
    """A row per measure: the estimate, its interval and the verdict."""
    rows = []
    for measure in ab.MEASURES:
        found = workload.estimate(measure, confidence)
        ratio = "-" if found.ratio is None else f"{found.ratio:.3f}"
        rows.append(
            [
                measure,
                ratio,
                _interval(found),
                str(found.rounds),
                verdicts.describe(verdicts.judge(found)),
            ]
        )
    return rows


def _millions(value: float | None) -> str:
    return "-" if value is None else f"{value / 1e6:.3f}M"


def instruction_line(page: AbPage, position: int) -> str | None:
    """One workload's instructions per request on each side and B/A."""
    row = page.instructions.get(position)
    if row is None:
        return None
    ratio = "-" if row.ratio is None else f"{row.ratio:.4f}"
    spread = max(row.spread_a or 0.0, row.spread_b or 0.0)
    return (
        f"instructions per request (callgrind): A {_millions(row.a)}, "
        f"B {_millions(row.b)}, B/A {ratio} (layouts within {spread:.2%})"
    )


def counted_alone(page: AbPage) -> list[InstructionRow]:
    """The counted workloads no complete round timed (``--rounds 0``)."""
    timed = {w.position for w in page.workloads}
    return [row for pos, row in sorted(page.instructions.items()) if pos not in timed]


def counted_line(page: AbPage) -> str | None:
    """What the instruction counts cover, when there are any."""
    if not page.instructions:
        return None
    rounds = page.counted.get("password_hash_rounds")
    return (
        f"instruction counts: {page.counted.get('process', 'one process')}; "
        f"bcrypt at {rounds} rounds (the hash is C code a Keystone change "
        "rarely touches); start-up and warm-up not counted; each side the mean "
        "of the same memory layouts; no drift: B/A is read as it is"
    )


def _heading(page: AbPage) -> list[str]:
    done = max((len(w.pairs) for w in page.workloads), default=0)
    lines = [
        f"A/B {page.folder}: {page.task}, {done} of {page.rounds_planned} "
        f"rounds complete ({page.status})"
    ]
    lines += [f"  {side.upper()}: {page.sides[side]}" for side in ("a", "b")]
    if page.sides.get("both"):
        lines.append(f"  both: {page.sides['both']}")
    return lines


def write_text(page: AbPage, stream: TextIO) -> None:
    """The sides, then per workload its rounds and its estimates."""
    parts = _heading(page) + textwrap.wrap(NOTE, WIDTH)
    parts += textwrap.wrap(counted_line(page) or "", WIDTH)
    for workload in page.workloads:
        parts.append(workload.label)
        parts.append(common.stacked_table(ROUND_HEADER, round_rows(workload), LEFT))
        estimates = estimate_rows(workload, page.confidence)
        parts.append(common.text_table(ESTIMATE_HEADER, estimates, LEFT).get_string())
        parts += [line for line in [instruction_line(page, workload.position)] if line]
    for row in counted_alone(page):
        parts += [row.scenario, str(instruction_line(page, row.position))]
    stream.write("\n".join(parts) + "\n")


def write_markdown(page: AbPage, stream: TextIO) -> None:
    """The same as markdown sections."""
    parts = [common.md_cell(line) for line in _heading(page)]
    parts.append(common.md_cell(NOTE))
    parts += [common.md_cell(line) for line in [counted_line(page)] if line]
    for workload in page.workloads:
        parts.append(f"### {common.md_cell(workload.label)}")
        parts.append(common.markdown_table(ROUND_HEADER, round_rows(workload), LEFT))
        estimates = estimate_rows(workload, page.confidence)
        parts.append(common.markdown_table(ESTIMATE_HEADER, estimates, LEFT))
        line = instruction_line(page, workload.position)
        parts += [common.md_cell(line)] if line else []
    for row in counted_alone(page):
        parts.append(f"### {common.md_cell(row.scenario)}")
        parts.append(common.md_cell(str(instruction_line(page, row.position))))
    stream.write("\n\n".join(parts) + "\n")


def _side(figures: ab.SideRound) -> dict[str, Any]:
    return {
        "median": figures.median,
        "p95": figures.p95,
        "throughput": figures.throughput,
        "server_cpu_per_iteration": figures.server_cpu,
        "iterations": figures.iterations,
        "failures": figures.failures,
    }


def _estimate(found: verdicts.Estimate) -> dict[str, Any]:
    said = verdicts.judge(found)
    return {
        "cost_ratio": found.ratio,
        "low": found.low,
        "high": found.high,
        "confidence": found.confidence,
        "rounds": found.rounds,
        "spread": found.spread,
        "verdict": verdicts.describe(said),
        "call": said.call,
    }


def document(page: AbPage) -> dict[str, Any]:
    """The A/B as a JSON document (``rally-keystone-perf/ab``, version 1)."""
    return {
        "schema": "rally-keystone-perf/ab",
        "version": 1,
        "folder": page.folder,
        "task": page.task,
        "status": page.status,
        "rounds_planned": page.rounds_planned,
        "sides": page.sides,
        "workloads": [
            {
                "scenario": w.scenario,
                "runner": w.runner,
                "rounds": [
                    {"round": p.round_no, "order": p.order}
                    | {"a": _side(p.a), "b": _side(p.b)}
                    for p in w.pairs
                ],
                "estimates": {
                    m: _estimate(w.estimate(m, page.confidence)) for m in ab.MEASURES
                },
                "instructions_per_request": _counts(page.instructions.get(w.position)),
            }
            for w in page.workloads
        ]
        + [
            {
                "scenario": row.scenario,
                "runner": None,
                "rounds": [],
                "estimates": None,
                "instructions_per_request": _counts(row),
            }
            for row in counted_alone(page)
        ],
        "instruction_counts": dict(page.counted) or None,
    }


def _counts(row: InstructionRow | None) -> dict[str, Any] | None:
    if row is None:
        return None
    return {
        "a": row.a,
        "b": row.b,
        "ratio": row.ratio,
        "spread_a": row.spread_a,
        "spread_b": row.spread_b,
    }


def write_json(page: AbPage, stream: TextIO) -> None:
    """Write :func:`document`."""
    common.write_json(document(page), stream)
