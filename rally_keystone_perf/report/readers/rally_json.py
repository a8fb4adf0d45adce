"""Load Rally's JSON task report (format_version "1.2") into typed records.

The input is what ``rally task report UUID --json --out f.json`` writes, i.e.
the output of ``rally.plugins.task.exporters.json_exporter.JSONExporter``::

    {"info": {"format_version": "1.2", ...},
     "tasks": [{"uuid", "title", "tags", ...,
                "subtasks": [{..., "workloads": [{
                    "runner": {TYPE: CONFIG}, "scenario": {NAME: ARGS},
                    "contexts", "sla", "pass_sla", "position", "start_time",
                    "load_duration", "full_duration",
                    "data": [{"timestamp", "duration", "idle_duration",
                              "error", "atomic_actions", ...}, ...]}]}]}]}

Every problem with the file is reported as a one-line :class:`ReportError`
naming the file and what is wrong.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rally_keystone_perf.client import tracing
from rally_keystone_perf.loadgen import arrivals
from rally_keystone_perf.report.readers.hooks import HookRun, flat_error, hook_runs
from rally_keystone_perf.report.readers.load_engine import split_runner

SUPPORTED_FORMAT_VERSION = "1.2"


class ReportError(Exception):
    """The report file cannot be read or is not a valid Rally 1.2 JSON report."""


class _Invalid(Exception):
    """Internal: a structural problem; the message lacks the file name."""


@dataclass(frozen=True)
class Iteration:
    """One scenario iteration as Rally recorded it.

    ``error`` is ``[]`` for a successful iteration, otherwise Rally's
    ``[type, message, traceback]``; ``atomic_actions`` keeps Rally's 1.2
    nested form (``name``, ``started_at``, ``finished_at``, ``children``,
    optional ``failed``).
    """

    timestamp: float
    duration: float
    idle_duration: float
    error: list
    atomic_actions: list[dict]
    trace_id: str | None = None  # --trace: its OSProfiler trace (report.traces)
    lag: float | None = None  # open-model load: how late it started (seconds)


@dataclass(frozen=True)
class ContextTiming:
    """How long one context's ``setup()`` and ``cleanup()`` took, in seconds.

    ``None`` when that phase did not run (e.g. the task was aborted during
    setup); ``error`` is Rally's error of either phase, flattened, or "".
    """

    name: str
    setup: float | None
    cleanup: float | None
    error: str = ""


@dataclass(frozen=True)
class Workload:
    """One workload (scenario + runner + contexts) of a Rally task.

    ``sla_results`` are Rally's checked SLA criteria, each a dict with
    ``criterion``, ``success`` and ``detail``.
    """

    task_uuid: str
    task_title: str
    tags: list[str]
    scenario_name: str
    scenario_args: dict
    runner_type: str
    runner: dict
    contexts: dict
    sla: dict
    pass_sla: bool
    load_duration: float
    full_duration: float
    start_time: float | None
    iterations: list[Iteration]
    position: int
    sla_results: list[dict] = field(default_factory=list)
    context_timings: list[ContextTiming] = field(default_factory=list)
    hooks: list[HookRun] = field(default_factory=list)  # each firing (.hooks)
    # who sent the load when not Rally's runner: {"name": "locust",
    # "workers": N, ...}; the runner above is then the task's own
    engine: dict = field(default_factory=dict)

    @property
    def scenario_label(self) -> str:
        """The scenario's name, then the arguments the task gave it, if any
        (``KeystonePerf.validate_token token_kind=application_credential``):
        what tells two workloads of one scenario apart."""
        args = (
            f"{key}={value if isinstance(value, str) else json.dumps(value)}"
            for key, value in self.scenario_args.items()
        )
        return " ".join((self.scenario_name, *args))

    @property
    def setup_duration(self) -> float | None:
        """Seconds every context's setup took (Rally's users included), or None."""
        phases = [c.setup for c in self.context_timings if c.setup is not None]
        return sum(phases) if phases else None

    @property
    def cleanup_duration(self) -> float | None:
        """Seconds every context's cleanup took, or None (the report's cleanup line)."""
        phases = [c.cleanup for c in self.context_timings if c.cleanup is not None]
        return sum(phases) if phases else None


def load_report(path: str | Path) -> list[Workload]:
    """Read a Rally 1.2 JSON report and return its workloads in file order.

    :raises ReportError: the file is unreadable, not JSON, truncated, of
        another format version or misses required keys.
    """
    name = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ReportError(f"{name}: not a UTF-8 text file") from None
    except OSError as exc:
        raise ReportError(f"{name}: cannot read file: {exc.strerror}") from None
    try:
        document = _parse_json(text)
        return _workloads(document)
    except _Invalid as exc:
        raise ReportError(f"{name}: {exc}") from None
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        detail = " ".join(str(exc).split()) or type(exc).__name__
        raise ReportError(f"{name}: invalid report structure: {detail}") from None


def _parse_json(text: str) -> Any:
    """Decode ``text``; describe empty, truncated or malformed input."""
    if not text.strip():
        raise _Invalid("empty file, expected a Rally JSON report")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno} column {exc.colno}"
        if exc.pos >= len(text.rstrip()):
            raise _Invalid(
                f"truncated JSON (unexpected end of data at {where})"
            ) from None
        raise _Invalid(f"malformed JSON: {exc.msg} at {where}") from None
    except RecursionError:
        raise _Invalid("malformed JSON: nesting too deep") from None


def _workloads(document: Any) -> list[Workload]:
    """Check the envelope and flatten tasks -> subtasks -> workloads."""
    if isinstance(document, list):
        raise _Invalid(
            "top level is a list (old Rally results format); "
            f"expected a format_version {SUPPORTED_FORMAT_VERSION} JSON report"
        )
    info = _field(document, "info", "report")
    version = _field(info, "format_version", "info")
    if version != SUPPORTED_FORMAT_VERSION:
        raise _Invalid(
            f"unsupported format_version {version!r} "
            f"(expected {SUPPORTED_FORMAT_VERSION!r})"
        )
    result: list[Workload] = []
    for t_idx, task in enumerate(_list(document, "tasks", "report")):
        t_where = f"tasks[{t_idx}]"
        for s_idx, subtask in enumerate(_list(task, "subtasks", t_where)):
            s_where = f"{t_where}.subtasks[{s_idx}]"
            for w_idx, raw in enumerate(_list(subtask, "workloads", s_where)):
                w_where = f"{s_where}.workloads[{w_idx}]"
                result.append(_workload(task, t_where, raw, w_where))
    return result


def _workload(task: dict, t_where: str, raw: Any, where: str) -> Workload:
    """Build one :class:`Workload` from its task and workload objects."""
    tags = _list(task, "tags", t_where)
    if not all(isinstance(tag, str) for tag in tags):
        raise _Invalid(f"{t_where}.tags must be a list of strings")
    scenario_name, scenario_args = _single(raw, "scenario", where)
    runner_type, runner, engine = split_runner(*_single(raw, "runner", where))
    start_time = _field(raw, "start_time", where)
    return Workload(
        task_uuid=_str(task, "uuid", t_where),
        task_title=_str(task, "title", t_where),
        tags=list(tags),
        scenario_name=scenario_name,
        scenario_args=scenario_args,
        runner_type=runner_type,
        runner=runner,
        engine=engine,
        contexts=_dict(raw, "contexts", where),
        sla=_dict(raw, "sla", where),
        pass_sla=_bool(raw, "pass_sla", where),
        load_duration=_number(raw, "load_duration", where),
        full_duration=_number(raw, "full_duration", where),
        start_time=None if start_time is None else _number(raw, "start_time", where),
        iterations=[
            read_iteration(item, f"{where}.data[{i}]")
            for i, item in enumerate(_list(raw, "data", where))
        ],
        position=_int(raw, "position", where),
        sla_results=_sla_results(raw, where),
        context_timings=_context_timings(raw, where),
        hooks=hook_runs(raw),
    )


def _context_timings(raw: dict, where: str) -> list[ContextTiming]:
    """``contexts_results`` (format 1.1+) as timings; empty when absent."""
    timings = []
    for index, item in enumerate(raw.get("contexts_results") or []):
        item_where = f"{where}.contexts_results[{index}]"
        if not isinstance(item, dict):
            raise _Invalid(f"{item_where} is not a JSON object")
        phases: list[float | None] = []
        errors = []
        for phase in ("setup", "cleanup"):
            record = item.get(phase) or {}
            if not isinstance(record, dict):
                raise _Invalid(f"{item_where}.{phase} must be an object")
            phases.append(_span(record.get("started_at"), record.get("finished_at")))
            if record.get("error"):
                errors.append(f"{phase}: {flat_error(record['error'])}")
        setup, cleanup = phases
        timings.append(
            ContextTiming(
                _str(item, "plugin_name", item_where), setup, cleanup, "; ".join(errors)
            )
        )
    return timings


def _span(started: Any, finished: Any) -> float | None:
    """``finished - started`` when both are numbers (not booleans), else None."""
    if type(started) in _NUMBER_TYPES and type(finished) in _NUMBER_TYPES:
        return float(finished) - float(started)
    return None


def _sla_results(raw: dict, where: str) -> list[dict]:
    """The workload's ``sla_results.sla`` list (empty when absent)."""
    results = raw.get("sla_results", {})
    where = f"{where}.sla_results"
    if not isinstance(results, dict):
        raise _Invalid(f"{where} must be an object")
    checked = _list(results, "sla", where) if "sla" in results else []
    for index, item in enumerate(checked):
        item_where = f"{where}.sla[{index}]"
        _str(item, "criterion", item_where)
        _bool(item, "success", item_where)
        if not isinstance(item.get("detail", ""), str):
            raise _Invalid(f"{item_where}.detail must be a string")
    return [dict(item) for item in checked]


