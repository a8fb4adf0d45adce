"""``rally-keystone-perf ab`` against two real local Keystones.

The gate's own check (``tox -e gate``, ci/ab-gate.sh) runs whole A/Bs and
gates them; this test covers what that cannot: a SIGTERM in the middle of
the rounds keeps the complete ones, reports them, and leaves nothing
running on either side.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from rally_keystone_perf.layout.rundir import RunDir
from tests.functional.conftest import FAST_HASH_ROUNDS, run_processes, write_task


def _wait_for_rounds(state: Path, rounds: int, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and proc.poll() is None:
        if state.is_file():
            found = json.loads(state.read_text())
            if sum(len(r["reports"]) == 2 for r in found["rounds"]) >= rounds:
                return
        time.sleep(0.5)
    raise AssertionError(f"no {rounds} complete rounds in {state}")


def test_sigterm_keeps_the_complete_rounds_and_stops_both_sides(
    tmp_path: Path,
) -> None:
    task = write_task(
        tmp_path / "tokens.json",
        [
            {
                "scenario": {"KeystonePerf.validate_token": {}},
                "runner": {"constant": {"times": 20, "concurrency": 2}},
                "contexts": {"users": {"tenants": 1, "users_per_tenant": 2}},
            }
        ],
    )
    folder = tmp_path / "ab"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "rally_keystone_perf.cli",
            "ab",
            "--task",
            str(task),
            "--rounds",
            "20",
            "--ab-dir",
            str(folder),
            "--password-hash-rounds",
            str(FAST_HASH_ROUNDS),
            "--b=--processes 1",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    _wait_for_rounds(folder / "ab.json", 2, proc)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 143, err
    state = json.loads((folder / "ab.json").read_text())
    assert state["status"] == "interrupted"
    assert [r["order"] for r in state["rounds"][:2]] == ["ab", "ba"]
    assert "A: processes 2" in out and "B: processes 1" in out
    assert "KeystonePerf.validate_token (constant, concurrency 2, times 20)" in out
    assert "of 20 rounds complete (interrupted)" in out
    for side in ("a", "b"):
        run = RunDir(Path(state["sides"][side]["run"]))
        assert not run_processes(run), side
        assert run.read_state()["machine"]["probe_before"] > 0
