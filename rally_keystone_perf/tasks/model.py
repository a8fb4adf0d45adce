"""A Rally task file, read, rendered and parsed once.

:meth:`TaskFile.load` does what ``rally task start`` does before it runs
anything: Rally's Jinja2 rendering with the task arguments, its YAML/JSON
loader, then its task format (v1 or v2, into
:class:`rally.task.task_cfg.TaskConfig`). The checks (:mod:`.check`) and
the user pool's sizing read the same parsed workloads; Rally itself reads
the file again when it runs it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2
import yaml
from rally.cli import yamlutils

POOLED_CONTEXT = "keystone_perf_users"  # the context the user pool serves


class TaskFileError(Exception):
    """The task file cannot be run; the message names the file and the problem."""


@dataclass(frozen=True)
class TaskFile:
    """A task file and its workloads, as Rally's task format reads them."""

    path: Path
    document: Any  # the loaded file after rendering: what Rally parses
    config: Any  # rally.task.task_cfg.TaskConfig of the document
    task_args: Mapping[str, Any] = field(default_factory=dict)  # rendered with

    @classmethod
    def load(cls, path: Path, task_args: dict[str, Any] | None = None) -> TaskFile:
        """Read, render and parse ``path``; :class:`TaskFileError` if it can't."""
        document = load_document(path, task_args)
        return cls.of_document(path, document, task_args)

    @classmethod
    def of_document(
        cls, path: Path, document: Any, task_args: dict[str, Any] | None = None
    ) -> TaskFile:
        """A task of a rendered ``document`` (made in code from ``path``'s);
        :class:`TaskFileError` if Rally's format refuses it."""
        from rally import exceptions  # costly: all of rally (0.4 s)
        from rally.task import task_cfg  # costly: all of rally

        try:
            config = task_cfg.TaskConfig(document)
        except exceptions.RallyException as exc:
            raise TaskFileError(f"{path}: {exc.format_message()}") from None
        return cls(path, document, config, dict(task_args or {}))

    def workloads(self) -> Iterator[dict[str, Any]]:
        """Every workload of every subtask, in the file's order."""
        for subtask in self.config.subtasks:
            yield from subtask["workloads"]

    def pooled_user_sizes(self) -> list[tuple[int, int]]:
        """``(tenants, users_per_tenant)`` of every ``keystone_perf_users`` context."""
        sizes = []
        for workload in self.workloads():
            for name, config in workload["contexts"].items():
                if name.split("@")[0] == POOLED_CONTEXT:
                    sizes.append(
                        (config.get("tenants", 1), config.get("users_per_tenant", 1))
                    )
        return sizes


def load_document(path: Path, task_args: dict[str, Any] | None = None) -> Any:
    """Read, render (Rally's Jinja2 task args) and load a task file as Rally does."""
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
    from rally import api, exceptions  # costly: all of rally

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
