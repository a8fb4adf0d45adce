"""Tests for rally_keystone_perf.run.matrix (plan, state, resume, progress)."""

from __future__ import annotations

import contextlib
import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from rally_keystone_perf.deploy.options import LaunchError, LaunchOptions
from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.loadgen.locust.task import LocustOptions
from rally_keystone_perf.run import engines, matrix, session
from rally_keystone_perf.run.rally_runner import TaskOutcome
from rally_keystone_perf.tasks.model import TaskFile

OPTIONS = {"profile": "stock", "cache": "none"}


def _tasks(tmp_path: Path, mode: str, *names: str) -> Path:
    folder = tmp_path / "tasks" / mode
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        (folder / name).write_text("{}")
    return tmp_path / "tasks"


def test_plan_orders_levels_naturally(tmp_path: Path) -> None:
    tasks = _tasks(
        tmp_path,
        "uwsgi",
        "create-token-c16-quick.json",
        "create-token-c4-quick.json",
        "create-token-c32-quick.json",
        "create-token-c4-full.json",
        "list-projects-c10-quick.json",
    )
    _tasks(tmp_path, "apache", "create-token-c4-quick.json")
    cells = matrix.plan(["uwsgi", "apache"], "create-token-*", "quick", tasks)
    assert [c.key for c in cells] == [
        "uwsgi/create-token-c4-quick.json",
        "uwsgi/create-token-c16-quick.json",
        "uwsgi/create-token-c32-quick.json",
        "apache/create-token-c4-quick.json",
    ]


def test_plan_runs_every_file_at_every_node_count(tmp_path: Path) -> None:
    tasks = _tasks(tmp_path, "uwsgi", "create-token-c4-quick.json", "x-c8-quick.json")
    cells = matrix.plan(["uwsgi"], "*", "quick", tasks, [1, 3])
    assert [c.key for c in cells] == [
        "uwsgi/create-token-c4-quick.json",  # one node: the key it always had
        "uwsgi/x-c8-quick.json",
        "uwsgi/3-nodes/create-token-c4-quick.json",
        "uwsgi/3-nodes/x-c8-quick.json",
    ]
    assert [c.deployment for c in cells] == [("uwsgi", 1)] * 2 + [("uwsgi", 3)] * 2


def test_plan_names_what_is_missing(tmp_path: Path) -> None:
    tasks = _tasks(tmp_path, "uwsgi", "create-token-c4-quick.json")
    with pytest.raises(matrix.MatrixError, match=r"eventlet/create-\*-quick.json"):
        matrix.plan(["uwsgi", "eventlet"], "create-*", "quick", tasks)
    with pytest.raises(matrix.MatrixError, match="unknown size 'huge'"):
        matrix.plan(["uwsgi"], "*", "huge", tasks)


def test_the_bundled_quick_token_matrix() -> None:
    from rally_keystone_perf import paths

    cells = matrix.plan(["uwsgi"], "create-token-c*", "quick", paths.tasks_dir())
    assert [c.task.name for c in cells] == [
        "create-token-c4-quick.json",
        "create-token-c16-quick.json",
        "create-token-c32-quick.json",
    ]


def test_the_bundled_seed_001_matrices() -> None:
    from rally_keystone_perf import paths

    tasks = paths.tasks_dir()
    serial = matrix.plan(["apache"], "*-serial", "full", tasks)
    assert [c.task.name for c in serial] == [
        "create-delete-user-serial-full.json",
        "create-token-serial-full.json",
        "validate-token-serial-full.json",
    ]
    rate = matrix.plan(["apache"], "*-throughput-c8", "quick", tasks)
    assert [c.task.name for c in rate] == [
        "create-token-throughput-c8-quick.json",
        "list-revocation-events-throughput-c8-quick.json",
    ]


def _task_file(path: Path) -> Path:
    """A one-workload task file at ``path`` (the matrix reads each cell's)."""
    workload = {
        "scenario": {"KeystonePerf.list_projects": {}},
        "runner": {"constant": {"times": 4, "concurrency": 2}},
    }
    document = {
        "version": 2,
        "title": "t",
        "subtasks": [{"title": "s", "workloads": [workload]}],
    }
    path.write_text(json.dumps(document))
    return path


