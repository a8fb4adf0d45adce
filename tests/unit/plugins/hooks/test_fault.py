"""The keystone_perf_fault hook: schema, run folder, outcome in the result."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from rally_keystone_perf.deploy import faults
from rally_keystone_perf.plugins.hooks.fault import KeystonePerfFault


def _hook(config: dict[str, Any]) -> KeystonePerfFault:
    jsonschema.validate(config, KeystonePerfFault.CONFIG_SCHEMA)
    return KeystonePerfFault({"uuid": "t"}, config, {"event": "time", "value": 20})


@pytest.mark.parametrize(
    "config",
    [
        {"action": "explode", "target": "node2"},
        {"action": "kill", "target": "node9"},
        {"action": "kill", "target": "haproxy"},
        {"action": "kill"},
        {"action": "kill", "target": "node2", "when": 3},
    ],
)
def test_the_schema_refuses_what_faults_cannot_do(config: dict[str, Any]) -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(config, KeystonePerfFault.CONFIG_SCHEMA)


def test_without_a_run_folder_the_hook_fails_saying_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(faults.RUN_ENV, raising=False)
    hook = _hook({"action": "kill", "target": "node2"})
    hook.run()
    result = hook.result()
    assert result["status"] == "failed"
    assert "KEYSTONE_PERF_RUN is not set" in result["error"]["msg"]


def test_the_fault_and_its_steps_are_the_hooks_output(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(faults.RUN_ENV, str(tmp_path))
    calls = []

    def apply(run: Any, action: str, target: str, timeout: float) -> faults.Fault:
        calls.append((run.root, action, target, timeout))
        return faults.Fault(
            action, target, time.time(), done=["SIGKILL to node2-uwsgi"]
        )

    monkeypatch.setattr(faults, "apply", apply)
    hook = _hook({"action": "kill", "target": "node2"})
    hook.run()
    result = hook.result()
    assert calls == [(tmp_path, "kill", "node2", 60)]
    assert result["status"] == "success"
    (output,) = result["output"]["complete"]
    assert output["title"] == "Fault: kill node2"
    assert output["data"] == ["SIGKILL to node2-uwsgi"]


def test_a_step_that_failed_fails_the_hook(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(faults.RUN_ENV, str(tmp_path))
    failed = faults.Fault("start", "node2", 0.0, error="node2 did not answer")
    monkeypatch.setattr(faults, "apply", lambda *args: failed)
    hook = _hook({"action": "start", "target": "node2", "timeout": 5})
    hook.run()
    assert hook.result()["status"] == "failed"
    assert hook.result()["error"]["msg"] == "node2 did not answer"
