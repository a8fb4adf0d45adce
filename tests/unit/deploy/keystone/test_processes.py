"""Tests for deploy.keystone.processes: a node's logs in an error."""

from __future__ import annotations

from pathlib import Path

from rally_keystone_perf.deploy.keystone import processes
from rally_keystone_perf.layout.rundir import RunDir


def test_a_nodes_log_tails_come_from_its_own_folder(tmp_path: Path) -> None:
    run = RunDir(tmp_path)
    run.create()
    (run.logs / "node2").mkdir()
    (run.logs / "node2" / "keystone.log").write_text("node 2 failed\n")
    (run.logs / "node2-uwsgi-stdout.log").write_text("uwsgi of node 2\n")
    (run.logs / "keystone.log").write_text("the first host's init\n")
    tails = processes.server_log_tails(run, "node2")
    assert "node 2 failed" in tails and "uwsgi of node 2" in tails
    assert "first host" not in tails
    assert "first host" in processes.server_log_tails(run)
