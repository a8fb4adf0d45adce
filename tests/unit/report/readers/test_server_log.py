"""Tests for report.readers.server_log: a copied Keystone access log's lines."""

from __future__ import annotations

import calendar
from pathlib import Path

import pytest

from rally_keystone_perf.report.readers import server_log
from rally_keystone_perf.report.readers.access_log import ServerRequest
from rally_keystone_perf.report.readers.rally_json import ReportError

AGENT = "rally-keystone-perf/20261125-131500-os-cloud"


def _utc(*fields: int) -> float:
    """Epoch seconds of a UTC (year, month, day, hour, minute, second)."""
    return float(calendar.timegm((*fields, 0, 0, 0)))


def apache(
    time: str = "25/Nov/2026:13:24:23 +0100",
    request: str = "POST /v3/auth/tokens HTTP/1.1",
    status: int = 201,
    size: str = "2048",
    micros: int = 58123,
    agent: str = AGENT,
    forwarded: str = "10.0.0.5",
) -> str:
    """A line of kolla-ansible's Keystone format (combined with %D)."""
    return (
        f'{forwarded} - - [{time}] "{request}" {status} {size} {micros} "-" "{agent}"'
    )


def haproxy(
    timers: str = "0/0/1/58/59",
    captured: str = "{" + AGENT + "} ",
    request: str = "POST /v3/auth/tokens HTTP/1.1",
    status: int = 201,
) -> str:
    """An ``option httplog`` line (a captured request header when given)."""
    return (
        "127.0.0.1:40312 [25/Nov/2026:13:24:23.456] keystone_internal_front "
        f"keystone_internal_back/node2 {timers} {status} 2048 - - ---- "
        f'4/4/3/1/0 0/0 {captured}"{request}"'
    )


UWSGI = (
    "[pid: 3699|app: 0|req: 901/901] 127.0.0.1 () {30 vars in 616 bytes} "
    "[Wed Nov 25 13:09:22 2026] GET /v3/users?name__startswith=x => generated "
    "135 bytes in 58 msecs (HTTP/1.1 200) 4 headers in 158 bytes "
    "(1 switches on core 0)"
)


# --- Apache combined with %D -------------------------------------------------


def test_apache_line() -> None:
    found = server_log.parse_line(apache())
    assert found == server_log.LoggedRequest(
        ServerRequest(
            _utc(2026, 11, 25, 12, 24, 23),  # 13:24:23 at +01:00
            "POST",
            "/v3/auth/tokens",
            201,
            0.058123,
            0,
        ),
        AGENT,
        "apache",
    )


@pytest.mark.parametrize(
    ("zone", "hour", "minute"),
    [
        ("+0000", 13, 24),
        ("+0100", 12, 24),
        ("-0500", 18, 24),
        ("+0530", 7, 54),
        ("-0930", 22, 54),
    ],
)
def test_apache_time_carries_its_zone(zone: str, hour: int, minute: int) -> None:
    found = server_log.parse_line(apache(time=f"25/Nov/2026:13:24:23 {zone}"))
    assert found is not None
    assert found.request.start == _utc(2026, 11, 25, hour, minute, 23)


def test_apache_path_without_its_query() -> None:
    found = server_log.parse_line(
        apache(request="GET /v3/users?name__startswith=x&limit=5 HTTP/1.1", status=200)
    )
    assert found is not None
    assert (found.request.method, found.request.path) == ("GET", "/v3/users")
    assert found.request.route == "GET /v3/users"
    assert found.request.status == 200


def test_apache_ids_become_the_route_placeholder() -> None:
    user = "0123456789abcdef0123456789abcdef"
    found = server_log.parse_line(
        apache(request=f"DELETE /v3/users/{user} HTTP/1.1", status=204, size="-")
    )
    assert found is not None
    assert found.request.path == f"/v3/users/{user}"
    assert found.request.route == "DELETE /v3/users/{id}"
    assert found.request.status == 204  # %b of an empty body is "-"


def test_apache_without_x_forwarded_for_and_with_another_agent() -> None:
    found = server_log.parse_line(
        apache(forwarded="-", agent="python-keystoneclient", status=401)
    )
    assert found is not None
    assert found.agent == "python-keystoneclient"
    assert found.request.status == 401
    assert not found.request.ok


def test_apache_empty_agent_is_an_empty_string() -> None:
    found = server_log.parse_line(apache(agent=""))
    assert found is not None
    assert found.agent == ""  # named, but no client: not None (no agents)


@pytest.mark.parametrize(
    "line",
    [
        apache(time="25/Nov/2026:13:24:23"),  # no zone
        apache(time="25/Foo/2026:13:24:23 +0100"),  # no such month
        apache(request="-", status=408),  # a connection closed before a request
        # the plain combined format: no %D before the referer
        '10.0.0.5 - - [25/Nov/2026:13:24:23 +0100] "GET / HTTP/1.1" 200 12 "-" "x"',
    ],
)
def test_apache_lookalikes_are_none(line: str) -> None:
    assert server_log.parse_line(line) is None


