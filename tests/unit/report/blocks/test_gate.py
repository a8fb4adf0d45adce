"""Tests for rally_keystone_perf.report.blocks.gate (table, markdown, json) and
rally_keystone_perf.report.writers.junit (JUnit XML)."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET

import pytest

from rally_keystone_perf.report.blocks import gate as gf
from rally_keystone_perf.report.figures import gate as g
from rally_keystone_perf.report.writers import registry
from rally_keystone_perf.report.writers.junit import junit_xml

W = "KeystonePerf.create_token c4"


def _result() -> g.GateResult:
    return g.GateResult(
        0.1,
        0.05,
        [
            g.Check(W, "sla failure_rate", g.PASS, None, None, None, None, "ok"),
            g.Check(W, "success rate", g.PASS, 1.0, 0.98, -0.02, 0.24, "49/50"),
            g.Check(
                W, "median keystone.create_token", g.FAIL, 0.5, 1.0, 1.0, 1e-9, "+100%"
            ),
            g.Check(W, "p95 total", g.SKIP, 0.5, None, None, None, "too few <&>"),
            g.Check("Other c2", "present", g.FAIL, None, None, None, None, "gone"),
        ],
    )


def _write(fmt: str) -> str:
    stream = io.StringIO()
    registry.write(registry.GATE, _result(), stream, fmt)
    return stream.getvalue()


def test_table_lists_checks_failures_and_headline() -> None:
    text = _write("table")
    assert (
        "| median keystone.create_token | FAIL   |      0.5 |     1.0 | +100.0% |"
        in (text)
    )
    assert "|   100.0% |   98.0% | -2.0 pt |  0.24 |" in text
    assert "|      0.5 |     n/a |         |       |" in text
    assert f"FAIL {W}: median keystone.create_token: +100%" in text
    assert "FAIL Other c2: present: gone" in text
    assert text.rstrip().endswith(
        "gate FAILED: 2 of 5 checks failed, 1 skipped (max regression 10%, alpha 0.05)"
    )


def test_markdown() -> None:
    text = _write("markdown")
    assert text.startswith("| workload | criterion | status |")
    assert "- FAIL Other c2: present: gone\n\n**gate FAILED: 2 of 5 checks" in text


def test_json_document_is_versioned_and_unrounded() -> None:
    document = json.loads(_write("json"))
    assert (document["schema"], document["version"]) == ("rally-keystone-perf/gate", 1)
    assert document["passed"] is False
    assert document["checks"][2]["p_value"] == 1e-9
    assert [c["status"] for c in document["checks"]] == [
        "PASS",
        "PASS",
        "FAIL",
        "SKIP",
        "FAIL",
    ]


def test_unknown_format() -> None:
    with pytest.raises(ValueError, match="unknown format"):
        registry.write(registry.GATE, _result(), io.StringIO(), "csv")


def test_junit_has_a_suite_per_workload_and_a_case_per_criterion() -> None:
    root = ET.fromstring(junit_xml(_result()))
    assert root.tag == "testsuites"
    assert (root.get("tests"), root.get("failures"), root.get("skipped")) == (
        "5",
        "2",
        "1",
    )
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == [W, "Other c2"]
    cases = suites[0].findall("testcase")
    assert [c.get("name") for c in cases] == [
        "sla failure_rate",
        "success rate",
        "median keystone.create_token",
        "p95 total",
    ]
    assert cases[2].find("failure").get("message") == "+100%"
    assert cases[3].find("skipped").get("message") == "too few <&>"  # escaped
    assert cases[0].find("failure") is None


def test_passing_headline() -> None:
    result = g.GateResult(0.25, 0.01, [_result().checks[0]])
    assert gf.headline(result) == (
        "gate PASSED: 0 of 1 checks failed, 0 skipped (max regression 25%, alpha 0.01)"
    )


def _refused() -> g.GateResult:
    message = "not comparable: concurrency 266 vs 1000 (peak iterations in flight)"
    refusal = g.Check(
        W, "achieved concurrency", g.ERROR, 1000, 266, -0.734, None, message
    )
    return g.GateResult(0.1, 0.05, [_result().checks[0], refusal])


def test_a_refusal_in_every_format() -> None:
    result = _refused()
    headline = gf.headline(result)
    assert headline.startswith("gate ERROR: 1 workload not comparable (achieved")
    assert "--allow-concurrency-mismatch" in headline
    table = io.StringIO()
    registry.write(registry.GATE, result, table, "table")
    assert f"ERROR {W}: achieved concurrency: not comparable: concurrency 266" in (
        table.getvalue()
    )
    assert "|     1000 |     266 | -73.4% |" in table.getvalue()
    document = io.StringIO()
    registry.write(registry.GATE, result, document, "json")
    parsed = json.loads(document.getvalue())
    assert (parsed["passed"], parsed["not_comparable"]) == (False, [W])
    root = ET.fromstring(junit_xml(result))
    assert (root.get("errors"), root.get("failures")) == ("1", "0")
    (suite,) = root.findall("testsuite")
    assert suite.get("errors") == "1"
    error = suite.findall("testcase")[1].find("error")
    assert error is not None and "266 vs 1000" in error.get("message")
