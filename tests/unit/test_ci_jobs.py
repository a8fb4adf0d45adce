"""The ready-made CI jobs in ci/ parse and point at files that exist."""

from __future__ import annotations

import subprocess
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
CI = ROOT / "ci"
SCRIPT = CI / "keystone-gate.sh"


def test_gate_script_is_valid_bash_with_help() -> None:
    subprocess.run(["bash", "-n", str(SCRIPT)], check=True)
    shown = subprocess.run(
        ["bash", str(SCRIPT), "--help"], capture_output=True, text=True, check=True
    )
    assert shown.stdout.startswith("Regression gate job:")
    assert "--make-baseline" in shown.stdout and "set -euo" not in shown.stdout


def test_ab_gate_script_is_valid_bash_with_help() -> None:
    script = CI / "ab-gate.sh"
    subprocess.run(["bash", "-n", str(script)], check=True)
    shown = subprocess.run(
        ["bash", str(script), "--help"], capture_output=True, text=True, check=True
    )
    assert shown.stdout.startswith("A/B regression gate:")
    assert "GATE_AB_ARGS" in shown.stdout and "set -euo" not in shown.stdout


def test_gate_script_rejects_a_missing_baseline(tmp_path: Path) -> None:
    result = subprocess.run(
        ["bash", str(SCRIPT), str(tmp_path / "none.json")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1
    assert "does not exist" in result.stderr and "--make-baseline" in result.stderr
    assert not (tmp_path / "gate-output").exists()


def test_default_gate_task_is_bundled() -> None:
    text = SCRIPT.read_text()
    assert "tasks/gate-tokens.json" in text
    assert (ROOT / "tasks" / "gate-tokens.json").is_file()


def test_zuul_job_and_playbooks() -> None:
    (job,) = yaml.safe_load((CI / "zuul.d" / "jobs.yaml").read_text())
    job = job["job"]
    assert job["name"] == "rally-keystone-perf-gate"
    assert "openstack/keystone" in job["required-projects"]
    for key in ("run", "post-run"):
        playbook = ROOT / job[key]
        assert playbook.is_file(), playbook
        assert isinstance(yaml.safe_load(playbook.read_text()), list)
    run = (ROOT / job["run"]).read_text()
    assert "ci/keystone-gate.sh" in run and "keystone_perf_baseline" in run
    baseline = Path(job["vars"]["keystone_perf_baseline"]).name
    assert baseline in (CI / "baselines" / "README.rst").read_text()


def test_github_workflow() -> None:
    workflow = yaml.safe_load((CI / "github" / "keystone-perf-gate.yml").read_text())
    # YAML 1.1 reads the key "on" as True
    assert {"pull_request", "workflow_dispatch"} <= set(workflow[True])
    steps = workflow["jobs"]["gate"]["steps"]
    commands = "\n".join(step.get("run", "") for step in steps)
    assert "rally-keystone-perf/ci/keystone-gate.sh" in commands
    baseline = Path(workflow["env"]["BASELINE"]).name
    assert baseline in (CI / "baselines" / "README.rst").read_text()
