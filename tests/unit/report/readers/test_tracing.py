"""The traced iterations' breakdown (report.traces) and its table."""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path

import pytest

from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.report import api
from rally_keystone_perf.report.readers import tracing
from rally_keystone_perf.report.readers.rally_json import ReportError, load_report
from tests.unit.report import factory as f
from tests.unit.report import runs as r
from tests.unit.report import traced as t


def _table(report: Path) -> str:
    stream = io.StringIO()
    api.report([report], stream, "table")
    return stream.getvalue()


def test_each_span_counts_its_own_time_once() -> None:
    result = tracing.breakdown(tracing.spans(t.validation("x", sql=3)))
    assert result.server == pytest.approx(0.010, abs=1e-6)
    seconds = {k: round(v * 1e6) for k, v in result.seconds.items()}
    assert seconds == {
        "sql": 2000,  # 1000 inside the policy check, 2 x 500 outside
        "cache": 500,
        "policy": 3000,  # 4000 less its statement
        "password": 0,
        "token": 500,
        "rest": 4000,  # the wsgi span's own
    }
    assert sum(result.seconds.values()) == pytest.approx(result.server, abs=1e-6)
    assert (result.sql_count, result.cache_gets, result.cache_misses) == (3, 1, 1)
    assert result.top_sql == [(2, "SELECT b"), (1, "SELECT a")]


def test_a_span_without_its_stop_is_left_out() -> None:
    events = t.validation("x")[:-1]  # no wsgi-stop
    assert "wsgi" not in {s.name for s in tracing.spans(events)}


def test_the_slowest_traced_iterations_and_the_median(tmp_path: Path) -> None:
    report = t.traced_run(tmp_path)
    (workload,) = load_report(report)
    assert [it.trace_id for it in workload.iterations] == [
        "t1",
        None,
        "t2",
        "t3",
        "lost",
    ]
    source = tracing.trace_source(tmp_path / "run", RunDir(tmp_path / "run").state())
    assert source is not None
    result = source.of(workload)
    assert result is not None
    assert (result.sampled, result.found, result.spec) == (4, 3, "slowest:2")
    assert [t.number for t in result.slowest] == [3, 4]  # by iteration time
    assert result.slowest[0].breakdown.server == pytest.approx(0.029, abs=1e-6)
    assert result.median is not None
    assert result.median.server == pytest.approx(0.011, abs=1e-6)
    assert result.median_duration == pytest.approx(0.012)


def test_the_table_under_the_workload(tmp_path: Path) -> None:
    report = t.traced_run(tmp_path)
    out = _table(report)
    assert "slowest traced iterations (--trace slowest:2: 4 traced, 1 not found)" in out
    rows = [line for line in out.splitlines() if line.startswith("| #")]
    assert [row.split("|")[1].strip() for row in rows] == ["#3", "#4"]
    assert "| median of 3 |" in out
    assert "#3 SQL: 1 x SELECT a; 1 x SELECT b" in out
    # the untraced iteration (500 ms) against the traced ones' median (21 ms)
    assert (
        "tracing cost: median iteration 21.0 ms traced (4) vs 500.0 ms untraced "
        "(1): -479.0 ms" in out
    )
    section = out[out.index("slowest traced") :].splitlines()
    assert max(len(line) for line in section) <= 120


def test_the_json_report_has_the_traces(tmp_path: Path) -> None:
    report = t.traced_run(tmp_path)
    stream = io.StringIO()
    api.report([report], stream, "json")
    (workload,) = json.loads(stream.getvalue())["reports"][0]["workloads"]
    found = workload["server"]["traces"]
    assert (found["spec"], found["sampled"], found["found"]) == ("slowest:2", 4, 3)
    assert [t["number"] for t in found["slowest"]] == [3, 4]
    assert found["slowest"][0]["breakdown"]["sql_count"] == 2


def test_an_untraced_run_has_no_section(tmp_path: Path) -> None:
    report = r.make_run(tmp_path, "run", [r.workload([0.1])], r.state())
    run = RunDir(tmp_path / "run")
    assert tracing.trace_source(run.root, run.state()) is None
    assert "slowest traced" not in _table(report)


def test_an_unreadable_traces_file_is_a_report_error(tmp_path: Path) -> None:
    report = t.traced_run(tmp_path)
    (tmp_path / "run" / "traces" / "traces.jsonl.gz").write_text("not gzip")
    with pytest.raises(ReportError, match="cannot read the traces"):
        _table(report)


def test_every_iteration_traced_has_no_cost_to_show(tmp_path: Path) -> None:
    data = [t.traced_iteration(1000.0, 0.011, "t1")]
    (workload,) = load_report(
        r.make_run(tmp_path, "run", [f.workload(data)], r.state())
    )
    assert tracing.tracing_cost(workload) is None


def _on(host: str, events: list[dict]) -> list[dict]:
    return [e | {"info": {**e["info"], "host": host}} for e in events]


def test_a_clusters_median_per_node(tmp_path: Path) -> None:
    second = [  # the same request again, on node 2, with its own span ids
        e | {"trace_id": e["trace_id"] + "2", "parent_id": e["parent_id"] + "2"}
        for e in t.validation("a")
    ]
    second[0]["parent_id"] = second[-1]["parent_id"] = "a"
    two_nodes = _on("node1", t.validation("a")) + _on("node2", second)
    found = [
        tracing._traced(1, 0.03, "a", tracing.spans(two_nodes)),
        tracing._traced(
            2, 0.02, "b", tracing.spans(_on("node2", t.validation("b", slow=4000)))
        ),
        tracing._traced(3, 0.01, "c", tracing.spans(_on("node2", t.validation("c")))),
    ]
    medians = {
        h.host: (h.count, round(h.median.server * 1e6))
        for h in tracing.host_medians(found)
    }
    # node1 served one request of iteration 1; node2 one in each iteration
    assert medians == {"node1": (1, 10000), "node2": (3, 10000)}
    assert found[0].breakdown.server == pytest.approx(0.020, abs=1e-6)
    assert tracing.host_medians(found[1:]) == []  # one host: no rows


def test_a_clusters_table_has_a_row_per_node(tmp_path: Path) -> None:
    report = t.traced_run(tmp_path)
    path = tmp_path / "run" / "traces" / "traces.jsonl.gz"
    with gzip.open(path, "wt") as stream:
        for trace, host in (("t1", "node1"), ("t2", "node2"), ("t3", "node2")):
            line = {"id": trace, "events": _on(host, t.validation(trace))}
            stream.write(json.dumps(line) + "\n")
    out = _table(report)
    rows = [line.split("|")[1].strip() for line in out.splitlines() if "| node" in line]
    assert rows == ["node1: 1", "node2: 2"]
    assert "node K's own spans" in out
    stream = io.StringIO()
    api.report([report], stream, "json")
    (workload,) = json.loads(stream.getvalue())["reports"][0]["workloads"]
    found = workload["server"]["traces"]
    assert [h["host"] for h in found["hosts"]] == ["node1", "node2"]
    assert "spans" not in found["slowest"][0]
