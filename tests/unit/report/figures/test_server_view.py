"""Tests for report.server_view and the server side of the report formats.

The run folder is synthetic: a Rally report in ``results/``, an access log in
uwsgi's format (``<start us> <METHOD> <URI> <status> <server us> <pid>``) and
a ``resources.csv`` as the sampler writes it.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest

from rally_keystone_perf.client import atomics
from rally_keystone_perf.report import api
from rally_keystone_perf.report.blocks import server_side as server
from rally_keystone_perf.report.figures import run_labels, server_view
from rally_keystone_perf.report.figures.server_view import ActionGap, RouteTimes
from rally_keystone_perf.report.readers.rally_json import ReportError, load_report
from rally_keystone_perf.report.writers import render
from tests.unit.report import factory as f
from tests.unit.report import runs as r
from tests.unit.report.readers.test_keystone_log import locked_record

MB = 1024 * 1024
USER_ID = "0123456789abcdef0123456789abcdef"

# workload 0: create_token, iterations at 1000, 1001, 1002 of 0.1, 0.2, 0.3 s
# (+ 0.01 s overhead): load window [1000.0, 1002.31]
ACCESS_LOG = f"""\
999000000 GET /v3/users 200 5000 11
1000000100 POST /v3/auth/tokens 201 90000 11
1001000100 POST /v3/auth/tokens?nocatalog 201 180000 12
1002000100 POST /v3/auth/tokens 201 290000 11
1002100000 GET /v3 200 1000 12
1002200000 POST /v3/auth/tokens 500 1000 12
1002400000 DELETE /v3/users/{USER_ID} 204 3000 11
uwsgi: a line of another shape
2000000100 GET /v3/projects 200 40000 11
2001000100 GET /v3/projects 500 60000 12
"""
RESOURCES = """\
timestamp,cpu_seconds,rss_bytes,processes
999.5,10.0,104857600,3
1000.5,11.0,125829120,3
1001.5,12.0,157286400,3
timestamp,cpu_seconds,rss_bytes,processes
1002.5,13.5,136314880,3
1003.5,20.0,524288000,4
1004.5,21.0
"""


# Rally's tree: 0.5 CPU s at the window's start (1000.0), 0.75 + 1.31 / 2 * 0.2
# at its end (1002.31): 0.381 s inside it
CLIENT = """\
timestamp,cpu_seconds,rss_bytes,processes
999.0,0.25,52428800,0
1001.0,0.75,104857600,3
1003.0,0.95,52428800,1
"""


def _list_projects() -> dict:
    """Workload 1: list_projects at 2000 (ok) and 2001 (failed), one custom action."""
    a = f.atomic
    data = [
        f.iteration(
            2000.0,
            0.08,
            0.0,
            [
                a(atomics.LIST_PROJECTS, 2000.0, 2000.05),
                a("custom.action", 2000.06, 2000.07),
            ],
        ),
        f.iteration(
            2001.0,
            0.07,
            0.0,
            [a(atomics.LIST_PROJECTS, 2001.0, 2001.06, failed=True)],
            ("HttpError", "boom"),
        ),
    ]
    return f.workload(
        data, name="KeystonePerf.list_projects", runner={"times": 2}, position=1
    )


def _run(
    tmp_path: Path, log: bool = True, samples: bool = True, client: bool = False
) -> Path:
    """A run folder with two workloads; returns its report file."""
    report = r.make_run(
        tmp_path,
        "run",
        [r.workload([0.1, 0.2, 0.3]), _list_projects()],
        r.state(rounds=4),
    )
    logs = tmp_path / "run" / "logs"
    logs.mkdir()
    if log:
        (logs / "access.log").write_text(ACCESS_LOG)
    if samples:
        (logs / "resources.csv").write_text(RESOURCES)
    if client:
        (logs / "resources-client.csv").write_text(CLIENT)
    return report


def _view(report: Path) -> server_view.ServerView | None:
    return server_view.server_view(report, load_report(report))


def _gaps(tmp_path: Path, *names: str) -> dict[str, str | None]:
    """Each action's route in a workload timing ``names``, one per iteration."""
    data = [
        f.iteration(i, 0.1, 0.0, [f.atomic(name, i, i + 0.1)])
        for i, name in enumerate(names * 3)
    ]
    report = f.write_report(tmp_path / "r.json", [f.task([[f.workload(data=data)]])])
    (workload,) = load_report(report)
    times = [server_view.RouteTimes("POST /v3/auth/tokens", 6, 0, 0.05, 0.06)]
    return {g.action: g.route for g in server_view.action_gaps(workload, times)}


