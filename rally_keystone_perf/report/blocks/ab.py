"""The A/B page as a document: the sides, the rounds, the estimates and
verdicts (:mod:`rally_keystone_perf.report.figures.ab`).

Per workload the rounds (their order, each side's median, p95, throughput
and server CPU per iteration, the round's cost ratio B/A of the median),
then per measure the estimate over the rounds with its interval and the
verdict; the instruction counts when the A/B took them. Printed for the
terminal and as markdown, and its data as JSON (:func:`data`, the
``rally-keystone-perf/ab`` document, version 1).
"""

from __future__ import annotations

from typing import Any

from rally_keystone_perf.layout.counts import STATEMENT_KINDS
from rally_keystone_perf.report.blocks.model import (
    AS_IS,
    FLUSH,
    Block,
    Document,
    Heading,
    Lines,
    Table,
    columns,
    pick,
)
from rally_keystone_perf.report.figures import ab, verdicts
from rally_keystone_perf.report.figures.ab import AbPage
from rally_keystone_perf.report.figures.instructions import InstructionRow

ROUND_COLUMNS = columns(
    "round; order:text; A median(s):seconds; B median(s):seconds; median B/A:fixed3",
    "A p95(s):seconds; B p95(s):seconds; A iter/s:fixed2; B iter/s:fixed2",
    "A CPU/iter(ms):ms; B CPU/iter(ms):ms; failed A/B",
)
ESTIMATE_COLUMNS = columns(
    "measure:text; B cost / A:fixed3; interval:text:range; rounds; verdict:text"
)
NOTE = (
    "rounds taken in turns (AB BA BA AB ...); each round's figures are its "
    "iterations' median, p95, throughput and the server's CPU per iteration "
    "(CPU/iter); "
    "the estimate is the geometric mean of the rounds' cost ratios (B over A; "
    "A over B for throughput: above 1, B is slower) with a Student t interval "
    "on their logarithms; p95 is shown, not judged"
)


def round_table(workload: ab.AbWorkload) -> Table:
    """A row per round of ``workload``."""
    rows = [
        [p.round_no, p.order.upper(), p.a.median, p.b.median, p.cost_ratio(ab.MEDIAN)]
        + [p.a.p95, p.b.p95, p.a.throughput, p.b.throughput]
        + [p.a.server_cpu, p.b.server_cpu, f"{p.a.failures}/{p.b.failures}"]
        for p in workload.pairs
    ]
    return Table(ROUND_COLUMNS, rows, stacked=True)


def estimate_table(workload: ab.AbWorkload, confidence: float) -> Table:
    """A row per measure: the estimate, its interval and the verdict."""
    rows = []
    for measure in ab.MEASURES:
        found = workload.estimate(measure, confidence)
        said = verdicts.describe(verdicts.judge(found))
        rows.append([measure, found.ratio, (found.low, found.high), found.rounds, said])
    return Table(ESTIMATE_COLUMNS, rows)


def instruction_lines(page: AbPage, position: int) -> list[str]:
    """One workload's instructions per request on each side and B/A; its SQL
    statements per request when they were counted."""
    row = page.instructions.get(position)
    if row is None:
        why = page.not_counted.get(position)
        return [f"instructions per request: not counted: {why}"] if why else []
    ratio = "-" if row.ratio is None else f"{row.ratio:.4f}"
    spread = max(row.spread_a or 0.0, row.spread_b or 0.0)
    a, b = ("-" if v is None else f"{v / 1e6:.3f}M" for v in (row.a, row.b))
    lines = [
        f"instructions per request (callgrind): A {a}, "
        f"B {b}, B/A {ratio} (layouts within {spread:.2%})"
    ]
    if row.statements_a is not None or row.statements_b is not None:
        a, b = (statement_counts(s) for s in (row.statements_a, row.statements_b))
        lines.append(f"SQL statements per request: A {a}; B {b}")
    return lines


