"""haproxy's log of a cluster run: each request's backend server and timers.

``logs/haproxy-stdout.log`` holds haproxy's ``option httplog`` lines
(:func:`parse_log_line`: the ``option httplog`` format
:mod:`rally_keystone_perf.deploy.cluster.haproxy` renders). Per backend server:
requests, errors (status 500 or above, or -1: no answer), queue (``%Tw``)
and connect (``%Tc``) median and p95. haproxy stamps each request with its
local time and no zone: the zone's offset is taken as the whole quarter hour
that lines haproxy's requests up with the nodes' (whose log has epoch
times), else this machine's. Times in haproxy's milliseconds.

Some failures are in no line: when the reused connection to a node dies
before the node answers (the node was killed), haproxy closes the client's
keep-alive connection without an answer and without a log line, so that the
client may retry (by design: haproxy/haproxy#3414). :func:`silent_closes`
counts them on the client's side.
"""

from __future__ import annotations

import calendar
import collections
import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from rally_keystone_perf.client.http_wire import CLOSED_WITHOUT_RESPONSE
from rally_keystone_perf.layout import names
from rally_keystone_perf.metrics import Window, median_p95
from rally_keystone_perf.report.readers import access_log
from rally_keystone_perf.report.readers.rally_json import Iteration, ReportError

# option httplog: %ci:%cp [%tr] %ft %b/%s %TR/%Tw/%Tc/%Tr/%Ta %ST %B ... "%r"
HTTPLOG = re.compile(
    r"\[(?P<accepted>[^\]]+)\] (?P<frontend>\S+) (?P<backend>[^/\s]+)/(?P<server>\S+) "
    r"(?P<TR>-?\d+)/(?P<Tw>-?\d+)/(?P<Tc>-?\d+)/(?P<Tr>-?\d+)/(?P<Ta>-?\d+) "
    r"(?P<status>-?\d+) .*\"(?P<request>[^\"]*)\"\s*$"
)


@dataclass(frozen=True)
class LogLine:
    """One request as haproxy logged it (times in ms; -1: never reached)."""

    server: str
    queue_ms: int  # %Tw
    connect_ms: int  # %Tc
    response_ms: int  # %Tr
    active_ms: int  # %Ta
    status: int
    request: str
    accepted: str = ""  # %tr: when the request was accepted, haproxy's local time


def parse_log_line(line: str) -> LogLine | None:
    """The request of an ``option httplog`` line, or None for other lines."""
    match = HTTPLOG.search(line)
    if match is None:
        return None
    return LogLine(
        server=match["server"],
        queue_ms=int(match["Tw"]),
        connect_ms=int(match["Tc"]),
        response_ms=int(match["Tr"]),
        active_ms=int(match["Ta"]),
        status=int(match["status"]),
        request=match["request"],
        accepted=match["accepted"],
    )


HAPROXY_LOG = "haproxy-stdout.log"

ALL = "all"  # the row of every backend server together
ZONE_STEP = 900.0  # every time zone's offset is a whole quarter hour
_ACCEPTED = re.compile(
    r"(\d{1,2})/([A-Z][a-z]{2})/(\d{4}):(\d\d):(\d\d):(\d\d)(\.\d+)?"
)
_MONTHS = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split()
# the words of a connection closed before any answer, in either transport's
# error (http.client's, which lean_http's http_wire uses too)
SILENT_CLOSE = CLOSED_WITHOUT_RESPONSE


@dataclass(frozen=True)
class Proxied:
    """One request haproxy logged, with when it was accepted (epoch s)."""

    accepted: float
    line: LogLine


@dataclass(frozen=True)
class BackendTimes:
    """haproxy's requests to one backend server (or ``all``) in a window."""

    server: str  # node1 ..., <NOSRV> (none could take it), all
    requests: int
    errors: int  # status 500 or above, or -1 (no answer)
    queue_median: float | None  # ms (%Tw), requests that reached a queue
    queue_p95: float | None
    connect_median: float | None  # ms (%Tc), requests that reached a server
    connect_p95: float | None


