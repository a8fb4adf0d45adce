"""``rally-keystone-perf``: start a local Keystone, run Rally tasks, print reports.

Exit codes: 0 ok, 1 error (bad arguments included), 2 an SLA or the
regression gate failed (as ``rally task start``), 3 from ``status`` when no
server runs, 130 interrupted by Ctrl-C.
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn, TextIO

from rally_keystone_perf import paths, stop_signals
from rally_keystone_perf.deploy import launcher, modes, orphans, preflight, services
from rally_keystone_perf.deploy.options import LaunchError, LaunchOptions
from rally_keystone_perf.deploy.rundir import RunDir
from rally_keystone_perf.deploy.user_pool import POOL_ENV
from rally_keystone_perf.report.config import config_columns
from rally_keystone_perf.tasks import check, generate
from rally_keystone_perf.tasks.model import TaskFile, TaskFileError

EXIT_OK, EXIT_ERROR, EXIT_SLA, EXIT_NOT_RUNNING = 0, 1, 2, 3
DEFAULT_RUNS = Path("runs")
DEFAULT_TASK = "smoke.json"


def _echo(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _pool_choice(text: str) -> str:
    """argparse type of ``--user-pool``: ``auto``, ``none`` or ``TxU``."""
    from rally_keystone_perf.deploy.user_pool import parse_size

    choice = text.strip().lower()
    if choice not in ("auto", "none"):
        try:
            parse_size(choice)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    return choice


def _add_launch_options(
    parser: argparse.ArgumentParser, with_mode: bool = True
) -> None:
    group = parser.add_argument_group("local Keystone")
    if with_mode:
        group.add_argument(
            "--mode",
            default=modes.DEFAULT_MODE,
            choices=sorted(modes.MODES),
            help="deployment mode (default: %(default)s)",
        )
    group.add_argument(
        "--profile",
        default=modes.DEFAULT_PROFILE,
        choices=sorted({p for m in modes.MODES.values() for p in m.profiles}),
        help="the mode's settings: stock (a fresh install) or tuned (seed 003; "
        "apache and nginx-uwsgi) (default: %(default)s)",
    )
    group.add_argument(
        "--processes",
        type=_positive,
        default=None,
        help="server worker processes (default: the profile's; 2 for uwsgi "
        "and eventlet, 5 for apache)",
    )
    group.add_argument(
        "--threads",
        type=_positive,
        default=None,
        help="threads per process (default: the profile's, 1 when stock)",
    )
    group.add_argument(
        "--listen-backlog",
        type=_positive,
        default=None,
        help="listen queue length (default: the profile's; capped at the "
        "kernel's net.core.somaxconn)",
    )
    group.add_argument(
        "--cache",
        default=modes.DEFAULT_CACHE,
        choices=list(modes.CACHES),
        help="Keystone's shared cache: none (Keystone's default: oslo.cache on "
        "with its null backend, request-local memoization only; the report's "
        "cache column says request-local), memcached (a local memcached as "
        "oslo.cache's backend) or disabled ([cache] enabled = false: the "
        "request-local cache off too, 5-12x slower; a configuration nobody "
        "deploys, flagged in the report) (default: %(default)s)",
    )
    group.add_argument(
        "--db",
        default="sqlite",
        choices=sorted(modes.DATABASES),
        help="Keystone's database: sqlite (a file in the run folder) or mysql "
        "(a local MariaDB; always for nova-fake) (default: %(default)s)",
    )
    group.add_argument(
        "--host",
        default="127.0.0.1",
        help="loopback address to listen on (default: %(default)s)",
    )
    group.add_argument(
        "--port", type=int, default=None, help="port (default: a free one)"
    )
    group.add_argument(
        "--password-hash-rounds",
        type=_positive,
        default=None,
        help="keystone.conf [identity] password_hash_rounds "
        "(default: Keystone's own); sets the CPU cost of every password check",
    )
    group.add_argument(
        "--token-expiration",
        type=_positive,
        default=modes.DEFAULT_TOKEN_EXPIRATION,
        help="[token] expiration in seconds (default: %(default)s)",
    )
    group.add_argument(
        "--user-pool",
        type=_pool_choice,
        default="auto",
        metavar="TxU|auto|none",
        help="pre-create T projects x U users (e.g. 12x512) in seconds through "
        "Keystone's own managers, for the keystone_perf_users context; auto: "
        "as large as the tasks' largest keystone_perf_users context, if any "
        "(default: %(default)s)",
    )
    group.add_argument(
        "--fake-computes",
        type=_positive,
        default=1,
        metavar="N",
        help="nova-fake mode: fake compute hosts, one nova-compute each "
        "(default: %(default)s)",
    )
    group.add_argument(
        "--start-timeout",
        type=float,
        default=None,
        help="seconds to wait for Keystone to answer (default: 60 plus 3 per "
        "server process)",
    )


def _add_runs_dir(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--runs-dir",
        type=Path,
        default=DEFAULT_RUNS,
        help="folder holding run folders (default: ./%(default)s)",
    )


def _user_pool(
    args: argparse.Namespace, tasks: Sequence[TaskFile]
) -> tuple[int, int] | None:
    """The pool size asked for: explicit, none, or auto from the tasks."""
    from rally_keystone_perf.deploy.user_pool import parse_size

    choice = args.user_pool
    if choice == "none":
        return None
    if choice != "auto":
        return parse_size(choice)
    sizes = [size for task in tasks for size in task.pooled_user_sizes()]
    if not sizes:
        return None
    return max(t for t, _ in sizes), max(u for _, u in sizes)


def _launch_options(
    args: argparse.Namespace, tasks: Sequence[TaskFile] = ()
) -> LaunchOptions:
    return LaunchOptions(
        mode=getattr(args, "mode", modes.DEFAULT_MODE),
        profile=args.profile,
        host=args.host,
        port=args.port,
        processes=args.processes,
        threads=args.threads,
        listen_backlog=args.listen_backlog,
        cache=args.cache,
        db=args.db,
        password_hash_rounds=args.password_hash_rounds,
        token_expiration=args.token_expiration,
        start_timeout=args.start_timeout,
        user_pool=_user_pool(args, tasks),
        fake_computes=args.fake_computes,
    )


def _resolve_run(args: argparse.Namespace) -> RunDir:
    target = args.run or args.runs_dir / "current"
    if not target.exists():
        raise LaunchError(
            f"no run folder at {target}; start one with: rally-keystone-perf up"
        )
    return RunDir(target.resolve())


def cmd_up(args: argparse.Namespace) -> int:
    """Start a local Keystone and leave it running."""
    args.runs_dir.mkdir(parents=True, exist_ok=True)
    run = launcher.up(args.runs_dir, _launch_options(args), progress=_echo)
    orphans.detach(run)  # its servers outlive this command on purpose
    state = run.read_state()
    print(f"run folder: {run.root}")
    print(f"auth url:   {state['auth_url']}")
    print(f"rally env spec (private, holds the admin password): {run.env_spec}")
    if run.user_pool.is_file():
        print(
            "user pool (private; for the keystone_perf_users context): "
            f"export {POOL_ENV}={run.user_pool}"
        )
    print("stop it with: rally-keystone-perf down")
    return EXIT_OK


def cmd_down(args: argparse.Namespace) -> int:
    """Stop the servers of a run folder, and whatever killed runs left.

    Without --run: the current run, then every orphaned run under
    --runs-dir (its command killed, its servers or Rally still running).
    """
    run = None
    if args.run is not None or (args.runs_dir / "current").exists():
        run = _resolve_run(args)
        left = services.running(run.state())
        if launcher.stop(run):
            named = f": {', '.join(left)}" if left else ""
            _echo(f"stopped the processes of {run.root}{named}")
        else:
            _echo(f"no server was running for {run.root}")
    swept = orphans.stop_all(args.runs_dir, launcher.stop, _echo) if not args.run else 0
    if run is None and not swept:
        _resolve_run(args)  # no run folder at all: say so
    return EXIT_OK


def cmd_status(args: argparse.Namespace) -> int:
    """Say whether a run's server is up, and whether its command still runs."""
    from rally_keystone_perf.report.config import run_config_line

    run = _resolve_run(args)
    typed = run.state()
    state = typed.to_json()  # run_config_line still reads run.json's dict
    running = launcher.is_running(run)
    health = services.probe(state["auth_url"]) if running else None
    print(f"run folder: {run.root}")
    print(f"config:     {run_config_line(state)}")
    print(f"auth url:   {state.get('auth_url')}")
    print(
        f"server:     {'running' if running else 'not running'}"
        + (f" (pid {state.get('server_pid')}, GET /v3 -> {health})" if running else "")
    )
    driver = state.get("driver_pid")
    orphan = orphans.describe(typed)
    if orphan is not None:
        print(f"driver:     {orphan}")
    elif driver:
        print(f"driver:     pid {driver} (running)")
    left = services.running(typed)
    if left:
        print(f"processes:  {', '.join(left)}")
    return EXIT_OK if running else EXIT_NOT_RUNNING


