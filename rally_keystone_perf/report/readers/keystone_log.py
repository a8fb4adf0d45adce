"""Keystone's own log (``logs/keystone.log``): the requests SQLite refused.

A request that failed on a locked SQLite database left an ERROR record whose
first line carries the request's context (``[None req-... ]``) and ends with
``database is locked``; its traceback lines repeat the time and level but not
the context, so each request counts once. Runs before the suite made SQLite's
writers wait their turn (:mod:`rally_keystone_perf.deploy.keystone.sqlite_writers`)
have such records.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from rally_keystone_perf.report.readers.rally_json import ReportError

LOCKED = "database is locked"
# oslo.log's context line: "<date> <time>.<ms> <pid> ERROR <logger> [<context>] ..."
_FAILED_REQUEST = re.compile(
    r"^(?P<time>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\.(?P<ms>\d{3}) "
    r"\d+ ERROR \S+ \[[^\]]*\] "
)


def locked_times(path: Path) -> list[float]:
    """When each request that met a locked database failed (epoch seconds;
    Keystone logs local time), in the log's order.

    :raises ReportError: the log exists but cannot be read.
    """
    found = []
    try:
        with path.open(encoding="utf-8", errors="replace") as stream:
            for line in stream:
                if LOCKED not in line:
                    continue
                match = _FAILED_REQUEST.match(line)
                if match is not None:
                    stamp = time.mktime(
                        time.strptime(match["time"], "%Y-%m-%d %H:%M:%S")
                    )
                    found.append(stamp + int(match["ms"]) / 1000)
    except OSError as exc:
        raise ReportError(f"{path}: {exc}") from None
    return found
