"""Keystone's own WSGI application, answering 500 when it raises.

When Keystone's app raises instead of returning a response (it does for some
database errors, e.g. SQLite's "database is locked"), uwsgi's HTTP router with
keep-alive sends the client nothing and the client waits for its timeout.
Apache's mod_wsgi answers such a request with a 500; this wrapper makes uwsgi
do the same, so a failed request is counted as a failure at once, not as a
2-minute stall. The traceback goes to keystone.log.

On SQLite, a writer's transaction begins IMMEDIATE and waits its turn
(:mod:`.keystone.sqlite_writers`): no "database is locked" for concurrent
writers.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any

# isort: off
# before Keystone: OSProfiler finds --trace's driver among loaded classes
from rally_keystone_perf.deploy.tracing import trace_driver  # noqa: F401
import keystone.conf
from keystone.common.rbac_enforcer import enforcer as _rbac
from keystone.wsgi.api import application as keystone_application

from rally_keystone_perf.deploy.keystone import sqlite_writers

# isort: on

LOG = logging.getLogger("keystone.wsgi.guard")


def load_policy_rules() -> None:
    """Load Keystone's policy rules now, before the first request.

    Keystone publishes its shared policy enforcer before registering the
    rules in it, so with several threads per process the first concurrent
    requests of a fresh worker see no rules (403 ForbiddenAction) or fail
    with "dictionary changed size during iteration" (500). Measured: 2-13 of
    20 first requests failed on 4 x 5 uwsgi workers; none after this.
    """
    enforcer = _rbac.RBACEnforcer()._enforcer  # a Borg: shared by all instances
    enforcer.suppress_deprecation_warnings = True
    enforcer.load_rules()


load_policy_rules()


def install_trace_points() -> None:
    """``--trace``: spans for the cache, policy, password hashing and tokens
    (:mod:`.tracing.trace_points`), when Keystone's ``[profiler]`` is on."""
    if keystone.conf.CONF.profiler.enabled:
        from rally_keystone_perf.deploy.tracing import (  # costly: wraps Keystone
            trace_points,
        )

        trace_points.install()


install_trace_points()
# on SQLite, a writer's transaction waits its turn instead of failing
sqlite_writers.install()

_BODY = (
    b'{"error": {"code": 500, "title": "Internal Server Error", '
    b'"message": "Keystone raised an unhandled error; see keystone.log"}}'
)


def application(
    environ: dict[str, Any], start_response: Callable[..., Any]
) -> Iterable[bytes]:
    """Call Keystone; turn an exception escaping it into a complete 500 response.

    Keystone's status and headers are held back until it returns, so that a
    500 never follows a status it had already set (uwsgi would then send both
    and the HTTP router would drop the connection).
    """
    held: list[Any] = []

    def hold(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
        held[:] = [status, headers]
        return _no_write

    try:
        body = keystone_application(environ, hold)
    except Exception:
        LOG.exception("unhandled error in Keystone, answered with HTTP 500")
        start_response(
            "500 Internal Server Error",
            [
                ("Content-Type", "application/json"),
                ("Content-Length", str(len(_BODY))),
            ],
        )
        return [_BODY]
    if not held:
        raise RuntimeError("Keystone returned without calling start_response")
    start_response(*held)
    return body


def _no_write(data: bytes) -> None:
    """WSGI's legacy write() callable, which Keystone (Flask) never uses."""
    raise NotImplementedError("write() is not supported by this wrapper")
