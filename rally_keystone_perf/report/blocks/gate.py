"""A gate result (:class:`rally_keystone_perf.report.figures.gate.GateResult`)
as a document: a table of every check, a line per refused or failed
check, the headline (:func:`headline`, the line ``gate`` ends with); its
data the JSON document (schema ``rally-keystone-perf/gate`` version 1,
figures unrounded). CI systems read it as JUnit XML
(:func:`rally_keystone_perf.report.writers.junit.junit_xml`).
"""

from __future__ import annotations

from typing import Any

from rally_keystone_perf.report.blocks.model import (
    AS_IS,
    Block,
    Cell,
    Column,
    Document,
    Lines,
    Table,
    Value,
    columns,
    pick,
)
from rally_keystone_perf.report.figures import instructions
from rally_keystone_perf.report.figures.gate import SKIP, Check, GateResult

GATE_SCHEMA = "rally-keystone-perf/gate"
GATE_SCHEMA_VERSION = 1
SUCCESS = "success rate"
COLUMNS = columns(
    "workload:text; criterion:text; status:text; baseline:seconds; current:seconds",
    Column("change", fmt="change", missing=""),
    "p:p",
)


def _figure(check: Check, value: float | None) -> Cell:
    if check.criterion == SUCCESS:
        return Value(value, "success")
    if check.criterion == instructions.CRITERION and value is not None:
        return Value(value, "millions")
    if check.criterion == instructions.STATEMENTS and value is not None:
        return Value(value, "general")
    return value if check.baseline is not None else ""


def check_row(check: Check) -> list[Cell]:
    """One check's cells, in :data:`COLUMNS` order: a success rate's change
    in percentage points, the instruction counts' finer (no drift), the
    statements' as a number of statements."""
    fmt = {
        SUCCESS: "points",
        instructions.CRITERION: "change2",
        instructions.STATEMENTS: "difference",
    }
    return [
        *(check.workload, check.criterion, check.status),
        *(_figure(check, check.baseline), _figure(check, check.current)),
        Value(check.change, fmt.get(check.criterion, "change")),
        check.p_value,
    ]


def headline(result: GateResult) -> str:
    """``gate PASSED|FAILED: n of m checks failed ...``."""
    failed = len(result.failures)
    skipped = sum(1 for check in result.checks if check.status == SKIP)
    verdict = "PASSED" if result.passed else "FAILED"
    refused = ""
    if result.errors:
        count = len(result.errors)
        verdict = "ERROR"
        why = (
            "(achieved concurrency differs from the baseline's by more than 10%; "
            "--allow-concurrency-mismatch compares anyway)"
            if all(c.criterion.startswith("achieved ") for c in result.errors)
            else "(the ERROR lines say why)"
        )
        refused = f"{count} workload{'' if count == 1 else 's'} not comparable {why}, "
    return (
        f"gate {verdict}: {refused}{failed} of {len(result.checks)} checks failed, "
        f"{skipped} skipped (max regression {result.max_regression * 100:g}%, "
        f"alpha {result.alpha:g})"
    )


def data(result: GateResult) -> dict[str, Any]:
    """The JSON document of a gate result (unrounded figures)."""
    return {
        "schema": GATE_SCHEMA,
        "version": GATE_SCHEMA_VERSION,
        "passed": result.passed,
        "not_comparable": [check.workload for check in result.errors],
        "max_regression": result.max_regression,
        "alpha": result.alpha,
        "checks": [
            pick(c, "workload criterion status baseline current change p_value message")
            for c in result.checks
        ],
    }


def document(result: GateResult) -> Document:
    """The checks, a line per refused then per failed check (a list in
    markdown), the headline (bold in markdown); no title."""
    failures = [
        f"{c.status} {c.workload}: {c.criterion}: {c.message}"
        for c in [*result.errors, *result.failures]
    ]
    blocks: list[Block] = [
        Table(COLUMNS, [check_row(check) for check in result.checks]),
        Lines(failures, AS_IS, bullets=True),
        Lines([headline(result)], AS_IS, strong=True),
    ]
    return Document("", blocks, level=None, data=data(result))
