"""Tests for report.own_cloud: a copied server log taken into an --os-cloud run."""

from __future__ import annotations

import json
import math
import random
import time
from pathlib import Path
from typing import Any

import pytest

from rally_keystone_perf.client import atomics
from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.report import api, own_cloud
from rally_keystone_perf.report.figures import run_labels, windows
from rally_keystone_perf.report.readers.access_log import ServerRequest, read_requests
from rally_keystone_perf.report.readers.rally_json import ReportError, load_report
from tests.unit.report import factory as f

NAME = "20261125-131500-os-cloud"
AGENT = f"rally-keystone-perf/{NAME}"
OTHER = "python-openstackclient keystoneauth1/5.3.0 python-requests/2.31.0"
OTHER_RUN = "rally-keystone-perf/20261125-120000-os-cloud"
# a run started in the same second: its folder is the name with -2
SAME_SECOND = f"rally-keystone-perf/{NAME}-2"
TARGET = {"auth_url": "https://keystone.test:5000", "api_version": "v3.14"}
TOKENS = "POST /v3/auth/tokens"
PROJECTS = "GET /v3/projects"
T0 = 1_764_077_700.3  # the first iteration's start, this machine's clock
SKEW = 1.95  # the server's clock is this far ahead of this machine's
# (with T0, the context's request 0.2 s before the load is stamped a second
# that the offset alone shifts into the load window)
ZONE = 3600  # the server logs its local time at +01:00
_MONTHS = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split()


# --- the run folder ----------------------------------------------------------


def iterations(
    count: int = 20,
    action: str = atomics.CREATE_TOKEN,
    start: float = T0,
    seed: int = 5,
) -> list[dict[str, Any]]:
    """``count`` iterations 0.9 to 2.5 s apart, one ``action`` each."""
    rng = random.Random(seed)
    data, at = [], start
    for _ in range(count):
        begun = at + 0.02
        data.append(f.iteration(at, 0.3, 0.0, [f.atomic(action, begun, begun + 0.2)]))
        at += rng.uniform(0.9, 2.5)
    return data


def make_run(
    tmp_path: Path,
    workloads: list[list[dict[str, Any]]],
    target: dict[str, Any] | None = TARGET,
) -> RunDir:
    """An --os-cloud run folder with one Rally report of ``workloads``."""
    run = RunDir(tmp_path / NAME)
    run.create()
    if target is not None:
        run.write_state(status="finished", target=target)
    else:
        run.write_state(status="finished")
    exported = [
        f.workload(data, position=i, runner={"times": len(data), "concurrency": 1})
        for i, data in enumerate(workloads)
    ]
    f.write_report(run.results / "task-1.json", [f.task([exported])])
    return run


def action_starts(run: RunDir) -> list[float]:
    """Every atomic action's start in the run's report."""
    (path,) = run.results.glob("*.json")
    return sorted(
        action["started_at"]
        for workload in load_report(path)
        for iteration in workload.iterations
        for action in iteration.atomic_actions
    )


def load_windows(run: RunDir) -> list[tuple[float, float]]:
    (path,) = run.results.glob("*.json")
    return [windows.load_window(w) for w in load_report(path)]


# --- the copied log ----------------------------------------------------------


def apache_time(server: float) -> str:
    """Apache's ``%t`` of a server epoch time, at +01:00 (whole seconds)."""
    local = time.gmtime(math.floor(server) + ZONE)
    month = _MONTHS[local.tm_mon - 1]
    return (
        f"{local.tm_mday:02d}/{month}/{local.tm_year}:"
        f"{local.tm_hour:02d}:{local.tm_min:02d}:{local.tm_sec:02d} +0100"
    )


def apache(client: float, route: str, agent: str, micros: int = 54321) -> str:
    """The line the server logs for a request sent at ``client`` (our clock)."""
    method, path = route.split()
    status = 201 if method == "POST" else 200
    return (
        f"10.0.0.5 - - [{apache_time(client + SKEW)}] "
        f'"{method} {path} HTTP/1.1" {status} 2048 {micros} "-" "{agent}"'
    )


