"""The server's access log: each request's start time, route, status, server time.

Every server of a run writes one line per request
(:mod:`rally_keystone_perf.deploy.access_logs` defines the formats):
``<start, us since epoch> <METHOD> <URI> <status> <server time, us> <worker pid>``.
"""

from __future__ import annotations

import collections
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from rally_keystone_perf.report.readers.rally_json import ReportError

_ID = re.compile(r"/[0-9a-f]{32}(?=/|$)")


@dataclass(frozen=True)
class ServerRequest:
    """One request as the server saw it."""

    start: float  # seconds since the epoch
    method: str
    path: str  # without the query string
    status: int
    server_time: float  # seconds
    pid: int

    @property
    def route(self) -> str:
        """``METHOD /path`` with resource ids replaced by ``{id}``."""
        return f"{self.method} {_ID.sub('/{id}', self.path)}"

    @property
    def ok(self) -> bool:
        """Answered with a status below 400 (the report's successful requests)."""
        return self.status < 400


def parse_line(line: str) -> ServerRequest | None:
    """Parse one access-log line; None for a line of another shape."""
    parts = line.split()
    if len(parts) != 6 or not parts[0].isdigit():
        return None
    start, method, uri, status, micros, pid = parts
    try:
        return ServerRequest(
            start=int(start) / 1e6,
            method=method,
            path=uri.split("?", 1)[0],
            status=int(status),
            server_time=int(micros) / 1e6,
            pid=int(pid),
        )
    except ValueError:
        return None


def read(path: Path) -> Iterator[ServerRequest]:
    """Every well-formed request line of an access log."""
    with open(path) as stream:
        for line in stream:
            request = parse_line(line)
            if request is not None:
                yield request


def read_requests(path: Path) -> list[ServerRequest]:
    """Every request of an access log.

    :raises ReportError: the file cannot be read.
    """
    try:
        return list(read(path))
    except (OSError, UnicodeDecodeError) as exc:
        raise ReportError(f"{path}: cannot read access log: {exc}") from None


def within(
    requests: Iterable[ServerRequest], start: float, end: float
) -> list[ServerRequest]:
    """Requests that started inside [start, end]."""
    return [r for r in requests if start <= r.start <= end]


def count_routes(requests: Iterable[ServerRequest]) -> dict[str, int]:
    """How many requests each route received."""
    return dict(collections.Counter(r.route for r in requests))