_NUMBER_TYPES = (int, float)  # by exact type: bool is not a number here


def _well_formed_atomics(atomics: list) -> bool:
    """Quick check that atomics have the shape :func:`_check_atomics` accepts."""
    for action in atomics:
        if (
            type(action) is not dict
            or type(action.get("name")) is not str
            or type(action.get("children")) is not list
        ):
            return False
        started = action.get("started_at")
        if started is not None and (
            type(started) not in _NUMBER_TYPES
            or type(action.get("finished_at")) not in _NUMBER_TYPES
        ):
            return False
        if action["children"] and not _well_formed_atomics(action["children"]):
            return False
    return True


def read_iteration(raw: Any, where: str) -> Iteration:
    """Build one :class:`Iteration` of a raw Rally record, validating its
    atomic actions (``where`` names it in an error).

    Well-formed iterations take a quick check (reports hold thousands);
    anything else goes through the checks that name the problem.
    """
    numbers = ("timestamp", "duration", "idle_duration")
    if not (
        type(raw) is dict
        and all(type(raw.get(key)) in _NUMBER_TYPES for key in numbers)
        and type(raw.get("error")) is list
        and type(raw.get("atomic_actions")) is list
        and _well_formed_atomics(raw["atomic_actions"])
    ):
        atomics = _list(raw, "atomic_actions", where)
        _check_atomics(atomics, f"{where}.atomic_actions")
        for key in numbers:
            _number(raw, key, where)
        _list(raw, "error", where)
    return Iteration(
        timestamp=float(raw["timestamp"]),
        duration=float(raw["duration"]),
        idle_duration=float(raw["idle_duration"]),
        error=list(raw["error"]),
        atomic_actions=raw["atomic_actions"],
        trace_id=tracing.trace_id(raw.get("output")),
        lag=arrivals.scheduling_lag(raw),
    )


