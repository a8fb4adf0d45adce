"""A traced run for report tests: OSProfiler events of a validation."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from rally_keystone_perf.client import tracing
from tests.unit.report import factory as f
from tests.unit.report import runs as r

BASE = "2026-11-24T04:00:00."


def event(name: str, span: str, parent: str, micros: int, **info: Any) -> dict:
    return {
        "name": name,
        "trace_id": span,
        "parent_id": parent,
        "timestamp": f"{BASE}{micros:06d}",
        "info": info,
    }


def validation(trace: str, sql: int = 2, slow: int = 0) -> list[dict]:
    """wsgi 0-10000 us: policy 1000-5000 (one SQL 2000-3000 inside), a cache
    miss 5000-5500, ``sql - 1`` more statements of 1000 us, token 9000-9500.
    ``slow`` adds as much to the wsgi span's own time."""
    end = 10000 + slow
    events = [
        event("wsgi-start", "w", trace, 0),
        event("policy-start", "p", "w", 1000),
        event("db-start", "d0", "p", 2000, db={"statement": "SELECT a", "params": {}}),
        event("db-stop", "d0", "p", 3000),
        event("policy-stop", "p", "w", 5000),
        event("cache-start", "c", "w", 5000, cache={"call": "get"}),
        event("cache-stop", "c", "w", 5500, cache={"outcome": "miss"}),
    ]
    for k in range(1, sql):
        start = 5500 + (k - 1) * 1000 // max(sql - 1, 1)
        stop = start + 1000 // max(sql - 1, 1)
        events += [
            event("db-start", f"d{k}", "w", start, db={"statement": "SELECT  b\n"}),
            event("db-stop", f"d{k}", "w", stop),
        ]
    events += [
        event("token-start", "t", "w", 9000),
        event("token-stop", "t", "w", 9500),
        event("wsgi-stop", "w", trace, end),
    ]
    return events


def traced_iteration(timestamp: float, duration: float, trace: str) -> dict:
    item = f.iteration(timestamp, duration)
    item["output"]["complete"].append(tracing.output({"iteration": 1}, trace))
    return item


def traced_run(tmp_path: Path, spec: str = "slowest:2") -> Path:
    data = [
        traced_iteration(1000.0, 0.011, "t1"),
        f.iteration(1001.0, 0.5),  # not traced
        traced_iteration(1002.0, 0.030, "t2"),
        traced_iteration(1003.0, 0.012, "t3"),
        traced_iteration(1004.0, 0.040, "lost"),  # its trace is not in the file
    ]
    state = r.state()
    state["options"]["trace"] = spec
    report = r.make_run(tmp_path, "run", [f.workload(data)], state)
    folder = tmp_path / "run" / "traces"
    folder.mkdir()
    with gzip.open(folder / "traces.jsonl.gz", "wt") as stream:
        for trace, slow in (("t1", 0), ("t2", 19000), ("t3", 1000)):
            line = {"id": trace, "events": validation(trace, slow=slow)}
            stream.write(json.dumps(line) + "\n")
    return report
