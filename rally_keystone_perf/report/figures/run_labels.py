"""The configuration a Rally report was measured under, as columns and labels.

``rally-keystone-perf run`` writes Rally's JSON reports to
``<run>/results/*.json`` next to ``<run>/run.json`` (mode, options, versions).
:func:`config_for` reads that file when it is there; for reports produced
elsewhere it falls back to the task's ``key:value`` tags (``run`` tags its
tasks ``mode:<mode>``) and, when there are none, to the report's file name.
A workload adds its runner's ``concurrency`` and ``times``. A cluster run
adds ``nodes`` and ``balance``, a run held to CPU quotas (``--node-cpus``,
``--db-cpus``) ``node cpus`` and ``db cpus``; a table of single-host and
cluster runs reads the columns through :func:`column`, which fills in the
``nodes`` a single-host run leaves out.

A run's label (:func:`run_label`) is short, e.g. ``uwsgi p2xt1`` for uwsgi
with 2 processes of 1 thread; :func:`unique_labels` appends the file name to
labels that would otherwise be the same.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rally_keystone_perf.layout.rundir import RunState
from rally_keystone_perf.report.figures.cluster_view import quotas
from rally_keystone_perf.report.figures.concurrency import runner_concurrency
from rally_keystone_perf.report.readers import run_folder
from rally_keystone_perf.report.readers.rally_json import Workload
from rally_keystone_perf.report.readers.run_folder import (
    RESULTS,
    read_run_state,
    report_files,
)

UNKNOWN = "?"
CACHE_DEFAULT = "request-local"  # --cache none: Keystone's default [cache]
CACHE_DISABLED = "disabled"  # [cache] enabled = false: request-local off too
PROFILE_DEFAULT = "stock"
DB_DEFAULT = "sqlite"
WSGI_DEFAULT = "suite"  # --wsgi: Keystone's app in the suite's wrapper
RUNNER_COLUMNS = ("concurrency", "times")
# settings named in a label only when they differ from these
LABEL_DEFAULTS = {
    "profile": PROFILE_DEFAULT,
    "hash rounds": "default",
    "cache": CACHE_DEFAULT,
    "db": DB_DEFAULT,
    "tokens": "fernet",
    "identity": "sql",
}
NODES = "nodes"
# what a column the launcher leaves out for its default stands for: a run
# without ``nodes`` ran on one host (config_columns names it for a cluster)
IMPLIED = {NODES: "1"}


def target_columns(
    target: Mapping[str, object], server_log: Mapping[str, object] | None = None
) -> dict[str, str]:
    """The columns of a run against someone else's Keystone (``--os-cloud``)."""
    url = str(target.get("auth_url", UNKNOWN))
    server = "not measured"
    if server_log:  # --server-log: the copied log's lines of the run
        offset = float(str(server_log.get("offset", 0.0)))
        server = f"from its log, clock {offset:+.1f} s"
    return {
        "target": f"{url} (external)",
        "api": str(target.get("api_version", UNKNOWN)),
        "server side": server,
    }


def config_columns(state: RunState) -> dict[str, str]:
    """The configuration columns a report shows for a run (from run.json)."""
    if isinstance(state.target, dict):
        return target_columns(state.target, state.target_server_log)
    options = state.options
    rounds = options.get("password_hash_rounds")
    columns = {
        "mode": UNKNOWN if state.mode is None else str(state.mode),
        "profile": str(options.get("profile", PROFILE_DEFAULT)),
        "processes": str(options.get("processes", UNKNOWN)),
        "threads": str(options.get("threads", UNKNOWN)),
        "db": str(options.get("db", DB_DEFAULT)),
        "hash rounds": "default" if rounds is None else str(rounds),
    }
    if "token_provider" in options:  # runs before --token-provider: fernet
        columns["tokens"] = str(options["token_provider"])
    if "identity" in options:  # runs before --identity: sql
        columns["identity"] = str(options["identity"])
    if options.get("wsgi", WSGI_DEFAULT) != WSGI_DEFAULT:  # --wsgi stock
        columns["wsgi"] = str(options["wsgi"])
    if int(options.get("nodes", 1)) > 1:  # a cluster behind haproxy
        columns[NODES] = str(options["nodes"])
        columns["balance"] = str(options.get("lb_balance", "roundrobin"))
    if isinstance(state.cpu_quota, dict):  # --node-cpus / --db-cpus
        limits = quotas(state)
        columns["node cpus"] = "-" if limits.node is None else f"{limits.node:g}"
        columns["db cpus"] = "-" if limits.db is None else f"{limits.db:g}"
    pool = state.user_pool
    if isinstance(pool, dict):  # users made before the run (deploy/user_pool.py)
        columns["user pool"] = (
            f"{pool.get('projects')}x{pool.get('users_per_project')} "
            f"({pool.get('seconds')} s)"
        )
    return columns


