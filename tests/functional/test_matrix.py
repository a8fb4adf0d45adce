"""``rally-keystone-perf matrix`` end to end on a real Keystone: pool, resume."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rally_keystone_perf import cli
from rally_keystone_perf.layout.rundir import RunDir
from tests.functional.conftest import FAST_HASH_ROUNDS, run_processes, write_task

pytestmark = pytest.mark.functional


def _tasks(root: Path) -> Path:
    """A two-cell task set for the uwsgi mode: pooled token creation, a listing."""
    folder = root / "tasks" / "uwsgi"
    folder.mkdir(parents=True)
    write_task(
        folder / "create-token-c2-quick.json",
        [
            {
                "scenario": {"KeystonePerf.create_token": {}},
                "runner": {"constant": {"times": 8, "concurrency": 2}},
                "contexts": {
                    "keystone_perf_users": {"tenants": 3, "users_per_tenant": 4}
                },
                "sla": {"failure_rate": {"max": 0}},
            }
        ],
    )
    write_task(
        folder / "list-projects-c2-quick.json",
        [
            {
                "scenario": {"KeystonePerf.list_projects": {}},
                "runner": {"constant": {"times": 6, "concurrency": 2}},
                "sla": {"failure_rate": {"max": 0}},
            }
        ],
    )
    return root / "tasks"


def test_matrix_uses_the_pool_and_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tasks = _tasks(tmp_path)
    argv = [
        "matrix",
        "--modes",
        "uwsgi",
        "--tasks",
        "*",
        "--tasks-dir",
        str(tasks),
        "--runs-dir",
        str(tmp_path / "runs"),
        "--password-hash-rounds",
        str(FAST_HASH_ROUNDS),
    ]
    assert cli.main(argv) == 0
    out, err = capsys.readouterr()
    assert "[1/2] uwsgi create-token-c2-quick.json" in err
    assert "[2/2] uwsgi list-projects-c2-quick.json" in err
    assert "user pool ready: 12 users" in err
    # the combined table: a row per cell, with setup and load apart
    assert "KeystonePerf.create_token" in out and "KeystonePerf.list_projects" in out
    assert "setup (s)" in out and "3x4" in out  # the user pool column
    folder = tmp_path / "runs" / "matrix-quick"
    state = json.loads((folder / "matrix.json").read_text())
    assert {c["status"] for c in state["cells"].values()} == {"done"}
    (run_root,) = {c["run"] for c in state["cells"].values()}
    run = RunDir(Path(run_root))
    assert not run_processes(run)
    # the pool's users were used: no user was created through the API, and
    # the warm-up logins were skipped (they are marked active today)
    log = run.access_log.read_text()
    assert "POST /v3/users " not in log.replace("POST /v3/users/", "")
    token_posts = log.count("POST /v3/auth/tokens")
    assert 8 <= token_posts < 8 + 12
    assert (folder / "combined.md").is_file()

    # the same command again: every cell is done, nothing starts
    assert cli.main(argv) == 0
    out, err = capsys.readouterr()
    assert "resuming: 2 of 2 cells are done" in err
    assert "starting uwsgi" not in err
    assert "KeystonePerf.create_token" in out
