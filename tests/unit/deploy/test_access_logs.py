"""Tests for rally_keystone_perf.deploy.access_logs: the formats the servers
are told, defined once, in every template that writes an access log."""

from __future__ import annotations

from rally_keystone_perf import paths
from rally_keystone_perf.deploy import access_logs

TEMPLATES = {
    "uwsgi/uwsgi.ini.tmpl": "logformat = ${uwsgi_logformat}",
    "nginx-uwsgi/uwsgi.ini.tmpl": "logformat = ${uwsgi_logformat}",
    "nova-fake/uwsgi-app.ini.tmpl": "logformat = ${uwsgi_logformat}",
    "apache/httpd.conf.tmpl": 'LogFormat "${apache_logformat}" keystone_timing',
}


def test_every_template_takes_its_format_from_here() -> None:
    for name, line in TEMPLATES.items():
        lines = (paths.deployments_dir() / name).read_text().splitlines()
        assert line in lines, name
        assert not any("%(tmicros)" in text or "%{usec}t" in text for text in lines)


def test_both_formats_name_the_same_six_fields_in_order() -> None:
    uwsgi = access_logs.UWSGI_LOGFORMAT.split()
    apache = access_logs.APACHE_LOGFORMAT.split()
    # start, method, path, status, server time (us), worker pid
    assert uwsgi == [
        "%(tmicros)",
        "%(method)",
        "%(uri)",
        "%(status)",
        "%(micros)",
        "%(pid)",
    ]
    assert apache == ["%{usec}t", "%m", "%U%q", "%>s", "%D", "%P"]
    assert set(access_logs.template_values()) == {"uwsgi_logformat", "apache_logformat"}