def test_a_route_two_actions_of_one_workload_share_is_neither_s(
    tmp_path: Path,
) -> None:
    shared = atomics.ROUTES[atomics.CREATE_TOKEN]
    assert atomics.ROUTES[atomics.AUTHENTICATE_APP_CRED] == shared
    alone = _gaps(tmp_path, atomics.AUTHENTICATE_APP_CRED)
    assert alone == {atomics.AUTHENTICATE_APP_CRED: shared}
    both = _gaps(tmp_path, atomics.CREATE_TOKEN, atomics.AUTHENTICATE_APP_CRED)
    assert both == {atomics.CREATE_TOKEN: None, atomics.AUTHENTICATE_APP_CRED: None}


def test_run_folder(tmp_path: Path) -> None:
    assert server_view.run_folder(tmp_path / "run" / "results" / "a.json") == (
        tmp_path / "run"
    )
    assert server_view.run_folder(tmp_path / "a.json") is None


def test_requests_in_the_load_window(tmp_path: Path) -> None:
    view = _view(_run(tmp_path))
    assert view is not None
    assert view.run == tmp_path / "run"
    assert view.access_log == tmp_path / "run" / "logs" / "access.log"
    tokens, projects = view.workloads
    assert tokens.routes == [
        RouteTimes("POST /v3/auth/tokens", 4, 1, 0.18, pytest.approx(0.279)),
        RouteTimes("GET /v3", 1, 0, 0.001, 0.001),
    ]
    assert tokens.actions == [
        ActionGap(
            atomics.CREATE_TOKEN, "POST /v3/auth/tokens", pytest.approx(0.2), 0.18
        )
    ]
    assert tokens.actions[0].gap == pytest.approx(0.02)
    assert projects.routes == [RouteTimes("GET /v3/projects", 2, 1, 0.04, 0.04)]
    assert projects.actions == [
        ActionGap(atomics.LIST_PROJECTS, "GET /v3/projects", pytest.approx(0.05), 0.04),
        ActionGap("custom.action", None, pytest.approx(0.01), None),
    ]
    assert projects.actions[1].gap is None


def test_an_action_whose_route_was_not_seen(tmp_path: Path) -> None:
    report = _run(tmp_path)
    log = tmp_path / "run" / "logs" / "access.log"
    log.write_text(ACCESS_LOG.replace("GET /v3/projects", "GET /v3/domains"))
    (_, projects) = _view(report).workloads  # type: ignore[union-attr]
    assert projects.actions is not None
    gap = projects.actions[0]
    assert (gap.route, gap.server_median, gap.gap) == ("GET /v3/projects", None, None)


def test_resources_in_the_load_window(tmp_path: Path) -> None:
    view = _view(_run(tmp_path))
    assert view is not None
    tokens, projects = view.workloads
    usage = tokens.resources
    assert usage is not None
    # cumulative CPU interpolated: 10.5 at 1000.0, 12 + 0.81 * 1.5 at 1002.31
    assert usage.cpu_seconds == pytest.approx(13.215 - 10.5)
    assert usage.cpu_per_iteration == pytest.approx(2.715 / 3)
    assert usage.busy_cores == pytest.approx(2.715 / 2.31)
    # from the sample before the window (999.5) to the one after it (1002.5)
    assert (usage.peak_rss_bytes, usage.peak_processes, usage.samples) == (
        157286400,
        3,
        4,
    )
    assert usage.peak_rss_mb == 150.0
    assert projects.resources is None  # no sample near 2000 s


