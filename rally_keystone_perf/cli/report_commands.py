"""``report``, ``compare`` and ``gate``: Rally reports read back."""

from __future__ import annotations

import argparse
import io
from pathlib import Path
from typing import Any

from rally_keystone_perf.cli import arguments
from rally_keystone_perf.cli.common import (
    EXIT_ERROR,
    EXIT_OK,
    EXIT_SLA,
    echo,
    write_output,
)
from rally_keystone_perf.report import api
from rally_keystone_perf.report.blocks.gate import headline
from rally_keystone_perf.report.figures import ab_gate, machine
from rally_keystone_perf.report.figures.instructions import CountLimits
from rally_keystone_perf.report.readers.rally_json import ReportError
from rally_keystone_perf.report.writers import registry
from rally_keystone_perf.report.writers.junit import junit_xml
from rally_keystone_perf.report.writers.registry import GATE_FORMATS

# the least threshold doc/source/user/instruction-counts.rst advises
DEFAULT_INSTRUCTION_INCREASE = 0.01


def cmd_report(args: argparse.Namespace) -> int:
    """Print the statistics tables of Rally JSON reports.

    One table per workload with Rally's figures (min, median, p90, p95, max,
    avg, success, count) and the throughput under the run's configuration
    (mode, processes, threads, cache, db, hash rounds, concurrency, times).
    A run folder stands for its results/*.json. --combined: one table of
    every workload with its configuration as columns. --trends: each
    workload (matched by its configuration, as rally task trends does)
    followed across the runs under the folders given, oldest first, with
    the gate's verdict against the run before. --server-log FILE: a run
    against your own cloud (--os-cloud) takes the lines of the run from an
    access log copied from its Keystone, for the server-side table.
    """
    if args.server_log is not None:  # into the run folder, then reported
        if len(args.results) != 1 or not args.results[0].is_dir():
            raise ValueError("--server-log: give one run folder")
        for line in api.import_server_log(args.results[0], args.server_log):
            echo(line)
    buffer = io.StringIO()
    if args.trends:
        if args.combined:
            raise ValueError("--trends and --combined: choose one")
        api.trends(args.results, buffer, args.format)
    else:
        api.report(args.results, buffer, args.format, combine=args.combined)
    write_output(buffer.getvalue(), args.out)
    return EXIT_OK


def cmd_compare(args: argparse.Namespace) -> int:
    """Compare runs side by side per scenario, concurrency and atomic action.

    The first run is the baseline; each other run gets the ratio of medians and
    a verdict from a two-sided Mann-Whitney U test of the per-iteration
    durations ("faster"/"slower" only when p < alpha, else "not significant").
    A run is a Rally JSON report or a run folder (its results/*.json); runs of
    one configuration at several concurrency levels also give a
    latency-vs-concurrency series. A run whose workload reached a concurrency
    (peak iterations in flight; the rate for rps) more than 10% away from the
    baseline's is marked "not comparable" for it, unless
    --allow-concurrency-mismatch.
    """
    buffer = io.StringIO()
    runs = api.compare(
        [args.baseline, *args.others],
        buffer,
        args.format,
        alpha=args.alpha,
        allow_concurrency_mismatch=args.allow_concurrency_mismatch,
    )
    write_output(buffer.getvalue(), args.out)
    for line in machine.machine_lines(runs):
        echo(line)
    return EXIT_OK