def _task_files(args: argparse.Namespace) -> list[Path]:
    if args.task:
        return [Path(t) for t in args.task]
    return [paths.tasks_dir() / DEFAULT_TASK]


def cmd_run(args: argparse.Namespace) -> int:
    """Start Keystone, run the tasks through Rally, print the report, stop."""
    from rally_keystone_perf import rally_runner
    from rally_keystone_perf.session import keystone_session

    tasks: list[TaskFile] = []
    for path in _task_files(args):  # reject bad input before anything starts
        tasks.append(TaskFile.load(path))
        count = check.validate(tasks[-1])
        _echo(f"{path}: {count} workload(s), syntax OK")
    options = _launch_options(args, tasks)
    outcomes: list[rally_runner.TaskOutcome] = []
    run: RunDir | None = None
    try:
        with keystone_session(args.runs_dir, options, _echo, args.keep_running) as (
            run,
            runner,
        ):
            for task in tasks:
                _echo(f"running {task.path}")
                outcome = runner.start_task(task.path, tags=[f"mode:{args.mode}"])
                outcomes.append(outcome)
                if outcome.interrupted:
                    break
    except KeyboardInterrupt:
        if run is None:
            raise
        _echo("interrupted")
        outcomes.append(
            rally_runner.TaskOutcome(
                Path("-"), None, rally_runner.EXIT_INTERRUPTED, None, True
            )
        )
    assert run is not None
    reports = [o.report for o in outcomes if o.report]
    if reports:
        _print_reports(reports, config_columns(run.read_state()), sys.stdout)
        _echo(f"results: {run.results}")
    return _combined_exit([o.exit_code for o in outcomes])


