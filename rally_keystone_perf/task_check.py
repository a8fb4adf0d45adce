"""Check a Rally task file before any server starts (syntax and plugin schemas)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jinja2
import yaml
from rally.cli import yamlutils


class TaskFileError(Exception):
    """The task file cannot be run; the message names the file and the problem."""


def load_task_file(path: Path, task_args: dict[str, Any] | None = None) -> Any:
    """Read, render (Rally's Jinja2 task args) and parse a task file as Rally does."""
    try:
        text = path.read_text()
    except OSError as exc:
        raise TaskFileError(f"{path}: cannot read the task file: {exc}") from None
    if "{{" in text or "{%" in text:
        text = _render(path, text, task_args or {})
    try:
        return yamlutils.safe_load(text)  # Rally's loader: same floats as rally
    except yaml.YAMLError as exc:
        problem = str(exc).replace("\n", " ")
        raise TaskFileError(f"{path}: not valid JSON or YAML: {problem}") from None


def _render(path: Path, text: str, task_args: dict[str, Any]) -> str:
    """Render Rally's Jinja2 task template exactly as ``rally task start`` does."""
    from rally import api, exceptions

    renderer = object.__new__(api._Task)
    try:
        return renderer.render_template(
            task_template=text, template_dir=str(path.parent), **task_args
        )
    except exceptions.RallyException as exc:
        raise TaskFileError(f"{path}: {exc.format_message()}") from None
    except TypeError as exc:  # Rally's way of naming a missing task argument
        raise TaskFileError(f"{path}: {exc}") from None
    except jinja2.TemplateError as exc:
        raise TaskFileError(f"{path}: cannot render the template: {exc}") from None


def validate_task(path: Path, task_args: dict[str, Any] | None = None) -> int:
    """Validate the task's syntax the way ``rally task start`` does first.

    Checks the task format, that every scenario, runner, context, SLA and hook
    exists, and their arguments against the plugins' schemas. Platform and
    semantic checks need a live environment and are left to Rally. Returns the
    number of workloads.
    """
    from rally import exceptions, plugins
    from rally.task import engine, task_cfg

    config = load_task_file(path, task_args)
    plugins.load()
    try:
        parsed = task_cfg.TaskConfig(config)
    except exceptions.RallyException as exc:
        raise TaskFileError(f"{path}: {exc.format_message()}") from None
    checker = object.__new__(engine.TaskEngine)
    count = 0
    for subtask in parsed.subtasks:
        for workload in subtask["workloads"]:
            try:
                checker._validate_workload(workload, vtype="syntax")
            except exceptions.InvalidTaskConfig as exc:
                reason = " ".join(str(exc.kwargs.get("reason", exc)).split())
                raise TaskFileError(
                    f"{path}: workload {workload['name']}[{workload['position']}]: "
                    f"{reason}"
                ) from None
            count += 1
    if not count:
        raise TaskFileError(f"{path}: the task has no workloads")
    return count


POOLED_CONTEXT = "keystone_perf_users"


def pooled_user_sizes(path: Path, task_args: dict[str, Any] | None = None) -> list:
    """``(tenants, users_per_tenant)`` of every ``keystone_perf_users`` context.

    Call after :func:`validate_task` (the file is known to be a valid task).
    """
    from rally.task import task_cfg

    parsed = task_cfg.TaskConfig(load_task_file(path, task_args))
    sizes = []
    for subtask in parsed.subtasks:
        for workload in subtask["workloads"]:
            for name, config in workload["contexts"].items():
                if name.split("@")[0] == POOLED_CONTEXT:
                    sizes.append(
                        (config.get("tenants", 1), config.get("users_per_tenant", 1))
                    )
    return sizes
