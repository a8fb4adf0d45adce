from __future__ import annotations

import json
import threading
import time
from typing import Any

from osprofiler import opts
from osprofiler.drivers import base

from rally_keystone_perf.deploy.tracing import profiler
from rally_keystone_perf.deploy.tracing.trace_driver import BufferedRedis

assert opts.list_opts()  # importing it registers [profiler], which the driver reads


class _FakeDb:
    def __init__(self) -> None:
        self.pushed: list[tuple[str, tuple[str, ...]]] = []
        self.done = threading.Event()

    def lpush(self, key: str, *values: str) -> None:
        self.pushed.append((key, values))
        self.done.set()


def _event(name: str) -> dict[str, Any]:
    return {"name": name, "base_id": "b1", "timestamp": "t", "info": {}}


def test_osprofiler_picks_the_driver_by_its_scheme() -> None:
    driver = base.get_driver(f"{profiler.DRIVER_SCHEME}://127.0.0.1:1", project="k")
    assert isinstance(driver, BufferedRedis)


def test_a_requests_events_go_in_one_push_when_its_outer_span_ends() -> None:
    driver = BufferedRedis(f"{profiler.DRIVER_SCHEME}://127.0.0.1:1", project="k")
    fake = _FakeDb()
    driver.db = fake
    for name in ("wsgi-start", "db-start", "db-stop"):
        driver.notify(_event(name))
    time.sleep(0.05)
    assert fake.pushed == []  # the request is still open
    driver.notify(_event("wsgi-stop"))
    assert fake.done.wait(5)
    ((key, values),) = fake.pushed
    assert key == "osprofiler_opt:b1"
    names = [json.loads(v)["name"] for v in values]
    # LPUSH of these in order leaves the newest first, as OSProfiler's driver
    assert names == ["wsgi-start", "db-start", "db-stop", "wsgi-stop"]
    assert json.loads(values[0])["project"] == "k"


def test_a_cluster_nodes_spans_name_the_node_as_their_host() -> None:
    url = profiler.node_url("redis://198.18.0.1:6380", "node2")
    assert url is not None
    section = profiler.profiler_section(url)
    assert f"{profiler.DRIVER_SCHEME}://198.18.0.1:6380?host=node2" in section
    driver = BufferedRedis(f"{profiler.DRIVER_SCHEME}://198.18.0.1:6380?host=node2")
    assert driver.connection_str == "redis://198.18.0.1:6380"  # what redis reads
    fake = _FakeDb()
    driver.db = fake
    start = _event("wsgi-start") | {"info": {"host": "vm", "request": {}}}
    driver.notify(start)
    driver.notify(_event("wsgi-stop"))
    assert fake.done.wait(5)
    ((_, values),) = fake.pushed
    assert [json.loads(v)["info"]["host"] for v in values] == ["node2", "node2"]
    assert start["info"]["host"] == "vm"  # the caller's event is left alone
    assert profiler.node_url(None, "node2") is None


def test_without_a_host_the_spans_keep_osprofilers() -> None:
    driver = BufferedRedis(f"{profiler.DRIVER_SCHEME}://127.0.0.1:1")
    fake = _FakeDb()
    driver.db = fake
    driver.notify(_event("wsgi-start") | {"info": {"host": "vm"}})
    driver.notify(_event("wsgi-stop"))
    assert fake.done.wait(5)
    ((_, values),) = fake.pushed
    assert json.loads(values[0])["info"] == {"host": "vm"}
