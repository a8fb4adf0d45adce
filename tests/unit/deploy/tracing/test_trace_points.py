from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from dogpile.cache import api
from keystone.common.cache import _context_cache
from osprofiler import notifier, profiler

from rally_keystone_perf.deploy.tracing import trace_points


@pytest.fixture
def events() -> Iterator[list[dict[str, Any]]]:
    seen: list[dict[str, Any]] = []
    previous = notifier.get()
    notifier.set(seen.append)
    trace_points.install()
    profiler.init("key")
    yield seen
    profiler.clean()
    notifier.set(previous)


class _Backend:
    def __init__(self, values: dict[str, Any]) -> None:
        self.values = values

    def get(self, key: str) -> Any:
        return self.values.get(key, api.NO_VALUE)


def _proxy(values: dict[str, Any]) -> Any:
    proxy = _context_cache._ResponseCacheProxy()
    proxy.proxied = _Backend(values)
    return proxy


def _outcomes(seen: list[dict[str, Any]]) -> list[str]:
    return [e["info"]["cache"]["outcome"] for e in seen if e["name"] == "cache-stop"]


def test_cache_gets_say_where_the_value_came_from(events: list[dict]) -> None:
    proxy = _proxy({"k": api.CachedValue("v", {"ct": 1.0, "v": 1})})
    assert proxy.get("missing") is api.NO_VALUE
    assert proxy.get("k").payload == "v"  # from the backend, then memoized
    assert proxy.get("k").payload == "v"
    assert _outcomes(events) == [
        trace_points.MISS,
        trace_points.SHARED_HIT,
        trace_points.LOCAL_HIT,
    ]


def test_password_hashing_is_a_span(events: list[dict]) -> None:
    from keystone.common import password_hashing

    password_hashing.check_password("a", None)  # no hash: False, quickly
    names = [e["name"] for e in events]
    assert names == ["password-start", "password-stop"]


def test_install_twice_wraps_once(events: list[dict]) -> None:
    from keystone.common import password_hashing

    trace_points.install()
    password_hashing.check_password("a", None)
    assert [e["name"] for e in events] == ["password-start", "password-stop"]