def cmd_gate(args: argparse.Namespace) -> int:
    """Gate a run against a baseline: exit 0 pass, 2 fail, 1 unusable input.

    Fails when a workload's SLA failed, when its success rate dropped
    significantly (one-sided Fisher exact test), or when the median or p95 of
    any atomic action (or of the total) is worse than the baseline's by more
    than --max-regression with significance (one-sided Mann-Whitney U test
    against the baseline scaled by 1 + max regression; a seeded bootstrap for
    p95). A baseline workload missing from the current run fails too. A
    workload whose achieved concurrency (peak iterations in flight; the rate
    for rps) differs from the baseline's by more than 10% is not compared:
    exit 1, unless --allow-concurrency-mismatch. CURRENT and BASELINE are
    Rally JSON reports, run folders or Rally task UUIDs (looked up in
    --runs-dir, then in Rally's default database). CURRENT may instead be an
    A/B folder (rally-keystone-perf ab) and no --baseline: B is gated against
    A by round: a workload fails when B's median total is estimated more
    than --max-regression slower and its interval (Bonferroni over the
    workloads) lies wholly above no change; exit 1 when the rounds cannot
    say. With --max-instruction-increase, an A/B's workload also fails when
    B's instructions per request exceed A's by more than that; with
    --max-statement-increase, when B sends more than that many SQL queries
    per request more than A (ERROR, exit 1, when the A/B has no counts).
    """
    if api.is_ab_folder(args.current):
        return _gate_ab(args)
    for given in ("max_instruction_increase", "max_statement_increase"):
        if getattr(args, given) is not None:
            raise ReportError(
                f"gate: --{given.replace('_', '-')} judges an A/B folder's "
                "counts (ab --instructions), not two runs"
            )
    if args.gate_on and args.gate_on != ["median"]:
        raise ReportError(
            "gate: --gate-on judges an A/B folder's rounds and counts; two runs "
            "are gated on their medians and p95"
        )
    if args.baseline is None:
        raise ReportError("gate: --baseline is needed unless CURRENT is an A/B folder")
    run = api.gate(
        args.current,
        args.baseline,
        args.runs_dir,
        max_regression=args.max_regression,
        alpha=args.alpha,
        allow_concurrency_mismatch=args.allow_concurrency_mismatch,
    )
    echo(f"baseline: {run.baseline.label} ({run.baseline_path})")
    echo(f"current:  {run.current.label} ({run.current_path})")
    for line in machine.machine_lines([run.baseline, run.current]):
        echo(line)
    buffer = io.StringIO()
    registry.write(registry.GATE, run.result, buffer, args.format)
    if args.junit is not None:
        write_output(run.junit_xml(), args.junit)
    write_output(buffer.getvalue(), args.out)
    echo(run.headline())
    if run.result.errors:  # refused to compare: not a regression found
        return EXIT_ERROR
    return EXIT_OK if run.result.passed else EXIT_SLA


def gated_on(args: argparse.Namespace) -> tuple[list[str], CountLimits]:
    """What an A/B's gate judges: ``--gate-on`` (default: the median), and a
    count whenever its threshold is given; a count named without one gets
    :data:`DEFAULT_INSTRUCTION_INCREASE` or no statement more."""
    on = list(args.gate_on or ab_gate.DEFAULT_ON)
    thresholds = {
        "instructions": args.max_instruction_increase,
        "statements": args.max_statement_increase,
    }
    on += [name for name, given in thresholds.items() if given is not None]
    on = list(dict.fromkeys(on))
    instructions = thresholds["instructions"]
    statements = thresholds["statements"]
    return on, CountLimits(
        (DEFAULT_INSTRUCTION_INCREASE if instructions is None else instructions)
        if "instructions" in on
        else None,
        (0 if statements is None else statements) if "statements" in on else None,
    )


def _gate_ab(args: argparse.Namespace) -> int:
    """``gate AB_DIR``: B against A, round by round."""
    if args.baseline is not None:
        raise ReportError(
            f"gate: {args.current} is an A/B folder, gated against its own side "
            "A: drop --baseline"
        )
    on, limits = gated_on(args)
    result = api.gate_ab(
        Path(args.current), args.max_regression, args.alpha, limits, on
    )
    echo(f"A/B: {args.current}: side B gated against side A, round by round")
    buffer = io.StringIO()
    registry.write(registry.GATE, result, buffer, args.format)
    if args.junit is not None:
        write_output(junit_xml(result), args.junit)
    write_output(buffer.getvalue(), args.out)
    echo(headline(result))
    if result.errors:
        return EXIT_ERROR
    return EXIT_OK if result.passed else EXIT_SLA


def add_report_command(sub: Any) -> None:
    """``report``: tables from Rally reports."""
    report = arguments.add_command(
        sub, "report", cmd_report, "print tables from Rally JSON reports"
    )
    report.add_argument(
        "results",
        nargs="+",
        type=Path,
        metavar="RESULTS",
        help="Rally JSON reports (rally task report --json) or run folders",
    )
    report.add_argument(
        "--combined",
        action="store_true",
        help="one table for all: a row per workload with its configuration "
        "columns and the total's figures (table or markdown)",
    )
    report.add_argument(
        "--trends",
        action="store_true",
        help="follow each workload across the runs (reports, run folders, or "
        "folders of runs: every */results/*.json under them) by time, with "
        "median, p95, success, throughput and the gate's verdict (table, "
        "markdown, json or html)",
    )
    report.add_argument(
        "--server-log",
        type=Path,
        metavar="FILE",
        help="a run against your own cloud (--os-cloud): an access log copied "
        "from its Keystone (Apache combined with %%D, haproxy's httplog, "
        "uwsgi's default), its lines of the run taken into the run folder "
        "for the server-side table",
    )
    arguments.add_output_options(report)
    report.set_defaults(func=cmd_report)


