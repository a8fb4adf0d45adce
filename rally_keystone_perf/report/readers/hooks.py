"""A workload's hooks as the report shows them: what ran, when, how it went.

Rally 1.2 JSON keeps each hook's ``config`` (``action`` and ``trigger``, one
plugin each) and its ``results``: one per time it fired, with its status,
start and end, the event that fired it, an error and its output. The
``keystone_perf_fault`` hook's output lists what it did ("SIGKILL to
node2-uwsgi (pid 1234) and its group", "node2 answered GET ... after 2.1
s"); those lines are the report's too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class HookRun:
    """One firing of a hook."""

    action: str  # the plugin, e.g. keystone_perf_fault
    args: Any  # its config, e.g. {"action": "kill", "target": "node2"}
    fired_by: str  # e.g. "time 20", "iteration 100"
    status: str  # success, failed, validation_failed
    started_at: float | None
    finished_at: float | None
    error: str | None = None
    output: list[str] = field(default_factory=list)  # TextArea lines


def hook_runs(raw: dict) -> list[HookRun]:
    """The workload's hook firings in the file's order (none when absent)."""
    runs = []
    for hook in raw.get("hooks") or []:
        if not isinstance(hook, dict):
            continue
        config = hook.get("config") or {}
        action, args = _single(config.get("action"))
        for result in hook.get("results") or []:
            if isinstance(result, dict):
                runs.append(_run(action, args, result))
    return runs


def _single(plugin: Any) -> tuple[str, Any]:
    """``{"name": args}`` (or Rally's ``[name, args]``) as a pair."""
    if isinstance(plugin, dict) and len(plugin) == 1:
        return next(iter(plugin.items()))
    if isinstance(plugin, list | tuple) and len(plugin) == 2:
        return str(plugin[0]), plugin[1]
    return "?", None


def _run(action: str, args: Any, result: dict) -> HookRun:
    fired = result.get("triggered_by") or {}
    return HookRun(
        action=action,
        args=args,
        fired_by=f"{fired.get('event_type', '?')} {fired.get('value', '?')}",
        status=str(result.get("status", "?")),
        started_at=_number(result.get("started_at")),
        finished_at=_number(result.get("finished_at")),
        error=_error(result.get("error")),
        output=_text_lines(result.get("output") or {}),
    )


def _number(value: Any) -> float | None:
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    return float(value) if ok else None


def _error(error: Any) -> str | None:
    """Rally keeps a hook's error as [type, message, details] (or a dict)."""
    return flat_error(error) if error else None


def flat_error(error: Any) -> str:
    """Rally's error of a hook or a context (a dict with etype/msg, or a
    [type, message, details] list) on one line."""
    if isinstance(error, dict):
        text = f"{error.get('etype', 'error')}: {error.get('msg', '')}"
    elif isinstance(error, list):
        text = ": ".join(str(part) for part in error[:2])
    else:
        text = str(error)
    return " ".join(text.split())


def _text_lines(output: dict) -> list[str]:
    """The lines of the hook's complete TextArea outputs."""
    lines: list[str] = []
    for item in output.get("complete") or []:
        if isinstance(item, dict) and item.get("chart_plugin") == "TextArea":
            lines += [str(line) for line in item.get("data") or []]
    return lines


def hook_lines(runs: list[HookRun], load_start: float | None) -> list[str]:
    """A line per firing (seconds into the load when known), then its output."""
    lines = []
    for run in runs:
        when = run.fired_by
        if load_start is not None and run.started_at is not None:
            when += f", at {run.started_at - load_start:.1f} s"
        args = (
            run.args
            if not isinstance(run.args, dict)
            else " ".join(str(v) for v in run.args.values())
        )
        line = f"hook {run.action} {args} ({when}): {run.status}"
        lines.append(line + (f": {run.error}" if run.error else ""))
        lines += [f"  {text}" for text in run.output]
    return lines
