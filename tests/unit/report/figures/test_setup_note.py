"""The line saying that a workload's setup outlasted its load."""

from __future__ import annotations

from pathlib import Path

import pytest

from rally_keystone_perf.report.figures.setup_note import setup_note
from rally_keystone_perf.report.readers.rally_json import Workload, load_report
from tests.unit.report import factory as f


@pytest.fixture
def make(tmp_path: Path):
    def _workload(load: float, *setups: tuple[str, float]) -> Workload:
        raw = f.workload([f.iteration(10.0, 0.4)], load_duration=load)
        raw["contexts_results"] = [
            {
                "plugin_name": name,
                "setup": {"started_at": 1.0, "finished_at": 1.0 + took, "error": None},
                "cleanup": {"started_at": None, "finished_at": None, "error": None},
            }
            for name, took in setups
        ]
        path = f.write_report(tmp_path / "r.json", [f.task([[raw]])])
        (workload,) = load_report(path)
        return workload

    return _workload


def test_a_setup_shorter_than_the_load_says_nothing(make) -> None:
    assert setup_note(make(15.0, ("users@openstack", 5.0))) is None
    assert setup_note(make(15.0)) is None  # no context at all


def test_the_context_that_took_most_is_named_with_why(make) -> None:
    tokens = ("keystone_perf_tokens@openstack", 0.2)
    assert setup_note(make(15.0, tokens, ("users@openstack", 24.9))) == (
        "setup (25.1 s) outlasted the load (15.0 s), not in the figures: "
        "users@openstack 24.9 s creating users, hashing passwords"
    )


def test_a_context_the_suite_does_not_know_is_named_alone(make) -> None:
    assert setup_note(make(10.0, ("quotas@openstack", 30.0))) == (
        "setup (30.0 s) outlasted the load (10.0 s), not in the figures: "
        "quotas@openstack 30.0 s"
    )