def _cell(tmp_path: Path, name: str = "a.json", mode: str = "uwsgi") -> matrix.Cell:
    return matrix.Cell(mode, _task_file(tmp_path / name))


def test_state_resumes_done_cells_only(tmp_path: Path) -> None:
    report = tmp_path / "r.json"
    report.write_text("{}")
    one, two, three = (_cell(tmp_path, n) for n in ("1.json", "2.json", "3.json"))
    state = matrix.MatrixState.open(tmp_path / "m", OPTIONS, restart=False)
    state.record(one, status=matrix.DONE, report=str(report))
    state.record(two, status=matrix.FAILED, report=None)
    state.record(three, status=matrix.DONE, report=str(tmp_path / "gone.json"))

    again = matrix.MatrixState.open(tmp_path / "m", OPTIONS, restart=False)
    assert [again.done(c) for c in (one, two, three)] == [True, False, False]
    assert again.reports([three, one, two]) == [report]
    saved = json.loads((tmp_path / "m" / matrix.STATE_FILE).read_text())
    assert saved["version"] == matrix.STATE_VERSION
    assert saved["options"] == OPTIONS
    assert saved["cells"]["uwsgi/1.json"]["status"] == "done"

    fresh = matrix.MatrixState.open(tmp_path / "m", OPTIONS, restart=True)
    assert not fresh.done(one)


def test_state_refuses_other_settings(tmp_path: Path) -> None:
    matrix.MatrixState.open(tmp_path, OPTIONS, False).save()
    with pytest.raises(matrix.MatrixError, match=r"cache 'none' -> 'memcached'"):
        matrix.MatrixState.open(tmp_path, {**OPTIONS, "cache": "memcached"}, False)


def test_state_refuses_a_foreign_file(tmp_path: Path) -> None:
    (tmp_path / matrix.STATE_FILE).write_text("[1, 2]")
    with pytest.raises(matrix.MatrixError, match="not a matrix state file"):
        matrix.MatrixState.open(tmp_path, OPTIONS, False)


def test_a_state_from_before_token_providers_resumes_as_fernet(
    tmp_path: Path,
) -> None:
    shared = matrix.shared_options(LaunchOptions())
    unrecorded = ("token_provider", "identity", "nodes", "lb_balance")
    old = {k: v for k, v in shared.items() if k not in unrecorded}
    matrix.MatrixState.open(tmp_path, old, False).save()
    matrix.MatrixState.open(tmp_path, shared, False)  # no refusal
    jws = matrix.shared_options(LaunchOptions(token_provider="jws"))
    with pytest.raises(matrix.MatrixError, match="token_provider 'fernet' -> 'jws'"):
        matrix.MatrixState.open(tmp_path, jws, False)


def test_shared_options_leave_out_mode_and_port() -> None:
    shared = matrix.shared_options(LaunchOptions(mode="apache", port=5000))
    assert set(shared) == set(matrix.SHARED_OPTIONS)
    assert "mode" not in shared and "port" not in shared


def test_progress_line(tmp_path: Path) -> None:
    ticks = iter([0.0, 0.0, 90.0, 200.0])
    progress = matrix.Progress(total=4, already=1, clock=lambda: next(ticks))
    cell = _cell(tmp_path, "create-token-c4-quick.json", "apache")
    assert progress.line(cell) == (
        "[2/4] apache create-token-c4-quick.json (elapsed 0s)"
    )
    progress.cell_done()
    # one cell in 90 s, two left
    assert progress.line(cell) == (
        "[3/4] apache create-token-c4-quick.json (elapsed 1m30s, about 3m00s left)"
    )


