"""The identity client's transport for an application in this process.

:class:`WsgiTransport` has the ``request(url, method, **kwargs)`` of the
client's sessions (:class:`rally_keystone_perf.client.keystone_v3.Transport`):
it builds the WSGI environ a server would, calls the application and reads
its whole body. Only the call and the body's reading are counted: the
``counted`` hooks run right before and right after them, so the client's
work (the request's JSON, the environ, the response's parsing) stays out of
the figure.
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any
from urllib.parse import urlsplit

Application = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]
Hook = Callable[[], None]


class HttpError(Exception):
    """The application answered with an error status."""


def _nothing() -> None:
    """The hook of an uncounted request."""


class WsgiResponse:
    """What the client reads of a response: status, headers, JSON body."""

    def __init__(self, status: str, headers: list[tuple[str, str]], body: bytes):
        self.status_code = int(status.split(" ", 1)[0])
        self.headers = _Headers(headers)
        self.content = body

    def json(self) -> Any:
        """The body, decoded as JSON."""
        return json.loads(self.content)


class _Headers(dict[str, str]):
    """Response headers, looked up without regard to case."""

    def __init__(self, pairs: list[tuple[str, str]]) -> None:
        super().__init__((name.lower(), value) for name, value in pairs)

    def __getitem__(self, name: str) -> str:
        return super().__getitem__(name.lower())

    def get(self, name: str, default: Any = None) -> Any:  # type: ignore[override]
        return super().get(name.lower(), default)


def environ(
    url: str,
    method: str,
    headers: Mapping[str, str],
    body: bytes,
) -> dict[str, Any]:
    """The WSGI environ of one request, as a server builds it."""
    parts = urlsplit(url)
    host = parts.hostname or "127.0.0.1"
    port = str(parts.port or 80)
    env: dict[str, Any] = {
        "REQUEST_METHOD": method.upper(),
        "SCRIPT_NAME": "",
        "PATH_INFO": parts.path,
        "QUERY_STRING": parts.query,
        "SERVER_NAME": host,
        "SERVER_PORT": port,
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "HTTP_HOST": f"{host}:{port}",
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": parts.scheme or "http",
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": False,
        "wsgi.multiprocess": False,
        "wsgi.run_once": False,
    }
    if body:
        env["CONTENT_LENGTH"] = str(len(body))
    for name, value in headers.items():
        key = name.upper().replace("-", "_")
        if key == "CONTENT_TYPE":
            env[key] = value
        else:
            env[f"HTTP_{key}"] = value
    return env


class WsgiTransport:
    """Requests answered by ``app`` in this process; ``before``/``after``
    run around the application's call and the reading of its body."""

    def __init__(
        self, app: Application, before: Hook = _nothing, after: Hook = _nothing
    ) -> None:
        self.app = app
        self.before = before
        self.after = after

    def request(self, url: str, method: str, **kwargs: Any) -> WsgiResponse:
        """One request; :class:`HttpError` on a status of 400 or more.

        Accepts the client's keyword arguments: ``headers``, ``json``; the
        session-only ones (``authenticated``, ``connect_retries``) are ignored.
        """
        headers = dict(kwargs.get("headers") or {})
        body = b""
        if kwargs.get("json") is not None:
            body = json.dumps(kwargs["json"]).encode()
            headers.setdefault("Content-Type", "application/json")
        env = environ(url, method, headers, body)
        started: list[Any] = []

        def start_response(status: str, pairs: Any, exc_info: Any = None) -> Any:
            started[:] = [status, pairs]
            return None

        self.before()
        result = self.app(env, start_response)
        try:
            content = b"".join(result)
        finally:
            close = getattr(result, "close", None)
            if close is not None:
                close()
            self.after()
        response = WsgiResponse(started[0], started[1], content)
        if response.status_code >= 400:
            raise HttpError(
                f"{method} {urlsplit(url).path}: {started[0]}: {content[:300]!r}"
            )
        return response
