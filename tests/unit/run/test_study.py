"""A study's cells: each config's task files, at the levels asked."""

from __future__ import annotations

from pathlib import Path

import pytest

from rally_keystone_perf import paths
from rally_keystone_perf.run import matrix
from rally_keystone_perf.run import study_matrix as study_run
from rally_keystone_perf.studies import seed000, seed001, seed003, seed004


def test_the_level_of_a_bundled_task_file() -> None:
    assert study_run.level(Path("create-token-c16-quick.json")) == 16
    assert study_run.level(Path("smoke.json")) is None


def test_seed_000_quick_runs_each_config_at_each_level() -> None:
    cells = study_run.study_cells(seed000.STUDY, "quick", paths.tasks_dir())
    assert {label: [c.mode for c in cs] for label, cs in cells.items()} == {
        "eventlet-1w": ["eventlet"] * 3,
        "eventlet-4w": ["eventlet"] * 3,
        "apache": ["apache"] * 3,
    }
    levels = [study_run.level(c.task) for c in cells["apache"]]
    assert levels == [4, 16, 32]


def test_levels_narrow_the_cells() -> None:
    cells = study_run.study_cells(seed003.STUDY, "quick", paths.tasks_dir(), [100])
    assert all(len(cs) == 1 for cs in cells.values())
    with pytest.raises(matrix.MatrixError, match="no task file at levels"):
        study_run.study_cells(seed000.STUDY, "quick", paths.tasks_dir(), [7])


def test_a_serial_task_is_level_1() -> None:
    assert study_run.level(Path("validate-token-serial-quick.json")) == 1


def test_seed_001_each_config_its_own_task_files_and_nodes() -> None:
    cells = study_run.study_cells(seed001.STUDY, "quick", paths.tasks_dir())
    names = {label: [c.task.name for c in cs] for label, cs in cells.items()}
    assert names["fernet-ldap"] == [  # no user creation: LDAP is read-only
        "create-token-serial-quick.json",
        "validate-token-serial-quick.json",
    ]
    assert "create-delete-user-serial-quick.json" in names["fernet-sql"]
    assert {c.nodes for c in cells["apache-4n"]} == {4}
    assert [c.key for c in cells["apache-2n"]] == [
        "apache/2-nodes/create-token-throughput-c8-quick.json",
        "apache/2-nodes/list-revocation-events-throughput-c8-quick.json",
    ]


def test_seed_004_runs_the_task_files_in_tasks_itself() -> None:
    (cell,) = study_run.study_cells(seed004.STUDY, "quick", paths.tasks_dir())[
        seed004.NOVA
    ]
    assert (cell.mode, cell.task) == (
        "nova-fake",
        paths.tasks_dir() / "boot-server-c5-quick.json",
    )


def test_a_study_may_run_fewer_levels_than_its_files_by_default() -> None:
    quick = study_run.study_cells(seed003.STUDY, "quick", paths.tasks_dir())
    levels = {study_run.level(c.task) for cs in quick.values() for c in cs}
    assert levels == {10, 200}
    asked = study_run.study_cells(seed003.STUDY, "quick", paths.tasks_dir(), [1000])
    assert all([c.task.name for c in cs] == ["list-projects-c1000-quick.json"]
               for cs in asked.values())  # fmt: skip


def test_configs_are_visited_a_b_then_b_a_the_last_once() -> None:
    assert study_run.visit_order(["a", "b", "c"]) == [
        ("a", 1),
        ("b", 1),
        ("c", 1),
        ("b", 2),
        ("a", 2),
    ]
    assert study_run.visit_order(["only"]) == [("only", 1)]
    in_no_ratio = ["a", "b", "x", "c"], {"x"}
    assert study_run.visit_order(*in_no_ratio) == [
        ("a", 1),
        ("b", 1),
        ("c", 1),
        ("x", 1),
        ("b", 2),
        ("a", 2),
    ]
    assert study_run.in_no_ratio(seed001.STUDY) == {"jws-ldap"}
    assert study_run.in_no_ratio(seed000.STUDY) == set()
    assert study_run.visit_folder(Path("s"), "a", 1) == Path("s/a")
    assert study_run.visit_folder(Path("s"), "a", 2) == Path("s/a.visit-2")


def _fake_matrix(monkeypatch: pytest.MonkeyPatch, stop_at: int | None) -> list[str]:
    """run_matrix that records each cell done (a report file); 130 at the
    ``stop_at``-th visit."""
    ran: list[str] = []

    def run_matrix(cells, state, options_for, echo):  # type: ignore[no-untyped-def]
        ran.append(state.folder.name)
        if len(ran) == stop_at:
            return [130]
        for cell in cells:
            report = state.folder / f"{cell.task.stem}.json"
            report.parent.mkdir(parents=True, exist_ok=True)
            report.write_text("{}")
            state.record(cell, status=matrix.DONE, report=str(report))
        return [0]

    monkeypatch.setattr(study_run.matrix, "run_matrix", run_matrix)
    return ran


def _rate_cells() -> dict[str, list[matrix.Cell]]:
    cells = study_run.study_cells(seed001.STUDY, "quick", paths.tasks_dir())
    wanted = ("apache-1n", "apache-2n", "apache-3n")
    return {label: cs for label, cs in cells.items() if label in wanted}


def _options(config, tasks):  # type: ignore[no-untyped-def]
    from rally_keystone_perf.deploy.options import LaunchOptions

    return LaunchOptions(mode=config.mode, **config.options)


def test_a_study_of_clusters_runs_a_b_a_and_resumes_after_an_interrupt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ran = _fake_matrix(monkeypatch, stop_at=4)
    said: list[str] = []
    first = study_run.run_study(
        _rate_cells(), seed001.STUDY, tmp_path, _options, said.append
    )
    assert ran == ["apache-1n", "apache-2n", "apache-3n", "apache-2n.visit-2"]
    assert first.interrupted
    assert [sorted(v) for v in first.visits] == [
        ["apache-1n", "apache-2n", "apache-3n"],
        ["apache-1n", "apache-2n"],
    ]
    assert first.visits[1]["apache-2n"] == []  # interrupted: nothing done
    assert said[-1].endswith(
        "apache-2n (two Keystones in Apache behind haproxy), visit 2, step 4 of 5"
    )
    ran = _fake_matrix(monkeypatch, stop_at=None)
    again = study_run.run_study(
        _rate_cells(), seed001.STUDY, tmp_path, _options, said.append
    )
    assert ran[-2:] == ["apache-2n.visit-2", "apache-1n.visit-2"]
    assert all(len(v) == 2 for visit in again.visits for v in visit.values())
