"""What the suite's own workload checks share (not a plugin itself)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rally.common import validation as rally_validation


class WorkloadValidator(rally_validation.Validator):
    """A check of a workload's arguments and contexts, made before any
    server starts: a subclass, configured as a Rally validator, says in
    :meth:`problem` what is wrong (None: nothing)."""

    def problem(
        self, args: Mapping[str, Any], contexts: Mapping[str, Any]
    ) -> str | None:
        """What is wrong with the workload's ``args`` and ``contexts``."""
        raise NotImplementedError

    def validate(
        self,
        context: dict[str, Any],
        config: dict[str, Any] | None,
        plugin_cls: Any,
        plugin_cfg: dict[str, Any] | None,
    ) -> None:
        """Fail with the workload's problem, if it has one."""
        workload = config or {}
        found = self.problem(workload.get("args") or {}, workload.get("contexts") or {})
        if found:
            self.fail(found)
