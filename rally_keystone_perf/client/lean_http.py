"""A lean HTTP transport for the identity client: HTTP/1.1, kept alive.

keystoneauth on requests costs about 2 ms of CPU per request on this
suite's 2-core machines (requests' adapters, hooks, cookie merging, urllib3's
pool and its typing checks), three times what :mod:`http.client` needs for
the same request, and http.client's own parsing is most of what is left
(:mod:`.http_wire` speaks the protocol here). Where the load generator's
CPU competes with the server's (the Locust engine's workers exist to send
as much as possible), the client uses this transport instead: the same
one request per call, the same keep-alive, the same keystoneauth
exceptions, so an iteration's record and its atomic action are what they
are on keystoneauth.

What it leaves out, on purpose: proxies (the load goes straight to the
Keystone under test, on loopback or the run's own namespaces), retries
(keystoneauth's are off in this client too: ``connect_retries=0``), cookies
and redirects (Keystone's v3 API sends neither to this client).
"""

from __future__ import annotations

import json as jsonlib
import os
import socket
import ssl
import threading
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from keystoneauth1 import exceptions as ks_exceptions
from requests.structures import CaseInsensitiveDict
from urllib3.util.wait import wait_for_read

from rally_keystone_perf.client import http_wire

USER_AGENT = "rally-keystone-perf"
# the run folder's name, set by the suite's Rally for its processes: each
# request's User-Agent names the run, so a shared server's access log tells
# this run's requests from other clients' (``run --os-cloud``)
RUN_NAME_ENV = "KEYSTONE_PERF_RUN_NAME"


def user_agent() -> str:
    """``rally-keystone-perf``, or ``rally-keystone-perf/<run>`` in a run."""
    run = os.environ.get(RUN_NAME_ENV, "").strip()
    return f"{USER_AGENT}/{run}" if run else USER_AGENT


_Key = tuple[str, str, int]


class LeanResponse:
    """What the client and keystoneauth's ``from_response`` read of a response."""

    def __init__(self, status: int, reason: str, headers: Any, content: bytes) -> None:
        self.status_code = status
        self.reason = reason
        self.headers: CaseInsensitiveDict[str] = CaseInsensitiveDict(headers)
        self.content = content

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", errors="replace")

    def json(self) -> Any:
        return jsonlib.loads(self.content)


def _tls_context(verify: bool | str, cert: Any) -> ssl.SSLContext:
    if verify is False:
        context = ssl._create_unverified_context()
    elif isinstance(verify, str):
        context = ssl.create_default_context(cafile=verify)
    else:
        context = ssl.create_default_context()
    if cert:
        pair = (cert,) if isinstance(cert, str) else tuple(cert)
        context.load_cert_chain(*pair)
    return context


class LeanSession:
    """keystoneauth ``Session.request`` as the identity client calls it.

    Connections are kept per scheme, host and port and reused last-in
    first-out; one that the server closed while idle is dropped before it
    is used (as urllib3 does), never retried after a request was sent.
    Threads and greenlets may share a session: each takes a connection of
    its own for the time of one request.
    """

    def __init__(
        self,
        verify: bool | str = True,
        cert: Any = None,
        timeout: float = 120.0,
        pool_size: int = 256,
    ) -> None:
        self.timeout = timeout
        self.pool_size = pool_size
        self.user_agent = user_agent()  # read once: not inside a request's timer
        self._tls = _tls_context(verify, cert)
        self._idle: dict[_Key, list[http_wire.Connection]] = {}
        self._addresses: dict[_Key, tuple[tuple[Any, ...], ...]] = {}
        self._lock = threading.Lock()

    def request(
        self,
        url: str,
        method: str,
        headers: Mapping[str, str] | None = None,
        json: Any = None,
        raise_exc: bool = True,
        **ignored: Any,  # keystoneauth's authenticated=, connect_retries=
    ) -> LeanResponse:
        """Send one request; raise keystoneauth's error for a 4xx or 5xx."""
        parts = urlsplit(url)
        key = (parts.scheme, parts.hostname or "", parts.port or _port(parts.scheme))
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        sent = {"User-Agent": self.user_agent, "Accept": "application/json"}
        body = None
        if json is not None:
            body = jsonlib.dumps(json).encode()
            sent["Content-Type"] = "application/json"
        sent.update(headers or {})
        wire = http_wire.request_bytes(method, target, parts.netloc, sent, body)
        conn = None
        try:
            conn = self._take(key)
            answer = conn.exchange(wire, method)
        except OSError as exc:  # http_wire.WireError and TimeoutError too
            if conn is not None:
                conn.close()
            raise _failure(url, exc) from exc
        if answer.will_close:
            conn.close()
        else:
            self._give_back(key, conn)
        response = LeanResponse(
            answer.status, answer.reason, answer.headers, answer.body
        )
        if raise_exc and response.status_code >= 400:
            raise ks_exceptions.from_response(response, method, url)  # type: ignore[arg-type]
        return response

    def _take(self, key: _Key) -> http_wire.Connection:
        """An idle connection still open, else a new one (connected here, so
        a refused connect is the request's ConnectFailure)."""
        with self._lock:
            idle = self._idle.get(key, [])
            while idle:
                kept = idle.pop()
                if not wait_for_read(kept.sock, timeout=0):
                    return kept  # alive: nothing to read while idle
                kept.close()  # the server closed it (or sent something unasked)
        return http_wire.Connection(self._connect(key))

    def _connect(self, key: _Key) -> socket.socket:
        """A socket connected to the host's address, looked up once.

        A server that closes every connection (the uwsgi router) makes each
        request a connect; gevent resolves in a thread pool, which cost the
        Locust workers more CPU than the request. The Host header and TLS's
        server name stay the URL's host.
        """
        scheme, host, port = key
        found = self._addresses.get(key)
        if found is None:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
            found = self._addresses[key] = tuple(
                (family, kind, proto, where) for family, kind, proto, _, where in infos
            )
        error: OSError = OSError(f"no address for {host}")
        for family, kind, proto, where in found:  # as create_connection
            sock = socket.socket(family, kind, proto)
            try:
                sock.settimeout(self.timeout)
                sock.connect(where)  # an address: nothing to resolve
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                if scheme == "https":
                    return self._tls.wrap_socket(sock, server_hostname=host)
                return sock
            except OSError as exc:
                sock.close()
                error = exc
        raise error

    def _give_back(self, key: _Key, conn: http_wire.Connection) -> None:
        with self._lock:
            idle = self._idle.setdefault(key, [])
            if len(idle) < self.pool_size:
                idle.append(conn)
                return
        conn.close()

    def close(self) -> None:
        """Close every idle connection."""
        with self._lock:
            idle, self._idle = self._idle, {}
        for conns in idle.values():
            for conn in conns:
                conn.close()


def _failure(url: str, exc: OSError) -> ks_exceptions.ConnectionError:
    """keystoneauth's error for a request that got no response."""
    if isinstance(exc, TimeoutError):
        return ks_exceptions.ConnectTimeout(f"Request to {url} timed out: {exc}")
    return ks_exceptions.ConnectFailure(
        f"Unable to establish connection to {url}: {exc!r}"
    )


def _port(scheme: str) -> int:
    return 443 if scheme == "https" else 80