def statement_counts(found: dict[str, float] | None) -> str:
    """``64 reads, 0 writes (+64 transaction control, 0 PRAGMA and other)``."""
    if found is None:
        return "not counted"
    n = {kind: found.get(kind, 0.0) for kind in STATEMENT_KINDS}
    return (
        f"{n['read']:g} reads, {n['write']:g} writes (+{n['transaction']:g} "
        f"transaction control, {n['pragma'] + n['other']:g} PRAGMA and other)"
    )


def counted_line(page: AbPage) -> list[str]:
    """What the instruction counts cover, when there are any."""
    if not page.instructions:
        return []
    rounds = page.counted.get("password_hash_rounds")
    return [
        f"instruction counts: {page.counted.get('process', 'one process')}; "
        f"bcrypt at {rounds} rounds (the hash is C code a Keystone change "
        "rarely touches); start-up and warm-up not counted; each side the mean "
        "of the same memory layouts; no drift: B/A is read as it is"
    ]


def _title(page: AbPage) -> str:
    done = max((len(w.pairs) for w in page.workloads), default=0)
    return (
        f"A/B {page.folder}: {page.task}, {done} of {page.rounds_planned} "
        f"rounds complete ({page.status})"
    )


def document(page: AbPage) -> Document:
    """The sides, then per workload its rounds and its estimates."""
    sides = [f"  {side.upper()}: {page.sides[side]}" for side in ("a", "b")]
    if page.sides.get("both"):
        sides.append(f"  both: {page.sides['both']}")
    blocks: list[Block] = [
        Lines(sides, AS_IS),
        Lines([NOTE, *counted_line(page)], FLUSH),
    ]
    for workload in page.workloads:
        blocks += [
            Heading(workload.label),
            round_table(workload),
            estimate_table(workload, page.confidence),
        ]
        lines = instruction_lines(page, workload.position)
        blocks += [Lines(lines, AS_IS)] if lines else []
    for row in page.counted_alone():
        said = instruction_lines(page, row.position)
        blocks += [Heading(row.scenario), Lines(said, AS_IS)]
    return Document(_title(page), blocks, level=0, data=data(page))


def _side(figures: ab.SideRound) -> dict[str, Any]:
    return pick(
        figures,
        "median p95 throughput server_cpu_per_iteration=server_cpu",
        "iterations failures",
    )


def _estimate(found: verdicts.Estimate) -> dict[str, Any]:
    said = verdicts.judge(found)
    return pick(found, "cost_ratio=ratio low high confidence rounds spread") | {
        "verdict": verdicts.describe(said),
        "call": said.call,
    }


def _counts(row: InstructionRow | None) -> dict[str, Any] | None:
    if row is None:
        return None
    return pick(row, "a b ratio spread_a spread_b statements_a statements_b")


def _workload(page: AbPage, w: ab.AbWorkload) -> dict[str, Any]:
    return {
        "scenario": w.scenario,
        "runner": w.runner,
        "rounds": [
            {"round": p.round_no, "order": p.order} | {"a": _side(p.a), "b": _side(p.b)}
            for p in w.pairs
        ],
        "estimates": {
            m: _estimate(w.estimate(m, page.confidence)) for m in ab.MEASURES
        },
        "instructions_per_request": _counts(page.instructions.get(w.position)),
    }


def data(page: AbPage) -> dict[str, Any]:
    """The A/B as a JSON document (``rally-keystone-perf/ab``, version 1)."""
    counted: list[dict[str, Any]] = [
        {
            "scenario": row.scenario,
            "runner": None,
            "rounds": [],
            "estimates": None,
            "instructions_per_request": _counts(row),
        }
        for row in page.counted_alone()
    ]
    return (
        {"schema": "rally-keystone-perf/ab", "version": 1}
        | pick(page, "folder task status rounds_planned sides")
        | {
            "workloads": [_workload(page, w) for w in page.workloads] + counted,
            "instruction_counts": dict(page.counted) or None,
        }
    )
