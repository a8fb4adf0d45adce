"""An operator's access log read in any format the suite knows."""

from __future__ import annotations

from pathlib import Path

import pytest

from rally_keystone_perf.report.readers import request_log
from rally_keystone_perf.report.readers.rally_json import ReportError
from tests.unit.report.readers.test_server_log import UWSGI, apache

SUITE = "1764077063000000 GET /v3/auth/tokens 200 51234 4242"
NGINX = (
    '10.0.0.9 - - [25/Nov/2026:13:24:23 +0000] "GET /v3/auth/catalog?x=1 '
    'HTTP/1.1" 200 512 "-" "python-keystoneclient"'
)
LINES = {"suite": SUITE, "uwsgi": UWSGI, "apache": apache(), "nginx": NGINX}


@pytest.mark.parametrize("fmt", sorted(LINES))
def test_each_format_is_told_by_its_lines_and_read(tmp_path: Path, fmt: str) -> None:
    log = tmp_path / "access.log"
    log.write_text("\n".join([LINES[fmt]] * 3 + ["", "a line of nothing"]) + "\n")
    found = request_log.read_log(log)
    assert found.fmt == fmt and len(found.requests) == 3 and found.other_lines == 1
    assert "?" not in found.requests[0].path  # the query string set aside
    assert request_log.read_log(log, fmt).requests == found.requests


def test_nginx_lines_keep_their_zone(tmp_path: Path) -> None:
    log = tmp_path / "access.log"
    log.write_text(NGINX.replace("+0000", "+0100") + "\n" + NGINX + "\n")
    early, late = request_log.read_log(log, "nginx").requests
    assert late.start - early.start == 3600


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("", "the access log is empty"),
        ("\n\n", "the access log is empty"),
        ("hello\nworld\n", "in no known format"),
    ],
)
def test_an_empty_or_unknown_log_is_refused(
    tmp_path: Path, text: str, said: str
) -> None:
    log = tmp_path / "access.log"
    log.write_text(text)
    with pytest.raises(ReportError, match=said):
        request_log.read_log(log)
    with pytest.raises(ReportError, match="cannot read"):
        request_log.read_log(tmp_path / "missing.log")