def uwsgi(client: float, route: str, msecs: int = 54) -> str:
    """uwsgi's default line for a request sent at ``client``: local time, no zone."""
    local = time.gmtime(math.floor(client + SKEW) + ZONE)
    stamp = time.strftime("%a %b %d %H:%M:%S %Y", local)  # C locale names
    method, path = route.split()
    status = 201 if method == "POST" else 200
    return (
        f"[pid: 3699|app: 0|req: 1/1] 10.0.0.5 () {{30 vars in 616 bytes}} "
        f"[{stamp}] {method} {path} => generated 135 bytes in {msecs} msecs "
        f"(HTTP/1.1 {status}) 4 headers in 158 bytes (1 switches on core 0)"
    )


def write_log(path: Path, lines: list[tuple[float, str]]) -> Path:
    """``lines`` (client time, text) in the server's time order."""
    path.write_text("".join(text + "\n" for _, text in sorted(lines)), "utf-8")
    return path


def our_lines(run: RunDir, context_at: float) -> list[tuple[float, str]]:
    """The run's own requests: one per atomic action, the context's token
    request at ``context_at`` and a version discovery 3 s before it."""
    lines = [(t, apache(t, TOKENS, AGENT)) for t in action_starts(run)]
    lines.append((context_at, apache(context_at, TOKENS, AGENT)))
    lines.append((context_at - 3.0, apache(context_at - 3.0, "GET /v3", AGENT)))
    return lines


def other_lines(start: float, end: float) -> list[tuple[float, str]]:
    """Other clients' requests, through and around the run."""
    rng = random.Random(9)
    lines = []
    for _ in range(15):
        at = rng.uniform(start - 30, end + 30)
        lines.append((at, apache(at, TOKENS, OTHER)))
        at = rng.uniform(start - 30, end + 30)
        lines.append((at, apache(at, PROJECTS, OTHER)))
    for _ in range(5):
        at = rng.uniform(start, end)
        lines.append((at, apache(at, TOKENS, OTHER_RUN)))
        at = rng.uniform(start, end)
        lines.append((at, apache(at, TOKENS, SAME_SECOND)))
    return lines


@pytest.fixture
def shared(tmp_path: Path) -> tuple[RunDir, Path, float]:
    """A run, a shared server's Apache log of it, the context request's time."""
    run = make_run(tmp_path, [iterations()])
    ((start, end),) = load_windows(run)
    context_at = start - 0.2
    lines = our_lines(run, context_at) + other_lines(start, end)
    return run, write_log(tmp_path / "keystone-access.log", lines), context_at


# --- Apache: a shared server's log, told apart by User-Agent -----------------


def test_keeps_only_the_runs_lines(shared: tuple[RunDir, Path, float]) -> None:
    run, log, _ = shared
    found = own_cloud.import_server_log(run.root, log)
    written = read_requests(run.access_log)
    assert len(written) == found.kept == 22  # 20 timed, a context's, discovery
    assert found.lines == 22 + 40
    assert found.other_clients == 40
    assert found.formats == ["apache"]
    assert sorted(r.route for r in written) == ["GET /v3"] + [TOKENS] * 21
    assert {r.server_time for r in written} == {0.054321}
    assert {(r.status, r.pid) for r in written} == {(201, 0), (200, 0)}


def test_timed_requests_at_their_actions_starts(
    shared: tuple[RunDir, Path, float],
) -> None:
    run, log, _ = shared
    own_cloud.import_server_log(run.root, log)
    ((start, end),) = load_windows(run)
    written = read_requests(run.access_log)
    inside = sorted(r.start for r in written if start <= r.start <= end)
    assert inside == pytest.approx(action_starts(run), abs=1e-6)


