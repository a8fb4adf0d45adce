"""A gate result as JUnit XML, for CI systems: one ``<testsuite>`` per
workload, one ``<testcase>`` per criterion, ``<failure>`` for a failed,
``<error>`` for a refused (``ERROR``: the workload's achieved concurrency
differs from the baseline's) and ``<skipped>`` for a skipped check. The
gate's other formats are its document's
(:mod:`rally_keystone_perf.report.blocks.gate`).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence

from rally_keystone_perf.report.figures.gate import ERROR, FAIL, SKIP, Check, GateResult

JUNIT_SUITES = "rally-keystone-perf gate"


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
