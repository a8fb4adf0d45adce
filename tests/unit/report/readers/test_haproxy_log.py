"""Tests for report.haproxy_log: haproxy's local times lined up with epoch."""

from __future__ import annotations

import calendar
import os
import time
from collections.abc import Iterator

import pytest

from rally_keystone_perf.report.readers import haproxy_log
from rally_keystone_perf.report.readers.rally_json import Iteration


def test_accepted_naive() -> None:
    expected = calendar.timegm((2026, 11, 23, 7, 41, 43, 0, 0, 0)) + 0.123
    assert haproxy_log.accepted_naive("23/Nov/2026:07:41:43.123") == pytest.approx(
        expected
    )
    assert haproxy_log.accepted_naive("01/Jan/1970:00:16:40") == 1000.0
    assert haproxy_log.accepted_naive("23/Foo/2026:07:41:43.123") is None
    assert haproxy_log.accepted_naive("23/Nov/2026") is None


@pytest.fixture
def utc_plus_2() -> Iterator[None]:
    """This process's time zone is UTC+2 inside the test."""
    before = os.environ.get("TZ")
    os.environ["TZ"] = "Etc/GMT-2"  # POSIX signs: GMT-2 is two hours ahead
    time.tzset()
    yield
    if before is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = before
    time.tzset()


def test_zone_offset_lines_haproxy_up_with_the_nodes() -> None:
    # the nodes' medians 1001.0; haproxy's (UTC-5:30 read as UTC) 1001.4 - 19800
    naive = [1000.0 - 19800, 1001.8 - 19800]
    assert haproxy_log.zone_offset(naive, [1000.0, 1001.0, 1002.0]) == 19800.0
    assert haproxy_log.zone_offset([1000.4], [1000.0]) == 0.0
    assert haproxy_log.zone_offset([], [1000.0]) == 0.0


def test_zone_offset_without_node_requests_is_this_machines(utc_plus_2) -> None:
    assert haproxy_log.zone_offset([8200.0], []) == -7200.0


def _failed(error: list) -> Iteration:
    return Iteration(1000.0, 0.1, 0.0, error, [])


def test_silent_closes_count_connections_closed_without_an_answer() -> None:
    closed = (
        "Unable to establish connection to http://127.0.0.1:42429/v3/auth/tokens: "
        "('Connection aborted.', RemoteDisconnected('Remote end closed connection "
        "without response'))"
    )
    iterations = [
        _failed(["ConnectFailure", closed, "Traceback ..."]),
        _failed(["ConnectFailure", closed, "Traceback ..."]),
        _failed(["InternalServerError", "HTTP 500", "Traceback ..."]),  # logged
        _failed(["KeyError", "x", "... without response' in a traceback only"]),
        _failed([]),  # a success
    ]
    assert haproxy_log.silent_closes(iterations) == 2


def test_parse_an_httplog_line() -> None:
    line = (
        "127.0.0.1:40312 [23/Nov/2026:05:01:02.123] keystone_internal_front "
        "keystone_internal_back/node2 0/0/1/153/154 201 2048 - - ---- 4/4/3/1/0 "
        '0/0 "POST /v3/auth/tokens HTTP/1.1"'
    )
    parsed = haproxy_log.parse_log_line(line)
    assert parsed == haproxy_log.LogLine(
        server="node2",
        queue_ms=0,
        connect_ms=1,
        response_ms=153,
        active_ms=154,
        status=201,
        request="POST /v3/auth/tokens HTTP/1.1",
        accepted="23/Nov/2026:05:01:02.123",
    )
    assert haproxy_log.parse_log_line("[WARNING] Server node2 is DOWN") is None