def column(config: Mapping[str, str], key: str, missing: str) -> str:
    """A row's ``key`` column in a table of several runs' rows.

    ``config[key]``; else, for a run the launcher made (its config names the
    mode: run.json or its tasks' ``mode:`` tag), what the launcher left out
    because it was the default (:data:`IMPLIED`: one node); else ``missing``.
    """
    if key in config:
        return config[key]
    if key in IMPLIED and config.get("mode", UNKNOWN) != UNKNOWN:
        return IMPLIED[key]
    return missing


def _cache(state: RunState) -> str:
    """The ``cache`` column: ``request-local``, ``memcached`` or ``disabled``.

    run.json's ``keystone_cache`` names it. Runs written before it existed
    rendered ``--cache none`` as ``[cache] enabled = false``: ``disabled``.
    """
    label = state.keystone_cache
    if isinstance(label, str):
        return label
    value = state.options.get("cache")
    if isinstance(value, bool):
        return "on" if value else CACHE_DISABLED
    return CACHE_DISABLED if value in (None, "none") else str(value)


def _state_columns(state: RunState) -> dict[str, str]:
    """:func:`config_columns` with ``cache`` after ``threads``."""
    columns = config_columns(state)
    ordered: dict[str, str] = {}
    for key, value in columns.items():
        ordered[key] = value
        if key == "threads":
            ordered["cache"] = _cache(state)
    return ordered


def config_warnings(config: dict[str, str]) -> list[str]:
    """Lines a report shows above a run's tables when its config is not stock."""
    warnings = []
    if config.get("cache") == CACHE_DISABLED:
        warnings.append(
            "warning: Keystone's cache was disabled ([cache] enabled = false): "
            "its request-local cache was off too, which makes validations "
            "several times slower than a stock Keystone; no deployment runs this"
        )
    if config.get("wsgi") == "stock" and config.get("db", DB_DEFAULT) == DB_DEFAULT:
        warnings.append(
            "warning: --wsgi stock on SQLite: concurrent writers are not put in "
            'turn, so SQLite\'s "database is locked" failures here are '
            "Keystone's own"
        )
    return warnings


def run_config_line(state: RunState) -> str:
    """The report's config columns of a run on one line (``status``)."""
    return ", ".join(f"{key} {value}" for key, value in _state_columns(state).items())


def tag_columns(tags: Iterable[str]) -> dict[str, str]:
    """Columns from ``key:value`` tags (``mode:uwsgi`` -> ``{"mode": "uwsgi"}``)."""
    columns: dict[str, str] = {}
    for tag in tags:
        key, sep, value = tag.partition(":")
        if sep and key.strip() and value.strip():
            columns.setdefault(key.strip(), value.strip())
    return columns


def run_config(
    report_path: Path, tags: Iterable[str] = (), state: RunState | None = None
) -> dict[str, str]:
    """Run-level columns: from run.json (``state``, read here when not
    given), else from tags, else the file name."""
    if state is None:
        state = read_run_state(report_path)
    if state is not None:
        return _state_columns(state)
    return tag_columns(tags) or {"file": Path(report_path).name}


def runner_columns(workload: Workload) -> dict[str, str]:
    """``concurrency`` and ``times`` of the workload's runner, when it has them.

    A ``serial`` runner's concurrency is 1 (:func:`.concurrency.runner_concurrency`).
    """
    values = {**workload.runner, "concurrency": runner_concurrency(workload)}
    return {
        key: str(values[key]) for key in RUNNER_COLUMNS if values.get(key) is not None
    }


def config_for(report_path: Path, workload: Workload | None = None) -> dict[str, str]:
    """Every configuration column of a report (and of one of its workloads).

    Run-level columns come from :func:`run_config` (the workload's task tags
    are the fallback), followed by the workload runner's concurrency and times.
    """
    if workload is None:
        return run_config(report_path)
    return {**run_config(report_path, workload.tags), **runner_columns(workload)}