# --- haproxy's option httplog ------------------------------------------------


def test_haproxy_line_with_a_captured_user_agent() -> None:
    found = server_log.parse_line(haproxy())
    assert found == server_log.LoggedRequest(
        ServerRequest(
            _utc(2026, 11, 25, 13, 24, 23) + 0.456,  # no zone: read as UTC
            "POST",
            "/v3/auth/tokens",
            201,
            0.058,  # %Tr
            0,
        ),
        AGENT,
        "haproxy",
    )


def test_haproxy_agent_is_the_first_captured_header() -> None:
    found = server_log.parse_line(haproxy(captured="{" + AGENT + "|keystone:5000} "))
    assert found is not None
    assert found.agent == AGENT


def test_haproxy_line_without_a_capture_names_no_agent() -> None:
    found = server_log.parse_line(
        haproxy(captured="", request="GET /v3/projects?domain_id=x HTTP/1.1")
    )
    assert found is not None
    assert found.agent is None
    assert found.request.route == "GET /v3/projects"


def test_haproxy_line_behind_a_syslog_prefix() -> None:
    found = server_log.parse_line(
        "Nov 25 13:24:23 controller1 haproxy[123]: " + haproxy()
    )
    assert found is not None
    assert found.kind == "haproxy"
    assert found.agent == AGENT


def test_haproxy_line_never_answered_is_skipped() -> None:
    assert server_log.parse_line(haproxy(timers="0/0/1/-1/3001", status=504)) is None


def test_haproxy_line_without_a_method_and_path_is_skipped() -> None:
    assert server_log.parse_line(haproxy(request="<BADREQ>")) is None


def test_haproxy_non_request_lines_are_none() -> None:
    assert server_log.parse_line("[WARNING] Server node2 is DOWN") is None


# --- uwsgi's default request line --------------------------------------------


def test_uwsgi_line() -> None:
    found = server_log.parse_line(UWSGI)
    assert found == server_log.LoggedRequest(
        ServerRequest(
            _utc(2026, 11, 25, 13, 9, 22),
            "GET",
            "/v3/users",
            200,
            0.058,
            3699,
        ),
        None,
        "uwsgi",
    )


def test_uwsgi_single_digit_day_is_space_padded() -> None:
    line = UWSGI.replace("[Wed Nov 25 13:09:22 2026]", "[Thu Nov  5 13:09:22 2026]")
    found = server_log.parse_line(line)
    assert found is not None
    assert found.request.start == _utc(2026, 11, 5, 13, 9, 22)


def test_uwsgi_post_with_its_status() -> None:
    line = UWSGI.replace("GET /v3/users?name__startswith=x", "POST /v3/auth/tokens")
    line = line.replace("(HTTP/1.1 200)", "(HTTP/1.1 201)")
    found = server_log.parse_line(line)
    assert found is not None
    assert (found.request.route, found.request.status) == ("POST /v3/auth/tokens", 201)


def test_uwsgi_bad_month_is_none() -> None:
    assert server_log.parse_line(UWSGI.replace("Nov 25", "Foo 25")) is None


# --- other lines and files ---------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "",
        "\n",
        "*** Starting uWSGI 2.0.28 (64bit) on [Wed Nov 25 13:00:00 2026] ***",
        "2026-11-25 13:24:23.456 3699 INFO keystone.common.wsgi [-] POST "
        "http://keystone:5000/v3/auth/tokens",
        "1764077063000000 POST /v3/auth/tokens 201 58000 3699",  # the suite's own
    ],
)
def test_unknown_lines_are_none(line: str) -> None:
    assert server_log.parse_line(line) is None


def test_read_every_request_line_of_any_format(tmp_path: Path) -> None:
    path = tmp_path / "keystone.log"
    path.write_text(
        "\n".join(
            [
                "*** a banner ***",
                apache(),
                haproxy(),
                haproxy(timers="0/0/1/-1/3001", status=504),
                UWSGI,
                "",
            ]
        ),
        encoding="utf-8",
    )
    found = list(server_log.read(path))
    assert [line.kind for line in found] == ["apache", "haproxy", "uwsgi"]


def test_read_survives_bytes_that_are_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "keystone.log"
    path.write_bytes(b"\xff\xfe garbage\n" + apache(agent="caf\xe9").encode("latin-1"))
    (found,) = server_log.read(path)
    assert found.kind == "apache"
    assert found.agent is not None and found.agent.startswith("caf")


def test_read_a_missing_file_is_a_report_error(tmp_path: Path) -> None:
    missing = tmp_path / "missing.log"
    with pytest.raises(ReportError, match="cannot read the server log"):
        list(server_log.read(missing))


def test_read_a_folder_is_a_report_error(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match=str(tmp_path)):
        list(server_log.read(tmp_path))


def test_apache_x_forwarded_for_with_several_hops() -> None:
    found = server_log.parse_line(apache(forwarded="10.0.0.1, 10.0.0.2"))
    assert found is not None and found.agent == AGENT