def accepted_naive(text: str) -> float | None:
    """haproxy's ``%tr`` (``23/Nov/2026:07:41:43.123``) read as if it were UTC."""
    match = _ACCEPTED.fullmatch(text)
    if match is None or match[2] not in _MONTHS:
        return None
    day, month, year = int(match[1]), _MONTHS.index(match[2]) + 1, int(match[3])
    fields = (year, month, day, int(match[4]), int(match[5]), int(match[6]))
    return calendar.timegm((*fields, 0, 0, 0)) + float(match[7] or 0)


def zone_offset(naive: Sequence[float], epoch: Sequence[float]) -> float:
    """Seconds from haproxy's local times (read as UTC) to epoch times.

    The whole quarter hours between the medians of haproxy's requests and
    the nodes' (the same requests, each seen by both); without either, this
    machine's zone at the first of haproxy's times.
    """
    later, earlier = median_p95(list(epoch))[0], median_p95(list(naive))[0]
    if later is not None and earlier is not None:
        return round((later - earlier) / ZONE_STEP) * ZONE_STEP
    if not naive:
        return 0.0
    first = time.gmtime(naive[0])
    return time.mktime((*first[:8], -1)) - calendar.timegm(first)


def read_proxied(
    path: Path, requests: Iterable[access_log.ServerRequest]
) -> list[Proxied]:
    """haproxy's logged requests, accepted times lined up with ``requests``'.

    :raises ReportError: the log cannot be read.
    """
    try:
        with open(path, encoding="utf-8") as stream:
            parsed = [parse_log_line(line) for line in stream]
    except (OSError, UnicodeDecodeError) as exc:
        raise ReportError(f"{path}: cannot read haproxy's log: {exc}") from None
    lines = []
    for line in parsed:
        naive = None if line is None else accepted_naive(line.accepted)
        if line is not None and naive is not None:
            lines.append((naive, line))
    starts = [r.start for r in requests]
    offset = zone_offset([naive for naive, _ in lines], starts)
    return [Proxied(naive + offset, line) for naive, line in lines]


def _reached(values: Iterable[int]) -> tuple[float | None, float | None]:
    """Median and p95 of haproxy's timers that were reached (not -1)."""
    return median_p95([float(v) for v in values if v >= 0])


def _times(server: str, lines: Sequence[LogLine]) -> BackendTimes:
    queue = _reached(line.queue_ms for line in lines)
    connect = _reached(line.connect_ms for line in lines)
    errors = sum(1 for line in lines if line.status >= 500 or line.status < 0)
    return BackendTimes(server, len(lines), errors, *queue, *connect)


def _server_order(server: str) -> tuple[int, int, str]:
    """node1, node2, ..., node10, then other names (haproxy's <NOSRV>)."""
    node = names.number(server, names.NODE)
    return (0, node, "") if node is not None else (1, 0, server)


def backend_times(proxied: Iterable[Proxied], window: Window) -> list[BackendTimes]:
    """haproxy's requests accepted inside ``window`` per backend server, then all."""
    start, end = window
    inside = [p.line for p in proxied if start <= p.accepted <= end]
    by_server: dict[str, list[LogLine]] = collections.defaultdict(list)
    for line in inside:
        by_server[line.server].append(line)
    rows = [
        _times(server, by_server[server])
        for server in sorted(by_server, key=_server_order)
    ]
    return [*rows, _times(ALL, inside)] if inside else []


def silent_closes(iterations: Iterable[Iteration]) -> int:
    """Failed iterations whose connection was closed without an answer: those
    haproxy closed without a log line (a reused node connection died)."""
    return sum(
        1
        for iteration in iterations
        if any(SILENT_CLOSE in str(part) for part in iteration.error[:2])
    )