def test_context_request_outside_the_load_window(
    shared: tuple[RunDir, Path, float],
) -> None:
    run, log, context_at = shared
    own_cloud.import_server_log(run.root, log)
    ((start, end),) = load_windows(run)
    written = read_requests(run.access_log)
    outside = [r for r in written if not start <= r.start <= end]
    assert sorted(r.route for r in outside) == ["GET /v3", TOKENS]
    (context,) = [r for r in outside if r.route == TOKENS]
    assert context.start < start
    # the offset alone would have put it inside: whole-second stamps
    offset = json.loads(run.state_file.read_text())["target_server_log"]["offset"]
    assert start < math.floor(context_at + SKEW) - offset < end
    assert context.start == pytest.approx(context_at, abs=1.5)


def test_records_the_import_in_run_json(shared: tuple[RunDir, Path, float]) -> None:
    run, log, _ = shared
    found = own_cloud.import_server_log(run.root, log)
    recorded = json.loads(run.state_file.read_text())["target_server_log"]
    assert recorded == {
        "file": str(log),
        "formats": ["apache"],
        "lines": 62,
        "kept": 22,
        "other_clients": 40,
        "offset": found.alignment.offset,
        "matched": found.alignment.matched,
        "of": found.alignment.of,
    }
    assert recorded["offset"] == pytest.approx(SKEW, abs=1.0)  # zone read off
    assert (recorded["matched"], recorded["of"]) == (20, 20)
    assert run.state().target == TARGET  # kept as it was


def test_lines_out(shared: tuple[RunDir, Path, float]) -> None:
    run, log, _ = shared
    found = own_cloud.import_server_log(run.root, log)
    assert found.lines_out() == [
        "server log (apache): 22 of 62 requests are this run's; "
        "40 of other clients left out",
        found.alignment.line(),
    ]
    assert api.import_server_log(run.root, log) == found.lines_out()


def test_import_again_gives_the_same_log(shared: tuple[RunDir, Path, float]) -> None:
    run, log, _ = shared
    own_cloud.import_server_log(run.root, log)
    first = run.access_log.read_text()
    own_cloud.import_server_log(run.root, log)
    assert run.access_log.read_text() == first


def test_report_columns_name_the_log(shared: tuple[RunDir, Path, float]) -> None:
    run, log, _ = shared
    found = own_cloud.import_server_log(run.root, log)
    columns = run_labels.config_columns(run.state())
    assert columns["server side"] == (
        f"from its log, clock {found.alignment.offset:+.1f} s"
    )


def test_each_workload_pinned_in_its_own_window(tmp_path: Path) -> None:
    tokens = iterations(12)
    projects = iterations(12, atomics.LIST_PROJECTS, start=T0 + 60.0, seed=6)
    run = make_run(tmp_path, [tokens, projects])
    (first, second) = load_windows(run)
    lines = [
        (a["started_at"], apache(a["started_at"], TOKENS, AGENT))
        for it in tokens
        for a in it["atomic_actions"]
    ]
    lines += [
        (a["started_at"], apache(a["started_at"], PROJECTS, AGENT))
        for it in projects
        for a in it["atomic_actions"]
    ]
    lines.append((second[0] - 0.1, apache(second[0] - 0.1, TOKENS, AGENT)))
    lines.append((second[1] + 0.1, apache(second[1] + 0.1, PROJECTS, AGENT)))
    log = write_log(tmp_path / "access.log", lines)
    found = own_cloud.import_server_log(run.root, log)
    assert (found.kept, found.other_clients) == (26, 0)
    written = read_requests(run.access_log)
    pairs = ((first, TOKENS, tokens), (second, PROJECTS, projects))
    for (start, end), route, data in pairs:
        inside = sorted(
            r.start for r in written if r.route == route and start <= r.start <= end
        )
        expected = sorted(a["started_at"] for it in data for a in it["atomic_actions"])
        assert inside == pytest.approx(expected, abs=1e-6)
    late = [r for r in written if r.route == PROJECTS and r.start > second[1]]
    assert len(late) == 1