def run_label(config: dict[str, str], fallback: str) -> str:
    """A short label: ``mode p<processes>xt<threads>`` plus non-default settings.

    ``fallback`` (a file name) is used when the config names nothing else.
    """
    parts: list[str] = []
    if "target" in config:  # someone else's Keystone: its URL
        parts.append(config["target"].split(" ")[0])
    if config.get("mode", UNKNOWN) != UNKNOWN:
        parts.append(config["mode"])
    processes = config.get("processes", UNKNOWN)
    threads = config.get("threads", UNKNOWN)
    if UNKNOWN not in (processes, threads):
        parts.append(f"p{processes}xt{threads}")
    for key, default in LABEL_DEFAULTS.items():
        value = config.get(key, default)
        if value not in (default, UNKNOWN):
            parts.append(f"{key} {value}")
    return " ".join(parts) or fallback


def unique_labels(labels: Sequence[str], paths: Sequence[Path]) -> list[str]:
    """Append the file name (or, if needed, the path) to labels that collide.

    A path given more than once gets ``#2``, ``#3``... on its repeats.
    """
    counts = {label: labels.count(label) for label in labels}
    result = [
        f"{label} ({path.name})" if counts[label] > 1 else label
        for label, path in zip(labels, paths, strict=True)
    ]
    if len(set(result)) < len(result):
        result = [
            f"{label} ({path})" if counts[label] > 1 else label
            for label, path in zip(labels, paths, strict=True)
        ]
    if len(set(result)) < len(result):  # the same path given twice
        seen: dict[str, int] = {}
        for index, label in enumerate(result):
            seen[label] = seen.get(label, 0) + 1
            if seen[label] > 1:
                result[index] = f"{label} #{seen[label]}"
    return result


@dataclass(frozen=True)
class LoadedReport:
    """One report file, its workloads and its run-level configuration."""

    path: Path
    workloads: list[Workload]
    config: dict[str, str]
    state: RunState | None = None  # its run folder's run.json, read once

    def columns(self, workload: Workload) -> dict[str, str]:
        """Run-level columns plus ``workload``'s concurrency and times."""
        return {**self.config, **runner_columns(workload)}


def load_reports(paths: Sequence[Path]) -> list[LoadedReport]:
    """Load reports with their configuration (see :func:`config_for`),
    as :func:`.run_folder.read_reports` reads them.

    :raises ReportError: a file cannot be read or is not a Rally 1.2 report.
    """
    reports = []
    for found in run_folder.read_reports(paths):
        tags = found.workloads[0].tags if found.workloads else []
        config = run_config(found.path, tags, found.state)
        reports.append(LoadedReport(found.path, found.workloads, config, found.state))
    return reports


@dataclass(frozen=True)
class Run:
    """One input of ``compare``: a label, its configuration and its workloads.

    ``config_label`` is the label before collisions are resolved: runs that
    share it have the same configuration (and may form a concurrency series).
    """

    label: str
    config_label: str
    paths: list[Path]
    config: dict[str, str]
    workloads: list[Workload]
    states: list[RunState] = field(default_factory=list)  # its reports' run.json


def _display_path(path: Path) -> Path:
    """The run folder for its ``results`` folder, else ``path`` itself."""
    if path.is_dir() and path.name == RESULTS:
        return path.parent
    return path


def load_runs(paths: Sequence[Path]) -> list[Run]:
    """Load each path (a report or a run folder) as one labelled run.

    :raises ReportError: a file cannot be read or is not a Rally 1.2 report.
    """
    loaded = []
    for path in paths:
        reports = load_reports(report_files(path))
        workloads = [w for report in reports for w in report.workloads]
        config = reports[0].config
        loaded.append((Path(path), reports, workloads, config))
    names = [_display_path(path) for path, _, _, _ in loaded]
    bases = [
        run_label(config, name.name)
        for name, (_, _, _, config) in zip(names, loaded, strict=True)
    ]
    labels = unique_labels(bases, names)
    return [
        Run(
            label,
            base,
            [r.path for r in reports],
            config,
            workloads,
            [r.state for r in reports if r.state is not None],
        )
        for label, base, (_, reports, workloads, config) in zip(
            labels, bases, loaded, strict=True
        )
    ]


def union_keys(mappings: Iterable[dict[str, str]]) -> list[str]:
    """Every key of ``mappings`` in order of first appearance."""
    keys: dict[str, None] = {}
    for mapping in mappings:
        keys.update(dict.fromkeys(mapping))
    return list(keys)