def test_the_client_in_the_load_window(tmp_path: Path) -> None:
    view = _view(_run(tmp_path, client=True))
    assert view is not None
    assert view.client_csv == tmp_path / "run" / "logs" / "resources-client.csv"
    tokens, projects = view.workloads
    usage = tokens.client
    assert usage is not None
    assert usage.cpu_seconds == pytest.approx(0.381)
    assert usage.cpu_per_iteration == pytest.approx(usage.cpu_seconds / 3)
    assert (usage.peak_rss_mb, usage.peak_processes) == (100.0, 3)
    assert projects.client is None  # no sample near 2000 s
    assert tokens.resources is not None  # the server's, as before
    alone = _view(_run(tmp_path / "b", log=False, samples=False, client=True))
    assert alone is not None and alone.workloads[0].client is not None


def test_no_client_samples(tmp_path: Path) -> None:
    view = _view(_run(tmp_path))
    assert view is not None and view.client_csv is None
    assert all(w.client is None for w in view.workloads)


def test_only_the_access_log(tmp_path: Path) -> None:
    view = _view(_run(tmp_path, samples=False))
    assert view is not None
    assert view.resources_csv is None
    assert all(w.resources is None for w in view.workloads)
    assert all(w.routes for w in view.workloads)


def test_only_the_resources(tmp_path: Path) -> None:
    view = _view(_run(tmp_path, log=False))
    assert view is not None
    assert view.access_log is None
    tokens, projects = view.workloads
    assert (tokens.routes, tokens.actions) == (None, None)
    assert tokens.resources is not None
    assert projects.empty


def test_no_server_files(tmp_path: Path) -> None:
    assert _view(_run(tmp_path, log=False, samples=False)) is None
    elsewhere = f.write_report(tmp_path / "a.json", [f.task([[r.workload([0.1])]])])
    assert _view(elsewhere) is None


def test_requests_sqlite_refused_in_the_load_window(tmp_path: Path) -> None:
    report = _run(tmp_path, samples=False)
    records = [locked_record(2000.5), locked_record(2000.9), locked_record(9000.0)]
    (tmp_path / "run" / "logs" / "keystone.log").write_text("\n".join(records))
    view = _view(report)
    assert view is not None
    assert [w.locked for w in view.workloads] == [0, 2]
    loaded = run_labels.load_reports([report])
    out = io.StringIO()
    api.write_report(loaded, out, "table")
    line = "SQLite: database is locked (2 requests): a writer refused while"
    assert out.getvalue().count(line) == 1
    assert line in server.locked_line(2) and "(1 request)" in server.locked_line(1)


def test_unreadable_files_are_report_errors(tmp_path: Path) -> None:
    report = _run(tmp_path, samples=False)
    (tmp_path / "run" / "logs" / "access.log").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ReportError, match="access.log: cannot read access log"):
        _view(report)


def test_a_workload_without_iterations(tmp_path: Path) -> None:
    report = r.make_run(tmp_path, "run", [f.workload([])], r.state())
    (tmp_path / "run" / "logs").mkdir()
    (tmp_path / "run" / "logs" / "access.log").write_text(ACCESS_LOG)
    view = _view(report)
    assert view is not None
    assert view.workloads[0].empty


# --- report formats ----------------------------------------------------------


def _write(tmp_path: Path, fmt: str, **files: bool) -> str:
    _run(tmp_path, **files)
    stream = io.StringIO()
    api.write_report(run_labels.load_reports([tmp_path / "run"]), stream, fmt)
    return stream.getvalue()


def test_table(tmp_path: Path) -> None:
    out = _write(tmp_path, "table")
    assert out.count(server.TEXT_HEADING) == 2
    lines = out.splitlines()
    at = next(i for i, row in enumerate(lines) if "|   POST /v3/auth/tokens " in row)
    cells = [cell.strip() for cell in lines[at - 1].strip("|").split("|")]
    assert cells == [
        "keystone.create_token",
        "4",
        "1.33",  # 4 requests over the workload's 3 iterations
        "1",
        "180.0",
        "279.0",
        "20.00",  # the client's 200.0 ms median (the table above) minus 180.0
    ]
    # the route on the action's second line, with nothing else there
    assert lines[at].replace("|", "").strip() == "POST /v3/auth/tokens"
    assert re.search(r"^\| GET /v3 +\| +\d", out, re.M)  # no action maps to it
    assert max(len(row) for row in lines) <= render.WIDTH
    assert (
        "server CPU: 0.9050 s/iteration (1.18 cores busy), "
        "peak RSS: 150.0 MB (3 processes)"
    ) in out
    # list_projects ran where no sample was taken
    assert "server CPU: n/a (no resource sample near the load window)" in out
    assert "client CPU" not in out  # no resources-client.csv


