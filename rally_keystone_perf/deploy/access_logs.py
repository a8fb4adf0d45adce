"""The access-log line every server of a run writes, each format defined once.

One line per request: ``<start, us since epoch> <METHOD> <URI> <status>
<server time, us> <worker pid>``, which
:mod:`rally_keystone_perf.report.readers.access_log` reads back. uwsgi's
``logformat`` (the uwsgi, nginx+uwsgi and nova-fake templates) and Apache's
``LogFormat`` are rendered from here; the eventlet server turns eventlet's
own line into it (:mod:`.eventlet_server`). nginx's log in front of uwsgi
(seconds, its upstream time) is a format of its own.
"""

from __future__ import annotations

# uwsgi's access log (default: its combined-like request line without times)
UWSGI_LOGFORMAT = "%(tmicros) %(method) %(uri) %(status) %(micros) %(pid)"
# Apache's, as mod_log_config names the same fields (%{usec}t: the start)
APACHE_LOGFORMAT = "%{usec}t %m %U%q %>s %D %P"


def template_values() -> dict[str, str]:
    """The formats as the templates name them."""
    return {"uwsgi_logformat": UWSGI_LOGFORMAT, "apache_logformat": APACHE_LOGFORMAT}
