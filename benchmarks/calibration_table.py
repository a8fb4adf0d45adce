"""The gate calibration's verdicts and table (:mod:`benchmarks.ab_calibration`).

Each A/B of the calibration is gated each way of :data:`GATES`, as
``rally-keystone-perf gate AB_DIR --max-regression TOL --gate-on ON``
judges it: the median alone, the median and the server's CPU per
iteration together, the CPU alone, and, when the A/B's folder holds
instruction counts (``ab_calibration --count``), the ready-made jobs'
default, the median and the CPU with the instructions (at 1% more) and
the SQL statements (no query more). The table prints, per kind and gate,
how often the gate failed or refused an A/B.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

from prettytable import PrettyTable

from rally_keystone_perf.cli.report_commands import DEFAULT_INSTRUCTION_INCREASE
from rally_keystone_perf.layout.counts import COUNTS_FILE
from rally_keystone_perf.report import api
from rally_keystone_perf.report.figures import ab
from rally_keystone_perf.report.figures.instructions import CountLimits
from rally_keystone_perf.report.readers import ab_folder

KINDS = {"A/A": 0, "+10%": 10, "+20%": 20}
COUNTED = "median,cpu,instructions,statements"  # the ready-made jobs' default
# what the gate judges (gate --gate-on): each A/B is gated each way, the
# last only where the A/B's folder holds counts
GATES = ("median", "median,cpu", "cpu", COUNTED)
LIMITS = CountLimits(DEFAULT_INSTRUCTION_INCREASE, 0)


def outcome(result: Any) -> str:
    """ERROR (refused: the rounds cannot say), FAIL or PASS."""
    return "ERROR" if result.errors else "PASS" if result.passed else "FAIL"


def judged(folder: Path, tolerance: float) -> dict[str, Any]:
    """The gate's outcome each way and the validation's estimates of one A/B."""
    counted = (folder / COUNTS_FILE).is_file()
    gates = {
        on: outcome(
            api.gate_ab(
                folder,
                tolerance,
                0.05,
                LIMITS if on == COUNTED else CountLimits(),
                on=on.split(","),
            )
        )
        for on in GATES
        if on != COUNTED or counted
    }
    (workload,) = ab.workloads(ab_folder.load(folder))
    median = workload.estimate(ab.MEDIAN)
    cpu_a = [p.a.server_cpu for p in workload.pairs if p.a.server_cpu]
    return {
        "gate_failed": gates["median"] != "PASS",
        "gates": gates,
        "median": [median.ratio, median.low, median.high],
        "server_cpu_a": statistics.median(cpu_a) if cpu_a else None,
    }


def entries_of(path: Path) -> list[dict[str, Any]]:
    """The A/Bs done: the lines of ``calibration.jsonl``."""
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line]


def cpu_ratio(folder: Path) -> float | None:
    """B's server CPU per validation over A's, over the A/B's rounds."""
    if not folder.is_dir():
        return None
    (workload,) = ab.workloads(ab_folder.load(folder))
    return workload.estimate(ab.SERVER_CPU).ratio


def _not_passed(entries: list[dict[str, Any]], on: str) -> str:
    """``failed+refused of n`` for one gate (older lines: the median's)."""
    said = [e.get("gates", {}).get(on) for e in entries]
    if on == "median":
        said = [
            s or ("FAIL" if e["gate_failed"] else "PASS")
            for s, e in zip(said, entries, strict=True)
        ]
    if None in said:
        return "-"
    return f"{said.count('FAIL')}+{said.count('ERROR')} of {len(said)}"


def _regated(work: Path, entry: dict[str, Any], tolerance: float) -> dict[str, Any]:
    """An A/B's line, gated again from its folder when it is there: by
    this code, at ``tolerance``."""
    folder = work / f"ab-{entry['index'] + 1:02d}"
    if not (folder / "ab.json").is_file():
        return entry
    return entry | {"gates": judged(folder, tolerance)["gates"]}


def table(work: Path, tolerance: float) -> PrettyTable:
    """Per kind: A/Bs, each gate's failures and refusals, intervals
    excluding 1, widths, the neighbour's share, minutes."""
    found = PrettyTable(
        [
            "kind",
            "A/Bs",
            *(f"--gate-on {on}: failed+refused" for on in GATES),
            "interval excludes no change",
            "mean estimate",
            "median 95% CI width",
            "server CPU B/A",
            "neighbour on",
            "min per A/B",
        ],
        align="r",
    )
    found.title = f"gate --max-regression {tolerance:.0%}"
    entries = [
        _regated(work, e, tolerance) for e in entries_of(work / "calibration.jsonl")
    ]
    for kind in KINDS:
        mine = [e for e in entries if e["kind"] == kind]
        if not mine:
            continue
        ratios = [e["median"] for e in mine]
        excludes = sum(low > 1 or high < 1 for _, low, high in ratios)
        cpu = [cpu_ratio(work / f"ab-{e['index'] + 1:02d}") for e in mine]
        shares = [e["neighbour_on"] for e in mine if "neighbour_on" in e]
        found.add_row(
            [
                kind,
                len(mine),
                *(_not_passed(mine, on) for on in GATES),
                f"{excludes} of {len(mine)}",
                f"{statistics.mean(r for r, _, _ in ratios) - 1:+.1%}",
                f"{statistics.median(high - low for _, low, high in ratios):.1%}",
                f"{statistics.mean(c for c in cpu if c) - 1:+.1%}" if any(cpu) else "-",
                f"{statistics.mean(shares):.0%}" if shares else "-",
                f"{statistics.mean(e['minutes'] for e in mine):.1f}",
            ]
        )
    return found
