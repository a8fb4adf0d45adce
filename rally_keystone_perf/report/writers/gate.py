"""Writers of a :class:`~rally_keystone_perf.report.figures.gate.GateResult`.

``table`` (prettytable), ``markdown`` and ``json`` (schema
``rally-keystone-perf/gate`` version 1) for people and scripts, and JUnit
XML for CI systems: one ``<testsuite>`` per workload, one ``<testcase>`` per
criterion, ``<failure>`` for a failed, ``<error>`` for a refused (``ERROR``:
the workload's achieved concurrency differs from the baseline's) and
``<skipped>`` for a skipped check.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from typing import Any, TextIO

from rally_keystone_perf.report.figures import instructions
from rally_keystone_perf.report.figures.gate import ERROR, FAIL, SKIP, Check, GateResult
from rally_keystone_perf.report.writers import common
from rally_keystone_perf.report.writers.common import (
    format_number,
    format_p,
    format_success,
    markdown_table,
    text_table,
)

GATE_SCHEMA = "rally-keystone-perf/gate"
GATE_SCHEMA_VERSION = 1
COLUMNS = ("workload", "criterion", "status", "baseline", "current", "change", "p")
TEXT_COLUMNS = ("workload", "criterion", "status")
JUNIT_SUITES = "rally-keystone-perf gate"


def _figure(check: Check, value: float | None) -> str:
    if check.criterion == "success rate":
        return format_success(value)
    if check.criterion == instructions.CRITERION and value is not None:
        return f"{value / 1e6:.3f}M"
    return format_number(value) if check.baseline is not None else ""


def _change(check: Check) -> str:
    if check.change is None:
        return ""
    if check.criterion == "success rate":  # percentage points
        return f"{check.change * 100:+.1f} pt"
    if check.criterion == instructions.CRITERION:  # no drift: finer
        return f"{check.change * 100:+.2f}%"
    return f"{check.change * 100:+.1f}%"


def check_cells(check: Check) -> list[str]:
    """The formatted cells of one check, in :data:`COLUMNS` order."""
    return [
        check.workload,
        check.criterion,
        check.status,
        _figure(check, check.baseline),
        _figure(check, check.current),
        _change(check),
        format_p(check.p_value),
    ]


def headline(result: GateResult) -> str:
    """``gate PASSED|FAILED: n of m checks failed ...``."""
    failed, skipped = (
        len(result.failures),
        sum(1 for check in result.checks if check.status == SKIP),
    )
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


def _failure_lines(result: GateResult) -> list[str]:
    """One line per refused, then per failed check."""
    return [
        f"{c.status} {c.workload}: {c.criterion}: {c.message}"
        for c in [*result.errors, *result.failures]
    ]


def write_table(result: GateResult, stream: TextIO) -> None:
    """A prettytable of every check, the failures and the headline."""
    rows = [check_cells(check) for check in result.checks]
    table = text_table(COLUMNS, rows, TEXT_COLUMNS)
    lines = [table.get_string(), *_failure_lines(result), headline(result)]
    stream.write("\n".join(lines) + "\n")


def write_markdown(result: GateResult, stream: TextIO) -> None:
    """A markdown table of every check, the failures and the headline."""
    rows = [check_cells(check) for check in result.checks]
    lines = [markdown_table(COLUMNS, rows, TEXT_COLUMNS), ""]
    lines += [f"- {line}" for line in _failure_lines(result)]
    lines.append(f"**{headline(result)}**")
    stream.write("\n".join(lines) + "\n")


def gate_document(result: GateResult) -> dict[str, Any]:
    """The JSON document of a gate result (unrounded figures)."""
    return {
        "schema": GATE_SCHEMA,
        "version": GATE_SCHEMA_VERSION,
        "passed": result.passed,
        "not_comparable": [check.workload for check in result.errors],
        "max_regression": result.max_regression,
        "alpha": result.alpha,
        "checks": [
            {
                "workload": c.workload,
                "criterion": c.criterion,
                "status": c.status,
                "baseline": c.baseline,
                "current": c.current,
                "change": c.change,
                "p_value": c.p_value,
                "message": c.message,
            }
            for c in result.checks
        ],
    }


def write_json(result: GateResult, stream: TextIO) -> None:
    """The gate's JSON document."""
    common.write_json(gate_document(result), stream)


def _count(checks: Sequence[Check], status: str) -> str:
    return str(sum(1 for check in checks if check.status == status))


def _test_case(suite: ET.Element, workload: str, check: Check) -> None:
    """One check as a ``<testcase>`` of its workload's suite."""
    case = ET.SubElement(
        suite,
        "testcase",
        classname=f"rally-keystone-perf.gate.{workload}",
        name=check.criterion,
        time="0",
    )
    if check.status in (FAIL, ERROR):
        tag = "failure" if check.status == FAIL else "error"
        failure = ET.SubElement(case, tag, message=check.message)
        failure.text = check.message
    elif check.status == SKIP:
        ET.SubElement(case, "skipped", message=check.message)
    else:
        ET.SubElement(case, "system-out").text = check.message


def junit_xml(result: GateResult) -> str:
    """JUnit XML: a suite per workload, a test case per criterion."""
    suites = ET.Element(
        "testsuites",
        name=JUNIT_SUITES,
        tests=str(len(result.checks)),
        failures=_count(result.checks, FAIL),
        errors=_count(result.checks, ERROR),
        skipped=_count(result.checks, SKIP),
    )
    by_workload: dict[str, list[Check]] = {}
    for check in result.checks:
        by_workload.setdefault(check.workload, []).append(check)
    for workload, checks in by_workload.items():
        suite = ET.SubElement(
            suites,
            "testsuite",
            name=workload,
            tests=str(len(checks)),
            failures=_count(checks, FAIL),
            skipped=_count(checks, SKIP),
            errors=_count(checks, ERROR),
        )
        for check in checks:
            _test_case(suite, workload, check)
    ET.indent(suites)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        + ET.tostring(suites, encoding="unicode")
        + "\n"
    )
