"""A Keystone access log read for the mix of requests it shows
(``rally-keystone-perf tasks --from-log``).

Its format is one of :data:`FORMATS`, or told by its lines (``auto``):

``suite``
    the suite's own line, as each of its servers writes it (uwsgi, nginx
    in front of uwsgi, Apache, eventlet: :mod:`.access_log`);
``uwsgi``
    uwsgi's default request line (:mod:`.server_log`);
``apache``
    Apache's combined format with ``%D`` after the size, as kolla-ansible
    logs Keystone (:mod:`.server_log`);
``nginx``
    the combined format Apache and nginx write by default.

Only each request's start, method and path are kept: no address, user,
query string or agent.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from rally_keystone_perf.report.readers import access_log, server_log
from rally_keystone_perf.report.readers.access_log import ServerRequest
from rally_keystone_perf.report.readers.rally_json import ReportError

Parser = Callable[[str], ServerRequest | None]


def _logged(kind: str) -> Parser:
    parse = server_log.PARSERS[kind]

    def request(line: str) -> ServerRequest | None:
        found = parse(line)
        return None if found is None else found.request

    return request


FORMATS: dict[str, Parser] = {
    "suite": access_log.parse_line,
    "uwsgi": _logged("uwsgi"),
    "apache": _logged("apache"),
    "nginx": _logged("combined"),
}
AUTO = "auto"
SAMPLE = 200  # lines that tell the format


@dataclass(frozen=True)
class RequestLog:
    """The log's requests in its format; the lines that were not one."""

    fmt: str
    requests: list[ServerRequest]
    other_lines: int


def detect(lines: Sequence[str]) -> str | None:
    """The format most of the first non-blank lines are in (None: none)."""
    sample = [line for line in lines if line.strip()][:SAMPLE]
    counts = {
        name: sum(1 for line in sample if parse(line) is not None)
        for name, parse in FORMATS.items()
    }
    best = max(counts, key=lambda name: counts[name])
    return best if counts[best] * 2 > len(sample) else None


def read_log(path: Path, fmt: str = AUTO) -> RequestLog:
    """Every request of the log at ``path`` in format ``fmt``.

    :raises ReportError: the file cannot be read, holds no line, or (auto)
        its lines are in no known format.
    """
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError as exc:
        raise ReportError(f"{path}: cannot read the access log: {exc}") from None
    if not any(line.strip() for line in lines):
        raise ReportError(f"{path}: the access log is empty")
    found = detect(lines) if fmt == AUTO else fmt
    if found is None:
        raise ReportError(
            f"{path}: its lines are in no known format (--log-format: "
            f"{', '.join(FORMATS)}): most of the first {SAMPLE} parse as none"
        )
    parse = FORMATS[found]
    requests = [r for line in lines if (r := parse(line)) is not None]
    blank = sum(1 for line in lines if not line.strip())
    return RequestLog(found, requests, len(lines) - blank - len(requests))