def _mode_list(text: str) -> list[str]:
    """argparse type of ``--modes``: ``all`` or a comma-separated list."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [n for n in names if n not in modes.MODES and n != "all"]
    if unknown or not names:
        named = ", ".join(unknown) or repr(text)
        raise argparse.ArgumentTypeError(
            f"unknown mode(s) {named}; choose from "
            f"{', '.join(sorted(modes.MODES))} or all"
        )
    return names


def cmd_matrix(args: argparse.Namespace) -> int:
    """Run bundled task files against each deployment mode, then one table.

    For each mode (default: every mode whose programs are installed) start a
    local Keystone, run its task files tasks/<mode>/<TASKS>-<SIZE>.json
    through Rally, stop it. Every cell's outcome is recorded in
    <matrix-dir>/matrix.json as it ends, so running the same command again
    resumes with the cells not done yet (--restart starts over). Progress
    names the cell, the time elapsed and an estimate of the time left. Ctrl-C
    aborts the running task (partial results kept), stops the servers and
    exits 130. The end is the combined table: one row per workload with its
    configuration columns, setup and load time (also written to
    <matrix-dir>/combined.md).
    """
    from rally_keystone_perf import matrix

    base = _launch_options(args)
    if "all" in args.modes:
        names, missing = matrix.available_modes(base)
        for reason in missing:
            _echo(f"skipping mode {reason}")
    else:
        names = list(dict.fromkeys(args.modes))
        for name in names:  # a named mode that cannot start is an error now
            preflight.check_requirements(
                preflight.requirements(dataclasses.replace(base, mode=name))
            )
    if not names:
        raise LaunchError("no deployment mode can start on this machine")
    cells = matrix.plan(
        names, args.tasks, args.size, args.tasks_dir or paths.tasks_dir()
    )
    task_files: dict[Path, TaskFile] = {}
    for task in sorted({c.task for c in cells}):  # bad input: before any server
        task_files[task] = TaskFile.load(task)
        check.validate(task_files[task])
    _echo(f"matrix: {len(cells)} cells ({', '.join(names)}), all task files valid")
    folder = args.matrix_dir or args.runs_dir / f"matrix-{args.size}"
    state = matrix.MatrixState.open(folder, matrix.shared_options(base), args.restart)

    def options_for(mode: str) -> LaunchOptions:
        tasks = [task_files[c.task] for c in cells if c.mode == mode]
        return dataclasses.replace(_launch_options(args, tasks), mode=mode, port=None)

    codes: list[int] = []
    try:
        codes = matrix.run_matrix(cells, state, options_for, _echo)
    except KeyboardInterrupt:
        _echo("interrupted")
        codes.append(130)
    reports = state.reports(cells)
    if reports:
        from rally_keystone_perf.report import combined, config

        loaded = config.load_reports(reports)
        buffer = io.StringIO()
        combined.write_combined(loaded, buffer, "markdown")
        (folder / "combined.md").write_text(buffer.getvalue())
        combined.write_combined(loaded, sys.stdout, "table")
    for cell, partial in state.partial(cells):
        _echo(f"partial results of the interrupted cell {cell.key}: {partial}")
    done = len(reports)
    _echo(f"{done} of {len(cells)} cells done; state: {state.path}")
    if done < len(cells):
        _echo("run the same command again to resume")
    return _combined_exit(codes)


def _combined_exit(exit_codes: Sequence[int]) -> int:
    """Interrupted beats error beats SLA failure beats success."""
    codes = set(exit_codes)
    for code in (130, EXIT_ERROR, EXIT_SLA):
        if code in codes:
            return code
    return EXIT_ERROR if codes - {EXIT_OK} else EXIT_OK


def _print_reports(
    files: Sequence[Path],
    columns: dict[str, str] | None,
    stream: TextIO,
    fmt: str = "table",
) -> None:
    """Write the report of ``files``; ``columns`` override their run config."""
    from rally_keystone_perf.report import api

    api.report(files, stream, fmt, overrides=columns)


def _write_output(text: str, out: Path | None) -> None:
    """Write finished output to ``out`` or stdout (nothing is written on error)."""
    from rally_keystone_perf.report.load import ReportError

    if out is None:
        sys.stdout.write(text)
        return
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ReportError(f"{out}: cannot write: {exc.strerror}") from None


def cmd_report(args: argparse.Namespace) -> int:
    """Print the statistics tables of Rally JSON reports.

    One table per workload with Rally's figures, the throughput and the run's
    configuration (mode, processes, threads, cache, db, hash rounds,
    concurrency, times) as columns. A run folder stands for its results/*.json.
    """
    from rally_keystone_perf.report import api

    buffer = io.StringIO()
    api.report(args.results, buffer, args.format, combine=args.combined)
    _write_output(buffer.getvalue(), args.out)
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
    from rally_keystone_perf.report import api

    buffer = io.StringIO()
    api.compare(
        [args.baseline, *args.others],
        buffer,
        args.format,
        alpha=args.alpha,
        allow_concurrency_mismatch=args.allow_concurrency_mismatch,
    )
    _write_output(buffer.getvalue(), args.out)
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
    --runs-dir, then in Rally's default database).
    """
    from rally_keystone_perf.report import api

    run = api.gate(
        args.current,
        args.baseline,
        args.runs_dir,
        max_regression=args.max_regression,
        alpha=args.alpha,
        allow_concurrency_mismatch=args.allow_concurrency_mismatch,
    )
    _echo(f"baseline: {run.baseline.label} ({run.baseline_path})")
    _echo(f"current:  {run.current.label} ({run.current_path})")
    buffer = io.StringIO()
    api.write_gate(run.result, buffer, args.format)
    if args.junit is not None:
        _write_output(run.junit_xml(), args.junit)
    _write_output(buffer.getvalue(), args.out)
    _echo(run.headline())
    if run.result.errors:  # refused to compare: not a regression found
        return EXIT_ERROR
    return EXIT_OK if run.result.passed else EXIT_SLA


def _percentage(text: str) -> float:
    """argparse type of ``--max-regression``: ``10%`` or ``10`` -> 0.10."""
    try:
        value = float(text.strip().removesuffix("%"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a percentage: {text!r}") from None
    if not 0 <= value < 1000:
        raise argparse.ArgumentTypeError(f"must be between 0% and 1000%, got {text}")
    return value / 100


def cmd_tasks(args: argparse.Namespace) -> int:
    """Check (default) or regenerate the bundled task files under tasks/<mode>/.

    One file per mode, scenario, concurrency level of the seeds and size
    (quick or full), all from one table (rally_keystone_perf/tasks/generate.py).
    --check exits 1 listing every file that differs from the generator's
    output; --write rewrites them.
    """

    tasks_dir = args.tasks_dir or paths.tasks_dir()
    if args.write:
        count = generate.write(tasks_dir)
        _echo(f"wrote {count} task files under {tasks_dir}")
        return EXIT_OK
    problems = generate.check(tasks_dir)
    for problem in problems:
        print(problem)
    if problems:
        _echo("regenerate with: rally-keystone-perf tasks --write")
        return EXIT_ERROR
    _echo(f"{len(generate.generated())} task files under {tasks_dir} are up to date")
    return EXIT_OK


def _alpha(text: str) -> float:
    """argparse type of ``--alpha``: a float strictly between 0 and 1."""
    value = float(text)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {value:g}")
    return value


def _add_mismatch_option(parser: argparse.ArgumentParser, refusal: str) -> None:
    """``--allow-concurrency-mismatch`` of ``compare`` and ``gate``."""
    parser.add_argument(
        "--allow-concurrency-mismatch",
        action="store_true",
        help="compare a workload even when the concurrency its runner reached "
        "(peak iterations in flight; iterations started per second for rps) "
        f"differs from the baseline's by more than 10%% ({refusal})",
    )


def _add_output_options(parser: argparse.ArgumentParser) -> None:
    """``--format`` and ``--out`` of ``report`` and ``compare``."""
    from rally_keystone_perf.report.writers.registry import FORMATS

    parser.add_argument(
        "--format",
        choices=FORMATS,
        default="table",
        help="output format (default: %(default)s); csv and json keep numbers "
        "unrounded, json has a versioned schema",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        metavar="FILE",
        help="write to FILE instead of standard output",
    )


class _Parser(argparse.ArgumentParser):
    """argparse with usage errors exiting 1, so that 2 always means "failed"."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_ERROR, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = _Parser(
        prog="rally-keystone-perf",
        description="Benchmark OpenStack Keystone with Rally against a real local "
        "Keystone. Exit codes: 0 ok, 1 error (bad arguments included), 2 SLA or "
        "gate failed, 3 not running (status), 130 interrupted.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    up = sub.add_parser(
        "up",
        help="start a local Keystone and leave it running",
        description=cmd_up.__doc__,
    )
    _add_launch_options(up)
    _add_runs_dir(up)
    up.set_defaults(func=cmd_up)

    for name, func in (("down", cmd_down), ("status", cmd_status)):
        p = sub.add_parser(name, help=func.__doc__, description=func.__doc__)
        p.add_argument(
            "--run",
            type=Path,
            default=None,
            help="run folder (default: <runs-dir>/current)",
        )
        _add_runs_dir(p)
        p.set_defaults(func=func)

    run = sub.add_parser(
        "run",
        help="up, run Rally tasks, print the report, down",
        description=f"{cmd_run.__doc__} Exit code follows rally task start.",
    )
    run.add_argument(
        "--task",
        action="append",
        metavar="FILE",
        help=f"Rally task file; repeatable (default: tasks/{DEFAULT_TASK})",
    )
    run.add_argument(
        "--keep-running",
        action="store_true",
        help="leave Keystone running after the tasks",
    )
    _add_launch_options(run)
    _add_runs_dir(run)
    run.set_defaults(func=cmd_run)

    matrix_cmd = sub.add_parser(
        "matrix",
        help="run task files across deployment modes (resumable), one table",
        description=cmd_matrix.__doc__,
    )
    matrix_cmd.add_argument(
        "--modes",
        type=_mode_list,
        default=["all"],
        metavar="MODE,...",
        help="modes to run, comma-separated, or all (default: all, skipping "
        "modes whose programs are not installed)",
    )
    matrix_cmd.add_argument(
        "--tasks",
        default="create-token-*",
        metavar="PATTERN",
        help="task files of each mode: tasks/<mode>/<PATTERN>-<size>.json, a "
        "glob (default: %(default)s, seed 000's levels)",
    )
    matrix_cmd.add_argument(
        "--size",
        choices=generate.SIZES,
        default="quick",
        help="quick (about a minute per file on 2 cores) or full (the seeds' "
        "times and context sizes) (default: %(default)s)",
    )
    matrix_cmd.add_argument(
        "--tasks-dir",
        type=Path,
        default=None,
        help="folder with one subfolder of task files per mode (default: the "
        "bundled tasks/)",
    )
    matrix_cmd.add_argument(
        "--matrix-dir",
        type=Path,
        default=None,
        help="where the state, run folders and combined table go "
        "(default: <runs-dir>/matrix-<size>)",
    )
    matrix_cmd.add_argument(
        "--restart",
        action="store_true",
        help="forget the cells done so far and start over",
    )
    _add_launch_options(matrix_cmd, with_mode=False)
    _add_runs_dir(matrix_cmd)
    matrix_cmd.set_defaults(func=cmd_matrix)

    report = sub.add_parser(
        "report",
        help="print tables from Rally JSON reports",
        description=cmd_report.__doc__,
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
    _add_output_options(report)
    report.set_defaults(func=cmd_report)

    compare = sub.add_parser(
        "compare",
        help="compare runs with a baseline, with statistical verdicts",
        description=cmd_compare.__doc__,
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
    compare.add_argument(
        "--alpha",
        type=_alpha,
        default=0.05,
        help="significance level of the Mann-Whitney U test (default: %(default)s)",
    )
    _add_mismatch_option(compare, 'default: its rows say "not comparable"')
    _add_output_options(compare)
    compare.set_defaults(func=cmd_compare)

    from rally_keystone_perf.report.writers.registry import GATE_FORMATS

    gate_cmd = sub.add_parser(
        "gate",
        help="fail (exit 2) when a run regressed against a baseline",
        description=cmd_gate.__doc__,
    )
    gate_cmd.add_argument(
        "current",
        metavar="CURRENT",
        help="the run under test: a Rally JSON report, a run folder or a task UUID",
    )
    gate_cmd.add_argument(
        "--baseline",
        required=True,
        metavar="BASELINE",
        help="the reference run: a Rally JSON report, a run folder or a task UUID",
    )
    gate_cmd.add_argument(
        "--max-regression",
        type=_percentage,
        default=0.10,
        metavar="PERCENT",
        help="tolerated slowdown of a median or p95, e.g. 10%% (default: 10%%)",
    )
    gate_cmd.add_argument(
        "--alpha",
        type=_alpha,
        default=0.05,
        help="significance level of the tests (default: %(default)s)",
    )
    _add_mismatch_option(gate_cmd, "default: the gate refuses it and exits 1")
    gate_cmd.add_argument(
        "--junit",
        type=Path,
        default=None,
        metavar="FILE",
        help="also write JUnit XML (a test case per workload and criterion)",
    )
    gate_cmd.add_argument(
        "--format",
        choices=GATE_FORMATS,
        default="table",
        help="output format (default: %(default)s)",
    )
    gate_cmd.add_argument(
        "--out", type=Path, default=None, metavar="FILE", help="write to FILE"
    )
    _add_runs_dir(gate_cmd)
    gate_cmd.set_defaults(func=cmd_gate)

    tasks = sub.add_parser(
        "tasks",
        help="check or regenerate the bundled task files",
        description=cmd_tasks.__doc__,
    )
    action = tasks.add_mutually_exclusive_group()
    action.add_argument("--check", action="store_true", help="compare (default)")
    action.add_argument("--write", action="store_true", help="regenerate")
    tasks.add_argument(
        "--tasks-dir",
        type=Path,
        default=None,
        help="the tasks folder (default: the bundled one)",
    )
    tasks.set_defaults(func=cmd_tasks)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: parse, dispatch, turn known failures into one-line errors."""
    from rally_keystone_perf.matrix import MatrixError
    from rally_keystone_perf.rally_runner import RallyError
    from rally_keystone_perf.report.load import ReportError

    args = build_parser().parse_args(argv)
    stop_signals.install()  # SIGTERM, SIGHUP: as Ctrl-C, exit 128 + signal
    try:
        return stop_signals.exit_code(int(args.func(args)))
    except (
        LaunchError,
        MatrixError,
        RallyError,
        TaskFileError,
        ReportError,
        ValueError,
    ) as exc:
        _echo(f"error: {exc}")
        return EXIT_ERROR
    except KeyboardInterrupt:
        _echo("interrupted")
        return stop_signals.exit_code(130)


if __name__ == "__main__":
    sys.exit(main())