def test_table_with_the_client(tmp_path: Path) -> None:
    out = _write(tmp_path, "table", client=True)
    assert (
        "client CPU: 127.00 ms/iteration (0.16 cores busy), peak RSS: 100.0 MB "
        "(3 processes: Rally's and what it started)"
    ) in out
    assert "client CPU: n/a (no sample of Rally's processes in the load window)" in out


def test_markdown(tmp_path: Path) -> None:
    out = _write(tmp_path, "markdown")
    assert (
        "| action | route | requests | per iteration | failed | client median ms "
        "| server median ms | server p95 ms | gap ms |\n| --- | --- | ---: |"
    ) in out
    assert "| custom.action | - | 0 | 0.00 | 0 | 10.0 | n/a | n/a | n/a |" in out
    assert "server CPU: 0.9050 s/iteration" in out


def test_csv(tmp_path: Path) -> None:
    rows = list(csv.DictReader(io.StringIO(_write(tmp_path, "csv"))))
    token = next(row for row in rows if row["action"] == atomics.CREATE_TOKEN)
    assert float(token["client_median"]) == pytest.approx(0.2)
    assert float(token["server_median"]) == 0.18
    assert float(token["gap"]) == pytest.approx(0.02)
    assert float(token["server_cpu_per_iteration"]) == pytest.approx(0.905)
    assert float(token["server_peak_rss_mb"]) == 150.0
    total = next(row for row in rows if row["action"] == "total")
    assert total["client_median"] == "" and total["server_peak_rss_mb"] == "150.0"
    projects = next(row for row in rows if row["action"] == atomics.LIST_PROJECTS)
    assert projects["server_cpu_per_iteration"] == ""
    assert token["client_cpu_per_iteration"] == ""  # no resources-client.csv
    with_client = _write(tmp_path / "b", "csv", client=True)
    token = next(r for r in csv.DictReader(io.StringIO(with_client)) if r["count"])
    assert float(token["client_cpu_per_iteration"]) == pytest.approx(0.127)
    assert float(token["client_peak_rss_mb"]) == 100.0


def test_json(tmp_path: Path) -> None:
    document = json.loads(_write(tmp_path, "json"))
    assert document["version"] == 1
    tokens, projects = document["reports"][0]["workloads"]
    server = tokens["server"]
    assert server["routes"][0] == {
        "route": "POST /v3/auth/tokens",
        "count": 4,
        "failed": 1,
        "median": 0.18,
        "p95": pytest.approx(0.279),
    }
    (action,) = server["actions"]
    assert action["action"] == atomics.CREATE_TOKEN
    assert action["gap"] == pytest.approx(0.02)
    assert server["resources"]["peak_rss_mb"] == 150.0
    assert server["resources"]["peak_rss_bytes"] == 157286400
    assert projects["server"]["resources"] is None
    assert server["client"] is None  # no resources-client.csv
    only_log = json.loads(_write(tmp_path / "b", "json", samples=False))
    assert only_log["reports"][0]["workloads"][0]["server"]["resources"] is None
    client = json.loads(_write(tmp_path / "c", "json", client=True))
    usage = client["reports"][0]["workloads"][0]["server"]["client"]
    assert usage["cpu_seconds"] == pytest.approx(0.381)
    assert usage["peak_processes"] == 3


@pytest.mark.parametrize("fmt", ["table", "markdown", "csv", "json"])
def test_no_section_without_the_files(tmp_path: Path, fmt: str) -> None:
    out = _write(tmp_path, fmt, log=False, samples=False)
    for mark in ("server side", "server_", '"server"', "server CPU"):
        assert mark not in out