# --- uwsgi: no User-Agent, every line kept -----------------------------------


def test_uwsgi_log_keeps_every_line(tmp_path: Path) -> None:
    run = make_run(tmp_path, [iterations()])
    ((start, end),) = load_windows(run)
    lines = [(t, uwsgi(t, TOKENS)) for t in action_starts(run)]
    lines.append((start - 0.2, uwsgi(start - 0.2, TOKENS)))
    lines.append((start - 20.0, uwsgi(start - 20.0, PROJECTS)))  # anyone's
    log = write_log(tmp_path / "keystone-uwsgi.log", lines)
    found = own_cloud.import_server_log(run.root, log)
    assert (found.formats, found.lines, found.kept) == (["uwsgi"], 22, 22)
    assert found.other_clients is None
    # uwsgi's local time is read as UTC: the zone is in the offset
    assert found.alignment.offset == pytest.approx(ZONE + SKEW, abs=1.0)
    assert "its format names no client" in found.lines_out()[0]
    recorded = run.state().target_server_log
    assert recorded is not None
    assert (recorded["other_clients"], recorded["kept"]) == (None, 22)
    written = read_requests(run.access_log)
    assert len(written) == 22
    assert {r.pid for r in written} == {3699}
    inside = sorted(r.start for r in written if start <= r.start <= end)
    assert inside == pytest.approx(action_starts(run), abs=1e-6)


# --- errors ------------------------------------------------------------------


def test_a_run_without_a_target_is_refused(tmp_path: Path) -> None:
    run = make_run(tmp_path, [iterations()], target=None)
    log = write_log(tmp_path / "access.log", our_lines(run, T0 - 0.2))
    with pytest.raises(ReportError, match="for runs with --os-cloud"):
        own_cloud.import_server_log(run.root, log)
    assert not run.access_log.exists()


def test_a_folder_without_run_json_is_refused(tmp_path: Path) -> None:
    log = write_log(tmp_path / "access.log", [(T0, apache(T0, TOKENS, AGENT))])
    with pytest.raises(ReportError, match="for runs with --os-cloud"):
        own_cloud.import_server_log(tmp_path / "nothing", log)


def test_a_log_without_a_known_line_is_refused(tmp_path: Path) -> None:
    run = make_run(tmp_path, [iterations()])
    log = tmp_path / "keystone.log"
    log.write_text(
        "2026-11-25 13:24:23.456 3699 INFO keystone.server [-] starting\n"
        '10.0.0.5 - - [25/Nov/2026:13:24:23 +0100] "GET / HTTP/1.1" 200 12 "-" "x"\n'
    )
    with pytest.raises(ReportError, match="no request line of a known format"):
        own_cloud.import_server_log(run.root, log)
    assert not run.access_log.exists()
    assert run.state().target_server_log is None


def test_a_missing_log_is_refused(tmp_path: Path) -> None:
    run = make_run(tmp_path, [iterations()])
    with pytest.raises(ReportError, match="cannot read the server log"):
        own_cloud.import_server_log(run.root, tmp_path / "missing.log")


def test_a_log_without_the_runs_requests_is_refused(tmp_path: Path) -> None:
    run = make_run(tmp_path, [iterations()])
    ((start, end),) = load_windows(run)
    log = write_log(tmp_path / "access.log", other_lines(start, end))
    with pytest.raises(ReportError, match="none of this run's requests"):
        own_cloud.import_server_log(run.root, log)
    assert not run.access_log.exists()


def test_write_is_the_suites_access_log_format(tmp_path: Path) -> None:
    path = tmp_path / "access.log"
    request = ServerRequest(1764077700.123456, "GET", "/v3/projects", 200, 0.0123, 7)
    own_cloud._write(path, [request])
    assert path.read_text() == "1764077700123456 GET /v3/projects 200 12300 7\n"
    assert read_requests(path) == [request]
