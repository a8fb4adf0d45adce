"""An access log copied from someone else's Keystone (``--server-log``).

Three formats, told apart line by line:

* ``apache``: Apache's combined format with ``%D`` (microseconds) after the
  size, as kolla-ansible's Keystone logs it: ``%{X-Forwarded-For}i %l %u %t
  "%r" %>s %b %D "%{Referer}i" "%{User-Agent}i"``;
* ``haproxy``: ``option httplog``, the server time its ``%Tr``; the
  User-Agent when a ``capture request header User-Agent`` puts it in the
  line's ``{...}``;
* ``uwsgi``: uwsgi's default request line (milliseconds, no User-Agent), as
  OpenStack-Ansible's Keystone logs it.

``combined`` (Apache's and nginx's default line, no server time) is read
for a mix of requests alone (:mod:`.request_log`). Apache's times carry
their zone; haproxy's and uwsgi's are local times with
none, read as if UTC: the clock alignment (:mod:`..figures.clock`) absorbs
the zone with the clocks' difference.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from rally_keystone_perf.report.readers import haproxy_log
from rally_keystone_perf.report.readers.access_log import ServerRequest
from rally_keystone_perf.report.readers.rally_json import ReportError

APACHE = re.compile(
    # the first field: X-Forwarded-For, maybe a list of hops ("a, b")
    r"^\S+(?:, \S+)* \S+ \S+ \[(?P<time>[^\]]+)\] "
    r'"(?P<method>[A-Z]+) (?P<uri>\S+)[^"]*" '
    r'(?P<status>\d{3}) \S+ (?P<micros>\d+) "[^"]*" "(?P<agent>[^"]*)"'
)
UWSGI = re.compile(
    r"^\[pid: (?P<pid>\d+)\|.*?\[(?P<time>\w{3} (?P<month>\w{3}) +(?P<day>\d+) "
    r"(?P<clock>\d\d:\d\d:\d\d) (?P<year>\d{4}))\] (?P<method>[A-Z]+) (?P<uri>\S+) "
    r"=> generated \d+ bytes in (?P<msecs>\d+) msecs \(\S+ (?P<status>\d{3})\)"
)
# the combined format Apache and nginx write by default (no server time)
COMBINED = re.compile(
    r"^\S+(?:, \S+)* \S+ \S+ \[(?P<time>[^\]]+)\] "
    r'"(?P<method>[A-Z]+) (?P<uri>\S+)[^"]*" (?P<status>\d{3}) \S+ "[^"]*" "[^"]*"'
)
_CAPTURED = re.compile(r"\{(?P<headers>[^}]*)\} \"")
_APACHE_TIME = re.compile(r"(?P<naive>\S+) (?P<sign>[+-])(?P<hh>\d\d)(?P<mm>\d\d)")


@dataclass(frozen=True)
class LoggedRequest:
    """A request of the copied log; ``agent`` None: the format has none."""

    request: ServerRequest  # start on the log's clock, read as UTC
    agent: str | None
    kind: str  # apache, haproxy, uwsgi


def _apache(line: str) -> LoggedRequest | None:
    match = APACHE.match(line)
    start = _zoned(match["time"]) if match else None
    if match is None or start is None:
        return None
    request = ServerRequest(
        start,
        match["method"],
        match["uri"].split("?", 1)[0],
        int(match["status"]),
        int(match["micros"]) / 1e6,
        0,
    )
    return LoggedRequest(request, match["agent"], "apache")


def _zoned(stamp: str) -> float | None:
    """``28/Nov/2026:14:49:20 +0100`` as seconds since the epoch (UTC)."""
    found = _APACHE_TIME.fullmatch(stamp)
    naive = haproxy_log.accepted_naive(found["naive"]) if found else None
    if found is None or naive is None:
        return None
    zone = (int(found["hh"]) * 3600 + int(found["mm"]) * 60) * (
        1 if found["sign"] == "+" else -1
    )
    return naive - zone


def _combined(line: str) -> LoggedRequest | None:
    """Apache's or nginx's default combined line: no server time (0)."""
    match = COMBINED.match(line)
    start = _zoned(match["time"]) if match else None
    if match is None or start is None:
        return None
    uri = match["uri"].split("?", 1)[0]
    request = ServerRequest(start, match["method"], uri, int(match["status"]), 0.0, 0)
    return LoggedRequest(request, None, "combined")


def _uwsgi(line: str) -> LoggedRequest | None:
    match = UWSGI.match(line)
    if match is None:
        return None
    naive = haproxy_log.accepted_naive(
        f"{int(match['day']):02d}/{match['month']}/{match['year']}:{match['clock']}"
    )
    if naive is None:
        return None
    request = ServerRequest(
        naive,
        match["method"],
        match["uri"].split("?", 1)[0],
        int(match["status"]),
        int(match["msecs"]) / 1e3,
        int(match["pid"]),
    )
    return LoggedRequest(request, None, "uwsgi")


def _haproxy(line: str) -> LoggedRequest | None:
    logged = haproxy_log.parse_log_line(line)
    if logged is None or logged.response_ms < 0:
        return None
    naive = haproxy_log.accepted_naive(logged.accepted)
    words = logged.request.split()
    if naive is None or len(words) < 2:
        return None
    captured = _CAPTURED.search(line)
    request = ServerRequest(
        naive,
        words[0],
        words[1].split("?", 1)[0],
        logged.status,
        logged.response_ms / 1e3,
        0,
    )
    agent = captured["headers"].split("|")[0] if captured else None
    return LoggedRequest(request, agent, "haproxy")


# a format's name -> its parser (``combined``: for a mix's weights alone,
# its lines have no server time)
PARSERS = {
    "apache": _apache,
    "haproxy": _haproxy,
    "uwsgi": _uwsgi,
    "combined": _combined,
}


def parse_line(line: str) -> LoggedRequest | None:
    """A request of any of the three formats; None for any other line."""
    for parse in (_apache, _haproxy, _uwsgi):
        found = parse(line)
        if found is not None:
            return found
    return None


def read(path: Path) -> Iterator[LoggedRequest]:
    """Every request line of the copied log.

    :raises ReportError: the file cannot be read.
    """
    try:
        with open(path, encoding="utf-8", errors="replace") as stream:
            for line in stream:
                found = parse_line(line)
                if found is not None:
                    yield found
    except OSError as exc:
        raise ReportError(f"{path}: cannot read the server log: {exc}") from None
