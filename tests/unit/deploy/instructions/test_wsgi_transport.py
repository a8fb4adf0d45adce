"""The in-process transport: the environ a server builds, hooks, errors."""

from __future__ import annotations

import json
from typing import Any

import pytest

from rally_keystone_perf.client.keystone_v3 import IdentityClient, PasswordUser
from rally_keystone_perf.deploy.instructions import wsgi_transport
from rally_keystone_perf.deploy.instructions.wsgi_transport import WsgiTransport


class _App:
    """Answers a token request; remembers each environ and body."""

    def __init__(self, status: str = "201 Created") -> None:
        self.status = status
        self.seen: list[tuple[dict[str, Any], bytes]] = []
        self.closed = 0

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        body = environ["wsgi.input"].read()
        self.seen.append((environ, body))
        start_response(self.status, [("X-Subject-Token", "tok"), ("Content-Type", "x")])
        app = self

        class _Body(list):  # a WSGI iterable with close()
            def close(self) -> None:
                app.closed += 1

        return _Body([b'{"token": ', b'{"expires_at": null}}'])


def test_a_token_request_reaches_the_app_as_a_server_sends_it() -> None:
    app, calls = _App(), []
    transport = WsgiTransport(
        app, before=lambda: calls.append("on"), after=lambda: calls.append("off")
    )
    client = IdentityClient(transport, "http://127.0.0.1:5000/v3")
    token = client.create_token(PasswordUser("u", "p", project_name="demo"))
    assert token == "tok"
    environ, body = app.seen[0]
    assert environ["REQUEST_METHOD"] == "POST"
    assert environ["PATH_INFO"] == "/v3/auth/tokens"
    assert environ["CONTENT_TYPE"] == "application/json"
    assert environ["CONTENT_LENGTH"] == str(len(body))
    assert environ["HTTP_HOST"] == "127.0.0.1:5000"
    assert json.loads(body)["auth"]["scope"]["project"]["name"] == "demo"
    assert calls == ["on", "off"] and app.closed == 1


def test_headers_become_http_variables() -> None:
    env = wsgi_transport.environ(
        "http://h:1/v3/auth/tokens?nocatalog", "get", {"X-Auth-Token": "a"}, b""
    )
    assert env["HTTP_X_AUTH_TOKEN"] == "a"
    assert env["QUERY_STRING"] == "nocatalog"
    assert env["REQUEST_METHOD"] == "GET"
    assert "CONTENT_LENGTH" not in env


def test_an_error_status_raises_and_the_hooks_still_pair() -> None:
    calls: list[str] = []
    transport = WsgiTransport(
        _App("401 Unauthorized"),
        before=lambda: calls.append("on"),
        after=lambda: calls.append("off"),
    )
    with pytest.raises(wsgi_transport.HttpError, match="401 Unauthorized"):
        transport.request("http://h/v3/projects", "GET")
    assert calls == ["on", "off"]


def test_response_headers_ignore_case() -> None:
    response = wsgi_transport.WsgiResponse("200 OK", [("X-A", "1")], b"{}")
    assert response.headers["x-a"] == "1" and response.headers.get("X-A") == "1"
    assert response.status_code == 200 and response.json() == {}
