"""Tests for rally_keystone_perf.deploy.nova.manage (nothing is run)."""

from __future__ import annotations

import pytest

from rally_keystone_perf.deploy.nova import manage
from rally_keystone_perf.layout.rundir import RunDir


def test_sync_databases_types_no_password(
    run: RunDir, monkeypatch: pytest.MonkeyPatch
) -> None:
    commands: list[list[str]] = []

    def fake_run(run_: RunDir, log: str, argv: list[str], what: str) -> str:
        commands.append(argv)
        return ""

    monkeypatch.setattr(manage, "run_logged", fake_run)
    manage.sync_databases(run)
    text = [" ".join(c) for c in commands]
    assert len(text) == 7
    # the cell mappings store templates, filled from each service's config
    cell0 = next(t for t in text if "map_cell0" in t)
    assert manage.CELL0_DB in cell0
    cell1 = next(t for t in text if "create_cell" in t)
    assert manage.CELL_DB in cell1 and manage.CELL_MQ in cell1
    assert "upgrade heads" in text[-1]