def _check_atomics(atomics: list, where: str) -> None:
    """Ensure atomics have what ``rally.task.atomic.merge_atomic_actions`` uses."""
    for idx, action in enumerate(atomics):
        a_where = f"{where}[{idx}]"
        _str(action, "name", a_where)
        if action.get("started_at") is not None:
            _number(action, "started_at", a_where)
            _number(action, "finished_at", a_where)
        _check_atomics(_list(action, "children", a_where), f"{a_where}.children")


def _field(obj: Any, key: str, where: str) -> Any:
    """Return ``obj[key]``; ``obj`` must be a JSON object holding ``key``."""
    if not isinstance(obj, dict):
        raise _Invalid(f"{where} is not a JSON object")
    if key not in obj:
        raise _Invalid(f"missing key {key!r} in {where}")
    return obj[key]


def _typed(
    obj: Any, key: str, where: str, kind: type | tuple[type, ...], label: str
) -> Any:
    """Return ``obj[key]`` after checking it is an instance of ``kind``."""
    value = _field(obj, key, where)
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        raise _Invalid(f"{where}.{key} must be {label}, got {type(value).__name__}")
    return value


def _list(obj: Any, key: str, where: str) -> list:
    """Return a list-valued field."""
    return _typed(obj, key, where, list, "a list")


def _dict(obj: Any, key: str, where: str) -> dict:
    """Return an object-valued field."""
    return _typed(obj, key, where, dict, "an object")


def _str(obj: Any, key: str, where: str) -> str:
    """Return a string-valued field."""
    return _typed(obj, key, where, str, "a string")


def _bool(obj: Any, key: str, where: str) -> bool:
    """Return a boolean-valued field."""
    return _typed(obj, key, where, bool, "a boolean")


def _int(obj: Any, key: str, where: str) -> int:
    """Return an integer-valued field."""
    return _typed(obj, key, where, int, "an integer")


def _number(obj: Any, key: str, where: str) -> float:
    """Return a numeric field as float."""
    return float(_typed(obj, key, where, (int, float), "a number"))


def _single(obj: Any, key: str, where: str) -> tuple[str, dict]:
    """Split Rally's one-entry ``{NAME: CONFIG}`` object (scenario, runner)."""
    value = _dict(obj, key, where)
    if len(value) != 1:
        raise _Invalid(f"{where}.{key} must have exactly one entry, has {len(value)}")
    ((name, config),) = value.items()
    if not isinstance(config, dict):
        raise _Invalid(f"{where}.{key}.{name} must be an object")
    return name, config
