"""OSProfiler's redis driver with one round trip per request, not per event.

OSProfiler's own redis driver sends each event (a span's start, its stop)
to redis as it happens: measured on a traced validation (532 events),
200 us per event, 97% of the request's time. This driver keeps a request's
events in memory and hands them, when its outermost span ends, to a
thread of the process that pushes them in one command, in the same keys
and format as OSProfiler's driver (``osprofiler_opt:<trace id>``, newest
first). Keystone selects it by its connection string's scheme
(:data:`~rally_keystone_perf.deploy.tracing.profiler.DRIVER_SCHEME`); the suite's
WSGI entry point imports this module before Keystone so that OSProfiler
finds it. A cluster node's connection string names the node
(``?host=node2``), which replaces the machine's host name in its spans.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
import urllib.parse
from typing import Any

from oslo_serialization import jsonutils
from osprofiler.drivers import redis_driver

from rally_keystone_perf.deploy.tracing.profiler import DRIVER_SCHEME, HOST_PARAM

LOG = logging.getLogger(__name__)


def split_host(url: str) -> tuple[str, str | None]:
    """``url`` without its ``host`` query parameter, and that parameter."""
    parts = urllib.parse.urlsplit(url)
    query = urllib.parse.parse_qsl(parts.query)
    hosts = [value for name, value in query if name == HOST_PARAM]
    rest = urllib.parse.urlencode([(n, v) for n, v in query if n != HOST_PARAM])
    return parts._replace(query=rest).geturl(), (hosts[-1] if hosts else None)


class BufferedRedis(redis_driver.Redis):
    """A request's events in one redis command, sent off the request's thread."""

    def __init__(self, connection_str: str, *args: Any, **kwargs: Any) -> None:
        url, self._host = split_host("redis" + connection_str[len(DRIVER_SCHEME) :])
        super().__init__(url, *args, **kwargs)
        self._local = threading.local()
        self._queue: queue.SimpleQueue[tuple[str, list[dict[str, Any]]]] = (
            queue.SimpleQueue()
        )
        self._sender_pid: int | None = None
        self._sender_lock = threading.Lock()

    @classmethod
    def get_name(cls) -> str:
        """The connection string's scheme that selects this driver."""
        return DRIVER_SCHEME

    def notify(self, info: dict[str, Any], **kwargs: Any) -> None:
        """Keep the event; hand the request's events off once its spans closed."""
        data = info.copy()
        data["project"] = self.project
        data["service"] = self.service
        if self._host is not None:
            data["info"] = {**data.get("info", {}), "host": self._host}
        local = self._local
        events = getattr(local, "events", None)
        if events is None:
            events = local.events = []
            local.depth = 0
        events.append(data)
        local.depth += 1 if data["name"].endswith("-start") else -1
        if local.depth <= 0:
            local.events, local.depth = None, 0
            self._sender()
            self._queue.put((data["base_id"], events))

    def _sender(self) -> None:
        """Start this process's sending thread (a forked worker has none yet)."""
        if self._sender_pid == os.getpid():
            return
        with self._sender_lock:
            if self._sender_pid != os.getpid():
                thread = threading.Thread(
                    target=self._send_forever, name="ksp-trace-sender", daemon=True
                )
                thread.start()
                self._sender_pid = os.getpid()

    def _send_forever(self) -> None:
        while True:
            base_id, events = self._queue.get()
            try:
                encoded = [jsonutils.dumps(event) for event in events]
                self.db.lpush(self.namespace_opt + base_id, *encoded)
            except Exception:  # noqa: BLE001 - a lost trace must not stop the rest
                LOG.exception("could not store trace %s", base_id)