class FakeRunner:
    def __init__(self, codes: dict[str, int], interrupt: str | None) -> None:
        self.codes = codes
        self.interrupt = interrupt
        self.started: list[str] = []

    def start_task(self, task: Path, tags: Any = ()) -> TaskOutcome:
        self.started.append(task.name)
        report = task.with_suffix(".report.json")
        report.write_text("{}")
        if task.name == self.interrupt:
            return TaskOutcome(task, "u", 130, report, interrupted=True)
        return TaskOutcome(task, "u", self.codes.get(task.name, 0), report)


@pytest.fixture
def sessions(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> dict[str, Any]:
    """keystone_session faked: records the modes started and stopped."""
    record: dict[str, Any] = {"modes": [], "stopped": [], "runner": None}

    @contextlib.contextmanager
    def fake(runs_dir: Path, deployment: Any, echo: Any, keep_running: bool = False):
        options = deployment.options
        record["modes"].append(options.mode)
        record.setdefault("nodes", []).append(options.nodes)
        try:
            yield RunDir(runs_dir / options.mode), record["runner"]
        finally:
            record["stopped"].append(options.mode)

    monkeypatch.setattr(session, "keystone_session", fake)
    return record


def _run(tmp_path, sessions, cells, state, runner) -> list[int]:
    sessions["runner"] = runner
    messages: list[str] = []
    clock = itertools.count()
    codes = matrix.run_matrix(
        cells,
        state,
        lambda mode, nodes: LaunchOptions(mode=mode, nodes=nodes),
        messages.append,
        clock=lambda: float(next(clock)),
    )
    sessions["messages"] = messages
    return codes


def test_run_matrix_one_keystone_per_mode(tmp_path: Path, sessions) -> None:
    cells = [
        _cell(tmp_path, "a.json", "uwsgi"),
        _cell(tmp_path, "b.json", "uwsgi"),
        _cell(tmp_path, "c.json", "apache"),
    ]
    state = matrix.MatrixState.open(tmp_path / "m", OPTIONS, False)
    runner = FakeRunner({"b.json": 2, "c.json": 1}, None)
    assert _run(tmp_path, sessions, cells, state, runner) == [0, 2, 1]
    assert sessions["modes"] == sessions["stopped"] == ["uwsgi", "apache"]
    statuses = {k: v["status"] for k, v in state.cells.items()}
    # an SLA failure ran to its end (done); a Rally error is retried on resume
    assert statuses == {
        "uwsgi/a.json": "done",
        "uwsgi/b.json": "done",
        "apache/c.json": "failed",
    }
    assert any(m.startswith("[1/3] uwsgi a.json") for m in sessions["messages"])

    # resume: only the failed cell runs again, in its own Keystone
    runner = FakeRunner({}, None)
    sessions["modes"].clear()
    again = matrix.MatrixState.open(tmp_path / "m", OPTIONS, False)
    assert _run(tmp_path, sessions, cells, again, runner) == [0]
    assert runner.started == ["c.json"] and sessions["modes"] == ["apache"]
    assert any("resuming: 2 of 3 cells are done" in m for m in sessions["messages"])


def test_run_matrix_stops_at_an_interrupt(tmp_path: Path, sessions) -> None:
    cells = [
        _cell(tmp_path, n, m)
        for n, m in (("a.json", "uwsgi"), ("b.json", "uwsgi"), ("c.json", "apache"))
    ]
    state = matrix.MatrixState.open(tmp_path / "m", OPTIONS, False)
    runner = FakeRunner({}, "a.json")
    assert _run(tmp_path, sessions, cells, state, runner) == [130]
    assert runner.started == ["a.json"]
    assert sessions["stopped"] == ["uwsgi"]  # its Keystone was stopped
    assert state.cells["uwsgi/a.json"]["status"] == "interrupted"
    assert not state.done(cells[0])
    assert state.partial(cells) == [(cells[0], tmp_path / "a.report.json")]


def test_run_matrix_ctrl_c_outside_a_task_stops_the_server(
    tmp_path: Path, sessions
) -> None:
    class Raising(FakeRunner):
        def start_task(self, task: Path, tags: Any = ()) -> TaskOutcome:
            raise KeyboardInterrupt

    state = matrix.MatrixState.open(tmp_path / "m", OPTIONS, False)
    codes = _run(tmp_path, sessions, [_cell(tmp_path)], state, Raising({}, None))
    assert codes == [130]
    assert sessions["stopped"] == ["uwsgi"]


def test_a_mode_that_cannot_start_does_not_stop_the_matrix(
    tmp_path: Path, sessions, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = session.keystone_session

    def failing(runs_dir: Path, deployment: Any, echo: Any, keep_running: bool = False):
        if deployment.options.mode == "apache":
            raise LaunchError("apache2 is not installed")
        return real(runs_dir, deployment, echo, keep_running)

    monkeypatch.setattr(session, "keystone_session", failing)
    cells = [_cell(tmp_path, "a.json", "apache"), _cell(tmp_path, "b.json", "uwsgi")]
    state = matrix.MatrixState.open(tmp_path / "m", OPTIONS, False)
    runner = FakeRunner({}, None)
    assert _run(tmp_path, sessions, cells, state, runner) == [1, 0]
    assert runner.started == ["b.json"]
    failed = state.cells["apache/a.json"]
    assert failed["status"] == "failed"
    assert failed["error"] == "apache2 is not installed"
    assert "mode apache failed: apache2 is not installed" in sessions["messages"]


def test_run_matrix_one_keystone_per_node_count(tmp_path: Path, sessions) -> None:
    cells = [
        matrix.Cell("uwsgi", _task_file(tmp_path / "a.json"), 1),
        matrix.Cell("uwsgi", tmp_path / "a.json", 2),
    ]
    state = matrix.MatrixState.open(tmp_path / "m", OPTIONS, False)
    assert _run(tmp_path, sessions, cells, state, FakeRunner({}, None)) == [0, 0]
    assert sessions["modes"] == ["uwsgi", "uwsgi"] and sessions["nodes"] == [1, 2]
    assert state.cells["uwsgi/2-nodes/a.json"]["nodes"] == 2
    assert "== mode uwsgi, 2 nodes" in sessions["messages"]


def test_the_locust_engine_runs_each_cell_as_its_locust_task(
    tmp_path: Path, sessions
) -> None:
    task = _task_file(tmp_path / "lp.json")
    runner = FakeRunner({}, None)
    sessions["runner"] = runner
    state = matrix.MatrixState.open(tmp_path / "m", OPTIONS, False)
    codes = matrix.run_matrix(
        [matrix.Cell("uwsgi", task, 1)],
        state,
        lambda mode, nodes: LaunchOptions(mode=mode, nodes=nodes),
        lambda message: None,
        engine=engines.LocustEngine(LocustOptions(workers=2)),
        tasks={task: TaskFile.load(task)},
    )
    assert codes == [0] and runner.started == ["lp.json"]
    written = tmp_path / "m" / "runs" / "uwsgi" / "locust-tasks" / "lp.json"
    (subtask,) = json.loads(written.read_text())["subtasks"]
    assert subtask["workloads"][0]["runner"]["keystone_perf_locust"]["workers"] == 2


def test_run_matrix_with_its_own_sessions_starts_no_keystone(
    tmp_path: Path, sessions
) -> None:
    """matrix --os-cloud: each block's run comes from ``sessions``."""
    opened: list[tuple[str, int]] = []
    runner = FakeRunner({}, None)

    @contextlib.contextmanager
    def cloud_run(where: tuple[str, int]):
        opened.append(where)
        yield RunDir(tmp_path / "cloud"), runner

    def no_launch(mode: str, nodes: int) -> LaunchOptions:
        raise AssertionError("no Keystone is started")

    cells = [
        _cell(tmp_path, "a.json", "external"),
        _cell(tmp_path, "b.json", "external"),
    ]
    state = matrix.MatrixState.open(tmp_path / "m", {"target": "t"}, False)
    codes = matrix.run_matrix(cells, state, no_launch, [].append, sessions=cloud_run)
    assert codes == [0, 0] and opened == [("external", 1)]
    assert sessions["modes"] == [] and runner.started == ["a.json", "b.json"]
