"""The ready-made CI jobs in ci/ parse and point at files that exist."""

from __future__ import annotations

import os
import shutil
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
    assert shown.stdout.startswith("Regression gate job for a Keystone change:")
    assert "--make-baseline" in shown.stdout and "set -euo" not in shown.stdout
    assert "--change SPEC" in shown.stdout


def test_ab_gate_script_is_valid_bash_with_help() -> None:
    script = CI / "ab-gate.sh"
    subprocess.run(["bash", "-n", str(script)], check=True)
    shown = subprocess.run(
        ["bash", str(script), "--help"], capture_output=True, text=True, check=True
    )
    assert shown.stdout.startswith("A/B regression gate:")
    assert "GATE_AB_ARGS" in shown.stdout and "set -euo" not in shown.stdout


def test_gate_script_needs_a_change_or_a_baseline(tmp_path: Path) -> None:
    for argv in ([], ["--change", "a", "--baseline", "b"], ["--nope"]):
        result = subprocess.run(
            ["bash", str(SCRIPT), *argv], capture_output=True, text=True, cwd=tmp_path
        )
        assert result.returncode == 1 and "error:" in result.stderr, argv
    assert not (tmp_path / "gate-output").exists()


def test_gate_script_quotes_the_build_specs(tmp_path: Path) -> None:
    """--change/--base become one --a/--b argument each, quoted for shlex."""
    fake = tmp_path / "ci" / "ab-gate.sh"
    fake.parent.mkdir()
    fake.write_text('printf "%s\\n" "$@"\n')
    script = tmp_path / "ci" / "keystone-gate.sh"
    script.write_text(SCRIPT.read_text())
    result = subprocess.run(
        ["bash", str(script), "--change", "/src/my keystone", "--base", "k==1"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.splitlines() == [
        "--a=--keystone-build k==1",
        "--b=--keystone-build /src/my\\ keystone",
    ]


def test_gate_script_rejects_a_missing_baseline(tmp_path: Path) -> None:
    result = subprocess.run(
        ["bash", str(SCRIPT), "--baseline", str(tmp_path / "none.json")],
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
    assert 'ci/keystone-gate.sh --change "$change" --base "$base"' in run
    assert job["vars"]["keystone_perf_base"] == "HEAD~1"
    # Ansible splits a shell task's text as arguments: one stray quote (an
    # apostrophe in a comment) and the playbook does not load
    for play in yaml.safe_load(run):
        for task in play["tasks"]:
            script = task.get("ansible.builtin.shell", "")
            assert script.count("'") % 2 == 0, task["name"]
    assert "baseline" not in yaml.safe_dump(job["vars"])  # none stored


def test_github_workflow() -> None:
    workflow = yaml.safe_load((CI / "github" / "keystone-perf-gate.yml").read_text())
    # YAML 1.1 reads the key "on" as True
    assert {"pull_request", "workflow_dispatch"} <= set(workflow[True])
    steps = workflow["jobs"]["gate"]["steps"]
    commands = "\n".join(step.get("run", "") for step in steps)
    assert "rally-keystone-perf/ci/keystone-gate.sh" in commands
    assert '--change "$GITHUB_WORKSPACE/keystone" --base "$base"' in commands
    assert "BASELINE" not in workflow["env"]  # none stored: A/B on the runner


def _gate_env(tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    """keystone-gate.sh --change with a fake ab-gate.sh printing what the
    gate gets."""
    fake = tmp_path / "ci" / "ab-gate.sh"
    fake.parent.mkdir(exist_ok=True)
    fake.write_text('echo "AB: $GATE_AB_ARGS"; echo "GATE: $GATE_ARGS"\n')
    script = tmp_path / "ci" / "keystone-gate.sh"
    script.write_text(SCRIPT.read_text())
    return subprocess.run(
        ["bash", str(script), "--change", "/src/keystone"],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
    )


def test_the_change_job_counts_when_it_can(tmp_path: Path) -> None:
    counted = _gate_env(tmp_path, GATE_COUNT="yes").stdout
    assert "AB: --password-hash-rounds 4 --rounds 8 --instructions" in counted
    assert "--gate-on median,cpu,instructions,statements" in counted
    timed = _gate_env(tmp_path, GATE_COUNT="no").stdout
    assert "--instructions" not in timed and "--gate-on median,cpu\n" in timed
    # auto with no valgrind on the PATH: timed, and it says why
    bare = tmp_path / "bin"
    bare.mkdir()
    for tool in ("bash", "date", "dirname", "cat"):
        found = shutil.which(tool)
        assert found is not None
        (bare / tool).symlink_to(found)
    auto = _gate_env(tmp_path, PATH=str(bare))
    assert "--gate-on median,cpu\n" in auto.stdout, auto.stderr
    assert "apt-get install valgrind build-essential" in auto.stderr
    wrong = _gate_env(tmp_path, GATE_COUNT="maybe")
    assert wrong.returncode == 1 and "auto, yes or no" in wrong.stderr