def add_compare_command(sub: Any) -> None:
    """``compare``: runs against a baseline."""
    compare = arguments.add_command(
        sub,
        "compare",
        cmd_compare,
        "compare runs with a baseline, with statistical verdicts",
    )
    compare.add_argument(
        "baseline",
        type=Path,
        metavar="A",
        help="the baseline run: a Rally JSON report or a run folder",
    )
    compare.add_argument(
        "others",
        nargs="+",
        type=Path,
        metavar="B",
        help="runs to compare with the baseline (reports or run folders)",
    )
    arguments.add_alpha(compare, "the Mann-Whitney U test")
    arguments.add_mismatch_option(compare, 'default: its rows say "not comparable"')
    arguments.add_output_options(compare)
    compare.set_defaults(func=cmd_compare)


def add_gate_command(sub: Any) -> None:
    """``gate``: fail on a regression."""
    gate_cmd = arguments.add_command(
        sub, "gate", cmd_gate, "fail (exit 2) when a run regressed against a baseline"
    )
    gate_cmd.add_argument(
        "current",
        metavar="CURRENT",
        help="the run under test: a Rally JSON report, a run folder or a task "
        "UUID; or an A/B folder (rally-keystone-perf ab), B gated against A",
    )
    gate_cmd.add_argument(
        "--baseline",
        default=None,
        metavar="BASELINE",
        help="the reference run: a Rally JSON report, a run folder or a task "
        "UUID (needed unless CURRENT is an A/B folder)",
    )
    gate_cmd.add_argument(
        "--max-regression",
        type=arguments.percentage,
        default=0.10,
        metavar="PERCENT",
        help="tolerated slowdown of a median or p95, e.g. 10%% (default: 10%%)",
    )
    _add_gate_on(gate_cmd)
    arguments.add_alpha(gate_cmd, "the tests")
    arguments.add_mismatch_option(gate_cmd, "default: the gate refuses it and exits 1")
    gate_cmd.add_argument(
        "--junit",
        type=Path,
        default=None,
        metavar="FILE",
        help="also write JUnit XML (a test case per workload and criterion)",
    )
    arguments.add_output_options(gate_cmd, GATE_FORMATS)
    arguments.add_runs_dir(gate_cmd)
    gate_cmd.set_defaults(func=cmd_gate)


def _add_gate_on(parser: argparse.ArgumentParser) -> None:
    """``gate``'s choice of what an A/B is judged on, and the counts'
    thresholds."""
    parser.add_argument(
        "--gate-on",
        type=arguments.name_list(ab_gate.GATE_ON),
        default=None,
        metavar="WHAT,...",
        help="an A/B folder only: what each workload is judged on, of "
        f"{', '.join(ab_gate.GATE_ON)}: the median total and the server's CPU "
        "per iteration over the rounds (judged together: one whose rounds "
        "cannot say is skipped when the other can), the instructions and SQL "
        "statements per request (ab --instructions) (default: median, and "
        "each count whose --max-...-increase is given)",
    )
    parser.add_argument(
        "--max-instruction-increase",
        type=arguments.percentage,
        default=None,
        metavar="PERCENT",
        help="an A/B folder only: also fail a workload whose instructions per "
        "request (ab --instructions, counted under callgrind) on B exceed A's "
        "by more than this, e.g. 1%% (default: 1%% when --gate-on names "
        "instructions, else not judged)",
    )
    parser.add_argument(
        "--max-statement-increase",
        type=arguments.at_least(0),
        default=None,
        metavar="N",
        help="an A/B folder only: also fail a workload whose SQL reads and "
        "writes per request (counted by ab --instructions in a replay outside "
        "valgrind) on B exceed A's by more than N (default: 0 when --gate-on "
        "names statements, else not judged)",
    )
