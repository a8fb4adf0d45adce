from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from rally_keystone_perf.deploy.tracing import trace_store
from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.layout.tracing import traces_file


class _Pipeline:
    def __init__(self, data: dict[bytes, list[bytes]]) -> None:
        self.data, self.calls = data, []

    def lrange(self, key: str, start: int, end: int) -> None:
        self.calls.append(key)

    def execute(self) -> list[list[bytes]]:
        return [self.data[k.encode()] for k in self.calls]


class _FakeRedis:
    def __init__(self, data: dict[bytes, list[bytes]]) -> None:
        self.data = data
        self.closed = False

    def scan_iter(self, match: str, count: int) -> list[bytes]:
        return [k for k in self.data if k.decode().startswith(match.rstrip("*"))]

    def pipeline(self, transaction: bool) -> _Pipeline:
        return _Pipeline(self.data)

    def close(self) -> None:
        self.closed = True


def _event(name: str, **info: Any) -> bytes:
    return json.dumps({"name": name, "info": info}).encode()


def test_collect_keeps_each_trace_in_order_without_sql_parameters(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import redis

    data = {  # LPUSH order: newest first
        b"osprofiler_opt:t1": [
            _event("wsgi-stop"),
            _event("db-stop"),
            _event("db-start", db={"statement": "SELECT 1", "params": {"p": "x"}}),
            _event("wsgi-start"),
        ],
        b"other:key": [_event("ignored")],
    }
    fake = _FakeRedis(data)
    monkeypatch.setattr(redis.Redis, "from_url", lambda url, **kw: fake)
    run = RunDir(tmp_path / "run")
    run.create()
    assert trace_store.collect(run, "redis://127.0.0.1:1") == 1
    with gzip.open(traces_file(run), "rt") as stream:
        (trace,) = [json.loads(line) for line in stream]
    assert trace["id"] == "t1"
    names = [e["name"] for e in trace["events"]]
    assert names == ["wsgi-start", "db-start", "db-stop", "wsgi-stop"]
    assert trace["events"][1]["info"]["db"] == {"statement": "SELECT 1"}
    assert fake.closed


def test_an_unreachable_redis_is_an_oserror_and_writes_nothing(tmp_path: Path) -> None:
    run = RunDir(tmp_path / "run")
    run.create()
    with pytest.raises(OSError, match="cannot read the traces"):
        trace_store.collect(run, "redis://127.0.0.1:1")
    assert not traces_file(run).exists()
